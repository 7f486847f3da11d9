//! The first pass of `~p`: the term as a tree of pieces with their one-line
//! texts and lengths (`io_lib_pretty`'s intermediate format, `print_length`).

use super::PrettyOptions;
use crate::bits::Bitstring;
use crate::print::write_term_with;
use crate::quote::{printable_latin1, printable_unicode, push_atom, push_quoted, Encoding};
use crate::term::Term;

/// A piece of output with its length in characters.
pub(super) struct Piece {
    pub kind: Kind,
    pub len: i64,
}

pub(super) enum Kind {
    /// Text printed as is (atoms, numbers, strings, printable binaries, `{...}`).
    Text(String),
    /// A binary written as numbers: its byte segments (`"65"`, `"5:3"`, `"..."`),
    /// between which lines may break.
    Bin(Vec<String>),
    List(Seq),
    /// A tuple; tagged when it has two or more elements and the first is an atom.
    Tuple(bool, Seq),
    /// A map's `key => value` pairs.
    Map(Seq),
    Pair(Box<Piece>, Box<Piece>),
}

/// Elements of a list, tuple or map and how the sequence ends.
pub(super) struct Seq {
    pub items: Vec<Piece>,
    pub end: End,
}

pub(super) enum End {
    Nil,
    /// Cut at the depth limit: `|...` in lists, `,...` in tuples and maps.
    Dots,
    /// The tail of an improper list.
    Tail(Box<Piece>),
}

impl Piece {
    fn text(s: String) -> Piece {
        Piece {
            len: s.chars().count() as i64,
            kind: Kind::Text(s),
        }
    }

    /// `io_lib_pretty`'s `?ATM`: a piece that is plain text, which may share a
    /// line with its neighbours.
    pub fn is_text(&self) -> bool {
        match &self.kind {
            Kind::Text(_) => true,
            Kind::Pair(k, v) => k.is_text() && v.is_text(),
            _ => false,
        }
    }
}

/// Length of a sequence written on one line between brackets of `open` chars
/// in total (`list_length`): elements, separators and a `...` end.
fn seq_len(seq: &Seq, brackets: i64) -> i64 {
    let n = seq.items.len() as i64;
    let mut len = brackets + seq.items.iter().map(|p| p.len).sum::<i64>() + (n - 1).max(0);
    match &seq.end {
        End::Nil => {}
        End::Dots => len += 3 + i64::from(n > 0),
        End::Tail(t) => len += t.len + i64::from(n > 0),
    }
    len
}

pub(super) fn measure(t: &Term, d: i64, o: &PrettyOptions) -> Piece {
    match t {
        Term::Nil => Piece::text("[]".into()),
        Term::Atom(a) => {
            let mut s = String::new();
            push_atom(&mut s, a.name(), o.encoding);
            Piece::text(s)
        }
        Term::Cons(_) => match printable_string(t, d, o) {
            Some(chars) => {
                let mut s = String::new();
                push_quoted(&mut s, chars.into_iter(), '"', o.encoding);
                Piece::text(s)
            }
            None => {
                let seq = measure_list(t, d, o);
                Piece {
                    len: seq_len(&seq, 2),
                    kind: Kind::List(seq),
                }
            }
        },
        Term::Tuple(tu) => {
            let elems = tu.elements();
            if elems.is_empty() {
                return Piece::text("{}".into());
            }
            if d == 1 {
                return Piece::text("{...}".into());
            }
            let mut items = Vec::with_capacity(elems.len());
            let mut end = End::Nil;
            let mut dd = d;
            for e in elems {
                if dd == 1 {
                    end = End::Dots;
                    break;
                }
                items.push(measure(e, dd - 1, o));
                dd -= 1;
            }
            let tagged = elems.len() > 1 && matches!(elems[0], Term::Atom(_));
            let seq = Seq { items, end };
            Piece {
                len: seq_len(&seq, 2),
                kind: Kind::Tuple(tagged, seq),
            }
        }
        Term::Map(m) => {
            if m.is_empty() {
                return Piece::text("#{}".into());
            }
            if d == 1 {
                return Piece::text("#{...}".into());
            }
            let mut items = Vec::with_capacity(m.len());
            let mut end = End::Nil;
            let mut dd = d;
            for (k, v) in m.iter() {
                if dd == 1 {
                    end = End::Dots;
                    break;
                }
                let k = measure(k, d - 1, o);
                let v = measure(v, d - 1, o);
                items.push(Piece {
                    len: k.len + 4 + v.len,
                    kind: Kind::Pair(Box::new(k), Box::new(v)),
                });
                dd -= 1;
            }
            let seq = Seq { items, end };
            Piece {
                len: seq_len(&seq, 3),
                kind: Kind::Map(seq),
            }
        }
        Term::Binary(b) => measure_binary(b, d, o),
        Term::Fun(_)
        | Term::Int(_)
        | Term::Big(_)
        | Term::Float(_)
        | Term::Pid(_)
        | Term::Ref(_) => Piece::text(write_term_with(t, -1, Encoding::Latin1)),
    }
}

