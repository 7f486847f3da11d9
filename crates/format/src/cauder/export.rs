//! Writing a trace log as a CauDEr (v3) log directory.
//!
//! Uids: CauDEr names messages by one number. The message (S, K) gets
//! `base(S) + K`, where `base(S)` is the number of events of the processes
//! before S; every process sends fewer signals than it has events, so uids are
//! unique without a table, and each process is exported as a stream. A
//! receive is exported only when its message has a `trace_send`: not a
//! converted exit or 'DOWN' signal, nor a message of a process not in the log.

use super::terms::atom_text;
use super::CauderError;
use crate::event::{MsgId, ProcId};
use crate::reader::LogReader;
use crate::view::EventRef;
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct ExportReport {
    pub processes: usize,
    /// Spawns, sends and receives written.
    pub written: u64,
    /// Events CauDEr's format cannot hold, by kind.
    pub dropped: BTreeMap<&'static str, u64>,
    pub notes: Vec<String>,
}

/// Writes `trace_result.log` and one `trace_N.log` per process into `dir` (created if needed).
pub fn export(reader: &LogReader, dir: &Path) -> Result<ExportReport, CauderError> {
    let fail = |message: String| CauderError {
        file: dir.to_path_buf(),
        line: None,
        message,
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    // Files of an earlier export would stay beside these ones and make the
    // directory a mixture no tool reads back as one run.
    let mut held: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| fail(e.to_string()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| super::is_log_file(n))
        .collect();
    if !held.is_empty() {
        held.sort();
        let more = if held.len() > 3 {
            format!(" and {} more", held.len() - 3)
        } else {
            String::new()
        };
        held.truncate(3);
        return Err(fail(format!(
            "the directory already holds a CauDEr log ({}{more}); export into an empty directory",
            held.join(", ")
        )));
    }
    export_with(reader, |name| std::fs::File::create(dir.join(name))).map_err(|(name, e)| {
        CauderError {
            file: dir.join(name),
            line: None,
            message: e,
        }
    })
}

/// As [`export`], writing each file through `open(file name)`.
pub fn export_with<W: Write>(
    reader: &LogReader,
    mut open: impl FnMut(&str) -> io::Result<W>,
) -> Result<ExportReport, (String, String)> {
    let mut report = ExportReport::default();
    let node = match reader.header().node.as_str() {
        "" => "nonode@nohost".to_string(),
        n => atom_text(n),
    };
    let senders = Senders::of(reader).map_err(|e| ("(reading the log)".to_string(), e))?;
    let uid = |m: MsgId| senders.uid(m);
    for p in reader.processes() {
        let name = format!("trace_{}.log", p.pid);
        let io_err = |e: io::Error| (name.clone(), e.to_string());
        let mut out = BufWriter::new(open(&name).map_err(io_err)?);
        let mut write_err = None;
        let mut unknown = 0u64;
        let r = reader.for_each_event_of(p.id, |_, _, e| {
            let line = match e {
                EventRef::Spawn { pid, .. } => {
                    Some(format!("{{trace_spawn,{node},{pid},true}}.\n"))
                }
                EventRef::Send { msg, .. } => uid(msg).map(|u| format!("{{trace_send,{u}}}.\n")),
                EventRef::Receive { msg } => uid(msg).map(|u| format!("{{trace_receive,{u}}}.\n")),
                other => {
                    *report.dropped.entry(other.kind().name()).or_default() += 1;
                    return;
                }
            };
            let Some(line) = line else {
                unknown += 1;
                return;
            };
            report.written += 1;
            if write_err.is_none() {
                if let Err(e) = out.write_all(line.as_bytes()) {
                    write_err = Some(e);
                }
            }
        });
        r.map_err(|e| (name.clone(), e.to_string()))?;
        if let Some(e) = write_err {
            return Err(io_err(e));
        }
        out.flush().map_err(io_err)?;
        if unknown > 0 {
            report.notes.push(format!(
                "process {} {}: {unknown} receives left out: 'EXIT'/'DOWN' messages (signals, which CauDEr's format cannot hold) or messages from processes not in the log",
                p.id.0, crate::text::pid_text(p.pid)
            ));
        }
        report.processes += 1;
    }
    let result = result_file(reader, &node, &mut report);
    let mut out =
        open("trace_result.log").map_err(|e| ("trace_result.log".to_string(), e.to_string()))?;
    out.write_all(result.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| ("trace_result.log".to_string(), e.to_string()))?;
    Ok(report)
}

/// What a CauDEr uid can name: messages sent by a `Send` of the log. A
/// signal turned into a message ('EXIT', 'DOWN') has no `trace_send` in
/// CauDEr's format, nor does a message of a process whose log was cut short.
struct Senders {
    /// By process: (id, base uid, signals sent, indices of non-message signals).
    procs: Vec<(ProcId, u64, u64, Vec<u64>)>,
}

impl Senders {
    fn of(reader: &LogReader) -> Result<Senders, String> {
        let mut procs = Vec::with_capacity(reader.processes().len());
        let mut base = 0u64;
        for p in reader.processes() {
            let (mut sent, mut signals) = (0u64, Vec::new());
            reader
                .for_each_event_of(p.id, |_, _, e| match e {
                    EventRef::Send { .. } => sent += 1,
                    EventRef::Signal { signal, .. } => {
                        signals.push(signal.index);
                        sent += 1;
                    }
                    _ => {}
                })
                .map_err(|e| e.to_string())?;
            procs.push((p.id, base, sent, signals));
            base += p.events;
        }
        Ok(Senders { procs })
    }

    /// `base(S) + K`: unique, since a process sends fewer signals than it has events.
    fn uid(&self, m: MsgId) -> Option<u64> {
        let i = self.procs.binary_search_by_key(&m.sender, |p| p.0).ok()?;
        let (_, base, sent, signals) = &self.procs[i];
        (m.index < *sent && signals.binary_search(&m.index).is_err()).then_some(base + m.index)
    }
}

fn option<'a>(reader: &'a LogReader, key: &str) -> Option<&'a str> {
    reader
        .header()
        .options
        .other
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn result_file(reader: &LogReader, node: &str, report: &mut ExportReport) -> String {
    let h = reader.header();
    let call = match split_call(&h.entry) {
        Some((m, f, args)) => format!("{{{},{},[{args}]}}", atom_text(m), atom_text(f)),
        None => {
            report.notes.push(format!(
                "the entry call {:?} is not of the form m:f(Args); written as '?':'?'()",
                h.entry
            ));
            "{'?','?',[]}".into()
        }
    };
    let exec = option(reader, "cauder.exec_us")
        .map(str::to_string)
        .unwrap_or_else(|| match reader.outcome() {
            Some((_, end)) if h.start_time_ns > 0 => {
                (end.saturating_sub(h.start_time_ns) / 1000).to_string()
            }
            _ => "0".into(),
        });
    let comp = option(reader, "cauder.comp_us").unwrap_or("0");
    let (ret, tracing) = match reader.outcome() {
        Some((o, _)) => (
            o.entry_result
                .as_ref()
                .map_or("none".to_string(), |v| format!("{{value,{v}}}")),
            match o.end {
                crate::meta::RunEnd::Completed => "success",
                _ => "timeout",
            },
        ),
        None => ("none".to_string(), "timeout"),
    };
    let tracing = option(reader, "cauder.tracing").unwrap_or(tracing);
    format!(
        "{{call,{call}}}.\n{{comp,{comp}}}.\n{{exec,{exec}}}.\n{{node,{node}}}.\n{{pid,{}}}.\n{{return,{ret}}}.\n{{tracing,{tracing}}}.\n",
        h.entry_pid
    )
}

/// `m:f(args)` → (m, f, args).
fn split_call(entry: &str) -> Option<(&str, &str, &str)> {
    let (m, rest) = entry.split_once(':')?;
    let (f, rest) = rest.split_once('(')?;
    let args = rest.trim_end().strip_suffix(')')?;
    let ok = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
    (ok(m) && ok(f)).then_some((m, f, args))
}
