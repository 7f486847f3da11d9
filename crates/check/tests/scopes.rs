//! Every scope (global, before, after, between, after-until) with known
//! verdicts: within one process (program order) and across processes
//! (happened-before, where concurrent events are neither before nor after).

mod common;
use common::{verdict, verdicts, Log};
use trace_check::Status;

/// P.1 receives, in order: start a stop a start b stop start a — the last
/// scope opened by `start` is never closed.
fn sessions() -> (Log, Vec<u64>) {
    let mut l = Log::new();
    let s = l.spawn(0);
    let mut at = Vec::new();
    for m in [
        "start", "a", "stop", "a", "start", "b", "stop", "start", "a",
    ] {
        let id = l.send(0, s, m);
        at.push(l.next(s));
        l.recv(s, id);
    }
    l.exit(s, "normal");
    (l, at)
}

const BETWEEN: &str = "between receive(<P.1>, start) and receive(<P.1>, stop)";
const UNTIL: &str = "after receive(<P.1>, start) until receive(<P.1>, stop)";

fn prop(body: &str) -> String {
    format!("p: {body}.")
}

#[test]
fn between_counts_only_closed_segments() {
    let (l, at) = sessions();
    let a = |i| Some((1, at[i]));
    assert_eq!(
        verdict(&l, &prop(&format!("never receive(<P.1>, a) {BETWEEN}"))),
        Err(vec![a(1)])
    );
    assert_eq!(
        verdict(&l, &prop(&format!("never receive(<P.1>, c) {BETWEEN}"))),
        Ok(())
    );
    // Existence per segment: the second session has no `a`; the violation
    // points at the event closing it.
    assert_eq!(
        verdict(
            &l,
            &prop(&format!("eventually receive(<P.1>, a) {BETWEEN}"))
        ),
        Err(vec![a(6)])
    );
    // A segment holds its opening event (not its closing one): two receives each.
    assert_eq!(
        verdict(&l, &prop(&format!("exactly 2 receive(<P.1>, _) {BETWEEN}"))),
        Ok(())
    );
    assert_eq!(
        verdict(&l, &prop(&format!("at most 1 receive(<P.1>, _) {BETWEEN}"))),
        Err(vec![a(1), a(5)])
    );
}

#[test]
fn after_until_also_counts_the_open_segment() {
    let (l, at) = sessions();
    let a = |i| Some((1, at[i]));
    assert_eq!(
        verdict(&l, &prop(&format!("never receive(<P.1>, a) {UNTIL}"))),
        Err(vec![a(1), a(8)])
    );
    // The open segment: existence is decided at its opening event.
    assert_eq!(
        verdict(&l, &prop(&format!("eventually receive(<P.1>, b) {UNTIL}"))),
        Err(vec![a(0), a(7)])
    );
    assert_eq!(
        verdict(
            &l,
            &prop(&format!("always receive(<P.1>, M) when M =/= b {UNTIL}"))
        ),
        Err(vec![a(5)])
    );
}

#[test]
fn before_and_after_use_the_first_occurrence() {
    let (l, at) = sessions();
    let a = |i| Some((1, at[i]));
    assert_eq!(
        verdict(
            &l,
            &prop("never receive(<P.1>, a) before receive(<P.1>, stop)")
        ),
        Err(vec![a(1)])
    );
    assert_eq!(
        verdict(
            &l,
            &prop("never receive(<P.1>, b) before receive(<P.1>, stop)")
        ),
        Ok(())
    );
    // No `quit` ever: the scope does not exist, the property holds.
    assert_eq!(
        verdict(
            &l,
            &prop("eventually receive(<P.1>, b) before receive(<P.1>, quit)")
        ),
        Ok(())
    );
    assert_eq!(
        verdict(
            &l,
            &prop("never receive(<P.1>, b) after receive(<P.1>, stop)")
        ),
        Err(vec![a(5)])
    );
    assert_eq!(
        verdict(
            &l,
            &prop("eventually receive(<P.1>, c) after receive(<P.1>, stop)")
        ),
        Err(vec![a(2)])
    );
}

