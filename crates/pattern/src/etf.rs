//! A quick test of a pattern against a term still in the External Term
//! Format: it reads the tags, arities, atoms and small integers the pattern
//! fixes and rejects a term that surely does not match, without decoding it
//! (most messages a pattern is tried on differ in their first bytes). The
//! pattern's fixed parts are compiled once, in encoding order, into a short
//! program ([`Quick`]) run over the bytes. Its answer is conservative: a
//! term is rejected only when it surely differs, and accepted for sure only
//! when the pattern binds nothing and the program read all it fixes.
//!
//! A pattern whose variables each appear once can also be matched here
//! ([`match_with`]): the program notes where each variable's part of the
//! term lies, and only those parts are decoded (`{ping, From}` decodes a
//! pid, not the tuple and its atom).

use crate::etf_prefix::{Lead, Prefix};
use crate::node::Node;
use trace_term::etf::{
    ATOM_EXT, ATOM_UTF8_EXT, BINARY_EXT, BIT_BINARY_EXT, COMPRESSED, FLOAT_EXT, INTEGER_EXT,
    LARGE_BIG_EXT, LARGE_TUPLE_EXT, LIST_EXT, MAP_EXT, NEWER_REFERENCE_EXT, NEW_FLOAT_EXT,
    NEW_PID_EXT, NIL_EXT, SMALL_ATOM_EXT, SMALL_ATOM_UTF8_EXT, SMALL_BIG_EXT, SMALL_INTEGER_EXT,
    SMALL_TUPLE_EXT, STRING_EXT,
};
use trace_term::Term;

/// Nesting the quick test follows; deeper parts are left to the matcher.
const DEPTH: usize = 32;

/// Why the walk stopped early.
enum Stop {
    /// The term does not match.
    No,
    /// The quick test cannot tell.
    Maybe,
}

/// What the quick test says about a term.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EtfTest {
    /// It does not match.
    No,
    /// It matches (the pattern binds no variable and the test read every
    /// part the pattern fixes).
    Yes,
    /// Decode it and match.
    Maybe,
}

fn u16_at(b: &[u8], i: usize) -> Option<usize> {
    Some(u16::from_be_bytes(b.get(i..i + 2)?.try_into().ok()?) as usize)
}

fn u32_at(b: &[u8], i: usize) -> Option<usize> {
    Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?) as usize)
}

/// The offset just past the term at `i`, for the encodings it knows.
fn skip(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    if depth > DEPTH {
        return None;
    }
    let end = match *b.get(i)? {
        SMALL_INTEGER_EXT => i + 2,
        INTEGER_EXT => i + 5,
        NEW_FLOAT_EXT => i + 9,
        FLOAT_EXT => i + 32,
        ATOM_EXT | ATOM_UTF8_EXT => i + 3 + u16_at(b, i + 1)?,
        SMALL_ATOM_EXT | SMALL_ATOM_UTF8_EXT => i + 2 + *b.get(i + 1)? as usize,
        SMALL_TUPLE_EXT => {
            let mut j = i + 2;
            for _ in 0..*b.get(i + 1)? {
                j = skip(b, j, depth + 1)?;
            }
            j
        }
        LARGE_TUPLE_EXT => {
            let mut j = i + 5;
            for _ in 0..u32_at(b, i + 1)? {
                j = skip(b, j, depth + 1)?;
            }
            j
        }
        NIL_EXT => i + 1,
        STRING_EXT => i + 3 + u16_at(b, i + 1)?,
        LIST_EXT => {
            let mut j = i + 5;
            for _ in 0..u32_at(b, i + 1)? {
                j = skip(b, j, depth + 1)?;
            }
            skip(b, j, depth + 1)?
        }
        BINARY_EXT => i + 5 + u32_at(b, i + 1)?,
        BIT_BINARY_EXT => i + 6 + u32_at(b, i + 1)?,
        SMALL_BIG_EXT => i + 3 + *b.get(i + 1)? as usize,
        LARGE_BIG_EXT => i + 6 + u32_at(b, i + 1)?,
        MAP_EXT => {
            let mut j = i + 5;
            for _ in 0..u32_at(b, i + 1)? {
                j = skip(b, j, depth + 1)?;
                j = skip(b, j, depth + 1)?;
            }
            j
        }
        NEW_PID_EXT => skip(b, i + 1, depth + 1)? + 12,
        NEWER_REFERENCE_EXT => {
            let n = u16_at(b, i + 1)?;
            skip(b, i + 3, depth + 1)? + 4 + 4 * n
        }
        _ => return None,
    };
    (end <= b.len()).then_some(end)
}

