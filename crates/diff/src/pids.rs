//! Comparing payloads (ETF terms) of two runs up to process renaming: a pid
//! compares by the process it names (its pair in the matching), not by its
//! raw number; an engine reference `#Ref<0.0.P.C>` by its creator's pair and
//! its counter (the engine makes references per process, so the same process
//! doing the same makes the same ones). Under `--observe`, pids of processes
//! that are not observed are all alike (Bereczky et al. 2024 compares barbs up to pids).
//!
//! The common case — equal terms in the same encoding — is decided by
//! walking both byte strings in lockstep, without building terms; anything
//! unusual (different encodings of one term, bytes that do not parse) and
//! `--abstract` go through decoded terms.

use crate::abstraction::{rewrite, Abstraction};
use crate::matching::Matching;
use crate::run::Run;
use trace_term::etf::{
    ATOM_EXT, ATOM_UTF8_EXT, BINARY_EXT, BIT_BINARY_EXT, EXPORT_EXT, FLOAT_EXT, INTEGER_EXT,
    LARGE_BIG_EXT, LARGE_TUPLE_EXT, LIST_EXT, MAP_EXT, NEWER_REFERENCE_EXT, NEW_FLOAT_EXT,
    NEW_FUN_EXT, NEW_PID_EXT, NEW_REFERENCE_EXT, NIL_EXT, PID_EXT, REFERENCE_EXT, SMALL_ATOM_EXT,
    SMALL_ATOM_UTF8_EXT, SMALL_BIG_EXT, SMALL_INTEGER_EXT, SMALL_TUPLE_EXT, STRING_EXT, VERSION,
};
use trace_term::{Pid, Ref, Term};

/// Canonical pid of a matched process: its pair, tagged so it is never a raw pid.
const PAIR: u64 = 1 << 63;
/// Canonical pid of every unobserved process under `--observe`.
const ANY: u64 = PAIR | u32::MAX as u64;
/// The same, for the 32-bit creator of a reference.
const PAIR32: u64 = 1 << 31;

/// How pids map between the runs.
pub(crate) struct PidMapping<'a> {
    pub runs: [&'a Run<'a>; 2],
    pub matching: &'a Matching,
    /// Under `--observe`: per pair, whether it is observed.
    pub observed: Option<&'a [bool]>,
    pub abstractions: &'a [Abstraction],
    /// See [`Matching::same_pids`].
    pub same_pids: bool,
}

