//! Numbers to text and back, as the `erlang` BIFs do it: `integer_to_list/1,2`,
//! `list_to_integer/1,2`, `float_to_list/1,2`, `list_to_float/1`, and the
//! digit generation that `~w`, `~f`, `~e` and `~g` build on.
//!
//! Rust's float formatting is exact (correctly rounded, ties to even) and its
//! shortest form is the shortest round-trip digit string, which are the
//! properties of the C library and Ryu code that OTP uses; the layout rules
//! around the digits are OTP's.

use crate::term::Term;
use num_bigint::BigInt;
use num_traits::Num;
use std::fmt;

/// A conversion that OTP would fail with `badarg`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumTextError(pub &'static str);

impl fmt::Display for NumTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for NumTextError {}

/// `integer_to_list(N, Base)`: digits above 9 are upper case letters.
pub fn integer_to_text(n: &Term, base: u32) -> Result<String, NumTextError> {
    if !(2..=36).contains(&base) {
        return Err(NumTextError("base must be in 2..36"));
    }
    let s = match n {
        Term::Int(i) if base == 10 => i.to_string(),
        Term::Int(i) => BigInt::from(*i).to_str_radix(base),
        Term::Big(b) => b.to_str_radix(base),
        _ => return Err(NumTextError("not an integer")),
    };
    Ok(s.to_ascii_uppercase())
}

/// `list_to_integer(Text, Base)`: an optional sign then at least one digit of
/// `base` (either letter case); nothing else, not even blanks.
pub fn text_to_integer(s: &str, base: u32) -> Result<Term, NumTextError> {
    if !(2..=36).contains(&base) {
        return Err(NumTextError("base must be in 2..36"));
    }
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(base)) {
        return Err(NumTextError("not an integer"));
    }
    if s.len() <= 16 && base == 10 {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Term::Int(i));
        }
    }
    BigInt::from_str_radix(s, base)
        .map(Term::from_bigint)
        .map_err(|_| NumTextError("not an integer"))
}

/// `list_to_float(Text)`: `[+-]digits.digits[(e|E)[+-]digits]` and nothing
/// else; values that overflow are errors.
pub fn text_to_float(s: &str) -> Result<f64, NumTextError> {
    const BAD: NumTextError = NumTextError("not a float");
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let run = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !run(&mut i) || b.get(i) != Some(&b'.') {
        return Err(BAD);
    }
    i += 1;
    if !run(&mut i) {
        return Err(BAD);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !run(&mut i) {
            return Err(BAD);
        }
    }
    if i != b.len() {
        return Err(BAD);
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(f),
        _ => Err(BAD),
    }
}

/// `float_to_list(F)`: 21 significant digits, `"1.00000000000000000000e+00"`.
pub fn float_to_text(f: f64) -> String {
    scientific(f, 20)
}

/// How `float_to_list/2` lays a float out; see [`float_options`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatLayout {
    /// `{decimals, N}`, with `compact` dropping trailing zeros.
    Decimals { decimals: u32, compact: bool },
    /// `{scientific, N}` (and `[]`, which is `{scientific, 20}`).
    Scientific(u32),
    /// `short`: the shortest text that reads back as the same float.
    Short,
}

/// Reads a `float_to_list/2` option list. As in OTP the last of
/// `decimals`, `scientific` and `short` wins; `compact` may come anywhere.
pub fn float_options(opts: &Term) -> Result<FloatLayout, NumTextError> {
    const BAD: NumTextError = NumTextError("bad float_to_list option");
    let mut layout = FloatLayout::Scientific(20);
    let mut compact = false;
    let mut it = opts.list_iter();
    for o in &mut it {
        match o {
            Term::Atom(a) if a.name() == "compact" => compact = true,
            Term::Atom(a) if a.name() == "short" => layout = FloatLayout::Short,
            Term::Tuple(t) if t.arity() == 2 => {
                let n = match &t.elements()[1] {
                    Term::Int(n) if *n >= 0 => *n,
                    _ => return Err(BAD),
                };
                match t.elements()[0].as_atom().map(|a| a.name()) {
                    Some("decimals") if n <= 253 => {
                        layout = FloatLayout::Decimals {
                            decimals: n as u32,
                            compact: false,
                        }
                    }
                    Some("scientific") if n <= 249 => layout = FloatLayout::Scientific(n as u32),
                    _ => return Err(BAD),
                }
            }
            _ => return Err(BAD),
        }
    }
    if !it.is_proper() {
        return Err(BAD);
    }
    if let FloatLayout::Decimals { decimals, .. } = layout {
        layout = FloatLayout::Decimals { decimals, compact };
    }
    Ok(layout)
}

/// Longest text `float_to_list/2` produces; OTP formats into a 256-byte buffer
/// and fails with `badarg` when the text does not fit.
const MAX_FLOAT_TEXT: usize = 255;

/// `float_to_list(F, Options)` once the options are read.
pub fn float_to_text_with(f: f64, layout: FloatLayout) -> Result<String, NumTextError> {
    let s = match layout {
        FloatLayout::Short => short_float(f),
        FloatLayout::Scientific(n) => scientific(f, n as usize),
        FloatLayout::Decimals { decimals, compact } => fixed(f, decimals as usize, compact),
    };
    if s.len() > MAX_FLOAT_TEXT {
        return Err(NumTextError("float text too long"));
    }
    Ok(s)
}

