//! The recording Observer.
//!
//! Each process gets a [`ProcessRecorder`]. During a scheduling slice it
//! stages its events in the log's identities (engine pids → dense log ids)
//! with payloads still as terms, in a buffer it owns, with no lock; at the
//! end of the slice it hands the batch to the encoder thread
//! ([`crate::encoder`]), which does the ETF and block encoding.

use crate::encoder::{Batch, Encoder, Work, WriterSlot};
use crate::pidmap::PidMap;
use crate::staged::{Staged, StagedSignal};
use crate::translate;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use trace_format::{Dest, LogWriter, MsgId, ProcId};
use trace_runtime::hooks::{Event, Observer, ProcessInfo, ProcessObserver, SignalOut};
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
    processes: AtomicU64,
}

/// Streams a run's events into a log.
pub struct Recorder {
    writer: Arc<LogWriter>,
    shared: Arc<Shared>,
    encoder: Encoder,
}

impl Recorder {
    pub fn new(writer: Arc<LogWriter>, flags: RecordFlags) -> std::io::Result<Recorder> {
        Ok(Recorder {
            writer,
            shared: Arc::new(Shared {
                flags,
                pids: PidMap::default(),
                processes: AtomicU64::new(0),
            }),
            encoder: Encoder::start()?,
        })
    }

    /// Events written to the log writer so far (for progress displays).
    pub fn events(&self) -> u64 {
        self.encoder.events.load(Ordering::Relaxed)
    }

    /// Processes seen so far.
    pub fn processes(&self) -> u64 {
        self.shared.processes.load(Ordering::Relaxed)
    }

    /// Writes out everything the processes handed over. Call once the run is
    /// over, before finishing the log.
    pub fn finish(&self) {
        self.encoder.finish();
    }
}

impl Observer for Recorder {
    fn process_started(&self, p: &ProcessInfo) -> Option<Box<dyn ProcessObserver>> {
        let parent = p.parent.and_then(|pp| self.shared.pids.get(pp.number()));
        let w = self.writer.register(p.pid.number(), parent);
        self.shared.pids.insert(p.pid.number(), w.id());
        self.shared.processes.fetch_add(1, Ordering::Relaxed);
        Some(Box::new(ProcessRecorder {
            writer: Arc::new(Mutex::new(Some(w))),
            tx: self.encoder.sender(),
            shared: self.shared.clone(),
            events: Vec::new(),
            last: (u64::MAX, ProcId(u32::MAX)),
        }))
    }
}

/// One process's recording state.
pub struct ProcessRecorder {
    writer: WriterSlot,
    tx: Option<SyncSender<Work>>,
    shared: Arc<Shared>,
    events: Vec<Staged>,
    /// The last pid looked up and its log id: a process mostly talks to the
    /// same few partners, so this saves most map lookups.
    last: (u64, ProcId),
}

impl ProcessRecorder {
    fn id_of(&mut self, pid: trace_term::Pid) -> Option<ProcId> {
        let n = pid.number();
        if self.last.0 == n {
            return Some(self.last.1);
        }
        let id = self.shared.pids.get(n)?;
        self.last = (n, id);
        Some(id)
    }

    fn dest(&mut self, pid: trace_term::Pid) -> Dest {
        match self.id_of(pid) {
            Some(id) => Dest::Proc(id),
            None => Dest::Foreign(pid.number()),
        }
    }

    fn msg(&mut self, id: process::MsgId) -> MsgId {
        MsgId {
            // Every sender was registered before it could send.
            sender: self.id_of(id.sender).unwrap_or(ProcId(u32::MAX)),
            index: id.index,
        }
    }

    fn payload(&self, t: &Term) -> Option<Term> {
        self.shared.flags.payloads.then(|| t.clone())
    }

    /// Hands the slice's events to the encoder.
    fn hand_over(&mut self, close: bool) {
        if self.events.is_empty() && !close {
            return;
        }
        // A busy process likely stages as many events next slice; an idle
        // one (most of a million waiting processes) keeps no buffer at all.
        let n = self.events.len();
        let next = if n > 4 && !close {
            Vec::with_capacity(n.min(256))
        } else {
            Vec::new()
        };
        let batch = Batch {
            writer: self.writer.clone(),
            events: std::mem::replace(&mut self.events, next),
            close,
        };
        if let Some(tx) = &self.tx {
            // The encoder is gone only once the run is over; nothing is lost
            // that a finished log would hold.
            let _ = tx.send(Work::Batch(batch));
        }
    }
}

impl ProcessObserver for ProcessRecorder {
    fn event(&mut self, ev: &Event<'_>) {
        let staged = match *ev {
            Event::Spawn {
                child,
                link,
                monitor,
            } => Staged::Spawn {
                child: self.id_of(child).unwrap_or(ProcId(u32::MAX)),
                pid: child.number(),
                link,
                monitor,
            },
            Event::Send { to, payload, .. } => Staged::Send {
                to: self.dest(to),
                payload: self.payload(payload),
            },
            Event::Deliver { id } => {
                if !self.shared.flags.deliveries {
                    return;
                }
                Staged::Deliver(self.msg(id))
            }
            Event::Receive { id, .. } => Staged::Receive(self.msg(id)),
            Event::Timeout => Staged::Timeout,
            Event::Signal { to, signal, .. } => Staged::Signal {
                to: self.dest(to),
                kind: match signal {
                    SignalOut::Link => StagedSignal::Link,
                    SignalOut::Unlink => StagedSignal::Unlink,
                    SignalOut::Monitor => StagedSignal::Monitor,
                    SignalOut::Demonitor => StagedSignal::Demonitor,
                    SignalOut::Exit { reason, linked } => StagedSignal::Exit {
                        reason: self.payload(reason),
                        linked,
                    },
                    SignalOut::Down { reason } => StagedSignal::Down {
                        reason: self.payload(reason),
                    },
                },
            },
            Event::SignalTaken { id, effect: e } => {
                Staged::Taken(self.msg(id), translate::effect(e))
            }
            Event::Nondet { kind, value } => {
                Staged::Nondet(translate::nondet_kind(kind), value.clone())
            }
            Event::Output { seq, bytes } => {
                Staged::Output(seq, self.shared.flags.output.then(|| bytes.to_vec()))
            }
            Event::Exit { reason } => Staged::Exit(self.payload(reason)),
        };
        self.events.push(staged);
    }

    fn slice_end(&mut self) {
        self.hand_over(false);
    }
}

impl Drop for ProcessRecorder {
    fn drop(&mut self) {
        self.hand_over(true);
    }
}
