//! Consistency checks on hand-built logs: each kind of inconsistency, what a
//! consistent log may still hold, and incomplete or damaged logs.

mod common;

use common::*;
use trace_causal::{
    Arrival, EventId, Inconsistency, Model, Overtaken, ReceiptKind, Report, SignalClass,
    Unverifiable,
};
use trace_format::{ProcId, SignalEffect, SignalKind};

fn e(p: u32, i: u64) -> EventId {
    EventId::new(ProcId(p), i)
}

fn check(procs: &[Proc]) -> (Model, Report) {
    check_with(procs, false, Ending::Complete)
}

fn check_with(procs: &[Proc], deliveries: bool, ending: Ending) -> (Model, Report) {
    let dir = Scratch::new("validate");
    let r = open_with(&dir, procs, deliveries, ending);
    let m = Model::build(&r);
    let report = trace_causal::validate(&m);
    assert_streamed_alike(&r, &report);
    (m, report)
}

/// The check with the rebuild beside the decoding finds what the check of
/// the model built first finds, on any number of threads (from 4, a log
/// it cannot tell alone goes to the search without the order).
fn assert_streamed_alike(r: &trace_format::LogReader, report: &Report) {
    for threads in [1, 2, 3, 4] {
        let (_, streamed) = on_threads(threads, || trace_causal::build_and_validate(r));
        assert_eq!(
            format!("{streamed:?}"),
            format!("{report:?}"),
            "{threads} threads"
        );
    }
}

/// P spawns P.1; they exchange ping and pong; both exit.
fn ping_pong() -> Vec<Proc> {
    vec![
        proc(0, None, vec![spawn(1), send(1), recv(1, 0), exit()]),
        proc(1, Some(0), vec![recv(0, 0), send(0), exit()]),
    ]
}

#[test]
fn a_consistent_log_has_no_findings() {
    let (_, r) = check(&ping_pong());
    assert!(r.is_consistent(), "{:?}", r.inconsistencies);
    assert_eq!((r.processes, r.events, r.ordered), (2, 7, 7));
    assert!(r.unreceived.is_empty() && r.never_exited.is_empty() && r.unverifiable.is_empty());
    assert!(r.complete);
}

#[test]
fn random_consistent_runs_check_clean() {
    for seed in 1..30 {
        let (_, r) = check(&random_run(seed, 300));
        assert!(r.is_consistent(), "seed {seed}: {:?}", r.inconsistencies);
        assert_eq!(r.ordered, r.events, "seed {seed}");
    }
}

#[test]
fn processes_written_in_many_blocks_check_as_in_one() {
    for seed in 1..10 {
        let dir = Scratch::new("blocks");
        let path = dir.path("run.trace");
        let opts = trace_format::WriterOptions {
            block_size: 48,
            ..Default::default()
        };
        write_with(&path, &random_run(seed, 300), false, Ending::Complete, opts);
        let r = trace_format::LogReader::open(&path).unwrap();
        assert!(r.blocks().len() > r.processes().len(), "seed {seed}");
        let report = trace_causal::validate(&Model::build(&r));
        assert!(
            report.is_consistent(),
            "seed {seed}: {:?}",
            report.inconsistencies
        );
        assert_streamed_alike(&r, &report);
    }
}

#[test]
fn a_receipt_of_a_signal_never_sent() {
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), exit()]),
        proc(1, Some(0), vec![recv(0, 0), recv(0, 5), exit()]),
    ];
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::NoSuchSignal {
            receipt: e(1, 1),
            kind: ReceiptKind::Receive,
            msg: m(0, 5),
            sent: Some(1),
        }]
    );
}

#[test]
fn a_receipt_naming_a_process_without_a_log() {
    let procs = vec![proc(0, None, vec![recv(9, 0), exit()])];
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::NoSuchSignal {
            receipt: e(0, 0),
            kind: ReceiptKind::Receive,
            msg: m(9, 0),
            sent: None,
        }]
    );
}

#[test]
fn a_message_received_by_another_process_than_its_destination() {
    let procs = vec![
        proc(0, None, vec![spawn(1), spawn(2), send(1), exit()]),
        proc(1, Some(0), vec![exit()]),
        proc(2, Some(0), vec![recv(0, 0), exit()]),
    ];
    let (_, r) = check(&procs);
    assert!(
        matches!(
            r.inconsistencies[..],
            [Inconsistency::WrongReceiver { receipt, send, .. }] if receipt == e(2, 0) && send == e(0, 2)
        ),
        "{:?}",
        r.inconsistencies
    );
    // Its destination never received it.
    assert_eq!(r.unreceived.len(), 1);
    assert_eq!(r.unreceived[0].msg, m(0, 0));
}

