//! The first bytes of a term that passes a pattern's leading fixed parts,
//! as the usual encoders write them (this project's and OTP's: small tuples,
//! UTF-8 atoms, the shortest integer form).
//!
//! Compared with a term's bytes at once, they decide most terms before the
//! quick test's program runs: equal bytes pass those parts; a difference in
//! what follows a tag the term shares with the prefix (another arity, atom
//! name or integer in the same form) surely rejects it, since each of these
//! forms encodes one value one way. A difference in a tag itself (a term
//! encoded another way, a compressed term, another kind of term) is left to
//! the program, which reads every form.

use crate::etf::Op;
use trace_term::etf::{
    ATOM_UTF8_EXT, INTEGER_EXT, LARGE_TUPLE_EXT, NIL_EXT, SMALL_ATOM_UTF8_EXT, SMALL_INTEGER_EXT,
    SMALL_TUPLE_EXT,
};

/// Bytes a prefix holds at most (one bit each says whether a difference
/// there is decisive).
const MAX: usize = 64;

/// The leading fixed parts of a pattern, encoded.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prefix {
    bytes: Vec<u8>,
    /// Bit `i`: byte `i` follows its part's tag, so a term differing there
    /// (and equal before) does not match.
    decisive: u64,
    /// The ops the bytes stand for.
    ops: usize,
    /// The bytes as little-endian words, each with the mask of its bytes.
    words: Vec<(u64, u64)>,
}

/// What a term's first bytes say.
pub(crate) enum Lead {
    /// They are the prefix: the term passes its ops.
    Passed,
    /// They surely differ from every term passing its ops.
    Differs,
    /// The quick test's program must read them.
    Unknown,
}

impl Prefix {
    /// The prefix of the leading tuples, atoms, integers and `[]` of `ops`.
    pub(crate) fn of(ops: &[Op]) -> Prefix {
        let mut p = Prefix::default();
        for op in ops {
            let mut part = Vec::new();
            match op {
                Op::Tuple(n) => match u8::try_from(*n) {
                    Ok(n) => part.extend([SMALL_TUPLE_EXT, n]),
                    Err(_) => {
                        part.push(LARGE_TUPLE_EXT);
                        part.extend(n.to_be_bytes());
                    }
                },
                Op::Atom(name) => match u8::try_from(name.len()) {
                    Ok(n) => part.extend([SMALL_ATOM_UTF8_EXT, n]),
                    Err(_) => match u16::try_from(name.len()) {
                        Ok(n) => {
                            part.push(ATOM_UTF8_EXT);
                            part.extend(n.to_be_bytes());
                        }
                        Err(_) => break,
                    },
                },
                Op::Int(i) => match (u8::try_from(*i), i32::try_from(*i)) {
                    (Ok(b), _) => part.extend([SMALL_INTEGER_EXT, b]),
                    (_, Ok(w)) => {
                        part.push(INTEGER_EXT);
                        part.extend(w.to_be_bytes());
                    }
                    _ => break,
                },
                Op::Nil => part.push(NIL_EXT),
                _ => break,
            }
            if let Op::Atom(name) = op {
                part.extend_from_slice(name);
            }
            if p.bytes.len() + part.len() > MAX {
                break;
            }
            // Every byte after the tag is decisive.
            for k in p.bytes.len() + 1..p.bytes.len() + part.len() {
                p.decisive |= 1 << k;
            }
            p.bytes.extend(part);
            p.ops += 1;
        }
        p.words = p
            .bytes
            .chunks(8)
            .map(|want| {
                let mut padded = [0u8; 8];
                padded[..want.len()].copy_from_slice(want);
                let mask = u64::MAX >> (8 * (8 - want.len()));
                (u64::from_le_bytes(padded), mask)
            })
            .collect();
        p
    }

    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// How many of the program's ops the prefix stands for.
    pub(crate) fn ops(&self) -> usize {
        self.ops
    }

    /// Compares `b` (a term's bytes, without the version byte) with the
    /// prefix, eight bytes at a time.
    #[inline]
    pub(crate) fn lead(&self, b: &[u8]) -> Lead {
        if self.ops == 0 {
            return Lead::Unknown;
        }
        for (k, &(want, mask)) in self.words.iter().enumerate() {
            let at = 8 * k;
            let got = match b.get(at..at + 8) {
                Some(w) => u64::from_le_bytes(w.try_into().expect("eight bytes")),
                None => return self.lead_short(b),
            };
            let x = (got ^ want) & mask;
            if x != 0 {
                return self.differs_at(at + (x.trailing_zeros() / 8) as usize);
            }
        }
        Lead::Passed
    }

    /// [`lead`](Self::lead) for a term shorter than the prefix's words.
    #[cold]
    fn lead_short(&self, b: &[u8]) -> Lead {
        let n = self.bytes.len().min(b.len());
        match self.bytes[..n]
            .iter()
            .zip(&b[..n])
            .position(|(x, y)| x != y)
        {
            Some(d) => self.differs_at(d),
            None if n == self.bytes.len() => Lead::Passed,
            // Cut short: the program says why.
            None => Lead::Unknown,
        }
    }

    fn differs_at(&self, d: usize) -> Lead {
        if self.decisive >> d & 1 == 1 {
            Lead::Differs
        } else {
            Lead::Unknown
        }
    }
}
