//! Hand-built logs for the tests (also used by the CLI's replay tests):
//! processes described event by event, written with the real log writer.
#![allow(dead_code)]

use std::path::Path;
use trace_format::{
    Dest, Event, Header, LogWriter, MsgId, Outcome, Payload, ProcId, ProcessLog, RecordingOptions,
    RunEnd, SignalEffect, SignalKind, WriterOptions,
};

#[allow(unused_imports)] // not every test file makes one
pub use trace_fixtures::Scratch;

/// Runs `f` on a pool of `threads` threads.
pub fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// One process of a hand-built log: dense index `id`, raw pid `80 + id`.
pub struct Proc {
    pub id: u32,
    pub parent: Option<u32>,
    pub events: Vec<Event>,
}

pub fn proc(id: u32, parent: Option<u32>, events: Vec<Event>) -> Proc {
    Proc { id, parent, events }
}

pub fn pid(id: u32) -> u64 {
    80 + id as u64
}

pub fn m(sender: u32, index: u64) -> MsgId {
    MsgId {
        sender: ProcId(sender),
        index,
    }
}

pub fn spawn(child: u32) -> Event {
    Event::Spawn {
        child: ProcId(child),
        pid: pid(child),
        link: false,
        monitor: false,
    }
}

pub fn send(to: u32) -> Event {
    Event::Send {
        to: Dest::Proc(ProcId(to)),
        payload: None,
    }
}

pub fn send_payload(to: u32, term: &trace_term::Term) -> Event {
    Event::Send {
        to: Dest::Proc(ProcId(to)),
        payload: Some(Payload(trace_term::etf::to_vec(term))),
    }
}

pub fn send_unknown() -> Event {
    Event::Send {
        to: Dest::Unknown,
        payload: None,
    }
}

pub fn recv(sender: u32, index: u64) -> Event {
    Event::Receive {
        msg: m(sender, index),
    }
}

pub fn deliver(sender: u32, index: u64) -> Event {
    Event::Deliver {
        msg: m(sender, index),
    }
}

pub fn signal(to: u32, kind: SignalKind) -> Event {
    Event::Signal {
        to: Dest::Proc(ProcId(to)),
        kind,
    }
}

pub fn taken(sender: u32, index: u64, effect: SignalEffect) -> Event {
    Event::SignalTaken {
        signal: m(sender, index),
        effect,
    }
}

pub fn exit_signal(to: u32) -> Event {
    signal(
        to,
        SignalKind::Exit {
            reason: None,
            linked: true,
        },
    )
}

pub fn exit() -> Event {
    Event::Exit { reason: None }
}

/// How the log ends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Finished, the run completed.
    Complete,
    /// Finished, but the run was interrupted.
    Interrupted,
}

/// Writes the processes (registered in id order) as a log.
pub fn write(path: &Path, procs: &[Proc], deliveries: bool, ending: Ending) {
    write_with(path, procs, deliveries, ending, WriterOptions::default())
}

/// As [`write`], with the writer's options.
pub fn write_with(
    path: &Path,
    procs: &[Proc],
    deliveries: bool,
    ending: Ending,
    opts: WriterOptions,
) {
    let header = Header {
        recorder: "trace-causal tests".into(),
        engine: "none".into(),
        entry: "t:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: pid(0),
        options: RecordingOptions {
            deliveries,
            ..Default::default()
        },
        ..Default::default()
    };
    let logs: Vec<ProcessLog> = procs
        .iter()
        .map(|p| ProcessLog {
            id: ProcId(p.id),
            pid: pid(p.id),
            parent: p.parent.map(ProcId),
            events: p.events.clone(),
        })
        .collect();
    let w = LogWriter::create(path, header, opts).unwrap();
    w.write_logs(&logs);
    let end = match ending {
        Ending::Complete => RunEnd::Completed,
        Ending::Interrupted => RunEnd::Interrupted,
    };
    w.finish(Outcome {
        end,
        ..Default::default()
    })
    .unwrap();
}

/// Writes the processes as a complete log in `dir` and opens it.
pub fn open(dir: &Scratch, procs: &[Proc]) -> trace_format::LogReader {
    open_with(dir, procs, false, Ending::Complete)
}

pub fn open_with(
    dir: &Scratch,
    procs: &[Proc],
    deliveries: bool,
    ending: Ending,
) -> trace_format::LogReader {
    let path = dir.path("run.trace");
    write(&path, procs, deliveries, ending);
    trace_format::LogReader::open(&path).unwrap()
}

/// A small seeded generator of causally consistent runs: processes spawn,
/// send to each other, receive (selectively: any pending message), time
/// out and exit; a process's exit sends an exit signal to its parent, which
/// takes it (turning it into a message it may receive) while it lives. One
/// global order that respects happened-before.
pub fn random_run(seed: u64, steps: usize) -> Vec<Proc> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut rand = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut procs = vec![proc(0, None, Vec::new())];
    let mut alive = vec![true];
    let mut sent = vec![0u64];
    // Messages sent and not yet received, and signals not yet taken, per receiver.
    let mut pending: Vec<Vec<MsgId>> = vec![Vec::new()];
    let mut signals: Vec<Vec<MsgId>> = vec![Vec::new()];
    for _ in 0..steps {
        let live: Vec<usize> = (0..procs.len()).filter(|&p| alive[p]).collect();
        if live.is_empty() {
            break;
        }
        let p = live[rand(live.len())];
        match rand(11) {
            0 if procs.len() < 12 => {
                let c = procs.len() as u32;
                procs[p].events.push(spawn(c));
                procs.push(proc(c, Some(p as u32), Vec::new()));
                alive.push(true);
                sent.push(0);
                pending.push(Vec::new());
                signals.push(Vec::new());
            }
            1..=4 => {
                let to = live[rand(live.len())];
                procs[p].events.push(send(to as u32));
                pending[to].push(m(p as u32, sent[p]));
                sent[p] += 1;
            }
            5..=7 if !pending[p].is_empty() => {
                let k = rand(pending[p].len());
                let msg = pending[p].remove(k);
                procs[p].events.push(Event::Receive { msg });
            }
            8 => procs[p].events.push(Event::Timeout),
            9 if !signals[p].is_empty() => {
                // Signals are taken in arrival order.
                let sig = signals[p].remove(0);
                procs[p]
                    .events
                    .push(taken(sig.sender.0, sig.index, SignalEffect::Converted));
                pending[p].push(sig);
            }
            10 if p != 0 => {
                procs[p].events.push(exit());
                alive[p] = false;
                let parent = procs[p].parent.unwrap() as usize;
                if alive[parent] {
                    procs[p].events.push(exit_signal(parent as u32));
                    signals[parent].push(m(p as u32, sent[p]));
                    sent[p] += 1;
                }
            }
            _ => {}
        }
    }
    procs
}
