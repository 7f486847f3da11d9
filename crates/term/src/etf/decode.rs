//! Decoding ETF from untrusted bytes (a log may be corrupt or hostile).
//!
//! Every length is checked against the bytes that remain before anything is
//! allocated for it, so an allocation is never larger than the input; nesting
//! is followed with an explicit stack capped at [`MAX_DEPTH`], so no input can
//! exhaust the thread's stack; and every failure is an [`EtfError`] naming the
//! byte offset and what was expected there.

use super::*;
use crate::atom::Atom;
use crate::bits::Bitstring;
use crate::fun::{Fun, NO_CODE};
use crate::map::MapRepr;
use crate::term::{Pid, Ref, Term, Tuple};
use num_bigint::{BigInt, Sign};
use triomphe::Arc;

/// The deepest nesting of compound terms that [`decode`] accepts. Deeper
/// terms would also be unsafe to drop, which recurses.
pub const MAX_DEPTH: usize = 2_000;

/// Why some bytes are not a valid ETF term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtfError {
    /// Offset of the offending byte from the start of the input.
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for EtfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for EtfError {}

/// Decodes one term that must span all of `bytes` (version byte included).
pub fn decode(bytes: &[u8]) -> Result<Term, EtfError> {
    let (t, used) = decode_prefix(bytes)?;
    if used != bytes.len() {
        return Err(EtfError {
            offset: used,
            message: format!("{} trailing bytes after the term", bytes.len() - used),
        });
    }
    Ok(t)
}

/// Decodes the term at the start of `bytes`; returns it and how many bytes it took.
pub fn decode_prefix(bytes: &[u8]) -> Result<(Term, usize), EtfError> {
    let mut d = Decoder { b: bytes, pos: 0 };
    match d.u8("the version byte 131")? {
        VERSION => {}
        v => return Err(d.err_at(0, format!("expected the version byte 131, found {v}"))),
    }
    let t = d.term()?;
    Ok((t, d.pos))
}

/// Decodes one term with no version byte that must span all of `bytes`:
/// a part of an encoded term, cut out by a reader that skipped the rest.
pub fn decode_part(bytes: &[u8]) -> Result<Term, EtfError> {
    let mut d = Decoder { b: bytes, pos: 0 };
    let t = d.term()?;
    if d.pos != bytes.len() {
        let left = bytes.len() - d.pos;
        return Err(d.err_at(d.pos, format!("{left} trailing bytes after the term")));
    }
    Ok(t)
}

/// A compound term whose parts are still being read.
enum Frame {
    Tuple(Vec<Term>, usize),
    List(Vec<Term>, usize),
    /// All elements read; the next value is the tail.
    ListTail(Vec<Term>),
    Map {
        map: MapRepr,
        key: Option<(Term, usize)>,
        left: usize,
    },
    Closure {
        header: ClosureHeader,
        env: Vec<Term>,
        left: usize,
    },
}

struct ClosureHeader {
    module: Atom,
    index: u32,
    uniq: u32,
    arity: u32,
    /// Where the fun's bytes end, from its Size field.
    end: usize,
    start: usize,
}

enum Step {
    Value(Term),
    Push(Frame),
}

