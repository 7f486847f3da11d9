//! The recording Observer.
//!
//! Each process gets a [`ProcessRecorder`]. Each of its events is mapped to
//! a log event by the capture layer's one mapping (engine pids → dense log
//! ids, payloads → ETF) and written into the process's open block of the log
//! writer, on the scheduler thread running the process (a message's ETF
//! straight into the block), which holds the block from its first event in
//! a slice to the slice's end; blocks are compressed and written on the
//! writer's threads.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use trace_capture::mapping::SharedFunctions;
use trace_capture::{PidMap, RecordFlags, Translator};
use trace_format::{LogWriter, MsgId, ProcId, ProcessWriter};
use trace_runtime::hooks::{Event, Observer, ProcessObserver, ProcessStart, SharedOp};

struct Shared {
    flags: RecordFlags,
    pids: PidMap,
    functions: SharedFunctions,
    events: AtomicU64,
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
                functions: SharedFunctions::default(),
                events: AtomicU64::new(0),
            }),
        }
    }

    /// Events handed to the writer so far (for progress displays).
    pub fn events(&self) -> u64 {
        self.shared.events.load(Ordering::Relaxed)
    }

    /// Processes seen so far (the writer's count: a count of its own was
    /// one more cache line written by every scheduler thread per process).
    pub fn processes(&self) -> u64 {
        self.writer.processes()
    }
}

impl Observer for Recorder {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        let parent = p
            .parent
            .and_then(|pp| Some((pp.number(), self.shared.pids.get(pp.number())?)));
        let w = self
            .writer
            .register(p.pid.number(), parent.map(|(_, id)| id));
        self.shared.pids.insert(p.pid.number(), w.id());
        let mut translator = Translator::new(self.shared.flags);
        // A child mostly talks to its parent first: its pid needs no lookup.
        if let Some((pid, id)) = parent {
            translator.knows(pid, id);
        }
        Some(Box::new(ProcessRecorder {
            w: Some(w),
            shared: self.shared.clone(),
            translator,
            unpublished: 0,
        }))
    }
}

/// One process's recording state.
pub struct ProcessRecorder {
    w: Option<ProcessWriter>,
    shared: Arc<Shared>,
    translator: Translator,
    /// Events written since the count was last published.
    unpublished: u64,
}

/// Events a process counts before it adds them to the shared count: the
/// count is one cache line written from every scheduler thread, and a
/// message ring ends a slice every event or two. Progress displays lag by
/// at most this many events per live process.
const PUBLISH_EVERY: u64 = 64;

/// The identity the writer replaces with the process's next signal index.
const WRITER_ASSIGNS: MsgId = MsgId {
    sender: ProcId::UNKNOWN,
    index: 0,
};

impl ProcessRecorder {
    fn publish(&mut self) {
        if self.unpublished > 0 {
            self.shared
                .events
                .fetch_add(self.unpublished, Ordering::Relaxed);
            self.unpublished = 0;
        }
    }
}

impl ProcessObserver for ProcessRecorder {
    fn wants_deliveries(&self) -> bool {
        self.shared.flags.deliveries
    }

    /// Writes the event into the process's open block. The process holds
    /// its buffer from its first event in a slice to the slice's end: one
    /// atomic exchange a slice, not a lock per event (the flusher only tries
    /// the buffer, and leaves a hint that the release acts on).
    fn event(&mut self, ev: &Event<'_>) {
        if !self.shared.flags.logs(ev) {
            return;
        }
        let Some(w) = self.w.as_mut() else { return };
        // A process's first slice goes to its thread's crowd (a short
        // process then costs a row of a shared block), unless the event
        // is a delivery: that comes on the sender's thread, outside the
        // process's slice, and would hold the sender's crowd until then.
        w.hold_crowded(|| !matches!(ev, Event::Deliver { .. }));
        let pids = &self.shared.pids;
        // The two most common events skip the general mapping's match and
        // the writer's; an exit's reason goes straight into the block.
        if let Some((to, payload)) = self.translator.send_with_payload(pids, ev) {
            w.slice()
                .push_send_with(to, |out| trace_term::etf::encode(payload, out));
        } else if let Some(msg) = self.translator.receipt(pids, ev) {
            w.slice().push_receive(msg);
        } else if let Some(reason) = self.translator.exit_reason(ev) {
            w.slice()
                .push_exit_with(|out| trace_term::etf::encode(reason, out));
        } else {
            let e = self.translator.log_event(pids, ev, WRITER_ASSIGNS);
            w.slice().push_ref(&e);
        }
        self.unpublished += 1;
    }

    fn shared(&mut self, op: &SharedOp<'_>) {
        let Some(w) = self.w.as_mut() else { return };
        w.hold();
        let s = &*self.shared;
        let e = self.translator.shared_event(&s.pids, &s.functions, op);
        w.slice().push_ref(&e);
        self.unpublished += 1;
    }

    fn slice_end(&mut self) {
        if let Some(w) = self.w.as_mut() {
            w.release();
        }
        if self.unpublished >= PUBLISH_EVERY {
            self.publish();
        }
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
