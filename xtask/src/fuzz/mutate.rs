//! Mutations of the fuzzer's inputs: bytes of a binary log (bit flips,
//! boundary values over length and count fields, cut, repeated and spliced
//! ranges) and text of a source, a specification or a CauDEr file (tokens
//! dropped, repeated or inserted from a dictionary of the constructs that
//! broke the front ends before: lone dots, deep nesting, invalid UTF-8).

use super::rng::Rng;

/// Values that lengths, counts and indices are most often wrong at.
const BOUNDARY: [u32; 9] = [
    0,
    1,
    0x7F,
    0x80,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
];

/// One to four byte-level mutations of `b`; `other` is a second input to
/// splice from.
pub fn bytes(rng: &mut Rng, b: &mut Vec<u8>, other: &[u8]) {
    for _ in 0..1 + rng.below(4) {
        byte_once(rng, b, other);
    }
}

fn byte_once(rng: &mut Rng, b: &mut Vec<u8>, other: &[u8]) {
    if b.is_empty() {
        b.push(rng.next() as u8);
        return;
    }
    let at = rng.below(b.len());
    match rng.below(8) {
        0 => b[at] ^= 1 << rng.below(8),
        1 => b[at] = rng.next() as u8,
        2 => {
            let v = rng.pick(&BOUNDARY).to_le_bytes();
            let n = v.len().min(b.len() - at);
            b[at..at + n].copy_from_slice(&v[..n]);
        }
        3 => b.truncate(at),
        4 => {
            let end = (at + 1 + rng.below(64)).min(b.len());
            b.drain(at..end);
        }
        5 => {
            let end = (at + 1 + rng.below(256)).min(b.len());
            let chunk = b[at..end].to_vec();
            let to = rng.below(b.len());
            b.splice(to..to, chunk);
        }
        6 => {
            let n = 1 + rng.below(16);
            let fill: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            b.splice(at..at, fill);
        }
        _ if !other.is_empty() => {
            // The tail of another log over this one's: blocks of one run
            // after the header of another.
            let from = rng.below(other.len());
            b.truncate(at);
            b.extend_from_slice(&other[from..]);
        }
        _ => b.reverse(),
    }
}

/// Tokens inserted into text: the constructs that broke a front end.
const WORDS: &[&str] = &[
    ".",
    ",",
    ";",
    "->",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "|",
    "||",
    "<<",
    ">>",
    "#{",
    "=>",
    ":=",
    "end",
    "fun",
    "case",
    "of",
    "receive",
    "after",
    "when",
    "begin",
    "try",
    "catch",
    "if",
    "?",
    "?MODULE",
    "-define(X, X).",
    "-record(r, {a, b}).",
    "#r{}",
    "'a b'",
    "-'a b' export([]).",
    "\"",
    "'",
    "$",
    "%",
    "\n",
    "0",
    "-1",
    "99999999999999999999999",
    "1.0e308",
    "16#FF",
    "_",
    "X",
    "self()",
    "spawn(fun() -> ok end)",
    "P ! m",
    "\u{FF}",
    "\u{1F600}",
    "&&",
    "\\",
    "is followed by",
    "is preceded by",
    "then",
    "never",
    "eventually",
    "always",
    "at most 3",
    "every",
    "send(_, _, _)",
    "receive(_, _)",
    "exit(_)",
    "<P.1>",
    "<0.80.0>",
    "between",
    "and",
    "before",
    "after",
    "until",
    "no_deadlock",
    "{74,spawn,78}",
    "{send,3}",
];

/// One to four text-level mutations of `t` (which may end up invalid UTF-8).
pub fn text(rng: &mut Rng, t: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        text_once(rng, t);
    }
}

fn text_once(rng: &mut Rng, t: &mut Vec<u8>) {
    let at = boundary(t, rng.below(t.len() + 1));
    match rng.below(7) {
        0 | 1 => {
            let w = rng.pick(WORDS).as_bytes().to_vec();
            t.splice(at..at, w);
        }
        2 => {
            let end = boundary(t, (at + 1 + rng.below(40)).min(t.len()));
            t.drain(at..end);
        }
        3 => {
            // A line repeated: a statement, a clause or a form twice.
            let (s, e) = line_around(t, at);
            let line = t[s..e].to_vec();
            t.splice(s..s, line);
        }
        4 => {
            let (s, e) = line_around(t, at);
            t.drain(s..e);
        }
        5 => t.insert(at, [0xFF, 0xC3, 0x80, 0xED][rng.below(4)]),
        _ => t.truncate(at),
    }
}

/// `i`, moved back to the start of a word (between two ASCII characters
/// where possible), so that insertions split tokens only sometimes.
fn boundary(t: &[u8], mut i: usize) -> usize {
    while i > 0 && i < t.len() && t[i - 1].is_ascii_alphanumeric() {
        i -= 1;
    }
    i
}

/// The line holding byte `i`, with its newline.
fn line_around(t: &[u8], i: usize) -> (usize, usize) {
    let s = t[..i]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let e = t[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(t.len(), |p| i + p + 1);
    (s, e)
}
