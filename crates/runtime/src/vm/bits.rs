//! Binary segments: encoding values into a bitstring under construction and
//! decoding them out of a bitstring being matched.

use crate::exception::{badarg, Fault};
use crate::ir::{SegFlags, SegSize, SegType};
use num_bigint::{BigInt, Sign};
use trace_term::{Arc, BitWriter, Bitstring, Term};

/// A segment size as evaluated at run time.
#[derive(Copy, Clone, Debug)]
pub enum Size {
    Units(u64),
    All,
    Default,
    /// The size expression was not a non-negative integer.
    Bad,
}

pub fn size_value(regs: &[Term], base: usize, s: SegSize) -> Size {
    match s {
        SegSize::Const(n) => Size::Units(n as u64),
        SegSize::All => Size::All,
        SegSize::Default => Size::Default,
        SegSize::Slot(slot) => match &regs[base + slot as usize] {
            Term::Int(n) if *n >= 0 => Size::Units(*n as u64),
            Term::Atom(a) if a.name() == "all" => Size::All,
            _ => Size::Bad,
        },
    }
}

/// Refuses segments over this many bits (a guard against absurd sizes).
const MAX_BITS: u64 = 1 << 32;

fn int_bits(size: Size, unit: u8) -> Option<u64> {
    match size {
        Size::Units(n) => n.checked_mul(unit as u64).filter(|&b| b <= MAX_BITS),
        Size::Default => Some(8),
        _ => None,
    }
}

/// Two's-complement big-endian bytes of `v` truncated to `bits` bits (padded at the front).
fn int_to_bits(v: &Term, bits: u64) -> Option<Vec<u8>> {
    let nbytes = bits.div_ceil(8) as usize;
    let b = match v {
        Term::Int(i) => BigInt::from(*i),
        Term::Big(b) => (**b).clone(),
        _ => return None,
    };
    let mut bytes = b.to_signed_bytes_be();
    let fill = if b.sign() == Sign::Minus { 0xff } else { 0 };
    if bytes.len() < nbytes {
        let mut padded = vec![fill; nbytes - bytes.len()];
        padded.extend_from_slice(&bytes);
        bytes = padded;
    } else {
        bytes.drain(..bytes.len() - nbytes);
    }
    // Shift left so the value occupies the top `bits` bits of `nbytes` bytes.
    let extra = (nbytes * 8) as u64 - bits;
    if extra > 0 {
        let mut carry = 0u8;
        for byte in bytes.iter_mut().rev() {
            let nb = (*byte << extra) | carry;
            carry = *byte >> (8 - extra);
            *byte = nb;
        }
    }
    Some(bytes)
}

/// Appends `v` as a segment.
pub fn put(
    w: &mut BitWriter,
    v: &Term,
    ty: SegType,
    size: Size,
    unit: u8,
    flags: SegFlags,
) -> Result<(), Fault> {
    match ty {
        SegType::Integer => {
            let bits = int_bits(size, unit).ok_or_else(badarg)?;
            if let (Term::Int(i), true) = (v, bits <= 64) {
                let mut x = *i as u64;
                if flags.little && bits % 8 == 0 {
                    x = swap_bytes(x, bits as usize / 8);
                }
                w.push_uint(x & mask(bits), bits as usize);
                return Ok(());
            }
            let mut bytes = int_to_bits(v, bits).ok_or_else(badarg)?;
            if flags.little && bits % 8 == 0 {
                bytes.reverse();
            }
            let bs = Bitstring::from_bits(bytes, bits as usize);
            w.push_bitstring(&bs);
            Ok(())
        }
        SegType::Float => {
            let bits = match size {
                Size::Default => 64,
                Size::Units(n) => n * unit as u64,
                _ => return Err(badarg()),
            };
            let f = match v {
                Term::Float(f) => *f,
                Term::Int(i) => *i as f64,
                Term::Big(_) => trace_term::order::int_to_f64(v).ok_or_else(badarg)?,
                _ => return Err(badarg()),
            };
            let mut bytes = match bits {
                64 => f.to_be_bytes().to_vec(),
                32 => (f as f32).to_be_bytes().to_vec(),
                16 => f16_bits(f).ok_or_else(badarg)?.to_be_bytes().to_vec(),
                _ => return Err(badarg()),
            };
            if flags.little {
                bytes.reverse();
            }
            w.push_bytes(&bytes);
            Ok(())
        }
        SegType::Binary => {
            let Term::Binary(b) = v else {
                return Err(badarg());
            };
            match size {
                Size::All | Size::Default => {
                    if unit == 8 && !b.is_binary() {
                        return Err(badarg());
                    }
                    w.push_bitstring(b);
                }
                Size::Units(n) => {
                    let bits = n.checked_mul(unit as u64).ok_or_else(badarg)? as usize;
                    let part = b.slice(0, bits).ok_or_else(badarg)?;
                    w.push_bitstring(&part);
                }
                Size::Bad => return Err(badarg()),
            }
            Ok(())
        }
        SegType::Utf8 | SegType::Utf16 | SegType::Utf32 => {
            let c = match v {
                Term::Int(i) if (0..=0x10FFFF).contains(i) && !(0xD800..=0xDFFF).contains(i) => {
                    *i as u32
                }
                _ => return Err(badarg()),
            };
            let ch = char::from_u32(c).ok_or_else(badarg)?;
            match ty {
                SegType::Utf8 => {
                    let mut buf = [0u8; 4];
                    w.push_bytes(ch.encode_utf8(&mut buf).as_bytes());
                }
                SegType::Utf16 => {
                    let mut buf = [0u16; 2];
                    for u in ch.encode_utf16(&mut buf) {
                        let b = if flags.little {
                            u.to_le_bytes()
                        } else {
                            u.to_be_bytes()
                        };
                        w.push_bytes(&b);
                    }
                }
                _ => {
                    let b = if flags.little {
                        c.to_le_bytes()
                    } else {
                        c.to_be_bytes()
                    };
                    w.push_bytes(&b);
                }
            }
            Ok(())
        }
    }
}

