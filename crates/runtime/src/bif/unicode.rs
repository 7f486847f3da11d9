//! The `unicode` module: converting chardata (characters, binaries and
//! nested lists of both) between encodings. Data that cannot be converted
//! gives `{error, Converted, Rest}`, and a binary cut inside a character
//! `{incomplete, Converted, Rest}`, as in OTP; normalisation forms are not
//! supported.

use super::Builder;
use crate::exception::{badarg, BifResult, Fault};
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let m = "unicode";
    b.pure(
        m,
        "characters_to_list",
        1,
        |a| to_list(&a[0], &Term::Atom(atom::UNICODE)),
        0,
    );
    b.pure(m, "characters_to_list", 2, |a| to_list(&a[0], &a[1]), 0);
    b.pure(
        m,
        "characters_to_binary",
        1,
        |a| {
            to_binary(
                &a[0],
                &Term::Atom(atom::UNICODE),
                &Term::Atom(atom::UNICODE),
            )
        },
        0,
    );
    b.pure(
        m,
        "characters_to_binary",
        2,
        |a| to_binary(&a[0], &a[1], &Term::Atom(atom::UNICODE)),
        0,
    );
    b.pure(
        m,
        "characters_to_binary",
        3,
        |a| to_binary(&a[0], &a[1], &a[2]),
        0,
    );
    b.pure(m, "bin_is_7bit", 1, bin_is_7bit, 0);
    b.pure(m, "encoding_to_bom", 1, encoding_to_bom, 0);
    b.pure(m, "bom_to_encoding", 1, bom_to_encoding, 0);
    for name in [
        "characters_to_nfc_list",
        "characters_to_nfd_list",
        "characters_to_nfkc_list",
        "characters_to_nfkd_list",
        "characters_to_nfc_binary",
        "characters_to_nfd_binary",
        "characters_to_nfkc_binary",
        "characters_to_nfkd_binary",
    ] {
        b.pure(
            m,
            name,
            1,
            |_| {
                Err(Fault::Unsupported(
                    "unicode normalisation (characters_to_nf*) is not implemented by trace".into(),
                ))
            },
            0,
        );
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Enc {
    Latin1,
    Utf8,
    Utf16 { little: bool },
    Utf32 { little: bool },
}

fn encoding(t: &Term) -> Result<Enc, Fault> {
    let endian = |e: &Term| match e.as_atom().map(|a| a.name()) {
        Some("big") => Ok(false),
        Some("little") => Ok(true),
        _ => Err(badarg()),
    };
    match t {
        Term::Atom(a) => match a.name() {
            "latin1" => Ok(Enc::Latin1),
            "unicode" | "utf8" => Ok(Enc::Utf8),
            "utf16" => Ok(Enc::Utf16 { little: false }),
            "utf32" => Ok(Enc::Utf32 { little: false }),
            _ => Err(badarg()),
        },
        Term::Tuple(tp) if tp.arity() == 2 => match tp.elements()[0].as_atom().map(|a| a.name()) {
            Some("utf16") => Ok(Enc::Utf16 {
                little: endian(&tp.elements()[1])?,
            }),
            Some("utf32") => Ok(Enc::Utf32 {
                little: endian(&tp.elements()[1])?,
            }),
            _ => Err(badarg()),
        },
        _ => Err(badarg()),
    }
}

/// How reading stopped early.
enum Stop {
    /// Something that is not a character: the rest from there.
    Error(Term),
    /// A binary ending inside a character: its undecoded bytes.
    Incomplete(Term),
}

/// Decodes one character from the front of `b`: `Ok(Some((c, len)))`,
/// `Ok(None)` when `b` ends inside a character, `Err(())` when invalid.
fn decode_one(b: &[u8], enc: Enc) -> Result<Option<(char, usize)>, ()> {
    match enc {
        Enc::Latin1 => Ok(Some((b[0] as char, 1))),
        Enc::Utf8 => {
            let n = match b[0] {
                0x00..=0x7f => 1,
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => return Err(()),
            };
            if b.len() < n {
                // Only an incomplete character if what is there is a valid start.
                return match std::str::from_utf8(b) {
                    Err(e) if e.error_len().is_none() => Ok(None),
                    _ => Err(()),
                };
            }
            let s = std::str::from_utf8(&b[..n]).map_err(|_| ())?;
            Ok(s.chars().next().map(|c| (c, n)))
        }
        Enc::Utf16 { little } => {
            let unit = |i: usize| -> Option<u16> {
                let x = [*b.get(i)?, *b.get(i + 1)?];
                Some(if little {
                    u16::from_le_bytes(x)
                } else {
                    u16::from_be_bytes(x)
                })
            };
            let Some(u1) = unit(0) else { return Ok(None) };
            if (0xd800..0xdc00).contains(&u1) {
                let Some(u2) = unit(2) else { return Ok(None) };
                let c = char::decode_utf16([u1, u2])
                    .next()
                    .and_then(Result::ok)
                    .ok_or(())?;
                return Ok(Some((c, 4)));
            }
            let c = char::decode_utf16([u1])
                .next()
                .and_then(Result::ok)
                .ok_or(())?;
            Ok(Some((c, 2)))
        }
        Enc::Utf32 { little } => {
            if b.len() < 4 {
                return Ok(None);
            }
            let x = [b[0], b[1], b[2], b[3]];
            let v = if little {
                u32::from_le_bytes(x)
            } else {
                u32::from_be_bytes(x)
            };
            char::from_u32(v).map(|c| Some((c, 4))).ok_or(())
        }
    }
}

/// Reads chardata into `out`; binaries are in `enc`. `Err(badarg)` for a
/// term that is not chardata at all.
fn read(t: &Term, enc: Enc, out: &mut Vec<char>, depth: usize) -> Result<Option<Stop>, Fault> {
    if depth > 10_000 {
        return Err(badarg());
    }
    match t {
        Term::Binary(b) if b.is_binary() => {
            let bs = b.bytes();
            let mut i = 0;
            while i < bs.len() {
                match decode_one(&bs[i..], enc) {
                    Ok(Some((c, n))) => {
                        out.push(c);
                        i += n;
                    }
                    Ok(None) => return Ok(Some(Stop::Incomplete(Term::binary(&bs[i..])))),
                    Err(()) => return Ok(Some(Stop::Error(Term::binary(&bs[i..])))),
                }
            }
            Ok(None)
        }
        Term::Nil => Ok(None),
        Term::Cons(_) => {
            let mut cur = t;
            while let Term::Cons(c) = cur {
                match &c.head {
                    Term::Int(i) => match u32::try_from(*i).ok().and_then(char::from_u32) {
                        Some(ch) => out.push(ch),
                        None => return Ok(Some(Stop::Error(Term::list(vec![cur.clone()])))),
                    },
                    h @ (Term::Binary(_) | Term::Nil | Term::Cons(_)) => {
                        if let Some(stop) = read(h, enc, out, depth + 1)? {
                            return Ok(Some(stop));
                        }
                    }
                    _ => return Err(badarg()),
                }
                cur = &c.tail;
            }
            match cur {
                Term::Nil => Ok(None),
                b @ Term::Binary(_) => read(b, enc, out, depth + 1),
                _ => Err(badarg()),
            }
        }
        _ => Err(badarg()),
    }
}

fn stopped(tag: &str, converted: Term, rest: Term) -> Term {
    Term::tuple(vec![Term::atom(tag), converted, rest])
}

fn to_list(data: &Term, in_enc: &Term) -> BifResult {
    let enc = encoding(in_enc)?;
    let mut cs = Vec::new();
    let stop = read(data, enc, &mut cs, 0)?;
    let list = super::strings::chars_term(&cs);
    Ok(match stop {
        None => list,
        Some(Stop::Error(rest)) => stopped("error", list, rest),
        Some(Stop::Incomplete(rest)) => stopped("incomplete", list, rest),
    })
}

/// Encodes characters; `Err(index)` at the first that `enc` cannot hold.
fn encode(cs: &[char], enc: Enc) -> Result<Vec<u8>, (usize, Vec<u8>)> {
    let mut out = Vec::with_capacity(cs.len());
    for (i, &c) in cs.iter().enumerate() {
        match enc {
            Enc::Latin1 => match u8::try_from(c as u32) {
                Ok(b) => out.push(b),
                Err(_) => return Err((i, out)),
            },
            Enc::Utf8 => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Enc::Utf16 { little } => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.extend_from_slice(&if little {
                        u.to_le_bytes()
                    } else {
                        u.to_be_bytes()
                    });
                }
            }
            Enc::Utf32 { little } => {
                let v = c as u32;
                out.extend_from_slice(&if little {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                });
            }
        }
    }
    Ok(out)
}