#[test]
fn receipts_that_do_not_fit_the_kind_of_signal() {
    let procs = vec![
        proc(
            0,
            None,
            vec![
                spawn(1),
                send(1),
                signal(1, SignalKind::Link),
                signal(1, SignalKind::Link),
                exit(),
            ],
        ),
        proc(
            1,
            Some(0),
            vec![
                taken(0, 0, SignalEffect::Applied),
                deliver(0, 1),
                taken(0, 2, SignalEffect::Converted),
                exit(),
            ],
        ),
    ];
    let (_, r) = check_with(&procs, true, Ending::Complete);
    let kinds: Vec<(EventId, SignalClass)> = r
        .inconsistencies
        .iter()
        .filter_map(|i| match i {
            Inconsistency::WrongKind { receipt, class, .. } => Some((*receipt, *class)),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (e(1, 0), SignalClass::Message),
            (e(1, 1), SignalClass::Link),
            (e(1, 2), SignalClass::Link),
        ]
    );
}

#[test]
fn a_message_received_twice() {
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), exit()]),
        proc(1, Some(0), vec![recv(0, 0), recv(0, 0), exit()]),
    ];
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::Twice {
            msg: m(0, 0),
            kind: ReceiptKind::Receive,
            receipts: vec![e(1, 0), e(1, 1)],
        }]
    );
}

#[test]
fn a_message_of_unknown_destination_received_by_two_processes() {
    // CauDEr's logs record no destination.
    let procs = vec![
        proc(0, None, vec![spawn(1), spawn(2), send_unknown(), exit()]),
        proc(1, Some(0), vec![recv(0, 0), exit()]),
        proc(2, Some(0), vec![recv(0, 0), exit()]),
    ];
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::Twice {
            msg: m(0, 0),
            kind: ReceiptKind::Receive,
            receipts: vec![e(1, 0), e(2, 0)],
        }]
    );
}

#[test]
fn with_deliveries_a_receive_needs_a_delivery_before_it() {
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), send(1), exit()]),
        proc(
            1,
            Some(0),
            vec![deliver(0, 0), recv(0, 0), recv(0, 1), deliver(0, 1), exit()],
        ),
    ];
    let (_, r) = check_with(&procs, true, Ending::Complete);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::NotArrived {
            receipt: e(1, 2),
            msg: m(0, 1),
            class: SignalClass::Message,
        }]
    );
    // Without deliveries in the log, receives are not checked against them.
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), exit()]),
        proc(1, Some(0), vec![recv(0, 0), exit()]),
    ];
    assert!(check_with(&procs, false, Ending::Complete)
        .1
        .is_consistent());
}

#[test]
fn an_exit_signal_is_received_only_once_converted() {
    let procs = vec![
        proc(
            0,
            None,
            vec![spawn(1), spawn(2), recv(1, 0), recv(2, 0), exit()],
        ),
        proc(1, Some(0), vec![exit(), exit_signal(0)]),
        proc(2, Some(0), vec![exit(), exit_signal(0)]),
    ];
    let mut procs = procs;
    procs[0]
        .events
        .insert(2, taken(1, 0, SignalEffect::Converted));
    procs[0]
        .events
        .insert(4, taken(2, 0, SignalEffect::Ignored));
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::NotArrived {
            receipt: e(0, 5),
            msg: m(2, 0),
            class: SignalClass::Exit { linked: true },
        }]
    );
}

#[test]
fn messages_overtaken_by_later_ones_are_listed_apart() {
    // A message of erlang:send_after is named when the timer starts and
    // arrives when it fires: later messages may overtake it.
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), send(1), send(1), exit()]),
        proc(
            1,
            Some(0),
            vec![
                deliver(0, 2),
                deliver(0, 0),
                deliver(0, 1),
                recv(0, 0),
                recv(0, 1),
                recv(0, 2),
                exit(),
            ],
        ),
    ];
    let (_, r) = check_with(&procs, true, Ending::Complete);
    assert!(r.is_consistent(), "{:?}", r.inconsistencies);
    assert_eq!(
        r.overtaken,
        vec![Overtaken {
            receiver: ProcId(1),
            first: (e(1, 0), m(0, 2)),
            then: (e(1, 1), m(0, 0)),
            more: 1,
        }]
    );
}

