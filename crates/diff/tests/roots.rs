//! Root divergences checked against their definition: on random runs and
//! mutations of them, a difference is a root exactly when the causal past
//! trace-causal computes for it (in that run) holds no other process's first
//! difference. Also: processes matched by name whatever the process table's
//! numbering, and a table that lists children out of spawn order.

mod common;

use common::Scratch;
use std::path::Path;
use trace_capture::SymbolicName;
use trace_causal::{EventId, Model};
use trace_diff::{diff, Diff, Options, ProcName};
use trace_format::{
    Dest, Event, Header, LogReader, LogWriter, MsgId, Outcome, Payload, ProcId, ProcessLog,
    WriterOptions,
};

/// A small seeded generator of causally consistent runs: processes spawn,
/// send (with a small integer payload), receive any pending message, exit.
fn random_run(seed: u64, steps: usize) -> Vec<ProcessLog> {
    let mut x = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
    let mut rand = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut logs = vec![ProcessLog {
        id: ProcId(0),
        pid: 80,
        parent: None,
        events: Vec::new(),
    }];
    let mut alive = vec![true];
    let mut sent = vec![0u64];
    let mut pending: Vec<Vec<MsgId>> = vec![Vec::new()];
    for _ in 0..steps {
        let live: Vec<usize> = (0..logs.len()).filter(|&p| alive[p]).collect();
        if live.is_empty() {
            break;
        }
        let p = live[rand(live.len())];
        match rand(10) {
            0 if logs.len() < 10 => {
                let c = logs.len() as u32;
                logs[p].events.push(Event::Spawn {
                    child: ProcId(c),
                    pid: 80 + c as u64,
                    link: false,
                    monitor: false,
                });
                logs.push(ProcessLog {
                    id: ProcId(c),
                    pid: 80 + c as u64,
                    parent: Some(ProcId(p as u32)),
                    events: Vec::new(),
                });
                alive.push(true);
                sent.push(0);
                pending.push(Vec::new());
            }
            1..=4 => {
                let to = live[rand(live.len())];
                let v = trace_term::Term::int(rand(3) as i64);
                logs[p].events.push(Event::Send {
                    to: Dest::Proc(ProcId(to as u32)),
                    payload: Some(Payload(trace_term::etf::to_vec(&v))),
                });
                pending[to].push(MsgId {
                    sender: ProcId(p as u32),
                    index: sent[p],
                });
                sent[p] += 1;
            }
            5..=8 if !pending[p].is_empty() => {
                let k = rand(pending[p].len());
                let msg = pending[p].remove(k);
                logs[p].events.push(Event::Receive { msg });
            }
            9 if p != 0 && rand(3) == 0 => {
                logs[p].events.push(Event::Exit { reason: None });
                alive[p] = false;
            }
            _ => {}
        }
    }
    logs
}

