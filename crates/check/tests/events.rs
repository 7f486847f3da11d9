//! Every event predicate on hand-written logs: spawns, sends, receives
//! (with the sender, and converted exit signals), deliveries, timeouts,
//! exits, link/monitor/exit/'DOWN' signals, deaths by signal, nondet
//! results, processes blocked at the end and messages never received.

mod common;
use common::{verdict, verdicts, Log};
use trace_check::Status;
use trace_format::{NondetKind, SignalEffect};

#[test]
fn spawn_send_receive_and_the_sender() {
    let mut l = Log::new();
    let a = l.spawn(0);
    let b = l.spawn(0);
    let m = l.send(a, b, "{hello, 1}");
    l.recv(b, m);
    let m2 = l.send(0, b, "{hello, 2}");
    l.recv(b, m2);
    assert_eq!(verdict(&l, "p: exactly 2 spawn(<P>, _)."), Ok(()));
    assert_eq!(verdict(&l, "p: never spawn(<P.1>, _)."), Ok(()));
    assert_eq!(verdict(&l, "p: eventually spawn(<P>, <P.2>)."), Ok(()));
    // The sender of what P.2 received, by name and inside the message.
    assert_eq!(
        verdict(&l, "p: always receive(<P.2>, <P.1>, _)."),
        Err(vec![Some((2, 1))])
    );
    assert_eq!(
        verdict(
            &l,
            "p: never receive(<P.2>, From, {hello, N}) when From =:= <P>, N > 1."
        ),
        Err(vec![Some((2, 1))])
    );
    // A process variable shared by two arguments: a self-send, none here.
    assert_eq!(verdict(&l, "p: never send(X, X, _)."), Ok(()));
    assert_eq!(verdict(&l, "p: at least 1 send(_, _, {hello, _})."), Ok(()));
}

#[test]
fn deliveries_need_a_log_that_has_them() {
    let mut l = Log::new();
    l.deliveries = true;
    let a = l.spawn(0);
    let m = l.send(0, a, "ping");
    l.deliver(a, m);
    l.recv(a, m);
    assert_eq!(
        verdict(
            &l,
            "p: every deliver(<P.1>, ping) is followed by receive(<P.1>, ping)."
        ),
        Ok(())
    );
    let mut l = Log::new();
    let a = l.spawn(0);
    let m = l.send(0, a, "ping");
    l.recv(a, m);
    let dir = common::Scratch::new("nodeliv");
    let path = dir.path("r.trace");
    l.write(&path);
    let spec =
        trace_check::load_str(std::path::Path::new("t.tspec"), "p: never deliver(_, _).").unwrap();
    let reader = trace_format::LogReader::open(&path).unwrap();
    let Err(e) = trace_check::check(&spec, &reader) else {
        panic!("deliver on a log without deliveries")
    };
    assert!(e.message.contains("t.tspec:1:10: deliver(_, _)"), "{e}");
    assert!(e.message.contains("--deliveries"), "{e}");
}

#[test]
fn timeouts_exits_and_reasons() {
    let mut l = Log::new();
    let a = l.spawn(0);
    let b = l.spawn(0);
    l.timeout(a);
    l.exit(a, "normal");
    l.exit(b, "{badmatch, 3}");
    l.exit(0, "shutdown");
    assert_eq!(verdict(&l, "p: exactly 1 timeout(_)."), Ok(()));
    assert_eq!(
        verdict(&l, "p: every timeout(P) is followed by exit(P, normal)."),
        Ok(())
    );
    assert_eq!(
        verdict(&l, "p: never exit(_, {badmatch, _})."),
        Err(vec![Some((2, 0))])
    );
    assert_eq!(verdict(&l, "p: eventually exit(<P.1>)."), Ok(()));
    let v = verdicts(&l, "no_abnormal_exit.");
    assert_eq!(v[0].1.status, Status::Violated);
    assert_eq!(
        v[0].1.total, 1,
        "shutdown is normal, {{badmatch, 3}} is not"
    );
}

