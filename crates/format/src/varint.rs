//! LEB128 varints and zigzag signed integers, the building blocks of the event
//! codec. Decoding is strict: a varint longer than 10 bytes, or one whose 10th
//! byte overflows 64 bits, is an error rather than a silently wrapped value.

/// Appends `v` as an unsigned LEB128 varint (1 to 10 bytes).
#[inline]
pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Maps signed to unsigned so that small magnitudes stay small: 0, -1, 1, -2 → 0, 1, 2, 3.
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Why a varint could not be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VarintError {
    /// The input ended inside the varint.
    Truncated,
    /// More than 64 bits of value.
    Overflow,
}

/// Reads an unsigned LEB128 varint at `*pos`, advancing `*pos` past it.
#[inline(always)]
pub fn get(buf: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
    // Fast path, inlined into every caller: one byte, the common case for
    // the codec's operands and segment tables.
    if let Some(&b) = buf.get(*pos) {
        if b < 0x80 {
            *pos += 1;
            return Ok(b as u64);
        }
    }
    get_long(buf, pos)
}

/// [`get`] past its first byte's fast path. Varints of 2 and 3 bytes (the
/// explicit process indices of a crowd's log) are read with one bounds
/// check, and of 4 with one more; longer ones, and those at the end of
/// `buf`, byte by byte.
#[inline(never)]
fn get_long(buf: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
    let p = *pos;
    if let Some(&[b0, b1, b2]) = buf.get(p..p.wrapping_add(3)) {
        let low = (b0 & 0x7f) as u64 | ((b1 & 0x7f) as u64) << 7;
        if b1 < 0x80 {
            *pos = p + 2;
            return Ok(low);
        }
        if b2 < 0x80 {
            *pos = p + 3;
            return Ok(low | (b2 as u64) << 14);
        }
        // Four bytes: a destination code (a process index times 4) of a
        // process past 2^19.
        if let Some(&b3) = buf.get(p + 3).filter(|&&b| b < 0x80) {
            *pos = p + 4;
            return Ok(low | ((b2 & 0x7f) as u64) << 14 | (b3 as u64) << 21);
        }
    }
    get_checked(buf, pos)
}

/// [`get`] a byte at a time, checking every byte: near the end of the
/// input, and for 10-byte varints.
#[cold]
fn get_checked(buf: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let Some(&b) = buf.get(*pos) else {
            return Err(VarintError::Truncated);
        };
        *pos += 1;
        if shift == 63 && b > 1 {
            return Err(VarintError::Overflow);
        }
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Ok(v);
        }
        shift += 7;
        if shift > 63 {
            return Err(VarintError::Overflow);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edges() {
        for v in [
            0u64,
            1,
            127,
            128,
            255,
            16383,
            16384,
            u32::MAX as u64,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put(&mut b, v);
            let mut pos = 0;
            assert_eq!(get(&b, &mut pos), Ok(v));
            assert_eq!(pos, b.len());
        }
        assert_eq!(
            {
                let mut b = Vec::new();
                put(&mut b, u64::MAX);
                b.len()
            },
            10
        );
    }

    #[test]
    fn reads_every_length_away_from_the_end_and_at_it() {
        for len in 1..=10u32 {
            let v = if len == 10 {
                u64::MAX
            } else {
                (1u64 << (7 * len)) - 1
            };
            let mut b = vec![0xaa];
            put(&mut b, v);
            assert_eq!(b.len() as u32, len + 1);
            for pad in [0, 3, 12] {
                let mut c = b.clone();
                c.resize(b.len() + pad, 0x81);
                let mut pos = 1;
                assert_eq!(get(&c, &mut pos), Ok(v), "{len} bytes, {pad} after");
                assert_eq!(pos, b.len());
            }
        }
        let mut eleven = vec![0x80; 10];
        eleven.extend([0, 0, 0, 0]);
        assert_eq!(get(&eleven, &mut 0), Err(VarintError::Overflow));
    }

    #[test]
    fn zigzag_keeps_small_magnitudes_small() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        for v in [i64::MIN, -5, 0, 5, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn rejects_truncated_and_overlong() {
        let mut pos = 0;
        assert_eq!(get(&[0x80, 0x80], &mut pos), Err(VarintError::Truncated));
        let mut pos = 0;
        assert_eq!(get(&[], &mut pos), Err(VarintError::Truncated));
        for cut in 2..=4 {
            let mut pos = 0;
            let b = [0xffu8; 4];
            assert_eq!(get(&b[..cut], &mut pos), Err(VarintError::Truncated));
        }
        let over = [0xff; 10];
        let mut pos = 0;
        assert_eq!(get(&over, &mut pos), Err(VarintError::Overflow));
        let mut eleven = vec![0x80; 10];
        eleven.push(0);
        let mut pos = 0;
        assert_eq!(get(&eleven, &mut pos), Err(VarintError::Overflow));
    }
}
