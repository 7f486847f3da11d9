//! The encoder thread: takes the batches processes staged during their
//! slices, in the order they were handed over, and writes them into each
//! process's log writer (ETF for payloads, the block codec for events).
//!
//! Moving this off the scheduler threads is what keeps recording cheap for
//! the program: a scheduler only clones terms and hands over one batch per
//! slice. The queue is bounded, so a program that produces events faster
//! than they can be encoded is slowed down instead of filling memory.

use crate::staged::{Staged, StagedSignal};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use trace_format::{Payload, ProcessWriter, SignalKind};
use trace_term::Term;

/// Batches waiting for the encoder before a scheduler waits for it.
const QUEUE_BATCHES: usize = 8192;

/// A process's writer, shared between its recorder (which may close it when
/// the process ends) and the encoder thread.
pub type WriterSlot = Arc<Mutex<Option<ProcessWriter>>>;

/// What a process hands over at the end of a slice.
pub struct Batch {
    pub writer: WriterSlot,
    pub events: Vec<Staged>,
    /// The process ended: close its writer after these events.
    pub close: bool,
}

/// What the encoder thread is told.
pub enum Work {
    Batch(Batch),
    /// The run is over: stop once everything before this is written.
    Stop,
}

pub struct Encoder {
    tx: Mutex<Option<SyncSender<Work>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Events written into the log writer so far.
    pub events: Arc<AtomicU64>,
}

impl Encoder {
    pub fn start() -> std::io::Result<Encoder> {
        let (tx, rx) = sync_channel(QUEUE_BATCHES);
        let events = Arc::new(AtomicU64::new(0));
        let counter = events.clone();
        let thread = std::thread::Builder::new()
            .name("trace-record-encode".into())
            .spawn(move || run(rx, &counter))?;
        Ok(Encoder {
            tx: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
            events,
        })
    }

    /// A handle for a process to send its batches through.
    pub fn sender(&self) -> Option<SyncSender<Work>> {
        self.tx.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Waits until every batch handed over so far is written. Processes
    /// still holding a sender (blocked forever at the end of the run) keep the
    /// channel open, so the thread is told to stop instead of waiting for the
    /// channel to close.
    pub fn finish(&self) {
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(Work::Stop);
        }
        if let Some(h) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = h.join();
        }
    }
}

fn run(rx: Receiver<Work>, events: &AtomicU64) {
    let mut etf = Vec::new();
    while let Ok(Work::Batch(batch)) = rx.recv() {
        let mut slot = batch.writer.lock().unwrap_or_else(|e| e.into_inner());
        let Some(w) = slot.as_mut() else {
            continue;
        };
        let n = batch.events.len() as u64;
        write(w, batch.events, &mut etf);
        events.fetch_add(n, Ordering::Relaxed);
        if batch.close {
            if let Some(w) = slot.take() {
                w.close();
            }
        }
    }
}

fn encode<'a>(t: &Term, buf: &'a mut Vec<u8>) -> &'a [u8] {
    buf.clear();
    trace_term::etf::encode(t, buf);
    buf
}

fn owned(t: Option<Term>) -> Option<Payload> {
    t.map(|t| Payload(trace_term::etf::to_vec(&t)))
}

fn write(w: &mut ProcessWriter, events: Vec<Staged>, etf: &mut Vec<u8>) {
    let mut s = w.slice();
    for e in events {
        match e {
            Staged::Spawn {
                child,
                pid,
                link,
                monitor,
            } => s.push_spawn(child, pid, link, monitor),
            Staged::Send { to, payload } => {
                let p = payload.as_ref().map(|t| encode(t, etf));
                s.push_send(to, p);
            }
            Staged::Deliver(m) => s.push_deliver(m),
            Staged::Receive(m) => s.push_receive(m),
            Staged::Timeout => s.push_timeout(),
            Staged::Signal { to, kind } => {
                let kind = match kind {
                    StagedSignal::Link => SignalKind::Link,
                    StagedSignal::Unlink => SignalKind::Unlink,
                    StagedSignal::Monitor => SignalKind::Monitor,
                    StagedSignal::Demonitor => SignalKind::Demonitor,
                    StagedSignal::Exit { reason, linked } => SignalKind::Exit {
                        reason: owned(reason),
                        linked,
                    },
                    StagedSignal::Down { reason } => SignalKind::Down {
                        reason: owned(reason),
                    },
                };
                s.push_signal(to, &kind);
            }
            Staged::Taken(m, e) => s.push_signal_taken(m, e),
            Staged::Nondet(k, v) => s.push_nondet(k, encode(&v, etf)),
            Staged::Output(seq, bytes) => s.push_output(seq, bytes.as_deref()),
            Staged::Exit(r) => {
                let p = r.as_ref().map(|t| encode(t, etf));
                s.push_exit(p);
            }
        }
    }
}