fn measure_list(t: &Term, d: i64, o: &PrettyOptions) -> Seq {
    let mut items = Vec::new();
    let mut cur = t;
    let mut dd = d;
    loop {
        match cur {
            Term::Nil => {
                return Seq {
                    items,
                    end: End::Nil,
                }
            }
            _ if dd == 1 => {
                return Seq {
                    items,
                    end: End::Dots,
                }
            }
            Term::Cons(c) => {
                items.push(measure(&c.head, dd - 1, o));
                cur = &c.tail;
                dd -= 1;
            }
            other => {
                let tail = measure(other, dd - 1, o);
                return Seq {
                    items,
                    end: End::Tail(Box::new(tail)),
                };
            }
        }
    }
}

fn is_printable(c: u32, range: Encoding) -> bool {
    match range {
        Encoding::Latin1 => printable_latin1(c),
        Encoding::Unicode => printable_unicode(c),
    }
}

/// The characters of a list that `~p` prints as a string: a proper, flat list
/// of printable characters (`io_lib:printable_list`), never at depth 1.
fn printable_string(t: &Term, d: i64, o: &PrettyOptions) -> Option<Vec<char>> {
    if !o.strings || d == 1 {
        return None;
    }
    // ~p checks the latin1 range; ~tp checks io:printable_range().
    let range = match o.encoding {
        Encoding::Latin1 => Encoding::Latin1,
        Encoding::Unicode => o.printable_range,
    };
    let mut chars = Vec::new();
    let mut it = t.list_iter();
    for e in &mut it {
        match e {
            Term::Int(c) if (0..=0x10FFFF).contains(c) && is_printable(*c as u32, range) => {
                chars.push(char::from_u32(*c as u32)?)
            }
            _ => return None,
        }
    }
    it.is_proper().then_some(chars)
}

/// How many leading bytes `~p` examines for a printable binary at depth `d`:
/// four characters per level of depth left.
const CHARS_PER_DEPTH: i64 = 4;

enum BinText {
    /// All of it is printable: `<<"text">>`, or `<<"text"/utf8>>` when multi-byte.
    Whole(Vec<char>, bool),
    /// A printable prefix, cut by the depth limit: `<<"te"...>>`.
    Prefix(Vec<char>, bool),
}

