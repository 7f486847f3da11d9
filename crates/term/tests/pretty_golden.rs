//! ~p, ~tp and ~P against OTP 25 (tests/data/terms.txt).

mod common;

use trace_term::pretty::{pretty, PrettyOptions};
use trace_term::quote::Encoding;

#[test]
fn pretty_matches_erlang() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for c in common::term_cases() {
        let t = common::term(&c.etf);
        let mut check = |what: String, opts: PrettyOptions, want: &str| {
            checked += 1;
            let got = pretty(&t, &opts);
            if got != want {
                failures.push(format!(
                    "terms.txt:{}: {what}\n--- want\n{want}\n--- got\n{got}",
                    c.line
                ));
            }
        };
        for (col, want) in &c.p {
            let opts = PrettyOptions {
                column: *col as i64,
                ..PrettyOptions::default()
            };
            check(format!("~p at column {col}"), opts, want);
        }
        for (col, want) in &c.tp {
            let opts = PrettyOptions {
                column: *col as i64,
                encoding: Encoding::Unicode,
                ..PrettyOptions::default()
            };
            check(format!("~tp at column {col}"), opts, want);
        }
        for (depth, want) in &c.big_p {
            let opts = PrettyOptions {
                depth: *depth,
                ..PrettyOptions::default()
            };
            check(format!("~P depth {depth}"), opts, want);
        }
    }
    assert!(checked > 8000, "only {checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}