/// The atom's name bytes at `i`, when they can be compared with a UTF-8 name.
fn atom_at(b: &[u8], i: usize) -> Option<(&[u8], bool)> {
    let (start, len, utf8) = match *b.get(i)? {
        SMALL_ATOM_UTF8_EXT => (i + 2, *b.get(i + 1)? as usize, true),
        ATOM_UTF8_EXT => (i + 3, u16_at(b, i + 1)?, true),
        SMALL_ATOM_EXT => (i + 2, *b.get(i + 1)? as usize, false),
        ATOM_EXT => (i + 3, u16_at(b, i + 1)?, false),
        _ => return None,
    };
    Some((b.get(start..start + len)?, utf8))
}

/// One step of the quick test, over a cursor in the bytes.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A tuple of this arity; the cursor moves to its first element.
    Tuple(u32),
    /// This atom (its UTF-8 name).
    Atom(Box<[u8]>),
    /// This integer.
    Int(i64),
    /// `[]`.
    Nil,
    /// Any one term.
    Skip,
    /// Any one term, bound to this variable (which appears once).
    Bind(usize),
    /// A non-empty list; what it holds is left to the matcher.
    List,
    /// A map; what it holds is left to the matcher.
    Map,
    /// The quick test cannot tell more.
    Stop,
}

/// A pattern's quick test, compiled: the fixed parts of the pattern in the
/// order they appear in the encoding.
#[derive(Clone, Debug, Default)]
pub struct Quick {
    ops: Vec<Op>,
    /// The leading ops as the usual encoders write them, compared at once.
    prefix: Prefix,
    /// Passing every op proves a match.
    pub(crate) decides: bool,
    /// Passing every op proves a match once the bound parts are decoded.
    binds_all: bool,
}

impl Quick {
    pub(crate) fn of(n: &Node) -> Quick {
        let mut uses = Vec::new();
        count_vars(n, &mut uses);
        let mut ops = Vec::new();
        let mut decides = true;
        emit(n, &uses, &mut ops, &mut decides);
        // What follows the last fixed part need not be read.
        while matches!(ops.last(), Some(Op::Skip)) {
            ops.pop();
        }
        let stops = ops
            .iter()
            .any(|o| matches!(o, Op::Stop | Op::List | Op::Map));
        let binds = ops.iter().filter(|o| matches!(o, Op::Bind(_))).count();
        let once = uses.iter().all(|&n| n <= 1);
        Quick {
            binds_all: !stops && once && binds <= MAX_BINDS,
            prefix: Prefix::of(&ops),
            ops,
            decides,
        }
    }
}

/// Variables a pattern matched in ETF may bind.
const MAX_BINDS: usize = 8;

/// How many times each variable appears in `n`.
fn count_vars(n: &Node, uses: &mut Vec<usize>) {
    match n {
        Node::Var(v) => {
            if uses.len() <= *v {
                uses.resize(*v + 1, 0);
            }
            uses[*v] += 1;
        }
        Node::Tuple(ps) => ps.iter().for_each(|p| count_vars(p, uses)),
        Node::Cons(h, t) | Node::Both(h, t) => {
            count_vars(h, uses);
            count_vars(t, uses);
        }
        Node::Map(kvs) => kvs.iter().for_each(|(_, v)| count_vars(v, uses)),
        Node::Any | Node::Lit(_) => {}
    }
}

