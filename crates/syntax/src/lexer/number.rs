//! Numbers: `123`, `1_000`, `16#ff`, `36#Zz`, `2.5e-3`, `1_000.0`.

use super::Lexer;
use crate::ast::IntLit;
use crate::diag::{DiagKind, Diagnostic};
use crate::token::TokenKind;

/// Integer literals longer than this are refused: converting them (here and in
/// the compiler) is quadratic, and no real program needs one.
pub const MAX_NUMBER_DIGITS: usize = 10_000;

impl Lexer {
    pub(super) fn number(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos();
        let int_part = self.digits(10);
        if self.peek(0) == Some('#') {
            let base = int_part
                .parse::<u32>()
                .ok()
                .filter(|b| (2..=36).contains(b));
            let Some(base) = base else {
                let shown = int_part.trim_start_matches('0');
                let shown = if shown.is_empty() { "0" } else { shown };
                return Err(self.error_at(
                    start,
                    DiagKind::Syntax,
                    format!("illegal base '{shown}'"),
                ));
            };
            self.bump();
            let digits = self.digits(base);
            if digits.is_empty() {
                return Err(self.error_at(start, DiagKind::Syntax, "illegal integer"));
            }
            self.check_length(&digits, start)?;
            return Ok(TokenKind::Integer(int_lit(&digits, base)));
        }
        let fraction_follows =
            self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit());
        if !fraction_follows {
            self.check_length(&int_part, start)?;
            return Ok(TokenKind::Integer(int_lit(&int_part, 10)));
        }
        self.bump();
        let mut text = format!("{int_part}.{}", self.digits(10));
        if let Some(e @ ('e' | 'E')) = self.peek(0) {
            self.bump();
            text.push(e);
            if let Some(sign @ ('+' | '-')) = self.peek(0) {
                self.bump();
                text.push(sign);
            }
            let exponent = self.digits(10);
            if exponent.is_empty() {
                return Err(self.error_at(start, DiagKind::Syntax, "illegal float"));
            }
            text.push_str(&exponent);
        }
        self.check_length(&text, start)?;
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(TokenKind::Float(x)),
            _ => Err(self.error_at(start, DiagKind::Syntax, "illegal float")),
        }
    }

    /// Digits of `base`, with `_` allowed only between two digits (as in
    /// OTP 25: `1__0` is `1` followed by the variable `__0`).
    fn digits(&mut self, base: u32) -> String {
        let mut digits = String::new();
        loop {
            match self.peek(0) {
                Some(c) if c.is_digit(base) => {
                    digits.push(c);
                    self.bump();
                }
                Some('_')
                    if !digits.is_empty() && self.peek(1).is_some_and(|c| c.is_digit(base)) =>
                {
                    self.bump();
                }
                _ => return digits,
            }
        }
    }

    fn check_length(&self, digits: &str, start: crate::ast::Pos) -> Result<(), Diagnostic> {
        if digits.len() > MAX_NUMBER_DIGITS {
            Err(self.error_at(
                start,
                DiagKind::Unsupported,
                format!("number literals longer than {MAX_NUMBER_DIGITS} digits are not supported"),
            ))
        } else {
            Ok(())
        }
    }
}

/// The value of `digits` (already validated for `base`): `Small` when it fits
/// `i64`, otherwise its decimal digits.
fn int_lit(digits: &str, base: u32) -> IntLit {
    if let Ok(n) = i64::from_str_radix(digits, base) {
        return IntLit::Small(n);
    }
    if base == 10 {
        return IntLit::Big(digits.trim_start_matches('0').to_string());
    }
    // Little-endian limbs of 10^9, so the decimal text falls out directly.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs: Vec<u32> = vec![0];
    for c in digits.chars() {
        let mut carry = u64::from(c.to_digit(base).unwrap_or(0));
        for limb in limbs.iter_mut() {
            let v = u64::from(*limb) * u64::from(base) + carry;
            *limb = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        while carry > 0 {
            limbs.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
    }
    let mut text = limbs.last().map(|l| l.to_string()).unwrap_or_default();
    for limb in limbs.iter().rev().skip(1) {
        text.push_str(&format!("{limb:09}"));
    }
    IntLit::Big(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_literals_convert_to_decimal() {
        assert_eq!(int_lit("ff", 16), IntLit::Small(255));
        assert_eq!(
            int_lit("9223372036854775808", 10),
            IntLit::Big("9223372036854775808".into())
        );
        // 36#ZZZZZZZZZZZZZZZZZZZZZZZZZZ, value checked with erl.
        assert_eq!(
            int_lit("ZZZZZZZZZZZZZZZZZZZZZZZZZZ", 36),
            IntLit::Big("29098125988731506183153025616435306561535".into())
        );
        assert_eq!(
            int_lit("10000000000000000", 16),
            IntLit::Big("18446744073709551616".into())
        );
    }
}
