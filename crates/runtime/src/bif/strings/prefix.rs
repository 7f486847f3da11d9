//! `string:list_to_integer/1` and `string:list_to_float/1`: the number at
//! the front of a flat list of characters and the rest of the list, as it
//! is (OTP's BIFs read the list cell by cell, so the rest may be anything,
//! even an improper tail). A non-list is `{error, not_a_list}`.

use crate::exception::BifResult;
use trace_term::{atom, Term};

/// The characters a number can be made of, from the front of the list.
fn number_chars(list: &Term) -> Vec<char> {
    let mut cs = Vec::new();
    let mut cur = list;
    while let Term::Cons(cell) = cur {
        match cell.head {
            Term::Int(c @ 0..=0x7f) if is_number_char(c as u8) => cs.push(c as u8 as char),
            _ => break,
        }
        cur = &cell.tail;
    }
    cs
}

fn is_number_char(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E')
}

/// The list after its first `n` cells.
fn after(list: &Term, n: usize) -> Term {
    let mut cur = list;
    for _ in 0..n {
        match cur {
            Term::Cons(cell) => cur = &cell.tail,
            _ => break,
        }
    }
    cur.clone()
}

fn digits_end(cs: &[char], from: usize) -> usize {
    from + cs[from.min(cs.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count()
}

fn error(what: &str) -> BifResult {
    Ok(Term::tuple(vec![Term::Atom(atom::ERROR), Term::atom(what)]))
}

pub fn list_to_integer(a: &[Term]) -> BifResult {
    if !a[0].is_list() {
        return error("not_a_list");
    }
    let cs = number_chars(&a[0]);
    let sign = usize::from(matches!(cs.first(), Some('+' | '-')));
    let end = digits_end(&cs, sign);
    if end == sign {
        return error("no_integer");
    }
    let text: String = cs[..end].iter().collect();
    match trace_term::numtext::text_to_integer(&text, 10) {
        Ok(n) => Ok(Term::tuple(vec![n, after(&a[0], end)])),
        Err(_) => error("no_integer"),
    }
}

/// Digits, a point, digits, and an exponent if one follows in full.
pub fn list_to_float(a: &[Term]) -> BifResult {
    if !a[0].is_list() {
        return error("not_a_list");
    }
    let cs = number_chars(&a[0]);
    let sign = usize::from(matches!(cs.first(), Some('+' | '-')));
    let int_end = digits_end(&cs, sign);
    if int_end == sign || cs.get(int_end) != Some(&'.') {
        return error("no_float");
    }
    let frac_end = digits_end(&cs, int_end + 1);
    if frac_end == int_end + 1 {
        return error("no_float");
    }
    let mut end = frac_end;
    if matches!(cs.get(end), Some('e' | 'E')) {
        let s = end + 1 + usize::from(matches!(cs.get(end + 1), Some('+' | '-')));
        let e = digits_end(&cs, s);
        if e > s {
            end = e;
        }
    }
    let text: String = cs[..end].iter().collect();
    match trace_term::numtext::text_to_float(&text) {
        Ok(f) => Ok(Term::tuple(vec![Term::Float(f), after(&a[0], end)])),
        Err(_) => error("no_float"),
    }
}
