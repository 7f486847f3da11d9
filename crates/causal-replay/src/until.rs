//! Causal-consistent replay (`--until EVENT`): replay all and only the
//! causes of one event. The causal past of an event is a prefix of every
//! process log (trace-causal), so each process replays its prefix and is
//! then held; the run ends when every process is held (or done), and the
//! event's process is shown where it stopped.

use std::collections::HashMap;
use trace_capture::EventSpec;
use trace_causal::stop_points::{self, Kind, Scanned, StopPoints};
use trace_causal::EventId;
use trace_format::{EventRef, LogReader, ProcId};
use trace_runtime::{Blocked, RunOutcome};
use trace_term::Term;

/// What to replay for one `--until` event.
pub struct Plan {
    /// The event, resolved in the log.
    pub event: EventId,
    /// The event as the user wrote it.
    pub spec: EventSpec,
    /// Events of each process (by dense id) to replay.
    pub holds: Vec<u64>,
    /// `P.2 <0.83.0>` for each process that takes part.
    labels: HashMap<ProcId, String>,
    pids: HashMap<ProcId, u64>,
}

/// One process of the causal past.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    pub id: ProcId,
    /// `P.2 <0.83.0>`.
    pub label: String,
    /// Its events in the causal past (all replayed when the replay followed the log).
    pub events: u64,
}

/// Where the event's process stands once its causal past is replayed.
#[derive(Clone, Debug)]
pub struct ProcessState {
    /// `module:function/arity` it is in.
    pub function: String,
    /// `file:line` it waits at: where it went on to after the event.
    pub location: String,
    /// `file:line` of the event itself, when the engine knows its place
    /// (a receive, a call that sent, spawned or asked for a value).
    pub event_at: Option<String>,
    pub mailbox_len: usize,
    /// The first messages of its mailbox.
    pub mailbox: Vec<Term>,
}

/// What `--until` replayed.
#[derive(Clone, Debug)]
pub struct UntilReport {
    pub spec: EventSpec,
    pub event: EventId,
    /// The event's process, `P.2 <0.83.0>`.
    pub process: String,
    pub participants: Vec<Participant>,
    /// Events replayed in all.
    pub events: u64,
    /// `None` when the process ended with the event (an `exit`).
    pub state: Option<ProcessState>,
}

/// Resolves `spec` and computes its causal past.
pub fn plan(log: &LogReader, spec: &EventSpec) -> Result<Plan, String> {
    // One pass: the model, and each event's kind for where a process may
    // be held.
    let Scanned {
        model, mut kinds, ..
    } = stop_points::scan(log, |_| |_: u64, _: &EventRef<'_>| {});
    // An arrival is taken as it is, not moved past: its send may lie
    // outside the past.
    for k in kinds.iter_mut().flatten() {
        if *k == Kind::Deliver {
            *k = Kind::Other;
        }
    }
    let stops = StopPoints::of_kinds(&kinds);
    // The error names the event itself.
    let event = trace_causal::resolve(&model, spec).map_err(|e| e.to_string())?;
    let past = model.causal_past(event);
    let mut holds = vec![0u64; log.processes().len()];
    let mut labels = HashMap::new();
    let mut pids = HashMap::new();
    for (id, n) in past.processes() {
        // The past may end inside a group of events the engine does in one
        // step (the signals a death sends, after the exit; whether a
        // monitor's target lives, after its signal): the process is held
        // after the group.
        let n = match id.position_in(model.processes(), |p| p.id) {
            Some(slot) => stops.at_or_after(slot, n).max(n),
            None => n,
        };
        if let Some(h) = holds.get_mut(id.0 as usize) {
            *h = n;
        }
        labels.insert(id, model.names().label(id));
        if let Some(p) = model.process(id) {
            pids.insert(id, p.pid);
        }
    }
    Ok(Plan {
        event,
        spec: spec.clone(),
        holds,
        labels,
        pids,
    })
}

impl Plan {
    /// The report once the replay of the causal past is over.
    pub fn report(&self, outcome: &RunOutcome) -> UntilReport {
        let mut participants: Vec<Participant> = self
            .labels
            .iter()
            .map(|(&id, label)| Participant {
                id,
                label: label.clone(),
                events: self.holds.get(id.0 as usize).copied().unwrap_or(0),
            })
            .collect();
        participants.sort_by_key(|p| p.id);
        let pid = self.pids.get(&self.event.proc).copied();
        let state = outcome
            .blocked
            .iter()
            .find(|b| Some(b.pid.number()) == pid)
            .map(state_of);
        UntilReport {
            spec: self.spec.clone(),
            event: self.event,
            process: self
                .labels
                .get(&self.event.proc)
                .cloned()
                .unwrap_or_default(),
            events: participants.iter().map(|p| p.events).sum(),
            participants,
            state,
        }
    }
}

fn state_of(b: &Blocked) -> ProcessState {
    ProcessState {
        function: format!("{}:{}/{}", b.mfa.0.name(), b.mfa.1.name(), b.mfa.2),
        location: format!("{}:{}", b.file, b.line),
        event_at: b.last_event_at.clone(),
        mailbox_len: b.mailbox_len,
        mailbox: b.mailbox.clone(),
    }
}