impl PidMapping<'_> {
    /// The canonical number of raw pid `raw` of run `x`.
    pub fn pid(&self, x: usize, raw: u64) -> u64 {
        match self.runs[x].slot_of_pid(raw) {
            Some(s) => {
                let p = self.matching.pair(x, s);
                match self.observed {
                    Some(o) if !o[p as usize] => ANY,
                    _ => PAIR | p as u64,
                }
            }
            None if self.observed.is_some() => ANY,
            None => raw,
        }
    }

    /// A reference's (creator, counter), canonical; `None` when any creator goes.
    fn reference(&self, x: usize, creator: u64, counter: u64) -> Option<(u64, u64)> {
        match self.pid(x, creator) {
            ANY => None,
            c => Some((c, counter)),
        }
    }

    fn map_term(&self, x: usize, t: &Term) -> Term {
        match t {
            Term::Pid(p) => Term::Pid(Pid(self.pid(x, p.0))),
            Term::Ref(r) => match self.reference(x, r.creator(), r.counter() as u64) {
                None => Term::Ref(Ref(u64::MAX)),
                Some((c, n)) => {
                    let c32 = if c & PAIR != 0 {
                        PAIR32 | (c & 0x7fff_ffff)
                    } else {
                        c & 0xffff_ffff
                    };
                    Term::Ref(Ref(c32 << 32 | n))
                }
            },
            _ => t.clone(),
        }
    }

    /// Are payload `a` (run 0) and `b` (run 1) the same term?
    pub fn same(&self, a: &[u8], b: &[u8]) -> bool {
        if self.abstractions.is_empty() {
            if self.same_pids && a == b {
                return true;
            }
            if let Some(v) = self.walk(a, b) {
                return v;
            }
        }
        match (trace_term::etf::decode(a), trace_term::etf::decode(b)) {
            (Ok(x), Ok(y)) => {
                let x = rewrite(&x, self.abstractions, &mut |t| self.map_term(0, t));
                let y = rewrite(&y, self.abstractions, &mut |t| self.map_term(1, t));
                trace_term::order::exact_eq(&x, &y)
            }
            // Bytes that are not a term compare as bytes.
            _ => a == b,
        }
    }

    /// Lockstep walk; `None` when it cannot decide.
    fn walk(&self, a: &[u8], b: &[u8]) -> Option<bool> {
        let (mut x, mut y) = (Cur { b: a, i: 0 }, Cur { b, i: 0 });
        if x.u8()? != VERSION || y.u8()? != VERSION {
            return None;
        }
        // Terms still to read: ETF is a prefix code, so one count is enough.
        let mut todo: u64 = 1;
        while todo > 0 {
            todo -= 1;
            let (ta, tb) = (x.u8()?, y.u8()?);
            if ta != tb {
                return if variable(ta) && variable(tb) {
                    None
                } else {
                    Some(false)
                };
            }
            let same = match ta {
                SMALL_INTEGER_EXT => x.take(1)? == y.take(1)?,
                INTEGER_EXT => x.take(4)? == y.take(4)?,
                NEW_FLOAT_EXT => x.take(8)? == y.take(8)?,
                FLOAT_EXT => x.take(31)? == y.take(31)?,
                ATOM_EXT | ATOM_UTF8_EXT | STRING_EXT => {
                    let (n, m) = (x.u16()?, y.u16()?);
                    n == m && x.take(n as usize)? == y.take(m as usize)?
                }
                SMALL_ATOM_EXT | SMALL_ATOM_UTF8_EXT => {
                    let (n, m) = (x.u8()?, y.u8()?);
                    n == m && x.take(n as usize)? == y.take(m as usize)?
                }
                BINARY_EXT => {
                    let (n, m) = (x.u32()?, y.u32()?);
                    n == m && x.take(n as usize)? == y.take(m as usize)?
                }
                BIT_BINARY_EXT => {
                    let (n, m) = (x.u32()?, y.u32()?);
                    n == m && x.take(n as usize + 1)? == y.take(m as usize + 1)?
                }
                SMALL_BIG_EXT => {
                    let (n, m) = (x.u8()?, y.u8()?);
                    n == m && x.take(n as usize + 1)? == y.take(m as usize + 1)?
                }
                LARGE_BIG_EXT => {
                    let (n, m) = (x.u32()?, y.u32()?);
                    n == m && x.take(n as usize + 1)? == y.take(m as usize + 1)?
                }
                NIL_EXT => true,
                SMALL_TUPLE_EXT => {
                    let (n, m) = (x.u8()?, y.u8()?);
                    todo += n as u64;
                    n == m
                }
                LARGE_TUPLE_EXT => {
                    let (n, m) = (x.u32()?, y.u32()?);
                    todo += n as u64;
                    n == m
                }
                LIST_EXT => {
                    let (n, m) = (x.u32()?, y.u32()?);
                    todo += n as u64 + 1;
                    n == m
                }
                MAP_EXT => {
                    let (n, m) = (x.u32()?, y.u32()?);
                    todo += 2 * n as u64;
                    n == m
                }
                NEW_PID_EXT | PID_EXT => self.pid(0, x.pid(ta)?) == self.pid(1, y.pid(tb)?),
                NEWER_REFERENCE_EXT | NEW_REFERENCE_EXT => {
                    let (ra, rb) = (x.reference(ta)?, y.reference(tb)?);
                    match (self.reference(0, ra.0, ra.1), self.reference(1, rb.0, rb.1)) {
                        (None, None) => true,
                        (p, q) => p == q && ra.2 == rb.2,
                    }
                }
                NEW_FUN_EXT => {
                    // Size (derived), then arity, uniq, index and the number of free variables.
                    x.take(4)?;
                    y.take(4)?;
                    let (ha, hb) = (x.take(25)?, y.take(25)?);
                    let free = u32::from_be_bytes([ha[21], ha[22], ha[23], ha[24]]);
                    // Module, old index, old uniq, creator pid, then the free variables.
                    todo += 4 + free as u64;
                    ha == hb
                }
                EXPORT_EXT => {
                    todo += 3;
                    true
                }
                _ => return None,
            };
            if !same {
                return Some(false);
            }
            // Every term takes at least one byte: a count beyond that is a lie.
            if todo > x.left() as u64 {
                return None;
            }
        }
        (x.left() == 0 && y.left() == 0).then_some(true)
    }
}

