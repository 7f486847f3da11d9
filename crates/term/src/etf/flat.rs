//! The usual message in one write: a small tuple of scalars (`{token, K}`,
//! `{ping, Pid, Ref}`, `{pong, Ref}`) or a lone scalar, in minor version 2
//! (the log's). Its bytes are assembled on the stack and appended at once,
//! instead of a capacity check and a length update per part.

use super::*;
use crate::term::Term;

/// Room on the stack: a tuple of three references takes 105 bytes.
const ROOM: usize = 128;

/// Writes `t` (version byte first) if it is a scalar or a tuple of at most
/// 255 scalars whose encoding fits [`ROOM`]; returns whether it did.
#[inline]
pub(super) fn encode(t: &Term, out: &mut Vec<u8>) -> bool {
    // An atom alone (an exit reason such as `normal`, a message such as
    // `done`) is its cached encoding after the version byte: nothing to
    // assemble, and no stack buffer to clear.
    if let Term::Atom(a) = *t {
        let etf = a.etf();
        out.reserve(1 + etf.len());
        out.push(VERSION);
        out.extend_from_slice(etf);
        return true;
    }
    let mut b = Buf {
        bytes: [0; ROOM],
        len: 1,
    };
    b.bytes[0] = VERSION;
    let fits = match t {
        Term::Tuple(tu) => {
            let es = tu.elements();
            es.len() <= 255
                && b.put(&[SMALL_TUPLE_EXT, es.len() as u8])
                && es.iter().all(|e| b.scalar(e))
        }
        t => b.scalar(t),
    };
    if fits {
        out.extend_from_slice(&b.bytes[..b.len]);
    }
    fits
}

struct Buf {
    bytes: [u8; ROOM],
    len: usize,
}

impl Buf {
    /// Appends `s` if it fits; returns whether it did.
    #[inline(always)]
    fn put(&mut self, s: &[u8]) -> bool {
        let end = self.len + s.len();
        match self.bytes.get_mut(self.len..end) {
            Some(room) => {
                room.copy_from_slice(s);
                self.len = end;
                true
            }
            None => false,
        }
    }

    /// Appends `N` bytes that `write` writes in place, if they fit: the
    /// room is still zeroed, so `write` leaves zero fields as they are, and
    /// a pid or reference is not assembled elsewhere to be copied.
    #[inline(always)]
    fn fill<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N])) -> bool {
        let Some(room) = self
            .bytes
            .get_mut(self.len..)
            .and_then(|r| r.first_chunk_mut::<N>())
        else {
            return false;
        };
        write(room);
        self.len += N;
        true
    }

    /// Appends a scalar as the general encoder writes it (minor version 2);
    /// false for anything else, or when it does not fit.
    #[inline(always)]
    fn scalar(&mut self, t: &Term) -> bool {
        match *t {
            Term::Atom(a) => self.put(a.etf()),
            Term::Int(i) => match u8::try_from(i) {
                Ok(s) => self.put(&[SMALL_INTEGER_EXT, s]),
                Err(_) => match i32::try_from(i) {
                    Ok(w) => {
                        let w = w.to_be_bytes();
                        self.put(&[INTEGER_EXT, w[0], w[1], w[2], w[3]])
                    }
                    Err(_) => false,
                },
            },
            Term::Nil => self.put(&[NIL_EXT]),
            Term::Pid(p) => self.fill(|b| super::encode::put_pid_utf8(p, b)),
            Term::Ref(r) => self.fill(|b| super::encode::put_ref_utf8(r, b)),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::encode::encode_general;
    use crate::atom::Atom;
    use crate::term::{Pid, Ref, Term};

    /// The flat path writes what the general encoder writes, and declines
    /// what it cannot take.
    #[test]
    fn writes_what_the_general_encoder_writes() {
        let ints = [0, 255, 256, -1, i32::MIN as i64, i32::MAX as i64, 1 << 40];
        let mut scalars: Vec<Term> = ints.iter().map(|&i| Term::Int(i)).collect();
        scalars.extend([
            Term::Atom(Atom::intern("token")),
            Term::Atom(Atom::intern(&"é".repeat(100))),
            Term::Nil,
            Term::Pid(Pid(80 | (7 << 32))),
            Term::Ref(Ref((3 << 32) | 12345)),
            Term::Float(1.5),
        ]);
        let mut terms = scalars.clone();
        for a in &scalars {
            for b in &scalars {
                terms.push(Term::tuple(vec![a.clone(), b.clone()]));
                terms.push(Term::tuple(vec![a.clone(), b.clone(), a.clone()]));
            }
        }
        terms.push(Term::tuple(vec![]));
        terms.push(Term::tuple(vec![Term::Int(1); 256]));
        terms.push(Term::tuple(vec![Term::Int(1); 255]));
        let mut flat_taken = 0;
        for t in &terms {
            let mut general = vec![7];
            encode_general(t, &mut general, super::super::Style::V2);
            let mut flat = vec![7];
            if super::encode(t, &mut flat) {
                flat_taken += 1;
                assert_eq!(flat, general, "{t:?}");
            } else {
                assert_eq!(
                    flat,
                    [7],
                    "a declined term leaves the buffer as it was: {t:?}"
                );
            }
        }
        assert!(
            flat_taken > terms.len() / 2,
            "the flat path takes most of these"
        );
    }
}
