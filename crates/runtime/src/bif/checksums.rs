//! `erlang:md5/1`, `crc32/1,2` and `adler32/1,2`: checksums of iodata,
//! as BEAM computes them (MD5 of RFC 1321; the CRC-32 of IEEE 802.3 that
//! zlib computes; Adler-32 of RFC 1950). `crc32/2` and `adler32/2` go on
//! from an earlier checksum.

use super::binaries::iolist_to_binary;
use super::Builder;
use crate::exception::{badarg, BifResult, Fault};
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.pure(e, "md5", 1, |a| md5_term(&a[0]), 0);
    b.pure(e, "crc32", 1, |a| crc32(0, &a[0]), 0);
    b.pure(e, "crc32", 2, |a| crc32(checksum_arg(&a[0])?, &a[1]), 0);
    b.pure(e, "adler32", 1, |a| adler32(1, &a[0]), 0);
    b.pure(e, "adler32", 2, |a| adler32(checksum_arg(&a[0])?, &a[1]), 0);
}

/// `f` of the bytes of iodata (a binary, or a deep list of bytes and
/// binaries).
fn with_bytes<T>(t: &Term, f: impl FnOnce(&[u8]) -> T) -> Result<T, Fault> {
    if let Term::Binary(b) = t {
        if b.is_binary() {
            return Ok(f(b.bytes()));
        }
    }
    match iolist_to_binary(t) {
        Some(Term::Binary(b)) => Ok(f(b.bytes())),
        _ => Err(badarg()),
    }
}

/// An earlier checksum: an unsigned 32-bit integer.
fn checksum_arg(t: &Term) -> Result<u32, Fault> {
    t.as_int()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(badarg)
}

fn crc32(start: u32, data: &Term) -> BifResult {
    let mut h = crc32fast::Hasher::new_with_initial(start);
    with_bytes(data, |b| h.update(b))?;
    Ok(Term::Int(h.finalize() as i64))
}

fn adler32(start: u32, data: &Term) -> BifResult {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (start & 0xffff, start >> 16);
    with_bytes(data, |bytes| {
        // Sums stay below 2^32 over this many bytes before a reduction.
        for chunk in bytes.chunks(5552) {
            for &x in chunk {
                a += x as u32;
                b += a;
            }
            a %= MOD;
            b %= MOD;
        }
    })?;
    Ok(Term::Int(((b << 16) | a) as i64))
}

fn md5_term(data: &Term) -> BifResult {
    Ok(Term::binary(&with_bytes(data, md5)?))
}

/// Per-step shift amounts of RFC 1321.
const S: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
    14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15,
    21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// RFC 1321's table: the integer part of 2^32 * |sin(i + 1)|.
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// MD5 (RFC 1321) of `data`: its whole 64-byte blocks as they are, then
/// the last bytes padded (with 0x80, zeros and the length in bits) into
/// one or two blocks.
fn md5(data: &[u8]) -> [u8; 16] {
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let whole = data.len() / 64 * 64;
    for block in data[..whole].chunks_exact(64) {
        md5_block(&mut state, block);
    }
    let mut tail = [0u8; 128];
    let rest = &data[whole..];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let len = if rest.len() < 56 { 64 } else { 128 };
    tail[len - 8..len].copy_from_slice(&(data.len() as u64).wrapping_mul(8).to_le_bytes());
    for block in tail[..len].chunks_exact(64) {
        md5_block(&mut state, block);
    }
    let mut out = [0u8; 16];
    for (o, s) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&s.to_le_bytes());
    }
    out
}

fn md5_block(state: &mut [u32; 4], block: &[u8]) {
    let mut m = [0u32; 16];
    for (w, b) in m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let rotated = a
            .wrapping_add(f)
            .wrapping_add(K[i])
            .wrapping_add(m[g])
            .rotate_left(S[i]);
        (a, d, c) = (d, c, b);
        b = b.wrapping_add(rotated);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d]) {
        *s = s.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::md5;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn md5_of_rfc_1321s_test_suite() {
        for (input, digest) in [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ] {
            assert_eq!(hex(&md5(input.as_bytes())), digest, "{input:?}");
        }
    }
}
