//! The replay Director: built from a log, it hands every process that starts
//! a cursor over that process's log. Replay forces spawned pids to the
//! recorded ones, so a process is found in the log by its raw pid.

use crate::cursor::ProcessReplay;
use crate::replay_log::{ReplayLog, NOT_STARTED};
use crate::window::Window;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use trace_format::{LogReader, MsgId, ProcId};
use trace_runtime::hooks::{Director, ProcessDirector, ProcessStart, TimerTarget};
use trace_runtime::process;
use trace_term::Pid;

/// A process whose log was not replayed to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub id: ProcId,
    /// Events of the process log that happened (`Deliver` events not counted).
    pub replayed: usize,
    pub total: usize,
    /// The first logged event that did not happen, as `trace dump` prints it.
    pub next: String,
}

/// Forces a recorded run's choices on the engine.
pub struct LogDirector {
    shared: Arc<ReplayLog>,
}

impl LogDirector {
    /// A director replaying every process log to its end, or, with `holds`,
    /// each process up to that many of its recorded events and held there.
    pub fn new(log: Arc<LogReader>, holds: Option<Vec<u64>>) -> LogDirector {
        LogDirector {
            shared: Arc::new(ReplayLog::new(log, holds)),
        }
    }

    /// Processes whose log was not replayed to its end (once the run is over).
    pub fn unfinished(&self) -> Vec<Left> {
        let s = &self.shared;
        let mut v: Vec<Left> = s
            .totals
            .iter()
            .zip(&s.progress)
            .enumerate()
            .filter_map(|(i, (total, pos))| {
                let total = total.load(Ordering::Relaxed);
                let pos = pos.load(Ordering::Relaxed);
                let id = ProcId(i as u32);
                if total == NOT_STARTED || pos >= total {
                    return None;
                }
                // The total may be an upper bound: count what was to replay.
                let total = self.shared.replayable(id);
                (pos < total).then(|| Left {
                    id,
                    replayed: pos as usize,
                    total: total as usize,
                    next: self.shared.describe_at(id, pos as usize),
                })
            })
            .collect();
        v.sort_by_key(|l| l.id);
        v
    }

    /// Processes of the log that should have started in the replay (with a
    /// hold, those with events to replay) but never did.
    pub fn never_started(&self) -> Vec<ProcId> {
        self.shared
            .log
            .processes()
            .iter()
            .map(|p| p.id)
            .filter(|id| match &self.shared.holds {
                Some(h) => h.get(id.0 as usize).is_some_and(|&n| n > 0),
                None => true,
            })
            .filter(|id| !self.shared.has_started(*id))
            .collect()
    }

    pub fn pid_of(&self, id: ProcId) -> u64 {
        self.shared.pid_of(id)
    }
}

impl LogDirector {
    /// Every message's receiver, from the `receive` (or `deliver`) events of
    /// all process logs.
    fn receivers(&self) -> &HashMap<MsgId, ProcId> {
        self.shared.receivers.get_or_init(|| {
            let mut map = HashMap::new();
            for p in self.shared.log.processes() {
                let _ = self.shared.log.for_each_event_of(p.id, |_, _, e| {
                    if let trace_format::EventRef::Receive { msg }
                    | trace_format::EventRef::Deliver { msg } = e
                    {
                        map.insert(msg, p.id);
                    }
                });
            }
            map
        })
    }
}

impl Director for LogDirector {
    fn forces_pids(&self) -> bool {
        true
    }

    /// The recorded run looked the name up when the timer fired; the log
    /// says who ended up with the message, so it goes there again.
    fn timer_target(&self, id: process::SignalId) -> TimerTarget {
        let Some(sender) = self.shared.id_of(id.sender) else {
            return TimerTarget::Nowhere;
        };
        let msg = MsgId {
            sender,
            index: id.index,
        };
        let Some(&r) = self.receivers().get(&msg) else {
            return TimerTarget::Nowhere;
        };
        // Replay fires timers at once; the receiver may not be spawned yet.
        if self.shared.has_started(r) {
            TimerTarget::Process(Pid(self.shared.pid_of(r)))
        } else if self.shared.later(msg) {
            TimerTarget::Later
        } else {
            TimerTarget::Nowhere
        }
    }

    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessDirector>> {
        let id = self.shared.id_of(p.pid);
        let hold = self.shared.holds.is_some();
        let limit = self.shared.limit(id);
        let window = Window::new(&self.shared.log, id, limit);
        if let Some(id) = id {
            let total = if window.exhausted() {
                window.position() as u64
            } else {
                self.shared
                    .log
                    .process(id)
                    .map_or(0, |p| p.events.min(limit))
            };
            if let Some(t) = self.shared.totals.get(id.0 as usize) {
                t.store(total, Ordering::Relaxed);
            }
        }
        Some(Box::new(ProcessReplay::new(
            self.shared.clone(),
            id,
            p.pid,
            window,
            hold,
        )))
    }
}
