//! ETF against OTP 25's bytes, and ~w/~W printing of the decoded terms.

mod common;

use common::{term_cases, unhex};
use trace_term::print::{write_term, write_term_with};
use trace_term::quote::Encoding;
use trace_term::{etf, Term};

fn has_fun(t: &Term) -> bool {
    match t {
        Term::Fun(_) => true,
        Term::Cons(_) => {
            t.list_iter().any(has_fun)
                || has_fun(t.list_iter().last().map_or(&Term::Nil, |_| {
                    let mut it = t.list_iter();
                    for _ in &mut it {}
                    it.rest()
                }))
        }
        Term::Tuple(tu) => tu.elements().iter().any(has_fun),
        Term::Map(m) => m.iter().any(|(k, v)| has_fun(k) || has_fun(v)),
        _ => false,
    }
}

#[test]
fn decode_then_encode_matches_erlang() {
    let cases = term_cases();
    assert!(cases.len() > 500);
    let mut failures = Vec::new();
    for c in &cases {
        let bytes = unhex(&c.etf);
        let t = etf::decode(&bytes).unwrap_or_else(|e| panic!("terms.txt:{}: {e}", c.line));
        let t0 = etf::decode(&unhex(&c.etf_default))
            .unwrap_or_else(|e| panic!("terms.txt:{}: default encoding: {e}", c.line));
        assert!(
            t == t0,
            "terms.txt:{}: the two encodings decode differently",
            c.line
        );
        let again = etf::decode(&etf::to_vec(&t)).expect("re-decoding our encoding");
        assert!(again == t, "terms.txt:{}: round trip changed {t:?}", c.line);
        if !has_fun(&t) && etf::to_vec(&t) != bytes {
            failures.push(format!("terms.txt:{}: {:?}", c.line, t));
        }
    }
    assert!(
        failures.is_empty(),
        "{} encodings differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `term_to_binary/1` (minor version 1: latin1 atoms) and `{minor_version, 0}`
/// (text floats), as the engine's `term_to_binary` BIF writes them.
#[test]
fn older_minor_versions_match_erlang() {
    let mut failures = Vec::new();
    for c in &term_cases() {
        let t = etf::decode(&unhex(&c.etf)).expect("decoding");
        if has_fun(&t) {
            continue;
        }
        for (style, want) in [
            (etf::Style::V1, &c.etf_default),
            (etf::Style::V0, &c.etf_v0),
        ] {
            let mut got = Vec::new();
            etf::encode_with(&t, &mut got, style);
            if got != unhex(want) {
                failures.push(format!("terms.txt:{}: {style:?} {:?}", c.line, t));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} encodings differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn write_matches_erlang() {
    let mut failures = Vec::new();
    for c in term_cases() {
        let t = common::term(&c.etf);
        let got = write_term(&t);
        if got != c.w {
            failures.push(format!(
                "terms.txt:{}: ~w\n  want {}\n  got  {}",
                c.line, c.w, got
            ));
        }
        for (d, want) in &c.big_w {
            let got = write_term_with(&t, *d, Encoding::Latin1);
            if &got != want {
                failures.push(format!(
                    "terms.txt:{}: ~W depth {d}\n  want {want}\n  got  {got}",
                    c.line
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}