fn mask(bits: u64) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn swap_bytes(x: u64, n: usize) -> u64 {
    let mut out = 0u64;
    for i in 0..n {
        out = (out << 8) | ((x >> (i * 8)) & 0xff);
    }
    out
}

fn f16_bits(f: f64) -> Option<u16> {
    // IEEE half precision, round to nearest even; only finite values.
    let x = f as f32;
    if !x.is_finite() {
        return None;
    }
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let mant = b & 0x7f_ffff;
    if exp >= 31 {
        return None;
    }
    if exp <= 0 {
        if exp < -10 {
            return Some(sign);
        }
        let m = (mant | 0x80_0000) >> (14 - exp);
        return Some(sign | m as u16);
    }
    Some(sign | ((exp as u16) << 10) | (mant >> 13) as u16)
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let mant = (h & 0x3ff) as f64;
    match exp {
        0 => sign * mant * 2f64.powi(-24),
        31 => f64::NAN,
        _ => sign * (1.0 + mant / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// Reads a segment at bit `at`; returns the value and the new position.
pub fn get(
    b: &Arc<Bitstring>,
    at: usize,
    ty: SegType,
    size: Size,
    unit: u8,
    flags: SegFlags,
) -> Option<(Term, usize)> {
    let total = b.bit_len();
    match ty {
        SegType::Integer => {
            let bits = int_bits(size, unit)? as usize;
            if at.checked_add(bits)? > total {
                return None;
            }
            if bits <= 64 {
                let mut x = b.read_uint(at, bits)?;
                if flags.little && bits.is_multiple_of(8) {
                    x = swap_bytes(x, bits / 8);
                }
                let v = if flags.signed && bits > 0 && (x >> (bits - 1)) & 1 == 1 {
                    if bits == 64 {
                        Term::Int(x as i64)
                    } else {
                        Term::Int((x as i64) - (1i64 << bits))
                    }
                } else if bits == 64 && x > i64::MAX as u64 {
                    Term::from_bigint(BigInt::from(x))
                } else {
                    Term::Int(x as i64)
                };
                return Some((v, at + bits));
            }
            let part = b.slice(at, bits)?;
            let mut bytes = part.bytes().to_vec();
            // Right-align the value.
            let extra = bytes.len() * 8 - bits;
            let n = BigInt::from_bytes_be(Sign::Plus, &bytes) >> extra;
            bytes.clear();
            let mut v = n;
            if flags.little && bits.is_multiple_of(8) {
                let mut le = v.to_bytes_be().1;
                le.resize(bits / 8, 0);
                le.reverse();
                // to_bytes_be drops leading zeros; rebuild with full width.
                let be_full = {
                    let mut full = vec![0u8; bits / 8 - le.len().min(bits / 8)];
                    full.extend(le);
                    full
                };
                v = BigInt::from_bytes_be(Sign::Plus, &be_full);
            }
            if flags.signed && (v.clone() >> (bits - 1)) == BigInt::from(1) {
                v -= BigInt::from(1) << bits;
            }
            Some((Term::from_bigint(v), at + bits))
        }
        SegType::Float => {
            let bits = match size {
                Size::Default => 64,
                Size::Units(n) => (n * unit as u64) as usize,
                _ => return None,
            };
            if at.checked_add(bits)? > total {
                return None;
            }
            let x = b.read_uint(at, bits)?;
            let f = match bits {
                64 => f64::from_bits(if flags.little { x.swap_bytes() } else { x }),
                32 => {
                    let v = x as u32;
                    f32::from_bits(if flags.little { v.swap_bytes() } else { v }) as f64
                }
                16 => {
                    let v = x as u16;
                    f16_to_f64(if flags.little { v.swap_bytes() } else { v })
                }
                _ => return None,
            };
            if !f.is_finite() {
                return None;
            }
            Some((Term::Float(f), at + bits))
        }
        SegType::Binary => {
            let bits = match size {
                Size::All | Size::Default => {
                    let rest = total - at;
                    if !rest.is_multiple_of(unit as usize) {
                        return None;
                    }
                    rest
                }
                Size::Units(n) => (n.checked_mul(unit as u64)?) as usize,
                Size::Bad => return None,
            };
            let part = b.slice(at, bits)?;
            Some((Term::Binary(Arc::new(part)), at + bits))
        }
        SegType::Utf8 => {
            if !at.is_multiple_of(8) {
                return None;
            }
            let bytes = &b.bytes()[at / 8..(total / 8)];
            let first = *bytes.first()?;
            let len = match first {
                0x00..=0x7f => 1,
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => return None,
            };
            let s = std::str::from_utf8(bytes.get(..len)?).ok()?;
            let c = s.chars().next()?;
            Some((Term::Int(c as i64), at + len * 8))
        }
        SegType::Utf16 => {
            let u1 = b.read_uint(at, 16)? as u16;
            let u1 = if flags.little { u1.swap_bytes() } else { u1 };
            if (0xD800..0xDC00).contains(&u1) {
                let u2 = b.read_uint(at + 16, 16)? as u16;
                let u2 = if flags.little { u2.swap_bytes() } else { u2 };
                let c = char::decode_utf16([u1, u2]).next()?.ok()?;
                Some((Term::Int(c as i64), at + 32))
            } else {
                let c = char::from_u32(u1 as u32)?;
                Some((Term::Int(c as i64), at + 16))
            }
        }
        SegType::Utf32 => {
            let x = b.read_uint(at, 32)? as u32;
            let x = if flags.little { x.swap_bytes() } else { x };
            let c = char::from_u32(x)?;
            Some((Term::Int(c as i64), at + 32))
        }
    }
}

/// Skips a segment; the new position, or `None` if the bits are not there.
pub fn skip(at: usize, total: usize, size: Size, unit: u8) -> Option<usize> {
    let bits = match size {
        Size::All => {
            let rest = total.checked_sub(at)?;
            if rest % unit as usize != 0 {
                return None;
            }
            rest
        }
        Size::Units(n) => n.checked_mul(unit as u64)? as usize,
        Size::Default => 8,
        Size::Bad => return None,
    };
    let np = at.checked_add(bits)?;
    (np <= total).then_some(np)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(segs: &[(Term, SegType, Size, u8, SegFlags)]) -> Arc<Bitstring> {
        let mut w = BitWriter::new();
        for (v, t, s, u, f) in segs {
            put(&mut w, v, *t, *s, *u, *f).unwrap();
        }
        Arc::new(w.finish())
    }

    #[test]
    fn integers_round_trip_with_sign_and_endianness() {
        let le = SegFlags {
            signed: true,
            little: true,
        };
        let b = build(&[
            (Term::Int(-2), SegType::Integer, Size::Units(16), 1, le),
            (
                Term::Int(5),
                SegType::Integer,
                Size::Units(3),
                1,
                SegFlags::default(),
            ),
            (
                Term::Int(300),
                SegType::Integer,
                Size::Default,
                1,
                SegFlags::default(),
            ),
        ]);
        assert_eq!(b.bit_len(), 27);
        let (v, at) = get(&b, 0, SegType::Integer, Size::Units(16), 1, le).unwrap();
        assert!(matches!(v, Term::Int(-2)));
        let (v, at) = get(
            &b,
            at,
            SegType::Integer,
            Size::Units(3),
            1,
            SegFlags::default(),
        )
        .unwrap();
        assert!(matches!(v, Term::Int(5)));
        let (v, _) = get(
            &b,
            at,
            SegType::Integer,
            Size::Default,
            1,
            SegFlags::default(),
        )
        .unwrap();
        assert!(matches!(v, Term::Int(44)), "300 truncated to 8 bits is 44");
    }

    #[test]
    fn big_integers_and_floats() {
        let big = Term::from_bigint(BigInt::from(1u128 << 100) + 7);
        let b = build(&[
            (
                big.clone(),
                SegType::Integer,
                Size::Units(128),
                1,
                SegFlags::default(),
            ),
            (
                Term::Float(1.5),
                SegType::Float,
                Size::Default,
                1,
                SegFlags::default(),
            ),
        ]);
        let (v, at) = get(
            &b,
            0,
            SegType::Integer,
            Size::Units(128),
            1,
            SegFlags::default(),
        )
        .unwrap();
        assert!(trace_term::order::exact_eq(&v, &big));
        let (f, _) = get(
            &b,
            at,
            SegType::Float,
            Size::Default,
            1,
            SegFlags::default(),
        )
        .unwrap();
        assert!(matches!(f, Term::Float(x) if x == 1.5));
    }

    #[test]
    fn utf8_segments() {
        let b = build(&[(
            Term::Int('é' as i64),
            SegType::Utf8,
            Size::Default,
            1,
            SegFlags::default(),
        )]);
        assert_eq!(b.bytes(), "é".as_bytes());
        let (c, at) = get(&b, 0, SegType::Utf8, Size::Default, 1, SegFlags::default()).unwrap();
        assert!(matches!(c, Term::Int(233)));
        assert_eq!(at, 16);
    }
}