/// Writes process logs (registered in the order given, so `logs[i].id` must be `i`).
fn write(path: &Path, logs: &[ProcessLog]) {
    let header = Header {
        recorder: "trace-diff tests".into(),
        entry: "t:main()".into(),
        entry_pid: logs[0].pid,
        options: trace_format::RecordingOptions {
            payloads: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let w = LogWriter::create(path, header, WriterOptions::default()).unwrap();
    w.write_logs(logs);
    w.finish(Outcome::default()).unwrap();
}

/// The same run with its processes numbered in another order (and other
/// raw pids): `order[k]` is the old id of the process that gets id `k`.
/// The entry process stays 0, and each parent keeps its children's order.
fn renumber(logs: &[ProcessLog], order: &[usize]) -> Vec<ProcessLog> {
    let mut new_of = vec![0u32; logs.len()];
    for (k, &old) in order.iter().enumerate() {
        new_of[old] = k as u32;
    }
    let id = |p: ProcId| ProcId(new_of[p.0 as usize]);
    let pid = |p: ProcId| 500 + 7 * new_of[p.0 as usize] as u64;
    order
        .iter()
        .map(|&old| {
            let l = &logs[old];
            ProcessLog {
                id: id(l.id),
                pid: pid(l.id),
                parent: l.parent.map(id),
                events: l
                    .events
                    .iter()
                    .map(|e| match e.clone() {
                        Event::Spawn {
                            child,
                            link,
                            monitor,
                            ..
                        } => Event::Spawn {
                            child: id(child),
                            pid: pid(child),
                            link,
                            monitor,
                        },
                        Event::Send {
                            to: Dest::Proc(t),
                            payload,
                        } => Event::Send {
                            to: Dest::Proc(id(t)),
                            payload,
                        },
                        Event::Receive { msg } => Event::Receive {
                            msg: MsgId {
                                sender: id(msg.sender),
                                index: msg.index,
                            },
                        },
                        e => e,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// A breadth-first numbering: children of a parent stay in spawn order,
/// but processes of different parents interleave otherwise than by id.
fn breadth_first(logs: &[ProcessLog]) -> Vec<usize> {
    let mut order = vec![0usize];
    let mut at = 0;
    while at < order.len() {
        for e in &logs[order[at]].events {
            if let Event::Spawn { child, .. } = e {
                order.push(child.0 as usize);
            }
        }
        at += 1;
    }
    order
}

fn mutate(logs: &mut [ProcessLog], seed: u64) {
    let mut x = seed | 1;
    let mut rand = move |n: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) % n as u64) as usize
    };
    for _ in 0..1 + rand(3) {
        let p = rand(logs.len());
        let n = logs[p].events.len();
        if n == 0 {
            continue;
        }
        let i = rand(n);
        // Spawns stay: names come from the table, which a truncation would contradict.
        let spawns_after = logs[p].events[i..]
            .iter()
            .any(|e| matches!(e, Event::Spawn { .. }));
        match rand(3) {
            // Another payload.
            0 => {
                if let Event::Send { payload, .. } = &mut logs[p].events[i] {
                    *payload = Some(Payload(trace_term::etf::to_vec(&trace_term::Term::atom(
                        "changed",
                    ))));
                }
            }
            // The log ends early (receipts of what it no longer sends dangle).
            1 if !spawns_after => logs[p].events.truncate(i),
            // Another event in place of this one.
            _ if !matches!(logs[p].events[i], Event::Spawn { .. }) => {
                logs[p].events[i] = Event::Timeout
            }
            _ => {}
        }
    }
}

/// Roots as the definition gives them, from trace-causal's causal pasts.
fn brute_roots(d: &Diff, runs: [&LogReader; 2]) -> Vec<(String, [bool; 2])> {
    let models = runs.map(Model::build);
    let lookup = |x: usize, n: &ProcName| -> ProcId {
        match n {
            ProcName::Symbolic(s) => models[x].names().lookup(s).unwrap(),
            ProcName::Pid(p) => models[x].names().lookup_pid(*p).unwrap(),
        }
    };
    let mut firsts: [Vec<(String, EventId)>; 2] = [Vec::new(), Vec::new()];
    for p in &d.differences {
        for (x, f) in firsts.iter_mut().enumerate() {
            if let Some(s) = &p.first[x] {
                f.push((
                    p.name.to_string(),
                    EventId::new(lookup(x, &p.name), s.index),
                ));
            }
        }
    }
    for o in &d.only_in {
        if o.events > 0 {
            firsts[o.run].push((o.name.to_string(), EventId::new(lookup(o.run, &o.name), 0)));
        }
    }
    let mut roots: Vec<(String, [bool; 2])> = Vec::new();
    for (x, fx) in firsts.iter().enumerate() {
        for (name, e) in fx {
            let past = models[x].causal_past(*e);
            let clean = fx
                .iter()
                .all(|(_, f)| f.proc == e.proc || past.count(f.proc) <= f.index);
            if let Some(r) = roots.iter_mut().find(|r| &r.0 == name) {
                r.1[x] |= clean;
            } else {
                let mut r = [false, false];
                r[x] = clean;
                roots.push((name.clone(), r));
            }
        }
    }
    roots.retain(|r| r.1 != [false, false]);
    roots.sort_by(|a, b| by_name(&a.0, &b.0));
    roots
}

fn by_name(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| s.parse::<SymbolicName>().ok();
    key(a).cmp(&key(b)).then(a.cmp(b))
}

/// Roots where the runs differ only in a value come after the others.
fn assert_control_flow_first(d: &Diff) {
    let value_only: Vec<bool> = d
        .roots
        .iter()
        .map(|r| {
            d.differences
                .iter()
                .find(|p| p.name == r.name)
                .is_some_and(|p| p.kind == trace_diff::Kind::Payload)
        })
        .collect();
    assert!(value_only.is_sorted(), "{value_only:?}");
}

#[test]
fn roots_are_the_differences_whose_causal_past_holds_no_other() {
    let dir = Scratch::new("roots");
    let mut checked_roots = 0;
    for seed in 0..200u64 {
        let run = random_run(seed, 120);
        let mut other = run.clone();
        mutate(&mut other, seed * 31 + 7);
        let (pa, pb) = (dir.path("a.trace"), dir.path("b.trace"));
        write(&pa, &run);
        // The other run as it is (the processes the mutation left alone are
        // stored alike in both logs), then numbered breadth-first (no block
        // alike: matching is by name).
        for renumbered in [false, true] {
            let order = breadth_first(&other);
            if renumbered && order.len() == other.len() {
                write(&pb, &renumber(&other, &order));
            } else {
                write(&pb, &other);
            }
            let (a, b) = (LogReader::open(&pa).unwrap(), LogReader::open(&pb).unwrap());
            let d = diff(&a, &b, &Options::default()).unwrap();
            let mut got: Vec<(String, [bool; 2])> = d
                .roots
                .iter()
                .map(|r| (r.name.to_string(), r.root_in))
                .collect();
            assert_control_flow_first(&d);
            got.sort_by(|a, b| by_name(&a.0, &b.0));
            assert_eq!(
                got,
                brute_roots(&d, [&a, &b]),
                "seed {seed} renumbered {renumbered}"
            );
            if !d.equivalent() {
                assert!(
                    !d.roots.is_empty(),
                    "seed {seed}: differences without a root"
                );
            }
            checked_roots += got.len();
        }
    }
    assert!(checked_roots > 20, "the mutations made differences");
}

#[test]
fn a_run_renumbered_with_other_raw_pids_is_equivalent() {
    let dir = Scratch::new("renumber");
    for seed in 0..20u64 {
        let run = random_run(seed, 150);
        let order = breadth_first(&run);
        if order.len() != run.len() {
            continue;
        }
        let (pa, pb) = (dir.path("a.trace"), dir.path("b.trace"));
        write(&pa, &run);
        write(&pb, &renumber(&run, &order));
        let (a, b) = (LogReader::open(&pa).unwrap(), LogReader::open(&pb).unwrap());
        let d = diff(&a, &b, &Options::default()).unwrap();
        assert!(d.equivalent(), "seed {seed}: {:?}", d.differences);
        assert!(d.notes.is_empty(), "{:?}", d.notes);
    }
}

#[test]
fn a_table_listing_children_out_of_spawn_order_is_named_from_spawns() {
    let dir = Scratch::new("table-order");
    // P spawns P.1 then P.2, but the table registers P.2's process first.
    let spawn = |c: u32| Event::Spawn {
        child: ProcId(c),
        pid: 80 + c as u64,
        link: false,
        monitor: false,
    };
    let send = |to: u32, v: i64| Event::Send {
        to: Dest::Proc(ProcId(to)),
        payload: Some(Payload(trace_term::etf::to_vec(&trace_term::Term::int(v)))),
    };
    let recv = |s: u32, i: u64| Event::Receive {
        msg: MsgId {
            sender: ProcId(s),
            index: i,
        },
    };
    let log = |id: u32, parent: Option<u32>, events: Vec<Event>| ProcessLog {
        id: ProcId(id),
        pid: 80 + id as u64,
        parent: parent.map(ProcId),
        events,
    };
    let swapped = vec![
        log(0, None, vec![spawn(2), spawn(1), recv(2, 0), recv(1, 0)]),
        log(1, Some(0), vec![send(0, 2)]),
        log(2, Some(0), vec![send(0, 1)]),
    ];
    let plain = vec![
        log(0, None, vec![spawn(1), spawn(2), recv(1, 0), recv(2, 0)]),
        log(1, Some(0), vec![send(0, 1)]),
        log(2, Some(0), vec![send(0, 2)]),
    ];
    let (pa, pb) = (dir.path("a.trace"), dir.path("b.trace"));
    write(&pa, &swapped);
    write(&pb, &plain);
    let (a, b) = (LogReader::open(&pa).unwrap(), LogReader::open(&pb).unwrap());
    let d = diff(&a, &b, &Options::default()).unwrap();
    assert!(d.equivalent(), "{:?} {:?}", d.differences, d.notes);
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("a: its process table")),
        "{:?}",
        d.notes
    );
}

/// A damaged table whose parents form a cycle (the entry process listed as
/// the child of its own grandchild) must not send the matching round the
/// cycle for ever; the spawn chain is still named from the entry process.
#[test]
fn a_cycle_of_parents_in_a_damaged_table_ends() {
    let spawn = |child: u32| Event::Spawn {
        child: ProcId(child),
        pid: 80 + child as u64,
        link: false,
        monitor: false,
    };
    let exit = Event::Exit { reason: None };
    let logs = vec![
        ProcessLog {
            id: ProcId(0),
            pid: 80,
            parent: Some(ProcId(2)),
            events: vec![spawn(1), exit.clone()],
        },
        ProcessLog {
            id: ProcId(1),
            pid: 81,
            parent: Some(ProcId(0)),
            events: vec![spawn(2), exit.clone()],
        },
        ProcessLog {
            id: ProcId(2),
            pid: 82,
            parent: Some(ProcId(1)),
            events: vec![exit],
        },
    ];
    let d = Scratch::new("diff-parent-cycle");
    let path = d.path("cycle.trace");
    write(&path, &logs);
    let (a, b) = (
        LogReader::open(&path).unwrap(),
        LogReader::open(&path).unwrap(),
    );
    let report = diff(&a, &b, &Options::default()).unwrap();
    assert!(report.equivalent(), "{report:?}");
}

/// `P` spawns `P.1`, which draws a random number, and `P.2`, which waits
/// for a message with `after 0`. In one run P.2 gets P's message, in the
/// other it times out; the random numbers differ too. The timeout is the
/// root shown first: a path the run did not take, before a value.
#[test]
fn a_timeout_against_a_receive_is_ranked_before_a_random_value() {
    let dir = Scratch::new("roots-rank");
    let run = |random: i64, timed_out: bool| {
        let value = |n: i64| Payload(trace_term::etf::to_vec(&trace_term::Term::int(n)));
        let spawn = |c: u32| Event::Spawn {
            child: ProcId(c),
            pid: 80 + c as u64,
            link: false,
            monitor: false,
        };
        let log = |id: u32, parent: Option<u32>, events: Vec<Event>| ProcessLog {
            id: ProcId(id),
            pid: 80 + id as u64,
            parent: parent.map(ProcId),
            events,
        };
        let exit = Event::Exit {
            reason: Some(Payload(trace_term::etf::to_vec(&trace_term::Term::atom(
                "normal",
            )))),
        };
        let p2 = if timed_out {
            vec![Event::Timeout, exit.clone()]
        } else {
            vec![
                Event::Receive {
                    msg: MsgId {
                        sender: ProcId(0),
                        index: 0,
                    },
                },
                exit.clone(),
            ]
        };
        vec![
            log(
                0,
                None,
                vec![
                    spawn(1),
                    spawn(2),
                    Event::Send {
                        to: Dest::Proc(ProcId(2)),
                        payload: Some(value(0)),
                    },
                    exit.clone(),
                ],
            ),
            log(
                1,
                Some(0),
                vec![
                    Event::Nondet {
                        kind: trace_format::NondetKind::Random,
                        value: value(random),
                    },
                    exit.clone(),
                ],
            ),
            log(2, Some(0), p2),
        ]
    };
    let (pa, pb) = (dir.path("a.trace"), dir.path("b.trace"));
    write(&pa, &run(4, false));
    write(&pb, &run(1, true));
    let (a, b) = (LogReader::open(&pa).unwrap(), LogReader::open(&pb).unwrap());
    let d = diff(&a, &b, &Options::default()).unwrap();
    let names: Vec<String> = d.roots.iter().map(|r| r.name.to_string()).collect();
    assert_eq!(names, ["P.2", "P.1"]);
}