#[test]
fn signals_links_monitors_deaths() {
    let mut l = Log::new();
    let a = l.spawn(0);
    let b = l.spawn(0);
    l.link(0, a);
    let x = l.exit_signal(b, a, "kill", false);
    l.taken(a, x, SignalEffect::Killed);
    l.exit(a, "killed");
    let y = l.exit_signal(a, 0, "killed", true);
    l.taken(0, y, SignalEffect::Converted);
    l.recv(0, y);
    assert_eq!(verdict(&l, "p: exactly 1 link(<P>, <P.1>)."), Ok(()));
    assert_eq!(verdict(&l, "p: never monitor(_, _)."), Ok(()));
    assert_eq!(verdict(&l, "p: exactly 2 exit_signal(_, _, _)."), Ok(()));
    assert_eq!(
        verdict(
            &l,
            "p: never killed(<P.1>, From, kill) when From =:= <P.2>."
        ),
        Err(vec![Some((1, 0))])
    );
    // The trapped exit, received as a message.
    assert_eq!(
        verdict(&l, "p: eventually receive(<P>, {'EXIT', <P.1>, killed})."),
        Ok(())
    );
    assert_eq!(
        verdict(
            &l,
            "p: every killed(P, _, _) is followed by exit(P, killed)."
        ),
        Ok(())
    );
    // The death signal's receipt happened after the death.
    assert_eq!(
        verdict(
            &l,
            "p: every receive(<P>, {'EXIT', _, _}) is preceded by exit(<P.1>, _)."
        ),
        Ok(())
    );
}

#[test]
fn nondeterministic_results() {
    let mut l = Log::new();
    l.nondet(0, NondetKind::Random, "7");
    l.nondet(0, NondetKind::Whereis, "undefined");
    assert_eq!(
        verdict(&l, "p: never nondet(_, random, N) when N > 5."),
        Err(vec![Some((0, 0))])
    );
    assert_eq!(
        verdict(&l, "p: eventually nondet(<P>, whereis, undefined)."),
        Ok(())
    );
}

#[test]
fn an_idle_process_is_not_blocked() {
    let mut l = Log::new();
    let server = l.spawn(0);
    l.exit(0, "normal");
    // The server waits for requests nobody will send: idle, not a deadlock.
    l.blocked(server, false);
    assert_eq!(verdict(&l, "no_deadlock."), Ok(()));
    let mut l = Log::new();
    let waiter = l.spawn(0);
    l.exit(0, "normal");
    l.blocked(waiter, true);
    assert_eq!(verdict(&l, "no_deadlock."), Err(vec![Some((1, 0))]));
}

#[test]
fn blocked_processes_and_unreceived_messages() {
    let mut l = Log::new();
    let a = l.spawn(0);
    let b = l.spawn(0);
    let m = l.send(0, a, "first");
    l.recv(a, m);
    l.send(0, b, "lost");
    l.exit(0, "normal");
    l.exit(a, "normal");
    // b never exited: stuck at the end, the run's last event of it.
    l.blocked(b, true);
    let v = verdicts(&l, "no_deadlock.\nall_received.");
    assert_eq!(v[0].1.status, Status::Violated);
    assert_eq!(
        v[0].1.violations[0].event.map(|e| (e.proc.0, e.index)),
        Some((2, 0)),
        "P.2's blocked event"
    );
    assert_eq!(v[1].1.status, Status::Violated);
    assert_eq!(
        v[1].1.violations[0].event.map(|e| (e.proc.0, e.index)),
        Some((0, 3))
    );
    assert_eq!(verdict(&l, "p: never unreceived(_, _, first)."), Ok(()));
    assert_eq!(
        verdict(&l, "p: never unreceived(_, <P.2>, lost)."),
        Err(vec![Some((0, 3))])
    );
    // In a log of a run cut short, nobody counts as blocked.
    l.incomplete = true;
    let v = verdicts(&l, "no_deadlock.");
    assert_eq!(v[0].1.status, Status::Satisfied);
    assert!(v[0].1.warnings.iter().any(|w| w.contains("complete log")));
}

#[test]
fn names_that_name_no_process_match_nothing_with_a_warning() {
    let mut l = Log::new();
    l.spawn(0);
    let v = verdicts(&l, "p: never spawn(<P.7>, _).");
    assert_eq!(v[0].1.status, Status::Satisfied);
    assert!(
        v[0].1.warnings[0].contains("<P.7>"),
        "{:?}",
        v[0].1.warnings
    );
    let v = verdicts(&l, "p: eventually spawn(<P.7>, _).");
    assert_eq!(v[0].1.status, Status::Violated);
    // A registered name, declared.
    assert_eq!(
        verdict(&l, "-registered(srv, <P.1>).\np: never spawn(srv, _)."),
        Ok(())
    );
    assert_eq!(
        verdict(&l, "-registered(srv, <P>).\np: never spawn(srv, _)."),
        Err(vec![Some((0, 0))])
    );
}