#[test]
fn order_patterns_in_scopes() {
    let (l, at) = sessions();
    let a = |i| Some((1, at[i]));
    // Globally, the last start is never followed by a stop.
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P.1>, start) is followed by receive(<P.1>, stop)")
        ),
        Err(vec![a(7)])
    );
    // The closing event is not in its segment: a response must come before it.
    assert_eq!(
        verdict(
            &l,
            &prop(&format!(
                "every receive(<P.1>, a) is followed by receive(<P.1>, stop) {BETWEEN}"
            ))
        ),
        Err(vec![a(1)])
    );
    // The second session has no `a`; the third (open) has one.
    assert_eq!(
        verdict(
            &l,
            &prop(&format!(
                "every receive(<P.1>, start) is followed by receive(<P.1>, a) {BETWEEN}"
            ))
        ),
        Err(vec![a(4)])
    );
    assert_eq!(
        verdict(
            &l,
            &prop(&format!(
                "every receive(<P.1>, start) is followed by receive(<P.1>, a) {UNTIL}"
            ))
        ),
        Err(vec![a(4)])
    );
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P.1>, b) is preceded by receive(<P.1>, start)")
        ),
        Ok(())
    );
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P.1>, a) is preceded by receive(<P.1>, start) after receive(<P.1>, stop)")
        ),
        // The `a` right after the first stop has no start in the scope before it.
        Err(vec![a(3)])
    );
}

#[test]
fn chains() {
    let (l, at) = sessions();
    let a = |i| Some((1, at[i]));
    // start then a is followed by stop: the last session's start-a has no stop.
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P.1>, start) then receive(<P.1>, a) is followed by receive(<P.1>, stop)")
        ),
        Err(vec![a(8)])
    );
    // Every b is preceded by stop then start.
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P.1>, b) is preceded by receive(<P.1>, stop) then receive(<P.1>, start)")
        ),
        Ok(())
    );
    // Every start is followed by a then stop: the second session has b, not a,
    // and the third no stop.
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P.1>, start) is followed by receive(<P.1>, a) then receive(<P.1>, stop)")
        ),
        Err(vec![a(4), a(7)])
    );
}

/// A chain of six triggers over 200 receives of one process has C(200, 6)
/// (about 8e10) paths: the check walks the chain's states instead, and
/// reaches its verdict within its step budget (giving up would panic here).
#[test]
fn long_chains_of_triggers_cost_the_log_not_the_paths() {
    let mut l = Log::new();
    let s = l.spawn(0);
    let mut at = Vec::new();
    for _ in 0..200 {
        let id = l.send(0, s, "m");
        at.push(l.next(s));
        l.recv(s, id);
    }
    let chain = ["receive(<P.1>, m)"; 6].join(" then ");
    let a = |i: usize| Some((1, at[i]));
    // The first ten violations, and how many in all.
    let judged = |body: String| {
        let v = verdicts(&l, &prop(&body));
        let v = &v[0].1;
        assert!(
            matches!(v.status, Status::Violated),
            "{body}: {:?}",
            v.status
        );
        let shown: Vec<_> = v
            .violations
            .iter()
            .map(|x| x.event.map(|e| (e.proc.0, e.index)))
            .collect();
        (shown, v.total)
    };
    // No exit follows any chain: one violation per last event.
    assert_eq!(
        judged(format!("every {chain} is followed by exit(<P.1>)")),
        ((5..15).map(a).collect(), 195)
    );
    // No exit precedes any: one per first event that starts a chain.
    assert_eq!(
        judged(format!("every {chain} is preceded by exit(<P>)")),
        ((0..10).map(a).collect(), 195)
    );
}

/// A (P.1) sends `go` to B (P.2). Before receiving it B sends `y` to P;
/// after, `x`. C (P.3) sends `z` to P, concurrent with all of that.
fn concurrent() -> (Log, [u64; 4]) {
    let mut l = Log::new();
    let a = l.spawn(0);
    let b = l.spawn(0);
    let c = l.spawn(0);
    let go = l.send(a, b, "go");
    let y_at = l.next(b);
    let y = l.send(b, 0, "y");
    let recv_go = l.next(b);
    l.recv(b, go);
    let x_at = l.next(b);
    let x = l.send(b, 0, "x");
    let z_at = l.next(c);
    let z = l.send(c, 0, "z");
    l.recv(0, y);
    l.recv(0, z);
    l.recv(0, x);
    (l, [y_at, recv_go, x_at, z_at])
}

