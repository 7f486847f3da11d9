//! Chrome's trace-event JSON (the "JSON Object Format"), which
//! ui.perfetto.dev and chrome://tracing open:
//!
//! - process 1 is the run, with a thread (a track) per process, named by
//!   its label (`P.1 <0.81.0>`) and sorted as the diagram sorts lanes;
//!   process 2 holds a track per shared object;
//! - every event is a complete slice (`"ph":"X"`) on its track, named by
//!   the one printer's text, its EVENT name and recorded time in `args`;
//! - every receipt of a message or signal, and every spawn, is a flow: a
//!   start (`"ph":"s"`) inside the slice of the send and an end
//!   (`"ph":"f"`, `"bp":"e"`) inside the slice of the receipt, with one id.
//!
//! Time is the diagram's row: row `r` is the slice from `10 r` to
//! `10 r + 8` microseconds.

use super::{each, printer, ExportError, Written};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use trace_capture::Namer;
use trace_causal::Model;
use trace_format::{EventRef, LogReader, ObjectId, ProcId};

/// Microseconds per row, and a slice's length.
const ROW_US: u64 = 10;
const SLICE_US: u64 = 8;

const RUN_PID: u32 = 1;
const SHARED_PID: u32 = 2;

fn tid(p: ProcId) -> u64 {
    p.0 as u64 + 1
}

/// Writes the trace of the whole run.
pub fn write(
    model: &Model,
    reader: &LogReader,
    out: &mut dyn Write,
) -> Result<Written, ExportError> {
    let namer = Namer::new(model.names());
    let printer = printer(reader, &namer);
    let mut em = Emitter { first: true };
    write!(out, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    let title = format!("trace: {}", reader.header().entry);
    em.value(
        out,
        meta(RUN_PID, None, "process_name", json!({ "name": title })),
    )?;
    let shared = json!({ "name": "shared state" });
    em.value(out, meta(SHARED_PID, None, "process_name", shared))?;
    let mut order: Vec<ProcId> = model.processes().iter().map(|p| p.id).collect();
    order.sort_by_key(|&p| (model.names().name(p).is_none(), model.names().name(p), p));
    for (k, &p) in order.iter().enumerate() {
        let t = Some(tid(p));
        let name = json!({ "name": &*namer.label(p) });
        em.value(out, meta(RUN_PID, t, "thread_name", name))?;
        let sort = json!({ "sort_index": k });
        em.value(out, meta(RUN_PID, t, "thread_sort_index", sort))?;
    }
    let mut objects: HashMap<ObjectId, u64> = HashMap::new();
    let mut flows = 0u64;
    let mut line = String::new();
    let mut written = each(model, reader, false, |item| {
        let step = item.step;
        let e = step.event;
        let ev = step.as_event_ref();
        let text = printer.event(&ev);
        let ts = item.placed.row as u64 * ROW_US;
        let name = namer.event_name(e.proc, e.index);
        line.clear();
        slice(&mut line, RUN_PID, tid(e.proc), ts, &text, ev.kind().name());
        let _ = write!(line, ",\"args\":{{\"event\":{}", quoted(&name));
        if let Some(t) = step.time {
            let _ = write!(line, ",\"time_ns\":{t}");
        }
        line.push_str("}}");
        em.raw(out, &line)?;
        if let EventRef::Shared {
            object: Some(o), ..
        } = ev
        {
            let next = objects.len() as u64 + 1;
            let t = *objects.entry(o).or_insert(next);
            if t == next {
                let name = json!({ "name": printer.object(o) });
                em.value(out, meta(SHARED_PID, Some(t), "thread_name", name))?;
            }
            line.clear();
            let op = format!("{}: {text}", namer.proc(e.proc));
            slice(&mut line, SHARED_PID, t, ts, &op, "shared");
            line.push('}');
            em.raw(out, &line)?;
        }
        let arrows = [
            item.placed
                .cause
                .zip(item.placed.cause_row)
                .map(|((c, l), r)| (c.proc, r, l.name())),
            item.placed
                .spawned_by
                .zip(item.placed.spawn_row)
                .map(|(s, r)| (s.proc, r, "spawn")),
        ];
        for (from, row, cat) in arrows.into_iter().flatten() {
            flows += 1;
            let start = row as u64 * ROW_US + 1;
            line.clear();
            let _ = write!(
                line,
                r#"{{"ph":"s","id":{flows},"pid":{RUN_PID},"tid":{},"ts":{start},"name":"{cat}","cat":"{cat}"}}"#,
                tid(from)
            );
            em.raw(out, &line)?;
            line.clear();
            let _ = write!(
                line,
                r#"{{"ph":"f","bp":"e","id":{flows},"pid":{RUN_PID},"tid":{},"ts":{},"name":"{cat}","cat":"{cat}"}}"#,
                tid(e.proc),
                ts + 1
            );
            em.raw(out, &line)?;
        }
        Ok(())
    })?;
    writeln!(out, "\n]}}")?;
    written.arrows = flows;
    Ok(written)
}

/// Writes the trace's events, separated by commas.
struct Emitter {
    first: bool,
}

impl Emitter {
    fn raw(&mut self, out: &mut dyn Write, event: &str) -> std::io::Result<()> {
        let sep: &[u8] = if self.first { b"\n" } else { b",\n" };
        self.first = false;
        out.write_all(sep)?;
        out.write_all(event.as_bytes())
    }

    fn value(&mut self, out: &mut dyn Write, v: Value) -> std::io::Result<()> {
        self.raw(out, &v.to_string())
    }
}

/// A JSON string.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn meta(pid: u32, tid: Option<u64>, name: &str, args: Value) -> Value {
    let mut v = json!({ "ph": "M", "pid": pid, "name": name, "args": args });
    if let Some(t) = tid {
        v["tid"] = t.into();
    }
    v
}

/// A complete slice's fields, its object left open for its arguments.
fn slice(line: &mut String, pid: u32, tid: u64, ts: u64, name: &str, cat: &str) {
    let _ = write!(
        line,
        r#"{{"ph":"X","pid":{pid},"tid":{tid},"ts":{ts},"dur":{SLICE_US},"name":{},"cat":"{cat}""#,
        quoted(name)
    );
}