fn to_binary(data: &Term, in_enc: &Term, out_enc: &Term) -> BifResult {
    let (ie, oe) = (encoding(in_enc)?, encoding(out_enc)?);
    let mut cs = Vec::new();
    let stop = read(data, ie, &mut cs, 0)?;
    let (bytes, unencodable) = match encode(&cs, oe) {
        Ok(b) => (b, None),
        Err((i, b)) => (b, Some(i)),
    };
    if let Some(i) = unencodable {
        let rest = Term::list(vec![super::strings::chars_term(&cs[i..])]);
        return Ok(stopped("error", Term::binary(&bytes), rest));
    }
    let bin = Term::binary(&bytes);
    Ok(match stop {
        None => bin,
        Some(Stop::Error(rest)) => stopped("error", bin, rest),
        Some(Stop::Incomplete(rest)) => stopped("incomplete", bin, rest),
    })
}

fn bin_is_7bit(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Binary(b) if b.is_binary() => Ok(Term::bool(b.bytes().iter().all(|&c| c < 128))),
        _ => Err(badarg()),
    }
}

fn encoding_to_bom(a: &[Term]) -> BifResult {
    let bom: &[u8] = match encoding(&a[0])? {
        Enc::Latin1 | Enc::Utf8 => &[0xef, 0xbb, 0xbf],
        Enc::Utf16 { little: false } => &[0xfe, 0xff],
        Enc::Utf16 { little: true } => &[0xff, 0xfe],
        Enc::Utf32 { little: false } => &[0, 0, 0xfe, 0xff],
        Enc::Utf32 { little: true } => &[0xff, 0xfe, 0, 0],
    };
    Ok(Term::binary(bom))
}

fn bom_to_encoding(a: &[Term]) -> BifResult {
    let Term::Binary(b) = &a[0] else {
        return Err(badarg());
    };
    let bs = b.bytes();
    let pair = |enc: Term, n: i64| Term::tuple(vec![enc, Term::Int(n)]);
    let tagged = |e: &str, end: &str| Term::tuple(vec![Term::atom(e), Term::atom(end)]);
    Ok(if bs.starts_with(&[0xef, 0xbb, 0xbf]) {
        pair(Term::atom("utf8"), 3)
    } else if bs.starts_with(&[0, 0, 0xfe, 0xff]) {
        pair(tagged("utf32", "big"), 4)
    } else if bs.starts_with(&[0xff, 0xfe, 0, 0]) {
        pair(tagged("utf32", "little"), 4)
    } else if bs.starts_with(&[0xfe, 0xff]) {
        pair(tagged("utf16", "big"), 2)
    } else if bs.starts_with(&[0xff, 0xfe]) {
        pair(tagged("utf16", "little"), 2)
    } else {
        pair(Term::atom("latin1"), 0)
    })
}
