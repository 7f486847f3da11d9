//! Binaries and bitstrings.
//!
//! A [`Bitstring`] is a window onto a shared byte buffer, so that taking the rest
//! of a binary in a match (`<<H, Rest/binary>>`) does not copy it.

use std::sync::Arc;

/// A sequence of bits; a binary when its length is a multiple of 8.
#[derive(Clone)]
pub struct Bitstring {
    buf: Arc<[u8]>,
    byte_off: usize,
    bit_len: usize,
}

impl Bitstring {
    pub fn from_bytes(bytes: &[u8]) -> Bitstring {
        Bitstring {
            buf: Arc::from(bytes),
            byte_off: 0,
            bit_len: bytes.len() * 8,
        }
    }

    pub fn from_vec(bytes: Vec<u8>) -> Bitstring {
        let bit_len = bytes.len() * 8;
        Bitstring {
            buf: Arc::from(bytes),
            byte_off: 0,
            bit_len,
        }
    }

    /// `bytes` holds `bit_len` bits, most significant bit first; bits past
    /// `bit_len` in the last byte are ignored (and cleared).
    pub fn from_bits(mut bytes: Vec<u8>, bit_len: usize) -> Bitstring {
        let need = bit_len.div_ceil(8);
        bytes.truncate(need);
        bytes.resize(need, 0);
        let rem = bit_len % 8;
        if rem != 0 {
            let last = need - 1;
            bytes[last] &= 0xffu8 << (8 - rem);
        }
        Bitstring {
            buf: Arc::from(bytes),
            byte_off: 0,
            bit_len,
        }
    }

    /// Length in bits.
    pub fn bit_len(&self) -> usize {
        self.bit_len
    }

    /// Length in whole bytes (`byte_size/1` rounds up).
    pub fn byte_len(&self) -> usize {
        self.bit_len.div_ceil(8)
    }

    /// True when the length is a whole number of bytes.
    pub fn is_binary(&self) -> bool {
        self.bit_len.is_multiple_of(8)
    }

    /// The bytes; the last one is partial (high bits used) when `!is_binary()`.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.byte_off..self.byte_off + self.byte_len()]
    }

    /// The bit at position `i` (0 = most significant bit of the first byte).
    pub fn bit(&self, i: usize) -> bool {
        let b = self.bytes()[i / 8];
        (b >> (7 - (i % 8))) & 1 == 1
    }

    /// A sub-bitstring starting at bit `start` with `len` bits. Shares the buffer
    /// when `start` is byte-aligned, copies otherwise. `None` if out of range.
    pub fn slice(&self, start: usize, len: usize) -> Option<Bitstring> {
        if start.checked_add(len)? > self.bit_len {
            return None;
        }
        if start.is_multiple_of(8) {
            return Some(Bitstring {
                buf: self.buf.clone(),
                byte_off: self.byte_off + start / 8,
                bit_len: len,
            });
        }
        let mut out = vec![0u8; len.div_ceil(8)];
        for i in 0..len {
            if self.bit(start + i) {
                out[i / 8] |= 1 << (7 - (i % 8));
            }
        }
        Some(Bitstring::from_bits(out, len))
    }

    /// Reads `len` (≤ 64) bits starting at bit `start` as an unsigned big-endian number.
    pub fn read_uint(&self, start: usize, len: usize) -> Option<u64> {
        if len > 64 || start.checked_add(len)? > self.bit_len {
            return None;
        }
        if start.is_multiple_of(8) && len.is_multiple_of(8) {
            let b = &self.bytes()[start / 8..(start + len) / 8];
            return Some(b.iter().fold(0u64, |acc, &x| (acc << 8) | x as u64));
        }
        let mut v = 0u64;
        for i in 0..len {
            v = (v << 1) | self.bit(start + i) as u64;
        }
        Some(v)
    }
}

/// Builds a bitstring by appending bits, as a binary construction expression does.
#[derive(Default, Clone)]
pub struct BitWriter {
    bytes: Vec<u8>,
    bit_len: usize,
}

impl BitWriter {
    pub fn new() -> BitWriter {
        BitWriter::default()
    }

    pub fn with_capacity(bytes: usize) -> BitWriter {
        BitWriter {
            bytes: Vec::with_capacity(bytes),
            bit_len: 0,
        }
    }

    pub fn bit_len(&self) -> usize {
        self.bit_len
    }

    pub fn push_bytes(&mut self, b: &[u8]) {
        if self.bit_len.is_multiple_of(8) {
            self.bytes.extend_from_slice(b);
            self.bit_len += b.len() * 8;
        } else {
            for &x in b {
                self.push_uint(x as u64, 8);
            }
        }
    }

    /// Appends the low `len` (≤ 64) bits of `v`, most significant first.
    pub fn push_uint(&mut self, v: u64, len: usize) {
        if self.bit_len.is_multiple_of(8) && len.is_multiple_of(8) {
            for i in (0..len / 8).rev() {
                self.bytes.push((v >> (i * 8)) as u8);
            }
            self.bit_len += len;
            return;
        }
        for i in (0..len).rev() {
            self.push_bit((v >> i) & 1 == 1);
        }
    }

    pub fn push_bit(&mut self, bit: bool) {
        if self.bit_len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            let last = self.bytes.len() - 1;
            self.bytes[last] |= 1 << (7 - (self.bit_len % 8));
        }
        self.bit_len += 1;
    }

    pub fn push_bitstring(&mut self, b: &Bitstring) {
        if b.is_binary() {
            self.push_bytes(b.bytes());
        } else {
            for i in 0..b.bit_len() {
                self.push_bit(b.bit(i));
            }
        }
    }

    pub fn finish(self) -> Bitstring {
        Bitstring::from_bits(self.bytes, self.bit_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_share_or_copy_and_read_back() {
        let b = Bitstring::from_bytes(&[0xAB, 0xCD, 0xEF]);
        let s = b.slice(8, 16).unwrap();
        assert_eq!(s.bytes(), &[0xCD, 0xEF]);
        let odd = b.slice(4, 8).unwrap();
        assert_eq!(odd.bytes(), &[0xBC]);
        assert_eq!(b.read_uint(4, 12), Some(0xBCD));
        assert!(b.slice(20, 8).is_none());
    }

    #[test]
    fn writer_packs_bits() {
        let mut w = BitWriter::new();
        w.push_uint(1, 1);
        w.push_uint(0, 2);
        w.push_uint(0b11111, 5);
        w.push_bytes(b"A");
        w.push_uint(1, 3);
        let b = w.finish();
        assert_eq!(b.bit_len(), 19);
        assert_eq!(b.bytes(), &[0b1001_1111, b'A', 0b0010_0000]);
        assert!(!b.is_binary());
    }
}
