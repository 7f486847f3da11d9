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

/// [`get`] past its first byte's fast path.
#[inline(never)]
fn get_long(buf: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
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
        let over = [0xff; 10];
        let mut pos = 0;
        assert_eq!(get(&over, &mut pos), Err(VarintError::Overflow));
        let mut eleven = vec![0x80; 10];
        eleven.push(0);
        let mut pos = 0;
        assert_eq!(get(&eleven, &mut pos), Err(VarintError::Overflow));
    }
}