fn emit(n: &Node, uses: &[usize], ops: &mut Vec<Op>, decides: &mut bool) {
    if matches!(ops.last(), Some(Op::Stop | Op::List | Op::Map)) {
        return;
    }
    match n {
        Node::Any => ops.push(Op::Skip),
        Node::Var(v) => {
            *decides = false;
            ops.push(if uses.get(*v) == Some(&1) {
                Op::Bind(*v)
            } else {
                Op::Skip
            })
        }
        Node::Lit(Term::Atom(a)) => ops.push(Op::Atom(a.name().as_bytes().into())),
        Node::Lit(Term::Int(i)) if i32::try_from(*i).is_ok() => ops.push(Op::Int(*i)),
        Node::Lit(Term::Nil) => ops.push(Op::Nil),
        Node::Tuple(ps) => {
            ops.push(Op::Tuple(ps.len() as u32));
            for p in ps {
                emit(p, uses, ops, decides);
            }
        }
        Node::Cons(..) => {
            *decides = false;
            ops.push(Op::List)
        }
        Node::Map(_) => {
            *decides = false;
            ops.push(Op::Map)
        }
        Node::Lit(_) | Node::Both(..) => {
            *decides = false;
            ops.push(Op::Stop)
        }
    }
}

/// Tags of terms that are neither atoms nor numbers: a literal atom or
/// integer surely differs from them.
fn other_shape(tag: u8) -> bool {
    matches!(
        tag,
        SMALL_TUPLE_EXT
            | LARGE_TUPLE_EXT
            | NIL_EXT
            | STRING_EXT
            | LIST_EXT
            | BINARY_EXT
            | BIT_BINARY_EXT
            | MAP_EXT
            | NEW_PID_EXT
            | NEWER_REFERENCE_EXT
    )
}

