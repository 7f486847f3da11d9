//! What every process's cursor of a replay shares: the log, its
//! identities, and how far each cursor got (for the end-of-run report).

use crate::expect;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use trace_capture::mapping::SharedFunctions;
use trace_capture::{Names, PidMap, RecordFlags};
use trace_format::{Event, EventRef, LogReader, MsgId, ProcId};
use trace_runtime::hooks;
use trace_term::Pid;

/// `ReplayLog::totals` of a process that has not started.
pub(crate) const NOT_STARTED: u64 = u64::MAX;

/// What every process's cursor shares: the log and its identities.
pub struct ReplayLog {
    pub(crate) log: Arc<LogReader>,
    /// Raw pid of each process, by dense id.
    pub(crate) pids: Vec<u64>,
    /// Dense id of each raw pid: the engine asks for every event.
    pub(crate) ids: PidMap,
    pub(crate) flags: RecordFlags,
    /// The log's shared-state functions, by the numbers it gives them.
    pub(crate) functions: SharedFunctions,
    pub(crate) names: Names,
    /// Each process's cursor, by dense id: how many events it has to
    /// replay (`NOT_STARTED` until it starts) and how far it got. Dense
    /// atomics, so a run starting a million processes allocates nothing
    /// and takes no lock for them. A cursor reads its log a block at a
    /// time, so its total is first an upper bound (the events the table
    /// counts, up to the hold), made exact when it reaches the end, or by
    /// counting when the run ends short of it.
    pub(crate) totals: Vec<AtomicU64>,
    pub(crate) progress: Vec<AtomicU64>,
    /// Who received each message, built on the first timer for a registered
    /// name (the only time the replay needs it).
    pub(crate) receivers: OnceLock<HashMap<MsgId, ProcId>>,
    /// How often each such timer was told to wait for its receiver.
    pub(crate) waits: Mutex<HashMap<MsgId, u32>>,
    /// Where each process is held (`--until`: its events in the causal
    /// past; a cut-short recording: its whole log), by dense id; `None`:
    /// replay every log to its end and report anything more as a departure.
    pub(crate) holds: Option<Vec<u64>>,
    /// With holds: the recorded sequence numbers of the writes to standard
    /// output that the replay makes, in order. The engine numbers the
    /// replay's writes 0, 1, ...: a write waits only for the earlier writes
    /// that are replayed, not for one held back (which would never come).
    pub(crate) outputs: Option<Vec<u64>>,
}

impl ReplayLog {
    /// The state a replay of `log` shares, each process held at its entry
    /// of `holds` (or replayed to its end without them).
    pub(crate) fn new(log: Arc<LogReader>, holds: Option<Vec<u64>>) -> ReplayLog {
        let pids: Vec<u64> = log.processes().iter().map(|p| p.pid).collect();
        let ids = PidMap::default();
        for p in log.processes() {
            ids.insert(p.pid, p.id);
        }
        let flags = RecordFlags::of_header(log.header());
        let functions = SharedFunctions::of_names(&log.header().shared_functions);
        let names = Names::of_table(log.processes());
        let slots = log.id_slots();
        let outputs = holds.as_ref().map(|h| replayed_outputs(&log, h));
        ReplayLog {
            log,
            pids,
            ids,
            flags,
            functions,
            names,
            totals: (0..slots).map(|_| AtomicU64::new(NOT_STARTED)).collect(),
            progress: (0..slots).map(|_| AtomicU64::new(0)).collect(),
            receivers: OnceLock::new(),
            waits: Mutex::new(HashMap::new()),
            holds,
            outputs,
        }
    }

    pub(crate) fn has_started(&self, id: ProcId) -> bool {
        self.totals
            .get(id.0 as usize)
            .is_some_and(|t| t.load(Ordering::Relaxed) != NOT_STARTED)
    }

    /// Publishes how far process `id`'s cursor got, for the end-of-run
    /// report (a process blocked forever is never dropped, so the report
    /// cannot wait for that).
    /// `done`: the cursor replayed its last event, so `pos` is the exact
    /// number it had to replay.
    pub(crate) fn progressed(&self, id: ProcId, pos: usize, done: bool) {
        if let Some(p) = self.progress.get(id.0 as usize) {
            p.store(pos as u64, Ordering::Relaxed);
        }
        if done {
            if let Some(t) = self.totals.get(id.0 as usize) {
                t.store(pos as u64, Ordering::Relaxed);
            }
        }
    }