fn measure_binary(b: &Bitstring, d: i64, o: &PrettyOptions) -> Piece {
    if b.bit_len() == 0 {
        return Piece::text("<<>>".into());
    }
    if d == 1 {
        return Piece::text("<<...>>".into());
    }
    let printable = if o.strings && b.is_binary() {
        printable_binary(b.bytes(), d - 1, o)
    } else {
        None
    };
    let (chars, utf8, cut) = match printable {
        Some(BinText::Whole(c, plain)) => (c, !plain, false),
        Some(BinText::Prefix(c, plain)) => (c, !plain, true),
        None => return bin_numbers(b, d),
    };
    let mut s = String::from("<<");
    push_quoted(&mut s, chars.into_iter(), '"', Encoding::Unicode);
    if utf8 {
        s.push_str("/utf8");
    }
    if cut {
        s.push_str("...");
    }
    s.push_str(">>");
    Piece::text(s)
}

/// A binary that is not printable, as `io_lib:write_binary` writes it.
fn bin_numbers(b: &Bitstring, d: i64) -> Piece {
    let mut text = String::new();
    crate::print::write_bitstring(&mut text, b, d);
    let inner = &text[2..text.len() - 2];
    let segs: Vec<String> = inner.split(',').map(str::to_string).collect();
    Piece {
        len: text.len() as i64,
        kind: Kind::Bin(segs),
    }
}

/// Count of leading printable latin1 characters among `bytes`.
fn latin1_run(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|&&c| printable_latin1(u32::from(c)))
        .count()
}

/// `io_lib_pretty`'s `printable_bin0`: whether (a prefix of) the binary prints
/// as a string, looking at no more than `4 * d` bytes when the depth is limited.
fn printable_binary(bytes: &[u8], d: i64, o: &PrettyOptions) -> Option<BinText> {
    let len = if d >= 0 {
        (CHARS_PER_DEPTH * d).min(bytes.len() as i64) as usize
    } else {
        bytes.len()
    };
    if len == 0 {
        return None;
    }
    if o.encoding == Encoding::Unicode {
        if let Some(r) = printable_utf8(bytes, len, d, o.printable_range) {
            return r;
        }
    }
    printable_latin1_binary(bytes, len, d)
}

fn latin1_chars(bytes: &[u8]) -> Vec<char> {
    bytes.iter().map(|&c| char::from(c)).collect()
}

fn printable_latin1_binary(bytes: &[u8], len: usize, d: i64) -> Option<BinText> {
    // OTP looks at the first 20 bytes, then at the rest of `len`.
    let n = len.min(20);
    let run = latin1_run(&bytes[..n]);
    if run == n {
        if n == bytes.len() {
            return Some(BinText::Whole(latin1_chars(bytes), true));
        }
        if n == len {
            return Some(BinText::Prefix(latin1_chars(&bytes[..n]), true));
        }
        let run = n + latin1_run(&bytes[n..len]);
        if run == len && len == bytes.len() {
            return Some(BinText::Whole(latin1_chars(bytes), true));
        }
        if d > 0 && run as i64 >= d {
            return Some(BinText::Prefix(latin1_chars(&bytes[..run]), true));
        }
        return None;
    }
    if d > 0 && run as i64 >= d {
        return Some(BinText::Prefix(latin1_chars(&bytes[..run]), true));
    }
    None
}

/// The UTF-8 reading of `printable_bin` for `~tp`: `None` when the first `len`
/// characters are not valid UTF-8 (then the latin1 reading applies).
fn printable_utf8(bytes: &[u8], len: usize, d: i64, range: Encoding) -> Option<Option<BinText>> {
    // Decode up to `len` characters; invalid UTF-8 among them falls back to latin1.
    let valid = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or("");
            if good.chars().count() < len {
                return None;
            }
            good
        }
    };
    let mut chars = Vec::new();
    let mut used = 0;
    for c in valid.chars().take(len) {
        if !is_printable(c as u32, range) {
            break;
        }
        chars.push(c);
        used += c.len_utf8();
    }
    let left = len - chars.len();
    let plain = used == chars.len();
    if used == bytes.len() {
        return Some(Some(BinText::Whole(chars, plain)));
    }
    if d > 0 && (len - left) as i64 >= d {
        return Some(Some(BinText::Prefix(chars, plain)));
    }
    Some(None)
}
