//! `~e`, `~f` and `~g`. OTP does not round the float itself: it takes the 21
//! significant digits of `float_to_list/1` and rounds that digit string,
//! half up, so `~.2f` of 0.125 is `0.13`. The same is done here.

use super::{bad, FormatError};
use crate::numtext::float_data;

/// `float_man`: the digits `ds` laid out with `int` digits before the point
/// (none: start with the point) and `dec` after, rounded half up on the digit
/// string. Returns the text and whether rounding carried out of the first digit.
fn mantissa(ds: &[u8], int: usize, dec: usize) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(int + dec + 2);
    out.extend(ds.iter().take(int).copied());
    out.extend(std::iter::repeat_n(b'0', int.saturating_sub(ds.len())));
    out.push(b'.');
    let rest = ds.get(int..).unwrap_or(&[]);
    out.extend(rest.iter().take(dec).copied());
    out.extend(std::iter::repeat_n(b'0', dec.saturating_sub(rest.len())));
    let round_up = rest.get(dec).is_some_and(|&d| d >= b'5');
    if !round_up {
        return (out, false);
    }
    for d in out.iter_mut().rev() {
        match *d {
            b'.' => {}
            b'9' => *d = b'0',
            _ => {
                *d += 1;
                return (out, false);
            }
        }
    }
    (out, true)
}

fn text(v: Vec<u8>) -> String {
    v.into_iter().map(char::from).collect()
}

fn sign(f: f64) -> &'static str {
    if f.is_sign_negative() {
        "-"
    } else {
        ""
    }
}

fn exponent(e: i32) -> String {
    if e >= 0 {
        format!("e+{e}")
    } else {
        format!("e{e}")
    }
}

/// `~e`: one digit before the point, `precision - 1` after (6 by default, at least 2).
pub(super) fn fwrite_e(f: f64, precision: Option<i64>) -> Result<String, FormatError> {
    let p = precision.unwrap_or(6);
    if p < 2 {
        return bad("~e needs a precision of at least 2");
    }
    let (ds, e) = float_data(f);
    let (m, carry) = mantissa(&ds, 1, (p - 1) as usize);
    let (m, e) = if carry {
        // 9.99 rounded to 10.0: OTP writes "1.00" and keeps the exponent.
        let mut m = m;
        m[0] = b'1';
        (m, e)
    } else {
        (m, e - 1)
    };
    Ok(format!("{}{}{}", sign(f), text(m), exponent(e)))
}

/// `~f`: `precision` decimals (6 by default, at least 1).
pub(super) fn fwrite_f(f: f64, precision: Option<i64>) -> Result<String, FormatError> {
    let p = precision.unwrap_or(6);
    if p < 1 {
        return bad("~f needs a precision of at least 1");
    }
    let (mut ds, mut e) = float_data(f);
    if e <= 0 {
        let mut padded = vec![b'0'; (-e + 1) as usize];
        padded.extend_from_slice(&ds);
        ds = padded;
        e = 1;
    }
    let (m, carry) = mantissa(&ds, e as usize, p as usize);
    let body = if carry {
        format!("1{}", text(m))
    } else {
        text(m)
    };
    Ok(format!("{}{}", sign(f), body))
}

/// `~g`: `~f` for magnitudes from 0.1 up to 10000 when the precision (6 by
/// default) covers the integer digits, `~e` otherwise.
pub(super) fn fwrite_g(f: f64, precision: Option<i64>) -> Result<String, FormatError> {
    let p = precision.unwrap_or(6);
    if p < 1 {
        return bad("~g needs a precision of at least 1");
    }
    let a = f.abs();
    let e: Option<i64> = [0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]
        .iter()
        .position(|&limit| a < limit)
        .map(|i| i as i64 - 2);
    match e {
        Some(-1) if p <= 1 => fwrite_f(f, Some(p)),
        Some(e) if p - 1 > e && e >= -1 => fwrite_f(f, Some(p - 1 - e)),
        _ if p <= 1 => fwrite_e(f, Some(2)),
        _ => fwrite_e(f, Some(p)),
    }
}
