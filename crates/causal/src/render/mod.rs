//! Text and JSON for what this crate finds: derivation steps, named with
//! symbolic names (`P.1 <0.81.0> #3 receive P:0`), causal pasts, and the
//! findings of a check ([`findings`]). Events are written in the EVENT syntax
//! (`P.1#3`), so a user can paste one into `trace replay --until`.

mod findings;

pub use findings::{
    inconsistency, involved, never_exited, overtaken, overtaken_message, report_json, unreceived,
    unverifiable, verdict,
};

use crate::model::{Destination, EventId, Model};
use crate::query::Past;
use crate::steps::Step;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use trace_capture::EventSpec;
use trace_format::text::{Context, Naming};
use trace_format::{Header, MsgId, ProcId};

/// Names processes, messages and events in text. Spelled-out names are
/// cached (a derivation names the same processes over and over), within a
/// budget so that a log of deep spawn chains cannot blow the memory up.
pub struct Namer<'a> {
    pub model: &'a Model,
    cache: RefCell<NameCache>,
}

#[derive(Default)]
struct NameCache {
    /// Per process (by dense index): its short name and its label.
    names: HashMap<ProcId, (Rc<str>, Rc<str>)>,
    bytes: usize,
}

/// Bytes of cached names before the cache starts over.
const NAME_CACHE_BYTES: usize = 16 << 20;

impl<'a> Namer<'a> {
    pub fn new(model: &'a Model) -> Self {
        Namer {
            model,
            cache: RefCell::default(),
        }
    }

    fn names(&self, p: ProcId) -> (Rc<str>, Rc<str>) {
        if let Some(n) = self.cache.borrow().names.get(&p) {
            return n.clone();
        }
        let names = self.model.names();
        let n: (Rc<str>, Rc<str>) = (names.short(p).into(), names.label(p).into());
        let mut c = self.cache.borrow_mut();
        c.bytes += n.0.len() + n.1.len();
        if c.bytes > NAME_CACHE_BYTES {
            c.names.clear();
            c.bytes = n.0.len() + n.1.len();
        }
        c.names.insert(p, n.clone());
        n
    }

    /// `P.1` (or the raw pid for a process without a name).
    pub fn proc(&self, p: ProcId) -> Rc<str> {
        self.names(p).0
    }

    /// `P.1 <0.81.0>`.
    pub fn label(&self, p: ProcId) -> Rc<str> {
        self.names(p).1
    }

    /// `P.1:3`.
    pub fn msg(&self, m: MsgId) -> String {
        format!("{}:{}", self.proc(m.sender), m.index)
    }

    /// `P.1#3`.
    pub fn event(&self, e: EventId) -> String {
        format!("{}#{}", self.proc(e.proc), e.index)
    }

    /// `P.1#3 <0.81.0>`: the event and its process's raw pid, for the event a
    /// finding is about.
    pub fn event_at(&self, e: EventId) -> String {
        match self.model.process(e.proc) {
            Some(f) if self.model.names().name(e.proc).is_some() => {
                format!("{} <0.{}.0>", self.event(e), f.pid)
            }
            _ => self.event(e),
        }
    }

    pub(crate) fn destination(&self, d: Destination) -> String {
        match d {
            Destination::Proc(p) => self.label(p).to_string(),
            Destination::Foreign => "a pid outside this log".into(),
            Destination::Unknown => "an unrecorded destination".into(),
        }
    }
}

impl Naming for Namer<'_> {
    fn process(&self, p: ProcId) -> String {
        self.label(p).to_string()
    }

    fn sender(&self, p: ProcId) -> String {
        self.proc(p).to_string()
    }
}

/// A derivation step as one line of text (no newline): the step number,
/// then the event as `trace dump` prints it, with symbolic names:
/// `12 P.1 <0.81.0> #3 receive P:0`.
pub fn step_line(n: &Namer<'_>, header: &Header, step: &Step<'_>) -> String {
    let pid_of = |p: ProcId| n.model.process(p).map(|f| f.pid);
    let cx = Context {
        header,
        pid_of: &pid_of,
    };
    let line = trace_format::text::line_named(
        &cx,
        n,
        step.event.proc,
        step.event.index,
        step.time,
        &step.as_event_ref(),
    );
    format!("{} {line}", step.number)
}

/// A derivation step as one JSON object: the fields of `trace dump --json`
/// after `"type":"step"`, the step number and the process's symbolic name.
pub fn step_json(n: &Namer<'_>, header: &Header, step: &Step<'_>) -> String {
    let pid_of = |p: ProcId| n.model.process(p).map(|f| f.pid);
    let cx = Context {
        header,
        pid_of: &pid_of,
    };
    let line = trace_format::text::json(
        &cx,
        step.event.proc,
        step.event.index,
        step.time,
        &step.as_event_ref(),
    );
    let name = Value::from(&*n.proc(step.event.proc));
    match line.strip_prefix('{') {
        Some(rest) => format!(
            "{{\"type\":\"step\",\"step\":{},\"name\":{name},{rest}",
            step.number
        ),
        None => json!({"type": "step", "step": step.number, "name": name}).to_string(),
    }
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