struct Decoder<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    fn err_at(&self, offset: usize, message: String) -> EtfError {
        EtfError { offset, message }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], EtfError> {
        let left = self.b.len() - self.pos;
        if n > left {
            return Err(self.err_at(
                self.pos,
                format!("expected {what} ({n} bytes), only {left} left"),
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8, EtfError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, EtfError> {
        let s = self.take(2, what)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, EtfError> {
        let s = self.take(4, what)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// A count of items that each take at least `min_bytes`: checked against
    /// the input left so that the vector reserved for them stays bounded.
    fn count(&self, n: usize, min_bytes: usize, at: usize, what: &str) -> Result<usize, EtfError> {
        let left = self.b.len() - self.pos;
        if n.saturating_mul(min_bytes) > left {
            return Err(self.err_at(
                at,
                format!("{what} of {n} elements cannot fit in the {left} bytes left"),
            ));
        }
        Ok(n)
    }

    fn term(&mut self) -> Result<Term, EtfError> {
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            let mut value = match self.start()? {
                Step::Value(t) => t,
                Step::Push(frame) => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(self.err_at(
                            self.pos,
                            format!("terms nested deeper than {MAX_DEPTH} levels"),
                        ));
                    }
                    stack.push(frame);
                    continue;
                }
            };
            // Hand the finished value to the enclosing frames, completing them in turn.
            loop {
                let Some(frame) = stack.last_mut() else {
                    return Ok(value);
                };
                match self.accept(frame, value)? {
                    Some(done) => {
                        stack.pop();
                        value = done;
                    }
                    None => break,
                }
            }
        }
    }

    /// Gives `v` to `frame`; returns the frame's term once it is complete.
    fn accept(&self, frame: &mut Frame, v: Term) -> Result<Option<Term>, EtfError> {
        Ok(match frame {
            Frame::Tuple(elems, arity) => {
                elems.push(v);
                (elems.len() == *arity).then(|| Term::Tuple(Tuple::from_vec(std::mem::take(elems))))
            }
            Frame::List(elems, len) => {
                elems.push(v);
                if elems.len() == *len {
                    *frame = Frame::ListTail(std::mem::take(elems));
                }
                None
            }
            Frame::ListTail(elems) => Some(Term::list_with_tail(std::mem::take(elems), v)),
            Frame::Map { map, key, left } => match key.take() {
                None => {
                    *key = Some((v, self.pos));
                    None
                }
                Some((k, at)) => {
                    if map.insert(k, v).is_some() {
                        return Err(self.err_at(at, "map with a duplicate key".into()));
                    }
                    *left -= 1;
                    (*left == 0).then(|| Term::Map(Arc::new(std::mem::take(map))))
                }
            },
            Frame::Closure { header, env, left } => {
                env.push(v);
                *left -= 1;
                if *left > 0 {
                    None
                } else {
                    Some(self.finish_closure(header, std::mem::take(env))?)
                }
            }
        })
    }

    fn finish_closure(&self, h: &ClosureHeader, env: Vec<Term>) -> Result<Term, EtfError> {
        if self.pos != h.end {
            return Err(self.err_at(
                h.start,
                format!(
                    "fun size says it ends at byte {}, it ends at byte {}",
                    h.end, self.pos
                ),
            ));
        }
        Ok(Term::Fun(Arc::new(Fun::Closure {
            module: h.module,
            index: h.index,
            uniq: h.uniq,
            arity: h.arity,
            code: NO_CODE,
            env: env.into_boxed_slice(),
        })))
    }

    /// Reads a tag and either a whole scalar term or the header of a compound one.
    fn start(&mut self) -> Result<Step, EtfError> {
        let at = self.pos;
        let tag = self.u8("a term tag")?;
        let t = match tag {
            SMALL_INTEGER_EXT => Term::Int(i64::from(self.u8("a small integer")?)),
            INTEGER_EXT => Term::Int(i64::from(self.u32("an integer")? as i32)),
            SMALL_BIG_EXT => {
                let n = usize::from(self.u8("a bignum length")?);
                self.big(n)?
            }
            LARGE_BIG_EXT => {
                let n = self.u32("a bignum length")? as usize;
                self.big(n)?
            }
            NEW_FLOAT_EXT => {
                let s = self.take(8, "a float")?;
                let f = f64::from_be_bytes(s.try_into().unwrap_or([0; 8]));
                self.finite(f, at)?
            }
            FLOAT_EXT => self.float_text(at)?,
            ATOM_EXT | SMALL_ATOM_EXT | ATOM_UTF8_EXT | SMALL_ATOM_UTF8_EXT => {
                Term::Atom(self.atom_body(tag, at)?)
            }
            NIL_EXT => Term::Nil,
            STRING_EXT => {
                let n = usize::from(self.u16("a string length")?);
                let s = self.take(n, "the string's bytes")?;
                Term::list(s.iter().map(|&c| Term::Int(i64::from(c))).collect())
            }
            LIST_EXT | SMALL_TUPLE_EXT | LARGE_TUPLE_EXT | MAP_EXT => {
                return self.compound(tag, at)
            }
            BINARY_EXT => {
                let n = self.u32("a binary length")? as usize;
                Term::binary(self.take(n, "the binary's bytes")?)
            }
            BIT_BINARY_EXT => self.bitstring()?,
            NEW_PID_EXT | PID_EXT => Term::Pid(self.pid_body(tag)?),
            NEWER_REFERENCE_EXT | NEW_REFERENCE_EXT => self.new_reference(tag, at)?,
            REFERENCE_EXT => {
                self.node()?;
                let id = self.u32("a reference id")?;
                self.u8("a creation")?;
                Term::Ref(Ref::new(Pid(0), id))
            }
            EXPORT_EXT => self.export()?,
            NEW_FUN_EXT => return self.closure(at),
            other => return Err(self.unsupported(other, at)),
        };
        Ok(Step::Value(t))
    }

    /// A float in `FLOAT_EXT`'s text form (31 bytes, zero-padded).
    fn float_text(&mut self, at: usize) -> Result<Term, EtfError> {
        let s = self.take(31, "a float in text form")?;
        let text = std::str::from_utf8(s)
            .ok()
            .map(|t| t.trim_end_matches('\0'))
            .and_then(|t| t.parse::<f64>().ok());
        match text {
            Some(f) => self.finite(f, at),
            None => Err(self.err_at(at + 1, "expected a float in text form".into())),
        }
    }

    /// The header of a list, tuple or map: a frame to fill with the
    /// elements that follow, or the term itself when it has none.
    fn compound(&mut self, tag: u8, at: usize) -> Result<Step, EtfError> {
        let t = match tag {
            LIST_EXT => {
                let n = self.u32("a list length")? as usize;
                // Each element takes a byte, and the tail one more.
                let n = self.count(n, 1, at, "a list")?;
                if n == 0 {
                    return Ok(Step::Push(Frame::ListTail(Vec::new())));
                }
                return Ok(Step::Push(Frame::List(Vec::with_capacity(n), n)));
            }
            SMALL_TUPLE_EXT | LARGE_TUPLE_EXT => {
                let n = if tag == SMALL_TUPLE_EXT {
                    usize::from(self.u8("a tuple arity")?)
                } else {
                    self.u32("a tuple arity")? as usize
                };
                let n = self.count(n, 1, at, "a tuple")?;
                if n == 0 {
                    Term::Tuple(Tuple::from_vec(Vec::new()))
                } else {
                    return Ok(Step::Push(Frame::Tuple(Vec::with_capacity(n), n)));
                }
            }
            _ => {
                let n = self.u32("a map size")? as usize;
                let n = self.count(n, 2, at, "a map")?;
                if n == 0 {
                    Term::Map(Arc::new(MapRepr::new()))
                } else {
                    return Ok(Step::Push(Frame::Map {
                        map: MapRepr::new(),
                        key: None,
                        left: n,
                    }));
                }
            }
        };
        Ok(Step::Value(t))
    }

    /// A bitstring: its bytes and the bits used in the last one.
    fn bitstring(&mut self) -> Result<Term, EtfError> {
        let n = self.u32("a bitstring length")? as usize;
        let bits = self.u8("the bits used in the last byte")?;
        if !(1..=8).contains(&bits) || n == 0 {
            return Err(self.err_at(
                self.pos - 1,
                format!(
                    "expected 1..8 bits used in a non-empty last byte, found {bits} of {n} bytes"
                ),
            ));
        }
        let data = self.take(n, "the bitstring's bytes")?;
        Ok(Term::Binary(Arc::new(Bitstring::from_bits(
            data.to_vec(),
            (n - 1) * 8 + usize::from(bits),
        ))))
    }

    /// A reference in `NEW_REFERENCE_EXT` or `NEWER_REFERENCE_EXT` form.
    fn new_reference(&mut self, tag: u8, at: usize) -> Result<Term, EtfError> {
        let n = usize::from(self.u16("a reference length")?);
        self.node()?;
        if tag == NEWER_REFERENCE_EXT {
            self.u32("a creation")?;
        } else {
            self.u8("a creation")?;
        }
        if !(1..=5).contains(&n) {
            return Err(self.err_at(at + 1, format!("expected 1..5 reference words, found {n}")));
        }
        let words = self.take(4 * n, "the reference's id words")?;
        let word = |i: usize| {
            words
                .get(4 * i..4 * i + 4)
                .map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        };
        Ok(Term::Ref(Ref::new(Pid(u64::from(word(1))), word(0))))
    }

    /// An external fun, `fun M:F/A`.
    fn export(&mut self) -> Result<Term, EtfError> {
        let module = self.atom("a module name")?;
        let function = self.atom("a function name")?;
        let a = self.pos;
        if self.u8("an arity tag")? != SMALL_INTEGER_EXT {
            return Err(self.err_at(a, "expected the arity as a small integer".into()));
        }
        let arity = u32::from(self.u8("an arity")?);
        Ok(Term::Fun(Arc::new(Fun::External {
            module,
            function,
            arity,
        })))
    }

    /// The error for a tag the decoder does not take.
    fn unsupported(&self, tag: u8, at: usize) -> EtfError {
        let what = match tag {
            COMPRESSED => "compressed terms are not supported".to_string(),
            ATOM_CACHE_REF => {
                "atom cache references only occur in distribution messages".to_string()
            }
            DIST_HEADER | DIST_FRAG_HEADER => "distribution headers are not supported".to_string(),
            PORT_EXT | NEW_PORT_EXT | V4_PORT_EXT => "ports are not supported".to_string(),
            FUN_EXT => "old-style funs (FUN_EXT) are not supported".to_string(),
            other => format!("unknown term tag {other}"),
        };
        self.err_at(at, what)
    }

    fn finite(&self, f: f64, at: usize) -> Result<Term, EtfError> {
        if f.is_finite() {
            Ok(Term::Float(f))
        } else {
            Err(self.err_at(at, "a float that is not finite".into()))
        }
    }

    fn big(&mut self, n: usize) -> Result<Term, EtfError> {
        let sign = self.u8("a bignum sign")?;
        if sign > 1 {
            return Err(self.err_at(
                self.pos - 1,
                format!("expected a bignum sign 0 or 1, found {sign}"),
            ));
        }
        let digits = self.take(n, "the bignum's bytes")?;
        let sign = if sign == 1 { Sign::Minus } else { Sign::Plus };
        Ok(Term::from_bigint(BigInt::from_bytes_le(sign, digits)))
    }

    fn atom(&mut self, what: &str) -> Result<Atom, EtfError> {
        let at = self.pos;
        let tag = self.u8(what)?;
        match tag {
            ATOM_EXT | SMALL_ATOM_EXT | ATOM_UTF8_EXT | SMALL_ATOM_UTF8_EXT => {
                self.atom_body(tag, at)
            }
            _ => Err(self.err_at(at, format!("expected {what} (an atom), found tag {tag}"))),
        }
    }

    fn atom_body(&mut self, tag: u8, at: usize) -> Result<Atom, EtfError> {
        let name = self.atom_name(tag, at)?;
        Atom::try_intern(&name).map_err(|e| self.err_at(at, e.to_string()))
    }

    /// An atom's name, checked: UTF-8 (or Latin-1 by its tag), at most 255
    /// characters.
    fn atom_name(&mut self, tag: u8, at: usize) -> Result<std::borrow::Cow<'a, str>, EtfError> {
        let bytes = self.atom_bytes(tag, at)?;
        Ok(if tag == ATOM_EXT || tag == SMALL_ATOM_EXT {
            std::borrow::Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())
        } else {
            // Checked by `atom_bytes`.
            std::borrow::Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default())
        })
    }

    /// An atom's bytes, checked as [`Decoder::atom_name`] says.
    fn atom_bytes(&mut self, tag: u8, at: usize) -> Result<&'a [u8], EtfError> {
        let latin1 = tag == ATOM_EXT || tag == SMALL_ATOM_EXT;
        let n = if tag == ATOM_EXT || tag == ATOM_UTF8_EXT {
            usize::from(self.u16("an atom length")?)
        } else {
            usize::from(self.u8("an atom length")?)
        };
        let bytes = self.take(n, "the atom's name")?;
        let chars = if latin1 || bytes.is_ascii() {
            n
        } else {
            std::str::from_utf8(bytes)
                .map_err(|_| self.err_at(at, "an atom name that is not UTF-8".into()))?
                .chars()
                .count()
        };
        if chars > 255 {
            return Err(self.err_at(at, "an atom longer than 255 characters".into()));
        }
        Ok(bytes)
    }

    /// A pid's or reference's node. Read and checked, not interned: the
    /// engine is one node and drops it, and a log's every message carries
    /// one.
    fn node(&mut self) -> Result<(), EtfError> {
        let at = self.pos;
        let tag = self.u8("a node name")?;
        match tag {
            ATOM_EXT | SMALL_ATOM_EXT | ATOM_UTF8_EXT | SMALL_ATOM_UTF8_EXT => {
                self.atom_bytes(tag, at).map(drop)
            }
            _ => Err(self.err_at(
                at,
                format!("expected a node name (an atom), found tag {tag}"),
            )),
        }
    }

    fn pid_body(&mut self, tag: u8) -> Result<Pid, EtfError> {
        self.node()?;
        let id = self.u32("a pid id")?;
        let serial = self.u32("a pid serial")?;
        if tag == NEW_PID_EXT {
            self.u32("a creation")?;
        } else {
            self.u8("a creation")?;
        }
        Ok(Pid((u64::from(serial) << 32) | u64::from(id)))
    }

    fn int_field(&mut self, what: &str) -> Result<u32, EtfError> {
        let at = self.pos;
        let v = match self.u8(what)? {
            SMALL_INTEGER_EXT => i64::from(self.u8(what)?),
            INTEGER_EXT => i64::from(self.u32(what)? as i32),
            SMALL_BIG_EXT => {
                let n = usize::from(self.u8(what)?);
                match self.big(n)? {
                    Term::Int(i) => i,
                    _ => -1,
                }
            }
            _ => return Err(self.err_at(at, format!("expected {what} (an integer)"))),
        };
        u32::try_from(v).map_err(|_| self.err_at(at, format!("{what} out of range")))
    }

    fn closure(&mut self, at: usize) -> Result<Step, EtfError> {
        let size = self.u32("a fun size")? as usize;
        let end = at
            .checked_add(1 + size)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| self.err_at(at + 1, format!("fun size {size} runs past the input")))?;
        let arity = u32::from(self.u8("a fun arity")?);
        self.take(16, "the fun's uniq")?;
        self.u32("a fun index")?;
        let num_free = self.u32("a fun's free variable count")? as usize;
        let module = self.atom("a module name")?;
        let index = self.int_field("a fun's old index")?;
        let uniq = self.int_field("a fun's old uniq")?;
        let pid_at = self.pos;
        match self.u8("a pid tag")? {
            t @ (NEW_PID_EXT | PID_EXT) => {
                self.pid_body(t)?;
            }
            _ => return Err(self.err_at(pid_at, "expected the fun's creator pid".into())),
        }
        let header = ClosureHeader {
            module,
            index,
            uniq,
            arity,
            end,
            start: at,
        };
        let left = self.count(num_free, 1, at, "a fun's free variables")?;
        if left == 0 {
            return Ok(Step::Value(self.finish_closure(&header, Vec::new())?));
        }
        Ok(Step::Push(Frame::Closure {
            header,
            env: Vec::with_capacity(left),
            left,
        }))
    }
}
