//! Number <-> text conversions, phash2 and phash against OTP 25
//! (tests/data/calls.txt).

mod common;

use trace_term::numtext::{
    float_options, float_to_text, float_to_text_with, integer_to_text, text_to_float,
    text_to_integer,
};
use trace_term::phash::{phash2, phash2_range};
use trace_term::phash1::phash;
use trace_term::Term;

/// The characters of an Erlang string term.
fn chars(t: &Term) -> String {
    t.list_iter()
        .map(|c| char::from_u32(c.as_int().unwrap() as u32).unwrap())
        .collect()
}

/// Runs one call the way the BIF would, giving the result term or None for an error.
fn call(name: &str, args: &[Term]) -> Option<Option<Term>> {
    let int = |t: &Term| t.as_int().unwrap() as u32;
    Some(match (name, args) {
        ("integer_to_list", [n]) => integer_to_text(n, 10).ok().map(|s| Term::string(&s)),
        ("integer_to_list", [n, b]) => integer_to_text(n, int(b)).ok().map(|s| Term::string(&s)),
        ("list_to_integer", [s]) => text_to_integer(&chars(s), 10).ok(),
        ("list_to_integer", [s, b]) => text_to_integer(&chars(s), int(b)).ok(),
        ("list_to_float", [s]) => text_to_float(&chars(s)).ok().map(Term::Float),
        ("float_to_list", [Term::Float(f)]) => Some(Term::string(&float_to_text(*f))),
        ("float_to_list", [Term::Float(f), opts]) => float_options(opts)
            .and_then(|o| float_to_text_with(*f, o))
            .ok()
            .map(|s| Term::string(&s)),
        ("phash2", [t]) => Some(Term::Int(i64::from(phash2(t)))),
        ("phash2", [t, Term::Int(r)]) => {
            phash2_range(t, *r as u64).map(|h| Term::Int(i64::from(h)))
        }
        ("phash", [t, Term::Int(r)]) if *r > 0 => phash(t, *r as u64).map(|h| Term::Int(h as i64)),
        ("phash", [_, _]) => None,
        _ => return None,
    })
}

#[test]
fn calls_match_erlang() {
    let data = common::data("calls.txt");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (i, line) in data.lines().enumerate() {
        let mut parts = line.split(' ');
        let (name, args, want) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let args = common::term(args).to_vec().unwrap();
        let Some(got) = call(name, &args) else {
            continue;
        };
        checked += 1;
        let want = (want != "error").then(|| common::term(want));
        let same = match (&got, &want) {
            (Some(g), Some(w)) => g == w,
            (None, None) => true,
            _ => false,
        };
        if !same {
            failures.push(format!(
                "calls.txt:{}: {name}{args:?}\n  want {want:?}\n  got  {got:?}",
                i + 1
            ));
        }
    }
    assert!(checked > 4000, "only {checked} cases");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
