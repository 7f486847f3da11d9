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
    b.pure(e, "md5", 1, |a| Ok(Term::binary(&md5(&bytes(&a[0])?))), 0);
    b.pure(e, "crc32", 1, |a| crc32(0, &a[0]), 0);
    b.pure(e, "crc32", 2, |a| crc32(checksum_arg(&a[0])?, &a[1]), 0);
    b.pure(e, "adler32", 1, |a| adler32(1, &a[0]), 0);
    b.pure(e, "adler32", 2, |a| adler32(checksum_arg(&a[0])?, &a[1]), 0);
}

/// The bytes of iodata (a binary, or a deep list of bytes and binaries).
fn bytes(t: &Term) -> Result<Vec<u8>, Fault> {
    match iolist_to_binary(t) {
        Some(Term::Binary(b)) => Ok(b.bytes().to_vec()),
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
    h.update(&bytes(data)?);
    Ok(Term::Int(h.finalize() as i64))
}

fn adler32(start: u32, data: &Term) -> BifResult {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (start & 0xffff, start >> 16);
    // Sums stay below 2^32 over this many bytes before a reduction.
    for chunk in bytes(data)?.chunks(5552) {
        for &x in chunk {
            a += x as u32;
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    Ok(Term::Int(((b << 16) | a) as i64))
}

/// MD5 (RFC 1321) of `data`.
fn md5(data: &[u8]) -> [u8; 16] {
    // Per-round shift amounts and the sine-derived constants of RFC 1321.
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32)
        .collect();
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for block in msg.chunks_exact(64) {
        let m: Vec<u32> = block
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(k[i])
                .wrapping_add(m[g])
                .rotate_left(S[i]);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(rotated);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    let mut out = [0u8; 16];
    for (o, s) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&s.to_le_bytes());
    }
    out
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