    pub(crate) fn log(&self) -> &LogReader {
        &self.log
    }

    /// Events of process `id`'s log the replay goes up to: its hold, or all.
    pub(crate) fn limit(&self, id: Option<ProcId>) -> u64 {
        match (&self.holds, id) {
            (Some(h), Some(id)) => h.get(id.0 as usize).copied().unwrap_or(0),
            (Some(_), None) => 0,
            (None, _) => u64::MAX,
        }
    }

    /// The events process `id` has to replay: its log up to its limit,
    /// `Deliver` events left out, and up to a block that does not decode.
    pub(crate) fn replayable(&self, id: ProcId) -> u64 {
        let limit = self.limit(Some(id));
        let mut n = 0;
        let _ = self.log.for_each_event_of(id, |i, _, e| {
            n += (i < limit && !matches!(e, EventRef::Deliver { .. })) as u64;
        });
        n
    }

    pub fn pid_of(&self, id: ProcId) -> u64 {
        self.pids.get(id.0 as usize).copied().unwrap_or(u64::MAX)
    }

    /// The engine's turn for the write the log numbers `seq`.
    pub(crate) fn output_turn(&self, seq: u64) -> u64 {
        match &self.outputs {
            Some(v) => v.binary_search(&seq).unwrap_or_else(|i| i) as u64,
            None => seq,
        }
    }

    /// The log's number for the write the engine made at `turn`.
    pub(crate) fn logged_output(&self, turn: u64) -> u64 {
        match &self.outputs {
            Some(v) => v.get(turn as usize).copied().unwrap_or(u64::MAX),
            None => turn,
        }
    }

    pub(crate) fn id_of(&self, pid: Pid) -> Option<ProcId> {
        self.ids.get(pid.number())
    }

    /// The engine event as the log numbers it: the engine numbers the
    /// writes to standard output it makes, the log the recorded run's.
    pub(crate) fn renumbered<'e>(&self, ev: &hooks::Event<'e>) -> hooks::Event<'e> {
        match *ev {
            hooks::Event::Output { seq, bytes } => hooks::Event::Output {
                seq: self.logged_output(seq),
                bytes,
            },
            _ => *ev,
        }
    }

    pub(crate) fn pids(&self) -> &PidMap {
        &self.ids
    }

    pub(crate) fn flags(&self) -> RecordFlags {
        self.flags
    }

    pub(crate) fn functions(&self) -> &SharedFunctions {
        &self.functions
    }

    pub fn describe(&self, signal: MsgId, e: &Event) -> String {
        expect::describe(self.log.header(), &self.names, signal, e)
    }

    /// Whether a timer message may wait (again) for its receiver to start:
    /// for about ten seconds, so a replay whose receiver never starts (it
    /// diverged elsewhere) still ends.
    pub(crate) fn later(&self, msg: MsgId) -> bool {
        let mut w = self.waits.lock().unwrap_or_else(|e| e.into_inner());
        let n = w.entry(msg).or_insert(0);
        *n += 1;
        *n <= 10_000
    }

    /// The `pos`-th event of process `id` once `Deliver` events are left
    /// out, as a report shows it.
    pub(crate) fn describe_at(&self, id: ProcId, pos: usize) -> String {
        let (mut seen, mut signals, mut found) = (0, 0, None);
        let _ = self.log.for_each_event_of(id, |i, _, e| {
            if found.is_some() || matches!(e, trace_format::EventRef::Deliver { .. }) {
                return;
            }
            if seen == pos {
                found = Some((i, e.to_owned()));
            } else if matches!(
                e,
                trace_format::EventRef::Send { .. } | trace_format::EventRef::Signal { .. }
            ) {
                signals += 1;
            }
            seen += 1;
        });
        match found {
            Some((_, e)) => self.describe(
                MsgId {
                    sender: id,
                    index: signals,
                },
                &e,
            ),
            None => "nothing (the log could not be read this far)".into(),
        }
    }
}

/// The sequence numbers of the writes to standard output within `holds`,
/// sorted.
fn replayed_outputs(log: &LogReader, holds: &[u64]) -> Vec<u64> {
    let mut seqs = Vec::new();
    for p in log.processes() {
        let limit = holds.get(p.id.0 as usize).copied().unwrap_or(0);
        let _ = log.for_each_event_of(p.id, |i, _, e| {
            if let EventRef::Output { seq, .. } = e {
                if i < limit {
                    seqs.push(seq);
                }
            }
        });
    }
    seqs.sort_unstable();
    seqs
}