/// Runs the program; `bound` is told where each bound part lies
/// (variable, start, end).
#[inline(always)]
fn run(q: &Quick, b: &[u8], mut bound: impl FnMut(usize, usize, usize)) -> Result<(), Stop> {
    // Most terms are encoded the usual way: their first bytes pass or fail
    // the pattern's leading parts in one comparison.
    let (first, mut i) = match q.prefix.lead(b) {
        Lead::Passed => (q.prefix.ops(), q.prefix.len()),
        Lead::Differs => return Err(Stop::No),
        Lead::Unknown => (0, 0),
    };
    let last = q.ops.len().saturating_sub(1);
    for (n, op) in q.ops.iter().enumerate().skip(first) {
        let tag = *b.get(i).ok_or(Stop::No)?;
        // A zlib-compressed term: left to the decoder.
        if tag == COMPRESSED {
            return Err(Stop::Maybe);
        }
        // A list of no elements is its tail, whatever that is.
        if tag == LIST_EXT && u32_at(b, i + 1) == Some(0) {
            return Err(Stop::Maybe);
        }
        match op {
            Op::Tuple(n) => match tag {
                SMALL_TUPLE_EXT if b.get(i + 1) == Some(&(*n as u8)) && *n < 256 => i += 2,
                LARGE_TUPLE_EXT if u32_at(b, i + 1) == Some(*n as usize) => i += 5,
                _ => return Err(Stop::No),
            },
            Op::Atom(name) => match atom_at(b, i) {
                Some((got, utf8)) => {
                    // Latin-1 bytes spell the UTF-8 name only where it is
                    // ASCII: 'Ã©' in Latin-1 has the bytes of 'é' in UTF-8.
                    if !utf8 && !name.is_ascii() {
                        return Err(Stop::Maybe);
                    }
                    if got != &name[..] {
                        return Err(Stop::No);
                    }
                    if n == last {
                        break;
                    }
                    i = skip(b, i, 0).ok_or(Stop::No)?;
                }
                None if other_shape(tag) => return Err(Stop::No),
                None => match tag {
                    SMALL_INTEGER_EXT | INTEGER_EXT | NEW_FLOAT_EXT | FLOAT_EXT => {
                        return Err(Stop::No)
                    }
                    _ => return Err(Stop::Maybe),
                },
            },
            Op::Int(want) => {
                let got = match tag {
                    SMALL_INTEGER_EXT => *b.get(i + 1).ok_or(Stop::No)? as i64,
                    INTEGER_EXT => u32_at(b, i + 1).ok_or(Stop::No)? as u32 as i32 as i64,
                    ATOM_EXT | SMALL_ATOM_EXT | ATOM_UTF8_EXT | SMALL_ATOM_UTF8_EXT
                    | NEW_FLOAT_EXT | FLOAT_EXT => return Err(Stop::No),
                    t if other_shape(t) => return Err(Stop::No),
                    _ => return Err(Stop::Maybe),
                };
                if got != *want {
                    return Err(Stop::No);
                }
                if n == last {
                    break;
                }
                i = skip(b, i, 0).ok_or(Stop::No)?;
            }
            Op::Nil => match tag {
                NIL_EXT => i += 1,
                // An empty string is `[]`.
                STRING_EXT if u16_at(b, i + 1) == Some(0) => i += 3,
                LIST_EXT => return Err(Stop::Maybe),
                _ => return Err(Stop::No),
            },
            Op::Skip => i = skip(b, i, 0).ok_or(Stop::Maybe)?,
            Op::Bind(v) => {
                let end = skip(b, i, 0).ok_or(Stop::Maybe)?;
                bound(*v, i, end);
                i = end;
            }
            Op::List => {
                return match tag {
                    LIST_EXT | STRING_EXT => Err(Stop::Maybe),
                    _ => Err(Stop::No),
                }
            }
            Op::Map => {
                return match tag {
                    MAP_EXT => Err(Stop::Maybe),
                    _ => Err(Stop::No),
                }
            }
            Op::Stop => return Err(Stop::Maybe),
        }
    }
    Ok(())
}

/// The quick test of `q` on a term encoded in `etf` (with its version
/// byte), telling a sure match from a possible one (see [`Pattern::test_etf`](crate::Pattern::test_etf)).
#[inline]
pub(crate) fn test(q: &Quick, etf: &[u8]) -> EtfTest {
    let Some((&131, body)) = etf.split_first() else {
        return EtfTest::Maybe;
    };
    match run(q, body, |_, _, _| {}) {
        Err(Stop::No) => EtfTest::No,
        Err(Stop::Maybe) => EtfTest::Maybe,
        Ok(()) if q.decides => EtfTest::Yes,
        Ok(()) => EtfTest::Maybe,
    }
}

/// What [`match_with`] found.
pub enum EtfMatch {
    /// The term does not match.
    No,
    /// It matches, with these bindings.
    Yes(crate::Bindings),
    /// The bytes cannot tell: decode the term and match it (the bindings
    /// come back as they were given).
    Unknown(crate::Bindings),
}

/// Matches the term encoded in `etf` (with its version byte), decoding only
/// the parts its variables bind; variables bound in `b` already must be
/// equal (`=:=`) to their part.
pub(crate) fn match_with(q: &Quick, etf: &[u8], mut b: crate::Bindings) -> EtfMatch {
    let Some((&131, body)) = etf.split_first().filter(|_| q.binds_all) else {
        return EtfMatch::Unknown(b);
    };
    let mut parts = [(0usize, 0usize, 0usize); MAX_BINDS];
    let mut n = 0;
    match run(q, body, |v, s, e| {
        parts[n] = (v, s, e);
        n += 1;
    }) {
        Err(Stop::No) => return EtfMatch::No,
        Err(Stop::Maybe) => return EtfMatch::Unknown(b),
        Ok(()) => {}
    }
    // Every part decoded before any is bound: bytes the decoder refuses
    // give the bindings back as they came.
    let mut terms: [Option<Term>; MAX_BINDS] = Default::default();
    for (t, &(_, s, e)) in terms.iter_mut().zip(&parts[..n]) {
        match trace_term::etf::decode_part(&body[s..e]) {
            Ok(x) => *t = Some(x),
            Err(_) => return EtfMatch::Unknown(b),
        }
    }
    for (t, &(v, _, _)) in terms.iter_mut().zip(&parts[..n]) {
        if !t.take().is_some_and(|t| b.bind(v, t)) {
            return EtfMatch::No;
        }
    }
    EtfMatch::Yes(b)
}

