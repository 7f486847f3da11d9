//! What a user reads: per property one `STATUS: Satisfied` or
//! `STATUS: Violated` line (the runtime-verification competitions'
//! convention), then each violation with its event, process (symbolic name
//! and raw pid), payload, causal slice and the `--until` argument that makes
//! `trace replay` stop exactly there; or the same as JSON, one object per
//! line.

mod fetch;

use crate::compiled::Compiled;
use crate::eval::{Status, Verdict, Violation};
use fetch::{Fetched, Fetcher};
use serde_json::{json, Value};
use std::io::{self, Write};
use std::path::Path;
use trace_capture::{EventSpec, MsgRef, ProcRef};
use trace_causal::render::{step_line, Namer};
use trace_causal::{EventId, Model, Step};
use trace_format::text::{pid_text, render_payload, render_term};
use trace_format::{Event, LogReader, MsgId, ProcId, SignalKind};

/// How much to print.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// Violations printed in full per property (the rest are counted).
    pub detail: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { detail: 10 }
    }
}

/// The verdicts of one check, ready to print.
pub struct Report<'a> {
    pub spec: &'a Compiled,
    pub verdicts: &'a [Verdict],
    pub reader: &'a LogReader,
    pub model: &'a Model,
    /// The log as the user named it, for the replay command line.
    pub log: &'a Path,
    pub opts: Options,
}

/// Counts of verdicts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub satisfied: usize,
    pub violated: usize,
    pub gave_up: usize,
}

pub fn summary(verdicts: &[Verdict]) -> Summary {
    let mut s = Summary::default();
    for v in verdicts {
        match v.status {
            Status::Satisfied => s.satisfied += 1,
            Status::Violated => s.violated += 1,
            Status::GaveUp(_) => s.gave_up += 1,
        }
    }
    s
}

fn status_word(s: &Status) -> &'static str {
    match s {
        Status::Satisfied => "Satisfied",
        Status::Violated => "Violated",
        Status::GaveUp(_) => "GaveUp",
    }
}

/// How a user names process `p` in an EVENT: its symbolic name, or its pid.
fn proc_ref(model: &Model, p: ProcId) -> Option<ProcRef> {
    match model.names().name(p) {
        Some(n) => Some(ProcRef::Name(n)),
        None => model.process(p).map(|f| ProcRef::Pid(f.pid)),
    }
}

/// The EVENT naming `e` for `trace replay --until`: by what it is when that
/// names it (`receive(P.1:3)`, `send(P:2)`, `spawn(P.2)`, `exit(P.2)`), else
/// by position (`P.2#5`).
pub fn until(model: &Model, e: EventId, f: Option<&Fetched>) -> Option<EventSpec> {
    let msg_ref = |m: MsgId| {
        Some(MsgRef {
            sender: proc_ref(model, m.sender)?,
            index: m.index,
        })
    };
    let semantic = f.and_then(|f| match &f.event {
        Event::Receive { msg } => msg_ref(*msg).map(EventSpec::Receive),
        Event::Deliver { msg } => msg_ref(*msg).map(EventSpec::Deliver),
        Event::SignalTaken { signal, .. } => msg_ref(*signal).map(EventSpec::Taken),
        Event::Send { .. } | Event::Signal { .. } => f.msg.and_then(msg_ref).map(EventSpec::Send),
        Event::Spawn { child, .. } => proc_ref(model, *child).map(EventSpec::Spawn),
        Event::Exit { .. } => proc_ref(model, e.proc).map(EventSpec::Exit),
        _ => None,
    });
    let nth = proc_ref(model, e.proc).map(|proc| EventSpec::Nth {
        proc,
        index: e.index,
    });
    // Only a name that leads back to this very event. A receipt names its
    // message, received once in a consistent log: it is not looked up (the
    // lookup indexes every receipt of the log).
    let receipt = matches!(
        f.map(|f| &f.event),
        Some(Event::Receive { .. } | Event::Deliver { .. } | Event::SignalTaken { .. })
    );
    semantic
        .filter(|s| receipt || trace_causal::resolve(model, s).ok() == Some(e))
        .or(nth.filter(|s| trace_causal::resolve(model, s).ok() == Some(e)))
}

