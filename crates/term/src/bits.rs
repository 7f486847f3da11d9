//! Binaries and bitstrings.
//!
//! A [`Bitstring`] is a window onto a shared byte buffer, so that taking the rest
//! of a binary in a match (`<<H, Rest/binary>>`) does not copy it.
//!
//! Buffers may have room to grow. Appending to a binary that ends where its
//! buffer's written bytes end (`<<Acc/binary, X:32>>` with `Acc` the last
//! binary built that way) writes the new bytes into that room instead of
//! copying `Acc`: no other window reaches past the written bytes, so none
//! sees a change. This is BEAM's append optimisation, and it makes building
//! a binary piece by piece linear instead of quadratic.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes shared by windows. `data[..used]` never changes once written;
/// `data[used..cap]` is room that an append claims (by moving `used`
/// forward) before writing into it.
struct Buffer {
    ptr: *mut u8,
    cap: usize,
    used: AtomicUsize,
}

// SAFETY: written bytes are immutable, and a byte of the room is written only
// by the one append that claimed it with a compare-and-swap on `used`.
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    /// Takes over a vector's allocation; its length is what is written.
    fn from_vec(v: Vec<u8>) -> Buffer {
        let mut v = ManuallyDrop::new(v);
        Buffer {
            ptr: v.as_mut_ptr(),
            cap: v.capacity(),
            used: AtomicUsize::new(v.len()),
        }
    }

    fn bytes(&self, from: usize, to: usize) -> &[u8] {
        debug_assert!(to <= self.used.load(Ordering::Relaxed) && from <= to);
        // SAFETY: `from..to` lies within the written, never again modified bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.add(from), to - from) }
    }

    /// Appends `extra` at `end` if that is where the written bytes end and
    /// the room suffices.
    fn try_extend(&self, end: usize, extra: &[u8]) -> bool {
        if extra.len() > self.cap - end {
            return false;
        }
        let claimed = self
            .used
            .compare_exchange(end, end + extra.len(), Ordering::AcqRel, Ordering::Relaxed)
            .is_ok();
        if claimed {
            // SAFETY: `end..end + extra.len()` is inside the allocation, and
            // the successful exchange made it ours alone.
            unsafe { std::ptr::copy_nonoverlapping(extra.as_ptr(), self.ptr.add(end), extra.len()) }
        }
        claimed
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: ptr and cap come from a Vec<u8>; u8 needs no drop, so a
        // length of 0 frees the allocation whatever was written.
        unsafe { drop(Vec::from_raw_parts(self.ptr, 0, self.cap)) }
    }
}

/// A sequence of bits; a binary when its length is a multiple of 8.
#[derive(Clone)]
pub struct Bitstring {
    buf: Arc<Buffer>,
    byte_off: usize,
    bit_len: usize,
}

impl Bitstring {
    pub fn from_bytes(bytes: &[u8]) -> Bitstring {
        Bitstring::from_vec(bytes.to_vec())
    }

    pub fn from_vec(bytes: Vec<u8>) -> Bitstring {
        let bit_len = bytes.len() * 8;
        Bitstring {
            buf: Arc::new(Buffer::from_vec(bytes)),
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
            buf: Arc::new(Buffer::from_vec(bytes)),
            byte_off: 0,
            bit_len,
        }
    }