#[cfg(test)]
mod tests {
    use crate::compile_str;
    use trace_term::Term;

    fn etf(s: &str) -> Vec<u8> {
        let e = trace_syntax::parse_expr(s).unwrap();
        trace_term::etf::to_vec(&crate::compile::literal(&e).unwrap())
    }

    /// The prefix decides what the program would: a term in another form
    /// is read by the program, and still answered right.
    #[test]
    fn the_prefix_and_the_program_agree_on_every_form() {
        let p = compile_str("{req, 300, _}").unwrap();
        assert_eq!(p.test_etf(&etf("{req, 300, x}")), super::EtfTest::Yes);
        assert_eq!(p.test_etf(&etf("{req, 301, x}")), super::EtfTest::No);
        assert_eq!(p.test_etf(&etf("{rep, 300, x}")), super::EtfTest::No);
        assert_eq!(p.test_etf(&etf("{req, 300}")), super::EtfTest::No);
        assert_eq!(p.test_etf(&etf("req")), super::EtfTest::No);
        // `req` as a Latin-1 atom, 300 as it is: another form, same term.
        let mut latin1 = vec![131, 104, 3, 100, 0, 3];
        latin1.extend(b"req");
        latin1.extend([98, 0, 0, 1, 44, 106]);
        assert_eq!(p.test_etf(&latin1), super::EtfTest::Yes);
        // 5 written in four bytes is 5.
        let q = compile_str("{a, 5}").unwrap();
        assert_eq!(
            q.test_etf(&[131, 104, 2, 119, 1, b'a', 98, 0, 0, 0, 5]),
            super::EtfTest::Yes
        );
        assert_eq!(
            q.test_etf(&[131, 104, 2, 119, 1, b'a', 98, 0, 0, 0, 6]),
            super::EtfTest::No
        );
        // Cut short inside the prefix: never a sure match.
        assert_ne!(q.test_etf(&[131, 104, 2, 119, 1]), super::EtfTest::Yes);
    }

    #[test]
    fn tells_sure_matches() {
        use super::EtfTest;
        let p = compile_str("{req, _, _}").unwrap();
        assert_eq!(p.test_etf(&etf("{req, 1, {a, b}}")), EtfTest::Yes);
        assert_eq!(p.test_etf(&etf("{rep, 1, 2}")), EtfTest::No);
        let v = compile_str("{req, N, _}").unwrap();
        assert_eq!(v.test_etf(&etf("{req, 1, 2}")), EtfTest::Maybe);
        let s = compile_str("{req, \"ab\"}").unwrap();
        assert_eq!(s.test_etf(&etf("{req, \"ab\"}")), EtfTest::Maybe);
    }

