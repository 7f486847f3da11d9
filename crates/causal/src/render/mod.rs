//! Text and JSON for what this crate finds: derivation steps, named with
//! symbolic names (`P.1 <0.81.0> #3 receive P:0`), causal pasts, and the
//! findings of a check ([`findings`]). Events are written in the EVENT syntax
//! (`P.1#3`), so a user can paste one into `trace replay --until`.

mod findings;

pub use findings::{
    inconsistency, involved, never_exited, overtaken, overtaken_message, report_json, unreceived,
    unverifiable, verdict,
};

use crate::facts::{Destination, EventId};
use crate::model::Model;
use crate::query::Past;
use crate::steps::Step;
use serde_json::{json, Map, Value};
use trace_capture::EventSpec;
use trace_format::text::Printer;
use trace_format::{Header, ProcId};

/// Names processes, messages and events in this crate's reports: the one
/// namer (cached, see [`trace_capture::Namer`]) beside the model a report
/// looks facts up in.
pub struct Namer<'a> {
    pub model: &'a Model,
    names: trace_capture::Namer<'a>,
}

impl<'a> std::ops::Deref for Namer<'a> {
    type Target = trace_capture::Namer<'a>;

    fn deref(&self) -> &Self::Target {
        &self.names
    }
}

impl<'a> Namer<'a> {
    pub fn new(model: &'a Model) -> Self {
        Namer {
            model,
            names: trace_capture::Namer::new(model.names()),
        }
    }

    /// `P.1#3`.
    pub fn event(&self, e: EventId) -> String {
        self.names.event_name(e.proc, e.index)
    }

    /// `P.1#3 <0.81.0>`: the event and its process's raw pid, for the event a
    /// finding is about.
    pub fn event_at(&self, e: EventId) -> String {
        self.names.event_at(e.proc, e.index)
    }

    pub(crate) fn destination(&self, d: Destination) -> String {
        match d {
            Destination::Proc(p) => self.label(p).to_string(),
            Destination::Foreign => "a pid outside this log".into(),
            Destination::Unknown => "an unrecorded destination".into(),
        }
    }

    /// The printer of events, with these names.
    pub fn printer<'p>(&'p self, header: &'p Header) -> Printer<'p> {
        Printer {
            header,
            names: &self.names,
        }
    }
}

/// A derivation step as one line of text (no newline): the step number,
/// then the event as `trace dump` prints it, a receive with the message it
/// took when `taken` has it: `12 P.1 <0.81.0> #3 receive P:0: {ping,1}`.
pub fn step_line(n: &Namer<'_>, header: &Header, step: &Step<'_>, taken: Option<&[u8]>) -> String {
    let line = n.printer(header).line_taking(
        step.event.proc,
        step.event.index,
        step.time,
        &step.as_event_ref(),
        taken,
    );
    format!("{} {line}", step.number)
}

/// A derivation step as one JSON object: `"type":"step"` and the step
/// number, then the fields of `trace dump --json`.
pub fn step_json(n: &Namer<'_>, header: &Header, step: &Step<'_>, taken: Option<&[u8]>) -> String {
    let mut first = Map::new();
    first.insert("type".into(), "step".into());
    first.insert("step".into(), step.number.into());
    n.printer(header).json_with(
        step.event.proc,
        step.event.index,
        step.time,
        &step.as_event_ref(),
        first,
        taken,
    )
}

/// "a link signal", "an exit signal".
pub(crate) fn a(what: &str) -> String {
    let vowel = what.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {what}", if vowel { "an" } else { "a" })
}

pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// What `--until` replays: the causal past of an event, per process.
pub fn causal_past_text(n: &Namer<'_>, spec: &EventSpec, past: &Past) -> Vec<String> {
    let procs: Vec<(ProcId, u64)> = past.processes().collect();
    let mut lines = vec![format!(
        "causal past of {spec}: {} of {}",
        count(past.len(), "event", "events"),
        count(procs.len() as u64, "process", "processes")
    )];
    for (p, c) in procs {
        lines.push(format!(
            "  {}: {} (#0 to #{})",
            n.label(p),
            count(c, "event", "events"),
            c - 1
        ));
    }
    lines
}

pub fn causal_past_json(n: &Namer<'_>, spec: &EventSpec, past: &Past) -> Value {
    let procs: Vec<Value> = past
        .processes()
        .map(|(p, c)| json!({"name": &*n.proc(p), "events": c}))
        .collect();
    json!({
        "type": "causal_past",
        "event": spec.to_string(),
        "events": past.len(),
        "processes": procs,
    })
}