fn quote_shell(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "._#:-/".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl Report<'_> {
    fn namer(&self) -> Namer<'_> {
        Namer::new(self.model)
    }

    /// `P.1 <0.81.0> #3 receive P:0`, as `trace replay` prints a step.
    fn line(&self, fx: &mut Fetcher<'_>, e: EventId) -> String {
        match fx.get(e) {
            Some(f) => {
                let step = Step {
                    number: 0,
                    event: e,
                    time: f.time,
                    data: &f.event,
                    msg: f.msg,
                };
                let s = step_line(&self.namer(), self.reader.header(), &step, None);
                s.split_once(' ')
                    .map_or(s.clone(), |(_, rest)| rest.to_string())
            }
            None => format!("{} (not readable)", self.namer().event(e)),
        }
    }

    /// The term the event carries: a message (for a receipt, the message
    /// received), a reason, a value.
    fn payload(&self, fx: &mut Fetcher<'_>, e: EventId) -> Option<String> {
        let f = fx.get(e)?.clone();
        let reason = |k: &SignalKind| match k {
            SignalKind::Exit { reason, .. } | SignalKind::Down { reason } => {
                reason.as_ref().map(|p| render_payload(p.bytes()))
            }
            _ => None,
        };
        match &f.event {
            Event::Send { payload, .. } => payload.as_ref().map(|p| render_payload(p.bytes())),
            Event::Exit { reason } => reason.as_ref().map(|p| render_payload(p.bytes())),
            Event::Signal { kind, .. } => reason(kind),
            Event::Nondet { value, .. } => Some(render_payload(value.bytes())),
            Event::Receive { msg }
            | Event::Deliver { msg }
            | Event::SignalTaken { signal: msg, .. } => {
                let (send, _, _) = self.model.send_of(*msg)?;
                let s = fx.get(send)?.clone();
                match &s.event {
                    Event::Send { payload, .. } => {
                        payload.as_ref().map(|p| render_payload(p.bytes()))
                    }
                    Event::Signal { kind, .. } => {
                        let pid = self.model.process(msg.sender)?.pid;
                        let r = reason(kind)?;
                        Some(match kind {
                            SignalKind::Exit { .. } => format!("{{'EXIT',{},{r}}}", pid_text(pid)),
                            SignalKind::Down { .. } => {
                                format!("{{'DOWN',#Ref<0.0.0.0>,process,{},{r}}}", pid_text(pid))
                            }
                            _ => return None,
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn replay_line(&self, spec: &EventSpec) -> String {
        format!(
            "trace replay {} --until {}",
            quote_shell(&self.log.display().to_string()),
            quote_shell(&spec.to_string())
        )
    }

    fn header(&self, v: &Verdict) -> (String, String) {
        let p = &self.spec.properties[v.property];
        let at = if p.pos.line == 0 {
            "built-in".to_string()
        } else {
            format!("{}:{}", self.spec.path.display(), p.pos.line)
        };
        let order = if v.local {
            "one process's program order"
        } else {
            "happened-before"
        };
        (format!("{}  ({at}; on {order})", p.name), p.text.clone())
    }

    /// The report as text.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut fx = Fetcher::new(self.reader);
        for v in self.verdicts {
            let (head, text) = self.header(v);
            writeln!(out, "{head}")?;
            writeln!(out, "  {text}")?;
            writeln!(out, "STATUS: {}", status_word(&v.status))?;
            if let Status::GaveUp(why) = &v.status {
                writeln!(out, "  {why}")?;
            }
            let n = v.total;
            let shown = v.violations.len().min(self.opts.detail);
            for (k, x) in v.violations.iter().take(shown).enumerate() {
                self.violation_text(out, &mut fx, k + 1, n, x)?;
            }
            if n > shown {
                writeln!(
                    out,
                    "  ... and {} more violation{} (--all lists them)",
                    n - shown,
                    if n - shown == 1 { "" } else { "s" }
                )?;
            }
            for w in &v.warnings {
                writeln!(out, "  warning: {w}")?;
            }
            writeln!(out)?;
        }
        let s = summary(self.verdicts);
        let total = self.verdicts.len();
        write!(
            out,
            "{total} propert{}: {} satisfied, {} violated",
            if total == 1 { "y" } else { "ies" },
            s.satisfied,
            s.violated
        )?;
        if s.gave_up > 0 {
            write!(out, ", {} gave up", s.gave_up)?;
        }
        writeln!(out)
    }

    fn violation_text(
        &self,
        out: &mut dyn Write,
        fx: &mut Fetcher<'_>,
        k: usize,
        n: usize,
        x: &Violation,
    ) -> io::Result<()> {
        let tag = format!("  [{k}/{n}] ");
        let pad = " ".repeat(tag.len());
        match x.event {
            Some(e) => writeln!(out, "{tag}{}", self.line(fx, e))?,
            None => writeln!(out, "{tag}(the run as a whole)")?,
        }
        writeln!(out, "{pad}{}", x.what)?;
        if let Some(e) = x.event {
            writeln!(out, "{pad}process   {}", self.namer().label(e.proc))?;
            if let Some(p) = self.payload(fx, e) {
                writeln!(out, "{pad}payload   {p}")?;
            }
        }
        if !x.bindings.is_empty() {
            let b: Vec<String> = x
                .bindings
                .iter()
                .map(|(n, t)| format!("{n} = {}", render_term(t)))
                .collect();
            writeln!(out, "{pad}bindings  {}", b.join(", "))?;
        }
        for (what, e) in &x.related {
            writeln!(out, "{pad}{what}: {}", self.line(fx, *e))?;
        }
        if !x.slice.is_empty() {
            let mut first = true;
            if x.slice_omitted > 0 {
                writeln!(out, "{pad}slice     ({} earlier events)", x.slice_omitted)?;
                first = false;
            }
            for &e in &x.slice {
                let label = if first { "slice     " } else { "          " };
                first = false;
                writeln!(out, "{pad}{label}{}", self.line(fx, e))?;
            }
        }
        if let Some(spec) = x.event.and_then(|e| {
            let f = fx.get(e).cloned();
            until(self.model, e, f.as_ref())
        }) {
            writeln!(out, "{pad}replay    {}", self.replay_line(&spec))?;
        }
        Ok(())
    }

    /// The report as JSON: one object per property, then a summary, one per line.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut fx = Fetcher::new(self.reader);
        for v in self.verdicts {
            let p = &self.spec.properties[v.property];
            let details: Vec<Value> = v
                .violations
                .iter()
                .take(self.opts.detail)
                .map(|x| self.violation_json(&mut fx, x))
                .collect();
            let mut obj = json!({
                "type": "property",
                "name": p.name,
                "file": self.spec.path.display().to_string(),
                "line": p.pos.line,
                "col": p.pos.col,
                "text": p.text,
                "order": if v.local { "program order" } else { "happened-before" },
                "status": status_word(&v.status),
                "violations": v.total,
                "details": details,
                "warnings": v.warnings,
            });
            if let Status::GaveUp(why) = &v.status {
                obj["reason"] = json!(why);
            }
            writeln!(out, "{obj}")?;
        }
        let s = summary(self.verdicts);
        writeln!(
            out,
            "{}",
            json!({
                "type": "summary",
                "properties": self.verdicts.len(),
                "satisfied": s.satisfied,
                "violated": s.violated,
                "gave_up": s.gave_up,
            })
        )
    }

    fn event_json(&self, fx: &mut Fetcher<'_>, e: EventId) -> Value {
        json!({ "event": self.namer().event(e), "line": self.line(fx, e) })
    }

    fn violation_json(&self, fx: &mut Fetcher<'_>, x: &Violation) -> Value {
        let mut obj = json!({
            "what": x.what,
            "bindings": x.bindings.iter().map(|(n, t)| (n.clone(), Value::String(render_term(t)))).collect::<serde_json::Map<_, _>>(),
            "related": x.related.iter().map(|(w, e)| {
                let mut o = self.event_json(fx, *e);
                o["relation"] = json!(w);
                o
            }).collect::<Vec<_>>(),
            "slice": x.slice.iter().map(|&e| self.event_json(fx, e)).collect::<Vec<_>>(),
            "slice_omitted": x.slice_omitted,
        });
        if let Some(e) = x.event {
            let f = fx.get(e).cloned();
            obj["event"] = json!(self.namer().event(e));
            obj["line"] = json!(self.line(fx, e));
            obj["kind"] = json!(f.as_ref().map(|f| f.event.kind().name()));
            obj["process"] = json!({
                "name": self.model.names().name(e.proc).map(|n| n.to_string()),
                "pid": self.model.process(e.proc).map(|f| pid_text(f.pid)),
            });
            obj["payload"] = json!(self.payload(fx, e));
            obj["until"] = json!(until(self.model, e, f.as_ref()).map(|s| s.to_string()));
        }
        obj
    }
}
