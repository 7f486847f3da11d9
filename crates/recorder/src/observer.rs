//! The recording Observer.
//!
//! Each process gets a [`ProcessRecorder`]. During a scheduling slice its
//! events are translated (engine pids → dense log ids, payloads → ETF) into a
//! buffer the process owns, with no lock; at the end of the slice the buffer
//! is handed to the log writer in one go (one uncontended lock per slice).

use crate::pidmap::PidMap;
use crate::translate;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use trace_format::{
    Dest, LogWriter, MsgId, NondetKind, ProcId, ProcessWriter, SignalEffect, SignalKind,
};
use trace_runtime::hooks::{Event, Observer, ProcessInfo, ProcessObserver};
use trace_runtime::process;
use trace_term::Term;

/// What to record beyond the choices.
#[derive(Copy, Clone, Debug)]
pub struct RecordFlags {
    /// Message payloads and exit reasons (needed to read, diff and check the
    /// log without the program; replay does not need them).
    pub payloads: bool,
    /// Mailbox arrivals (`deliver` events).
    pub deliveries: bool,
    /// The bytes each process wrote to standard output.
    pub output: bool,
}

impl Default for RecordFlags {
    fn default() -> Self {
        RecordFlags {
            payloads: true,
            deliveries: false,
            output: false,
        }
    }
}

/// Names behind `NondetKind::Other(n)`, in `n` order (written to the header).
pub const OTHER_NONDET: &[&str] = &[
    "other",
    "cancel_timer",
    "read_timer",
    "localtime",
    "universaltime",
    "date",
    "time",
    "statistics",
];

struct Shared {
    flags: RecordFlags,
    pids: PidMap,
    events: AtomicU64,
    processes: AtomicU64,
}

/// Streams a run's events into a log.
pub struct Recorder {
    writer: Arc<LogWriter>,
    shared: Arc<Shared>,
}

impl Recorder {
    pub fn new(writer: Arc<LogWriter>, flags: RecordFlags) -> Recorder {
        Recorder {
            writer,
            shared: Arc::new(Shared {
                flags,
                pids: PidMap::default(),
                events: AtomicU64::new(0),
                processes: AtomicU64::new(0),
            }),
        }
    }

    /// Events handed to the writer so far (for progress displays).
    pub fn events(&self) -> u64 {
        self.shared.events.load(Ordering::Relaxed)
    }

    /// Processes seen so far.
    pub fn processes(&self) -> u64 {
        self.shared.processes.load(Ordering::Relaxed)
    }
}

impl Observer for Recorder {
    fn process_started(&self, p: &ProcessInfo) -> Option<Box<dyn ProcessObserver>> {
        let parent = p.parent.and_then(|pp| self.shared.pids.get(pp.number()));
        let w = self.writer.register(p.pid.number(), parent);
        self.shared.pids.insert(p.pid.number(), w.id());
        self.shared.processes.fetch_add(1, Ordering::Relaxed);
        Some(Box::new(ProcessRecorder {
            w: Some(w),
            shared: self.shared.clone(),
            events: Vec::new(),
            bytes: Vec::new(),
        }))
    }
}

/// A payload's place in the slice's byte buffer.
type Range = (u32, u32);

/// An event translated to the log's identities, waiting for the slice's end.
enum Local {
    Spawn {
        child: ProcId,
        pid: u64,
        link: bool,
        monitor: bool,
    },
    Send {
        to: Dest,
        payload: Option<Range>,
    },
    Deliver(MsgId),
    Receive(MsgId),
    Timeout,
    Signal {
        to: Dest,
        kind: SignalKind,
    },
    Taken(MsgId, SignalEffect),
    Nondet(NondetKind, Range),
    Output(u64, Option<Range>),
    Exit(Option<Range>),
}

/// One process's recording state.
pub struct ProcessRecorder {
    w: Option<ProcessWriter>,
    shared: Arc<Shared>,
    events: Vec<Local>,
    bytes: Vec<u8>,
}