#[test]
fn signals_out_of_order_are_an_inconsistency() {
    let procs = vec![
        proc(
            0,
            None,
            vec![
                spawn(1),
                signal(1, SignalKind::Link),
                signal(1, SignalKind::Unlink),
                exit(),
            ],
        ),
        proc(
            1,
            Some(0),
            vec![
                taken(0, 1, SignalEffect::Applied),
                taken(0, 0, SignalEffect::Applied),
                exit(),
            ],
        ),
    ];
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::Fifo(Overtaken {
            receiver: ProcId(1),
            first: (e(1, 0), m(0, 1)),
            then: (e(1, 1), m(0, 0)),
            more: 0,
        })]
    );
}

#[test]
fn receives_in_any_order_are_fine_without_deliveries() {
    // Selective receive: consuming out of the sending order is normal.
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), send(1), exit()]),
        proc(1, Some(0), vec![recv(0, 1), recv(0, 0), exit()]),
    ];
    assert!(check(&procs).1.is_consistent());
}

#[test]
fn nothing_but_death_signals_after_an_exit() {
    let procs = vec![
        proc(
            0,
            None,
            vec![spawn(1), taken(1, 0, SignalEffect::Ignored), exit()],
        ),
        proc(1, Some(0), vec![exit(), exit_signal(0), send(0)]),
    ];
    let (_, r) = check(&procs);
    assert!(
        r.inconsistencies.contains(&Inconsistency::AfterExit {
            exit: e(1, 0),
            event: e(1, 2),
            kind: "send",
        }),
        "{:?}",
        r.inconsistencies
    );
    // The exit signal after the exit is what a death sends: fine.
    assert_eq!(r.inconsistencies.len(), 1, "{:?}", r.inconsistencies);
    assert_eq!(r.unreceived.len(), 1);
}

#[test]
fn spawn_tree_problems() {
    // P.1 is spawned twice; P.1 spawns process 2 whose table parent is P;
    // process 3 is never spawned; a spawn names process 7, which has no log.
    let procs = vec![
        proc(0, None, vec![spawn(1), spawn(1), spawn(7), exit()]),
        proc(1, Some(0), vec![spawn(2), exit()]),
        proc(2, Some(0), vec![exit()]),
        proc(3, Some(0), vec![exit()]),
    ];
    let (_, r) = check(&procs);
    let codes: Vec<&str> = r.inconsistencies.iter().map(|i| i.code()).collect();
    assert_eq!(
        codes,
        vec![
            "spawned_twice",
            "spawn_unknown",
            "spawn_parent",
            "never_spawned"
        ],
        "{:?}",
        r.inconsistencies
    );
    assert!(r.inconsistencies.contains(&Inconsistency::NeverSpawned {
        process: ProcId(3),
        parent: Some(ProcId(0)),
    }));
    assert!(r.inconsistencies.contains(&Inconsistency::SpawnedTwice {
        child: ProcId(1),
        first: e(0, 0),
        again: e(0, 1),
    }));
}

#[test]
fn a_spawn_with_another_pid_than_the_table() {
    let mut procs = ping_pong();
    procs[0].events[0] = trace_format::Event::Spawn {
        child: ProcId(1),
        pid: 99,
        link: false,
        monitor: false,
    };
    let (_, r) = check(&procs);
    assert_eq!(
        r.inconsistencies,
        vec![Inconsistency::SpawnPid {
            spawn: e(0, 0),
            child: ProcId(1),
            logged: 99,
            table: pid(1),
        }]
    );
}

#[test]
fn acting_before_being_spawned_is_a_cycle() {
    // P waits for P.1's message before spawning P.1.
    let procs = vec![
        proc(0, None, vec![recv(1, 0), spawn(1), exit()]),
        proc(1, Some(0), vec![send(0), exit()]),
    ];
    let (_, r) = check(&procs);
    let [Inconsistency::Cycle { waits }] = &r.inconsistencies[..] else {
        panic!("{:?}", r.inconsistencies)
    };
    assert_eq!(waits.len(), 2);
    let mut pairs: Vec<(EventId, EventId)> = waits.iter().map(|w| (w.event, w.needs)).collect();
    pairs.sort();
    assert_eq!(pairs, vec![(e(0, 0), e(1, 0)), (e(1, 0), e(0, 1))]);
    assert_eq!(r.ordered, 0);
}