/// Tags of terms that have another encoding too (a mismatch decides nothing).
fn variable(tag: u8) -> bool {
    matches!(
        tag,
        SMALL_INTEGER_EXT
            | INTEGER_EXT
            | SMALL_BIG_EXT
            | LARGE_BIG_EXT
            | NEW_FLOAT_EXT
            | FLOAT_EXT
            | ATOM_EXT
            | SMALL_ATOM_EXT
            | ATOM_UTF8_EXT
            | SMALL_ATOM_UTF8_EXT
            | NIL_EXT
            | STRING_EXT
            | SMALL_TUPLE_EXT
            | LARGE_TUPLE_EXT
            | BINARY_EXT
            | BIT_BINARY_EXT
            | LIST_EXT
            | NEW_PID_EXT
            | PID_EXT
            | NEWER_REFERENCE_EXT
            | NEW_REFERENCE_EXT
            | REFERENCE_EXT
    )
}

struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn left(&self) -> usize {
        self.b.len() - self.i
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.i..self.i.checked_add(n)?)?;
        self.i += n;
        Some(s)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u16(&mut self) -> Option<u16> {
        let s = self.take(2)?;
        Some(u16::from_be_bytes([s[0], s[1]]))
    }

    fn u32(&mut self) -> Option<u32> {
        let s = self.take(4)?;
        Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// Skips a node name (an atom).
    fn node(&mut self) -> Option<()> {
        match self.u8()? {
            ATOM_EXT | ATOM_UTF8_EXT => {
                let n = self.u16()?;
                self.take(n as usize)?;
            }
            SMALL_ATOM_EXT | SMALL_ATOM_UTF8_EXT => {
                let n = self.u8()?;
                self.take(n as usize)?;
            }
            _ => return None,
        }
        Some(())
    }

    /// A pid's raw number `Serial << 32 | ID` (node and creation dropped, as
    /// trace-term decodes it).
    fn pid(&mut self, tag: u8) -> Option<u64> {
        self.node()?;
        let id = self.u32()?;
        let serial = self.u32()?;
        self.take(if tag == NEW_PID_EXT { 4 } else { 1 })?;
        Some((serial as u64) << 32 | id as u64)
    }

    /// A reference's (creator, counter, fingerprint of further words): word 1
    /// is the creator, word 0 the counter (trace-term's mapping).
    fn reference(&mut self, tag: u8) -> Option<(u64, u64, u64)> {
        let len = self.u16()? as usize;
        self.node()?;
        self.take(if tag == NEWER_REFERENCE_EXT { 4 } else { 1 })?;
        let words = self.take(len.checked_mul(4)?)?;
        let w = |k: usize| {
            words
                .get(4 * k..4 * k + 4)
                .map_or(0, |s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as u64)
        };
        let rest = (2..len).fold(0u64, |h, k| h.rotate_left(7) ^ w(k));
        Some((w(1), w(0), rest))
    }
}