impl ProcessRecorder {
    fn dest(&self, pid: trace_term::Pid) -> Dest {
        translate::dest(&|p| self.shared.pids.get(p.number()), pid)
    }

    fn msg(&self, id: process::MsgId) -> MsgId {
        translate::msg(&|p| self.shared.pids.get(p.number()), id)
    }

    fn etf(&mut self, t: &Term) -> Range {
        let start = self.bytes.len() as u32;
        trace_term::etf::encode(t, &mut self.bytes);
        (start, self.bytes.len() as u32)
    }

    fn payload(&mut self, t: &Term) -> Option<Range> {
        self.shared.flags.payloads.then(|| self.etf(t))
    }

    /// Hands the slice's events to the writer.
    fn flush(&mut self) {
        if self.events.is_empty() {
            return;
        }
        let Some(w) = self.w.as_mut() else { return };
        let n = self.events.len() as u64;
        let bytes = &self.bytes;
        let get = |r: Range| &bytes[r.0 as usize..r.1 as usize];
        let mut s = w.slice();
        for e in self.events.drain(..) {
            match e {
                Local::Spawn {
                    child,
                    pid,
                    link,
                    monitor,
                } => s.push_spawn(child, pid, link, monitor),
                Local::Send { to, payload } => {
                    s.push_send(to, payload.map(get));
                }
                Local::Deliver(m) => s.push_deliver(m),
                Local::Receive(m) => s.push_receive(m),
                Local::Timeout => s.push_timeout(),
                Local::Signal { to, kind } => {
                    s.push_signal(to, &kind);
                }
                Local::Taken(m, e) => s.push_signal_taken(m, e),
                Local::Nondet(k, r) => s.push_nondet(k, get(r)),
                Local::Output(seq, r) => s.push_output(seq, r.map(get)),
                Local::Exit(r) => s.push_exit(r.map(get)),
            }
        }
        drop(s);
        self.bytes.clear();
        self.shared.events.fetch_add(n, Ordering::Relaxed);
    }
}

impl ProcessObserver for ProcessRecorder {
    fn event(&mut self, ev: &Event<'_>) {
        let local = match *ev {
            Event::Spawn {
                child,
                link,
                monitor,
            } => Local::Spawn {
                child: self
                    .shared
                    .pids
                    .get(child.number())
                    .unwrap_or(ProcId(u32::MAX)),
                pid: child.number(),
                link,
                monitor,
            },
            Event::Send { to, payload, .. } => Local::Send {
                to: self.dest(to),
                payload: self.payload(payload),
            },
            Event::Deliver { id } => {
                if !self.shared.flags.deliveries {
                    return;
                }
                Local::Deliver(self.msg(id))
            }
            Event::Receive { id, .. } => Local::Receive(self.msg(id)),
            Event::Timeout => Local::Timeout,
            Event::Signal { to, signal, .. } => Local::Signal {
                to: self.dest(to),
                kind: translate::signal_kind(self.shared.flags, signal),
            },
            Event::SignalTaken { id, effect: e } => {
                Local::Taken(self.msg(id), translate::effect(e))
            }
            Event::Nondet { kind, value } => {
                let r = self.etf(value);
                Local::Nondet(translate::nondet_kind(kind), r)
            }
            Event::Output { seq, bytes } => {
                let r = if self.shared.flags.output {
                    let start = self.bytes.len() as u32;
                    self.bytes.extend_from_slice(bytes);
                    Some((start, self.bytes.len() as u32))
                } else {
                    None
                };
                Local::Output(seq, r)
            }
            Event::Exit { reason } => Local::Exit(self.payload(reason)),
        };
        self.events.push(local);
    }

    fn slice_end(&mut self) {
        self.flush();
    }
}

impl Drop for ProcessRecorder {
    fn drop(&mut self) {
        self.flush();
        if let Some(w) = self.w.take() {
            w.close();
        }
    }
}