#[test]
fn two_receives_waiting_for_each_other() {
    let procs = vec![
        proc(0, None, vec![spawn(1), spawn(2), exit()]),
        proc(1, Some(0), vec![recv(2, 0), send(2), exit()]),
        proc(2, Some(0), vec![recv(1, 0), send(1), exit()]),
    ];
    let (_, r) = check(&procs);
    assert!(matches!(&r.inconsistencies[..], [Inconsistency::Cycle { waits }] if waits.len() == 2));
    assert_eq!(r.ordered, 3, "P's events are ordered");
}

#[test]
fn a_receive_before_its_own_send() {
    let procs = vec![proc(0, None, vec![recv(0, 0), send(0), exit()])];
    let (_, r) = check(&procs);
    let [Inconsistency::Cycle { waits }] = &r.inconsistencies[..] else {
        panic!("{:?}", r.inconsistencies)
    };
    assert_eq!((waits[0].event, waits[0].needs), (e(0, 0), e(0, 1)));
}

#[test]
fn what_a_run_leaves_behind() {
    let procs = vec![
        proc(
            0,
            None,
            vec![
                spawn(1),
                send(1),
                trace_format::Event::Send {
                    to: trace_format::Dest::Foreign(400),
                    payload: None,
                },
                taken(1, 0, SignalEffect::Converted),
                exit(),
            ],
        ),
        proc(1, Some(0), vec![exit(), exit_signal(0), exit_signal(2)]),
        proc(2, None, vec![]),
    ];
    let mut procs = procs;
    // Process 2 is a second root: make P spawn it so the tree is fine.
    procs[0].events.insert(1, spawn(2));
    procs[2].parent = Some(0);
    let (_, r) = check(&procs);
    assert!(r.is_consistent(), "{:?}", r.inconsistencies);
    assert_eq!(r.to_foreign, 1);
    let left: Vec<(trace_format::MsgId, Arrival, bool)> = r
        .unreceived
        .iter()
        .map(|u| (u.msg, u.arrival, u.receiver_exited))
        .collect();
    assert_eq!(
        left,
        vec![
            (m(0, 0), Arrival::Unknown, true),
            (m(1, 0), Arrival::InMailbox, true),
            (m(1, 1), Arrival::NotArrived, false),
        ]
    );
    assert_eq!(r.never_exited, vec![ProcId(2)]);
}

#[test]
fn an_incomplete_log_leaves_receipts_unverifiable() {
    // The run was interrupted: P.1's block with its send was never written.
    let procs = vec![
        proc(0, None, vec![spawn(1), recv(1, 0)]),
        proc(1, Some(0), vec![]),
    ];
    let (_, r) = check_with(&procs, false, Ending::Interrupted);
    assert!(r.is_consistent(), "{:?}", r.inconsistencies);
    assert!(!r.complete);
    assert_eq!(
        r.unverifiable,
        vec![Unverifiable::Receipt {
            receipt: e(0, 1),
            kind: ReceiptKind::Receive,
            msg: m(1, 0),
        }]
    );
}

#[test]
fn a_damaged_block_cuts_its_process_and_keeps_the_rest() {
    let dir = Scratch::new("damaged");
    let path = dir.path("run.trace");
    write(&path, &ping_pong(), false, Ending::Complete);
    let reader = trace_format::LogReader::open(&path).unwrap();
    let block = reader.blocks().find(|b| b.process == ProcId(1)).unwrap();
    // A block may hold several processes' segments: P's too, here, when the
    // writer packed them together.
    let shared = reader
        .blocks()
        .any(|b| b.process == ProcId(0) && b.offset == block.offset);
    drop(reader);
    // Flip a byte in the middle of P.1's block body.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = (block.body_offset + block.stored_len as u64 / 2) as usize;
    let at = at.min(bytes.len() - 1);
    bytes[at] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let reader = trace_format::LogReader::open(&path).unwrap();
    let m = Model::build(&reader);
    assert!(
        m.warnings()
            .iter()
            .any(|w| w.offset.is_some() && w.message.contains("process 1 <0.81.0>")),
        "{:?}",
        m.warnings()
    );
    let r = trace_causal::validate(&m);
    assert_streamed_alike(&reader, &r);
    assert_eq!(m.process(ProcId(1)).unwrap().events, 0);
    assert!(r.is_consistent(), "{:?}", r.inconsistencies);
    if shared {
        assert_eq!(m.process(ProcId(0)).unwrap().events, 0);
        assert_eq!(r.events, 0);
    } else {
        // P's receipt of P.1's pong cannot be checked: P.1's log is lost.
        assert_eq!(r.unverifiable.len(), 1, "{:?}", r.unverifiable);
        assert_eq!(r.events, 4);
    }
}