/// C's `%.Ne`: an exponent of at least two digits, always signed.
fn scientific(f: f64, decimals: usize) -> String {
    let s = format!("{:.*e}", decimals, f);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.unsigned_abs())
}

/// OTP's fixed-point conversion (`sys_double_to_chars_fast`): for moderate
/// values and fewer than 19 decimals it rounds `frac * 10^N` in double
/// arithmetic, half away from zero; otherwise it is C's exact `%.Nf`.
fn fixed(f: f64, decimals: usize, compact: bool) -> String {
    const MAX_FLOAT: f64 = (1u64 << 53) as f64;
    let neg = f.is_sign_negative();
    let af = f.abs();
    if af > MAX_FLOAT || decimals >= 19 {
        let mut s = format!("{:.*}", decimals, f);
        if compact {
            strip_trailing_zeros(&mut s);
        }
        return s;
    }
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if decimals == 0 {
        s.push_str(&(af.round() as u64).to_string());
        return s;
    }
    let scale = 10f64.powi(decimals as i32);
    let int_f = af.floor();
    let frac_f = ((af - int_f) * scale).round();
    let (int_part, frac_part) = if frac_f >= scale {
        (int_f as u64 + 1, 0)
    } else {
        (int_f as u64, frac_f as u64)
    };
    s.push_str(&int_part.to_string());
    s.push('.');
    s.push_str(&format!("{:0width$}", frac_part, width = decimals));
    if compact {
        strip_trailing_zeros(&mut s);
    }
    s
}

/// Drops trailing zeros but keeps one digit after a decimal point. Like OTP it
/// does not look for the point first, so `"100"` becomes `"1"`.
fn strip_trailing_zeros(s: &mut String) {
    let kept = s.trim_end_matches('0').len();
    let keep = if s[..kept].ends_with('.') {
        kept + 1
    } else {
        kept
    };
    s.truncate(keep.min(s.len()));
}

/// The shortest round-trip digits of `|f|` (no leading or trailing zeros) and
/// the power of ten of the last digit: `|f| = digits * 10^place`.
fn shortest_digits(f: f64) -> (String, i32) {
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let place = exp - (digits.len() as i32 - 1);
    (digits, place)
}

/// `float_to_list(F, [short])`, which `~w` and `~p` print: the shortest
/// digits, laid out in plain or scientific notation, whichever OTP finds
/// shorter, and always scientific from 2^53 on.
pub fn short_float(f: f64) -> String {
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    if f == 0.0 {
        out.push_str("0.0");
        return out;
    }
    let (digits, place) = shortest_digits(f);
    let len = digits.len() as i32;
    let exp = place + len - 1;
    let exp_text = exp.to_string();
    let exp_cost = exp_text.len() as i32 + 2;
    let with_exp = |out: &mut String| {
        out.push_str(&digits[..1]);
        out.push('.');
        if len == 1 {
            out.push('0');
        } else {
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push_str(&exp_text);
    };
    // Plain notation wins ties: "0.0001" over "1.0e-4", "100.0" over "1.0e2".
    let dot = i32::from(len == 1);
    if place < 0 {
        if exp >= 0 {
            let split = (len + place) as usize;
            out.push_str(&digits[..split]);
            out.push('.');
            out.push_str(&digits[split..]);
        } else if 2 - place - len <= exp_cost + dot {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-place - len) as usize));
            out.push_str(&digits);
        } else {
            with_exp(&mut out);
        }
    } else {
        if exp_cost + dot >= place + 2 && f.abs() < (1u64 << 53) as f64 {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', place as usize));
            out.push_str(".0");
        } else {
            with_exp(&mut out);
        }
    }
    out
}

/// The 21 significant digits of `float_to_list(F)` and the decimal exponent
/// `e` such that `|f| = 0.d1d2... * 10^e`; `~f`, `~e` and `~g` round these
/// digits, not the float (`io_lib_format`'s `float_data`).
pub(crate) fn float_data(f: f64) -> (Vec<u8>, i32) {
    let s = format!("{:.20e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits = mant.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp.parse::<i32>().unwrap_or(0) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_floats_choose_otps_notation() {
        for (f, s) in [
            (1.0e-10, "1.0e-10"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1.0e15, "1.0e15"),
            (9007199254740991.0, "9007199254740991.0"),
            (9007199254740992.0, "9.007199254740992e15"),
            (0.001, "0.001"),
            (2.5e-5, "2.5e-5"),
            (12345.678, "12345.678"),
            (-0.0, "-0.0"),
        ] {
            assert_eq!(short_float(f), s, "{f:e}");
        }
    }

    #[test]
    fn float_to_text_has_twenty_decimals() {
        assert_eq!(float_to_text(1.0), "1.00000000000000000000e+00");
        assert_eq!(float_to_text(1.0e300), "1.00000000000000005250e+300");
    }

    #[test]
    fn fixed_rounds_half_away_from_zero() {
        assert_eq!(fixed(2.5, 0, false), "3");
        assert_eq!(fixed(1.005, 2, false), "1.00");
        assert_eq!(fixed(1.5, 3, true), "1.5");
        assert_eq!(fixed(-0.0, 2, false), "-0.00");
        assert_eq!(fixed(1.0e17, 0, true), "1");
    }

    #[test]
    fn strict_float_syntax() {
        assert_eq!(text_to_float("1.5e3"), Ok(1500.0));
        for bad in ["1", "1.", ".5", "1e5", "1.0e", " 1.0", "1.0e400", "inf"] {
            assert!(text_to_float(bad).is_err(), "{bad}");
        }
    }
}
