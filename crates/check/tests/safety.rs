//! Which properties a prefix of a run can violate for good (what `record
//! --until-failure --check` stops an attempt at).

use std::path::Path;

fn safety(spec: &str) -> Vec<(String, bool)> {
    let c = trace_check::load_str(Path::new("t.tspec"), spec).unwrap();
    c.properties
        .iter()
        .map(|p| (p.name.clone(), p.is_safety()))
        .collect()
}

#[test]
fn prefix_closed_patterns_are_safety_properties() {
    let got = safety(
        "never_: never send(_, _, boom).\n\
         at_most: at most 2 spawn(_, _).\n\
         always_: always exit(_, normal).\n\
         precedence: every receive(P, {go, X}) is preceded by send(_, P, {ready, X}).\n\
         scoped: never exit(_, crash) after send(_, _, start).\n\
         eventually_: eventually exit(_, normal).\n\
         at_least: at least 2 spawn(_, _).\n\
         exactly: exactly 1 spawn(_, _).\n\
         response: every send(P, Q, ping) is followed by receive(P, Q, pong).\n\
         no_deadlock.\n\
         all_received.\n\
         no_abnormal_exit.\n",
    );
    let want = [
        ("never_", true),
        ("at_most", true),
        ("always_", true),
        ("precedence", true),
        ("scoped", true),
        ("eventually_", false),
        ("at_least", false),
        ("exactly", false),
        ("response", false),
        // Blocked and unreceived events exist only at a run's end.
        ("no_deadlock", false),
        ("all_received", false),
        ("no_abnormal_exit", true),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|(n, b)| (n.to_string(), *b)).collect();
    assert_eq!(got, want);
    let c = trace_check::load_str(Path::new("t.tspec"), "e: eventually exit(_, normal).\n");
    assert!(c.unwrap().safety_part().is_none());
}