    /// `self` followed by `extra`, written in place after `self` when its
    /// buffer allows (see the module documentation), copied otherwise into a
    /// buffer with room for more appends. `self` must be a binary.
    pub fn appended(&self, extra: &[u8], extra_bits: usize) -> Bitstring {
        debug_assert!(self.is_binary() && extra.len() == extra_bits.div_ceil(8));
        let end = self.byte_off + self.byte_len();
        if self.buf.try_extend(end, extra) {
            return Bitstring {
                buf: self.buf.clone(),
                byte_off: self.byte_off,
                bit_len: self.bit_len + extra_bits,
            };
        }
        let total = self.byte_len() + extra.len();
        let mut v = Vec::with_capacity((2 * total).max(256));
        v.extend_from_slice(self.bytes());
        v.extend_from_slice(extra);
        Bitstring {
            buf: Arc::new(Buffer::from_vec(v)),
            byte_off: 0,
            bit_len: self.bit_len + extra_bits,
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
        self.buf
            .bytes(self.byte_off, self.byte_off + self.byte_len())
    }

    /// Drops the first `start` bits in place, when `start` is a whole
    /// number of bytes within the bitstring (the rest of a match); `false`
    /// otherwise, leaving it unchanged.
    pub fn advance(&mut self, start: usize) -> bool {
        if !start.is_multiple_of(8) || start > self.bit_len {
            return false;
        }
        self.byte_off += start / 8;
        self.bit_len -= start;
        true
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
///
/// A construction that starts with a whole binary (`<<Acc/binary, ...>>`)
/// keeps that binary as a prefix instead of copying it, so that
/// [`finish`](BitWriter::finish) can append in place (see the module
/// documentation).
#[derive(Default, Clone)]
pub struct BitWriter {
    prefix: Option<Bitstring>,
    bytes: Vec<u8>,
    bit_len: usize,
}

impl BitWriter {
    pub fn new() -> BitWriter {
        BitWriter::default()
    }

    pub fn with_capacity(bytes: usize) -> BitWriter {
        BitWriter {
            prefix: None,
            bytes: Vec::with_capacity(bytes),
            bit_len: 0,
        }
    }

    /// Bits written so far (the prefix included).
    pub fn bit_len(&self) -> usize {
        self.prefix.as_ref().map_or(0, |p| p.bit_len) + self.bit_len
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
        if self.prefix.is_none() && self.bit_len == 0 && b.is_binary() && b.byte_len() >= 64 {
            // The start of an append: keep it rather than copy it.
            self.prefix = Some(b.clone());
            return;
        }
        if b.is_binary() {
            self.push_bytes(b.bytes());
        } else {
            for i in 0..b.bit_len() {
                self.push_bit(b.bit(i));
            }
        }
    }

    /// A writer that builds into `bytes` (emptied first): a caller that
    /// builds binary after binary keeps one allocation for them (see
    /// [`BitWriter::finish_reusing`]).
    pub fn with_buffer(mut bytes: Vec<u8>) -> BitWriter {
        bytes.clear();
        BitWriter {
            prefix: None,
            bytes,
            bit_len: 0,
        }
    }

    /// [`BitWriter::finish`], handing back the byte buffer when the result
    /// did not take it over: an append to a prefix copies its new bytes
    /// out, and the buffer can serve the next binary.
    pub fn finish_reusing(self) -> (Bitstring, Option<Vec<u8>>) {
        match self.prefix {
            None => (Bitstring::from_bits(self.bytes, self.bit_len), None),
            Some(p) => {
                let n = self.bit_len.div_ceil(8).min(self.bytes.len());
                (p.appended(&self.bytes[..n], self.bit_len), Some(self.bytes))
            }
        }
    }

    pub fn finish(self) -> Bitstring {
        self.finish_reusing().0
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

    fn append(base: &Bitstring, extra: &[u8]) -> Bitstring {
        let mut w = BitWriter::new();
        w.push_bitstring(base);
        w.push_bytes(extra);
        w.finish()
    }

    #[test]
    fn appends_share_the_buffer_without_disturbing_older_binaries() {
        let base = Bitstring::from_bytes(&[7u8; 100]);
        let a1 = append(&base, b"one");
        let a2 = append(&a1, b"two");
        // a2 was written in place after a1: same buffer, a1 unchanged.
        assert!(Arc::ptr_eq(&a1.buf, &a2.buf));
        assert_eq!(&a1.bytes()[100..], b"one");
        assert_eq!(&a2.bytes()[100..], b"onetwo");
        // Appending to a1 again cannot reuse the room a2 took: it copies.
        let b2 = append(&a1, b"TWO");
        assert!(!Arc::ptr_eq(&a1.buf, &b2.buf));
        assert_eq!(&b2.bytes()[100..], b"oneTWO");
        assert_eq!(&a2.bytes()[100..], b"onetwo");
        // Bits after the prefix.
        let mut w = BitWriter::new();
        w.push_bitstring(&a2);
        w.push_uint(0b101, 3);
        let odd = w.finish();
        assert_eq!(odd.bit_len(), 106 * 8 + 3);
        assert_eq!(odd.bytes()[106], 0b1010_0000);
    }

    #[test]
    fn a_reused_buffer_builds_what_a_new_one_builds() {
        let base = Bitstring::from_bytes(&[1u8; 80]);
        let mut spare = Vec::with_capacity(32);
        spare.extend_from_slice(b"left over");
        let mut w = BitWriter::with_buffer(spare);
        w.push_bitstring(&base);
        w.push_uint(0x0203, 16);
        w.push_uint(0b1, 1);
        let (got, back) = w.finish_reusing();
        assert_eq!(got.bit_len(), 82 * 8 + 1);
        assert_eq!(&got.bytes()[80..], &[2, 3, 0x80]);
        // The prefix took the new bytes by copy: the buffer comes back.
        let back = back.expect("an append hands its buffer back");
        assert!(back.capacity() >= 32);
        // Without a prefix the binary is the buffer itself.
        let mut w = BitWriter::with_buffer(back);
        w.push_uint(7, 8);
        let (got, back) = w.finish_reusing();
        assert_eq!(got.bytes(), &[7]);
        assert!(back.is_none());
    }

    #[test]
    fn appends_from_many_threads_never_overlap() {
        let base = append(&Bitstring::from_bytes(&[0u8; 64]), b"x");
        let handles: Vec<_> = (0..4u8)
            .map(|t| {
                let base = base.clone();
                std::thread::spawn(move || {
                    (0..200)
                        .map(|_| append(&base, &[t; 10]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (t, h) in handles.into_iter().enumerate() {
            for b in h.join().unwrap() {
                assert_eq!(&b.bytes()[65..], &[t as u8; 10]);
            }
        }
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
