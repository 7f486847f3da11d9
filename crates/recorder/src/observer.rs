//! The recording Observer.
//!
//! Each process gets a [`ProcessRecorder`]. Each of its events is translated
//! (engine pids → dense log ids, payloads → ETF) and written into the
//! process's open block of the log writer, on the scheduler thread running
//! the process; blocks are compressed and written on the writer's threads.

use crate::pidmap::PidMap;
use crate::translate;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use trace_format::{Dest, LogWriter, MsgId, ProcId, ProcessWriter};
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
    "store",
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
            etf: Vec::new(),
            unpublished: 0,
            last_dest: NO_ID,
            last_sender: NO_ID,
        }))
    }
}

/// One process's recording state.
pub struct ProcessRecorder {
    w: Option<ProcessWriter>,
    shared: Arc<Shared>,
    /// Scratch space for payloads encoded as ETF.
    etf: Vec<u8>,
    /// Events written since the count was last published.
    unpublished: u64,
    /// The last destination and the last sender looked up, with their log
    /// ids: a process mostly talks to the same few partners, and one that
    /// relays (receives from one, sends to another) would make a single
    /// entry miss every time.
    last_dest: (u64, ProcId),
    last_sender: (u64, ProcId),
}

/// A one-entry cache of [`PidMap`] lookups.
type LastId = (u64, ProcId);

const NO_ID: LastId = (u64::MAX, ProcId(u32::MAX));

impl ProcessRecorder {
    fn id_of(pids: &PidMap, last: &mut LastId, pid: trace_term::Pid) -> Option<ProcId> {
        let n = pid.number();
        if last.0 == n {
            return Some(last.1);
        }
        let id = pids.get(n)?;
        *last = (n, id);
        Some(id)
    }

    fn dest(&mut self, pid: trace_term::Pid) -> Dest {
        match Self::id_of(&self.shared.pids, &mut self.last_dest, pid) {
            Some(id) => Dest::Proc(id),
            None => Dest::Foreign(pid.number()),
        }
    }

    fn msg(&mut self, id: process::MsgId) -> MsgId {
        MsgId {
            // Every sender was registered before it could send.
            sender: Self::id_of(&self.shared.pids, &mut self.last_sender, id.sender)
                .unwrap_or(ProcId(u32::MAX)),
            index: id.index,
        }
    }

    /// `t` as ETF in the scratch buffer, when payloads are recorded.
    fn payload(&mut self, t: &Term) -> bool {
        if self.shared.flags.payloads {
            self.etf.clear();
            trace_term::etf::encode(t, &mut self.etf);
        }
        self.shared.flags.payloads
    }

    fn publish(&mut self) {
        if self.unpublished > 0 {
            self.shared
                .events
                .fetch_add(self.unpublished, Ordering::Relaxed);
            self.unpublished = 0;
        }
    }

    /// A send: most of the events of a run, with receives.
    /// The payload is encoded straight into the block.
    #[inline]
    fn send(&mut self, to: trace_term::Pid, payload: &Term) {
        let dest = self.dest(to);
        let Some(w) = self.w.as_mut() else { return };
        let mut s = w.slice();
        if self.shared.flags.payloads {
            s.push_send_with(dest, |out| trace_term::etf::encode(payload, out));
        } else {
            s.push_send(dest, None);
        }
    }

    #[inline]
    fn receive(&mut self, id: process::MsgId) {
        let msg = self.msg(id);
        if let Some(w) = self.w.as_mut() {
            w.slice().push_receive(msg);
        }
    }

    /// Every other event.
    #[inline(never)]
    fn other(&mut self, ev: &Event<'_>) {
        // Identities first: they need `self`, the slice borrows the writer.
        let (dest, msg, child) = match *ev {
            Event::Send { to, .. } | Event::Signal { to, .. } => (self.dest(to), None, None),
            Event::Deliver { id } | Event::Receive { id, .. } | Event::SignalTaken { id, .. } => {
                (Dest::Unknown, Some(self.msg(id)), None)
            }
            Event::Spawn { child, .. } => (
                Dest::Unknown,
                None,
                Some(
                    self.shared
                        .pids
                        .get(child.number())
                        .unwrap_or(ProcId(u32::MAX)),
                ),
            ),
            _ => (Dest::Unknown, None, None),
        };
        let has_payload = match *ev {
            Event::Send { payload, .. } => self.payload(payload),
            Event::Exit { reason } => self.payload(reason),
            Event::Nondet { value, .. } => {
                self.etf.clear();
                trace_term::etf::encode(value, &mut self.etf);
                true
            }
            _ => false,
        };
        let flags = self.shared.flags;
        let Some(w) = self.w.as_mut() else { return };
        let etf = &self.etf[..];
        let payload = has_payload.then_some(etf);
        let mut s = w.slice();
        match *ev {
            Event::Spawn {
                child: c,
                link,
                monitor,
            } => s.push_spawn(child.unwrap_or(ProcId(u32::MAX)), c.number(), link, monitor),
            Event::Send { .. } => {
                s.push_send(dest, payload);
            }
            Event::Deliver { .. } => s.push_deliver(msg.expect("set above")),
            Event::Receive { .. } => s.push_receive(msg.expect("set above")),
            Event::Timeout => s.push_timeout(),
            Event::Signal { signal, .. } => {
                s.push_signal(dest, &translate::signal_kind(flags, signal));
            }
            Event::SignalTaken { effect, .. } => {
                s.push_signal_taken(msg.expect("set above"), translate::effect(effect))
            }
            Event::Nondet { kind, .. } => s.push_nondet(translate::nondet_kind(kind), etf),
            Event::Output { seq, bytes } => s.push_output(seq, flags.output.then_some(bytes)),
            Event::Exit { .. } => s.push_exit(payload),
        }
    }
}

impl ProcessObserver for ProcessRecorder {
    /// Writes the event into the process's open block. The writer's lock is
    /// the process's own and uncontended (the flusher only tries it), so
    /// taking it per event costs less than staging events for the slice.
    fn event(&mut self, ev: &Event<'_>) {
        match *ev {
            Event::Send { to, payload, .. } => self.send(to, payload),
            Event::Receive { id, .. } => self.receive(id),
            Event::Deliver { .. } if !self.shared.flags.deliveries => return,
            _ => self.other(ev),
        }
        self.unpublished += 1;
    }

    fn slice_end(&mut self) {
        self.publish();
    }
}

impl Drop for ProcessRecorder {
    fn drop(&mut self) {
        self.publish();
        if let Some(w) = self.w.take() {
            w.close();
        }
    }
}