    #[test]
    fn rejects_what_surely_differs_and_keeps_what_may_match() {
        let p = compile_str("{req, _, N}").unwrap();
        assert!(p.may_match_etf(&etf("{req, 1, 2}")));
        assert!(p.may_match_etf(&etf("{req, [1, 2], {x, \"abc\"}}")));
        assert!(!p.may_match_etf(&etf("{reply, 1, 2}")));
        assert!(!p.may_match_etf(&etf("{req, 1}")));
        assert!(!p.may_match_etf(&etf("[req, 1, 2]")));
        assert!(!p.may_match_etf(&etf("req")));
        let q = compile_str("{_, 7, [_ | _], []}").unwrap();
        assert!(q.may_match_etf(&etf("{a, 7, [1], []}")));
        assert!(!q.may_match_etf(&etf("{a, 8, [1], []}")));
        assert!(!q.may_match_etf(&etf("{a, 7, [], []}")));
        assert!(!q.may_match_etf(&etf("{a, 7, [1], [2]}")) || q.matches(&Term::Nil).is_none());
        // Large integers and bad bytes are left to the matcher.
        let big = compile_str("{x, 1000}").unwrap();
        assert!(big.may_match_etf(&etf("{x, 1000}")));
        assert!(!big.may_match_etf(&etf("{x, 1001}")));
        assert!(p.may_match_etf(&[131, 80, 0, 0, 0, 9]));
        assert!(!p.may_match_etf(&[131, 255, 1]));
        assert!(!p.may_match_etf(&[131]));
        assert!(p.may_match_etf(&[]));
        // Whatever it says, it never rejects a term that matches.
        let bin = Term::tuple(vec![
            Term::atom("req"),
            Term::binary(&[1, 2]),
            Term::Float(3.5),
        ]);
        for bytes in [
            etf("{req, a, b}"),
            etf("{req, {req, x, y}, 3}"),
            trace_term::etf::to_vec(&bin),
        ] {
            let term = trace_term::etf::decode(&bytes).unwrap();
            assert!(p.matches(&term).is_some() && p.may_match_etf(&bytes));
        }
    }

    /// Matching in the bytes binds what decoding and matching binds, and
    /// says no exactly where matching fails.
    #[test]
    fn matching_in_the_bytes_agrees_with_decoding() {
        use super::EtfMatch;
        use crate::Bindings;
        let pats = [
            "{ping, From}",
            "{req, _, {N, M}}",
            "X",
            "{a, 7, Y}",
            "{X, X}",
            "{x, [H | _]}",
        ];
        let terms = [
            "{ping, 3}",
            "{ping, {a, \"s\"}}",
            "{pong, 3}",
            "{req, 1, {2, 3}}",
            "{req, 1, {2}}",
            "{a, 7, [1, 2]}",
            "{a, 8, b}",
            "{1, 1}",
            "{1, 2}",
            "{x, [1]}",
            "7",
        ];
        let mut decided = 0;
        for ptext in pats {
            let p = compile_str(ptext).unwrap();
            for ttext in terms {
                let bytes = etf(ttext);
                let term = trace_term::etf::decode(&bytes).unwrap();
                let want = p.matches(&term);
                let n = p.variables().len();
                match p.match_etf_with(&bytes, Bindings::new(n)) {
                    EtfMatch::No => assert!(want.is_none(), "{ptext} ~ {ttext}"),
                    EtfMatch::Yes(b) => {
                        decided += 1;
                        let want = want.expect("matches");
                        for i in 0..n {
                            assert_eq!(b.get(i), want.get(i), "{ptext} ~ {ttext}");
                        }
                    }
                    EtfMatch::Unknown(_) => {}
                }
            }
        }
        assert!(decided >= 6, "the bytes decided only {decided} matches");
        // A variable bound beforehand must be equal to its part.
        let p = compile_str("{ping, From}").unwrap();
        let mut b = Bindings::new(1);
        b.set(0, Term::Int(4));
        assert!(matches!(
            p.match_etf_with(&etf("{ping, 3}"), b.clone()),
            EtfMatch::No
        ));
        assert!(matches!(
            p.match_etf_with(&etf("{ping, 4}"), b),
            EtfMatch::Yes(_)
        ));
        // A repeated variable is left to the matcher.
        let twice = compile_str("{X, X}").unwrap();
        assert!(matches!(
            twice.match_etf_with(&etf("{1, 1}"), Bindings::new(1)),
            EtfMatch::Unknown(_)
        ));
    }
}
