//! Text and JSON for what this crate finds: derivation steps, named with
//! symbolic names (`P.1 <0.81.0> #3 receive P:0`), causal pasts, and the
//! findings of a check ([`findings`]). Events are written in the EVENT syntax
//! (`P.1#3`), so a user can paste one into `trace replay --until`.

mod findings;
mod namer;

pub use findings::{
    inconsistency, involved, never_exited, overtaken, overtaken_message, report_json, unreceived,
    unverifiable, verdict,
};
pub use namer::Namer;

use crate::query::Past;
use crate::steps::Step;
use namer::count;
use serde_json::{json, Map, Value};
use trace_capture::EventSpec;
use trace_format::{Header, ProcId};

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