#[test]
fn scopes_on_happened_before() {
    let (l, e) = concurrent();
    // y is concurrent with A's send of go: not after it.
    assert_eq!(
        verdict(&l, &prop("never send(_, _, y) after send(<P.1>, _, go)")),
        Ok(())
    );
    assert_eq!(
        verdict(&l, &prop("never send(_, _, x) after send(<P.1>, _, go)")),
        Err(vec![Some((2, e[2]))])
    );
    // z is concurrent with B's receipt of go: not before it either.
    assert_eq!(
        verdict(
            &l,
            &prop("never send(<P.3>, _, z) before receive(<P.2>, go)")
        ),
        Ok(())
    );
    assert_eq!(
        verdict(&l, &prop("never send(_, _, y) before receive(<P.2>, go)")),
        Err(vec![Some((2, e[0]))])
    );
    // Response across processes: go is followed by x (through B's receipt),
    // not by z, which is concurrent.
    assert_eq!(
        verdict(
            &l,
            &prop("every send(<P.1>, _, go) is followed by send(_, _, x)")
        ),
        Ok(())
    );
    assert_eq!(
        verdict(
            &l,
            &prop("every send(<P.1>, _, go) is followed by send(_, _, z)")
        ),
        Err(vec![Some((1, 0))])
    );
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P>, x) is preceded by send(<P.1>, _, go)")
        ),
        Ok(())
    );
    assert_eq!(
        verdict(
            &l,
            &prop("every receive(<P>, z) is preceded by send(<P.1>, _, go)")
        ),
        Err(vec![Some((0, 4))])
    );
}

/// Two clients log in and out of a server; the server sends `error` to the
/// second while it is logged in. The scope is per client (parametric).
#[test]
fn parametric_scopes() {
    let mut l = Log::new();
    let s = l.spawn(0);
    let c1 = l.spawn(0);
    let c2 = l.spawn(0);
    for (c, msgs) in [(c1, ["login", "logout"]), (c2, ["login", "logout"])] {
        let m = l.send(c, s, &format!("{{{}, x}}", msgs[0]));
        l.recv(s, m);
        if c == c2 {
            let e = l.send(s, c, "error");
            l.recv(c, e);
        }
        let m = l.send(c, s, &format!("{{{}, x}}", msgs[1]));
        l.recv(s, m);
    }
    // After the first client logged out: outside its scope.
    l.send(s, c1, "error");
    let body =
        "never send(S, C, error) between receive(S, C, {login, _}) and receive(S, C, {logout, _})";
    assert_eq!(verdict(&l, &prop(body)), Err(vec![Some((1, 3))]));
}

/// Every pattern under every scope, on the sessions of [`sessions`]:
/// receives start(0) a(1) stop(2) a(3) start(4) b(5) stop(6) start(7) a(8).
#[test]
fn every_pattern_under_every_scope() {
    let (l, at) = sessions();
    let scopes = [
        ("", "global"),
        (" before receive(<P.1>, stop)", "before"),
        (" after receive(<P.1>, stop)", "after"),
        (&format!(" {BETWEEN}"), "between"),
        (&format!(" {UNTIL}"), "until"),
    ];
    // (pattern, expected violations per scope, as indices into `at`)
    type Row<'a> = (&'a str, [&'a [usize]; 5]);
    let rows: [Row<'_>; 8] = [
        (
            "never receive(<P.1>, a)",
            [&[1, 3, 8], &[1], &[3, 8], &[1], &[1, 8]],
        ),
        (
            "eventually receive(<P.1>, b)",
            [&[], &[2], &[], &[2], &[0, 7]],
        ),
        (
            "always receive(<P.1>, M) when M =/= b",
            [&[5], &[], &[5], &[5], &[5]],
        ),
        ("at most 1 receive(<P.1>, a)", [&[3], &[], &[8], &[], &[]]),
        ("at least 1 receive(<P.1>, a)", [&[], &[], &[], &[6], &[4]]),
        ("exactly 2 receive(<P.1>, _)", [&[2], &[], &[4], &[], &[]]),
        (
            "every receive(<P.1>, start) is followed by receive(<P.1>, a)",
            [&[], &[], &[], &[4], &[4]],
        ),
        (
            "every receive(<P.1>, b) is preceded by receive(<P.1>, a)",
            [&[], &[], &[], &[5], &[5]],
        ),
    ];
    for (pattern, expected) in rows {
        for ((scope, name), want) in scopes.iter().zip(expected) {
            let got = verdict(&l, &prop(&format!("{pattern}{scope}")));
            let want: Vec<_> = want.iter().map(|&i| Some((1, at[i]))).collect();
            let want = if want.is_empty() { Ok(()) } else { Err(want) };
            assert_eq!(got, want, "{pattern} ({name})");
        }
    }
}
