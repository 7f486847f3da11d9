//! Reading a CauDEr log directory into process logs, and writing it as a trace log.

use super::terms::{consult, line_of, Parser, T};
use super::CauderError;
use crate::event::{Dest, Event, MsgId, ProcId, ProcessLog};
use crate::meta::{Header, Outcome, RecordingOptions, RunEnd};
use crate::writer::{LogWriter, WriterOptions};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

/// A CauDEr log, converted.
#[derive(Debug)]
pub struct Imported {
    pub header: Header,
    pub outcome: Outcome,
    /// By dense index: the entry process first, then in spawn order.
    pub logs: Vec<ProcessLog>,
    pub report: ImportReport,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Which CauDEr generation the files were written in: "v1", "v2" or "v3".
    pub generation: &'static str,
    pub processes: usize,
    pub events: usize,
    /// Entries that have no counterpart in a trace log, and how many.
    pub dropped: Vec<(String, usize)>,
    pub warnings: Vec<String>,
}

/// One CauDEr log entry of a process, before uids are resolved.
enum Entry {
    Spawn { pid: u64 },
    Send { uid: i128 },
    Receive { uid: i128 },
    Deliver { uid: i128 },
}

struct ProcFile {
    path: PathBuf,
    /// (line, entry)
    entries: Vec<(usize, Entry)>,
}

fn fail(file: &Path, line: Option<usize>, message: impl Into<String>) -> CauderError {
    CauderError {
        file: file.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Reads the directory and converts it.
pub fn read_dir(dir: &Path) -> Result<Imported, CauderError> {
    let (files, mut stray) = process_files(dir)?;
    let result_path = dir.join("trace_result.log");
    if !result_path.exists() {
        return Err(fail(
            dir,
            None,
            "not a CauDEr log directory: it has no trace_result.log",
        ));
    }
    let mut report = ImportReport::default();
    stray.sort();
    report.warnings.extend(stray.iter().map(|name| {
        format!("{name} is not a process log (trace_N.log) nor trace_result.log: ignored")
    }));
    let result = read_result(&result_path)?;
    let mut dropped: BTreeMap<String, usize> = BTreeMap::new();
    let mut procs: BTreeMap<u64, ProcFile> = BTreeMap::new();
    // The process files tell v2 from v3; the result file only v1 from the others.
    let mut generation = None;
    for (&n, path) in &files {
        let (g, entries) = read_process(path, n, &mut dropped, &mut report.warnings)?;
        generation = generation.or(g);
        procs.insert(
            n,
            ProcFile {
                path: path.clone(),
                entries,
            },
        );
    }
    report.generation = generation.or(result.generation).unwrap_or("v3");
    warn_unlogged_spawns(&procs, &mut report.warnings);
    let (ids, order) = dense_order(result.entry_pid, &procs, &mut report.warnings);
    let sent = sends(&order, &procs, &ids)?;
    let mut logs = Vec::with_capacity(order.len());
    let mut deliveries = false;
    for (i, (pid, parent)) in order.iter().enumerate() {
        let events = match procs.get(pid) {
            Some(f) => events(f, &ids, &sent, &mut deliveries)?,
            None => Vec::new(),
        };
        report.events += events.len();
        logs.push(ProcessLog {
            id: ProcId(i as u32),
            pid: *pid,
            parent: parent.map(ProcId),
            events,
        });
    }
    report.processes = logs.len();
    report.dropped = dropped.into_iter().collect();
    let outcome = Outcome {
        end: match result.tracing.as_deref() {
            Some("timeout") => RunEnd::Interrupted,
            _ => RunEnd::Completed,
        },
        exit_status: None,
        entry_result: result.value.clone(),
    };
    Ok(Imported {
        header: header(result, &report, deliveries),
        outcome,
        logs,
        report,
    })
}

/// The process files of the directory (`trace_N.log`), by N.
/// The directory's process logs by pid, and the other `.log` files in it
/// (which the import warns of).
fn process_files(dir: &Path) -> Result<(BTreeMap<u64, PathBuf>, Vec<String>), CauderError> {
    let mut files: BTreeMap<u64, PathBuf> = BTreeMap::new();
    let mut stray = Vec::new();
    let rd = std::fs::read_dir(dir).map_err(|e| fail(dir, None, e.to_string()))?;
    for entry in rd {
        let entry = entry.map_err(|e| fail(dir, None, e.to_string()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(n) = name
            .strip_prefix("trace_")
            .and_then(|r| r.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            files.insert(n, entry.path());
        } else if name.ends_with(".log") && name != "trace_result.log" {
            stray.push(name);
        }
    }
    Ok((files, stray))
}

/// The processes by dense index: (pid, dense index of the parent).
type Order = Vec<(u64, Option<u32>)>;

/// Dense indices: the entry process, then breadth-first in spawn order;
/// then the processes no logged spawn created. Returns the index of each
/// pid, and (pid, parent index) by index.
fn dense_order(
    entry_pid: u64,
    procs: &BTreeMap<u64, ProcFile>,
    warnings: &mut Vec<String>,
) -> (HashMap<u64, u32>, Order) {
    let mut ids: HashMap<u64, u32> = HashMap::new();
    let mut order: Order = Vec::new();
    let mut queue = VecDeque::new();
    ids.insert(entry_pid, 0);
    order.push((entry_pid, None));
    queue.push_back(entry_pid);
    bfs(procs, &mut ids, &mut order, &mut queue);
    for &n in procs.keys() {
        if let std::collections::hash_map::Entry::Vacant(v) = ids.entry(n) {
            warnings.push(format!(
                "process {n} has a log but no logged spawn created it; it gets no parent"
            ));
            v.insert(order.len() as u32);
            order.push((n, None));
            queue.push_back(n);
            bfs(procs, &mut ids, &mut order, &mut queue);
        }
    }
    (ids, order)
}

/// Each send's uid: the message it names, and where it was sent.
type Sends = HashMap<i128, (MsgId, PathBuf, usize)>;

/// The uids of the sends, numbered per sender in log order; a uid sent twice
/// is an error.
fn sends(
    order: &[(u64, Option<u32>)],
    procs: &BTreeMap<u64, ProcFile>,
    ids: &HashMap<u64, u32>,
) -> Result<Sends, CauderError> {
    let mut sent: Sends = HashMap::new();
    for (pid, _) in order {
        let Some(f) = procs.get(pid) else { continue };
        let me = ProcId(ids[pid]);
        let mut index = 0u64;
        for (line, e) in &f.entries {
            if let Entry::Send { uid } = e {
                if let Some((_, other, l)) = sent.get(uid) {
                    return Err(fail(
                        &f.path,
                        Some(*line),
                        format!(
                            "message uid {uid} is sent twice (also at {}:{l})",
                            other.display()
                        ),
                    ));
                }
                sent.insert(*uid, (MsgId { sender: me, index }, f.path.clone(), *line));
                index += 1;
            }
        }
    }
    Ok(sent)
}

/// The events of a process file, uids resolved; notes in `deliveries`
/// whether it logs deliveries.
fn events(
    f: &ProcFile,
    ids: &HashMap<u64, u32>,
    sent: &Sends,
    deliveries: &mut bool,
) -> Result<Vec<Event>, CauderError> {
    let resolve = |uid: i128, line: usize| -> Result<MsgId, CauderError> {
        sent.get(&uid).map(|(m, _, _)| *m).ok_or_else(|| {
            fail(
                &f.path,
                Some(line),
                format!("message uid {uid} is taken but no process log sends it"),
            )
        })
    };
    let mut events = Vec::new();
    for (line, e) in &f.entries {
        events.push(match *e {
            Entry::Spawn { pid: child } => Event::Spawn {
                child: ProcId(ids[&child]),
                pid: child,
                link: false,
                monitor: false,
            },
            Entry::Send { .. } => Event::Send {
                to: Dest::Unknown,
                payload: None,
            },
            Entry::Receive { uid } => Event::Receive {
                msg: resolve(uid, *line)?,
            },
            Entry::Deliver { uid } => {
                *deliveries = true;
                Event::Deliver {
                    msg: resolve(uid, *line)?,
                }
            }
        });
    }
    Ok(events)
}

/// The trace log's header for an imported log.
fn header(result: ResultFile, report: &ImportReport, deliveries: bool) -> Header {
    let mut other = vec![(
        crate::meta::CAUDER_FORMAT.to_string(),
        report.generation.to_string(),
    )];
    for (k, v) in [
        ("cauder.comp_us", result.comp_us),
        ("cauder.exec_us", result.exec_us),
    ] {
        if let Some(v) = v {
            other.push((k.into(), v.to_string()));
        }
    }
    if let Some(t) = &result.tracing {
        other.push(("cauder.tracing".into(), t.clone()));
    }
    Header {
        recorder: format!(
            "CauDEr {} log, imported by trace {}",
            report.generation,
            env!("CARGO_PKG_VERSION")
        ),
        engine: "BEAM (CauDEr tracer)".into(),
        modules: Vec::new(),
        entry: result.call.unwrap_or_default(),
        options: RecordingOptions {
            deliveries,
            other,
            ..Default::default()
        },
        start_time_ns: 0,
        run_id: 0,
        shared_functions: Vec::new(),
        node: result.node.unwrap_or_else(|| "nonode@nohost".into()),
        entry_pid: result.entry_pid,
        nondet_names: Vec::new(),
    }
}

/// Reads the directory and writes it as a trace log at `out`.
pub fn import(dir: &Path, out: &Path) -> Result<ImportReport, CauderError> {
    let out_dir = super::resolved_dir(out.parent().unwrap_or(Path::new("")));
    let writes_an_input = out
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(super::is_log_file)
        && out_dir.is_some()
        && out_dir == super::resolved_dir(dir);
    if writes_an_input {
        return Err(fail(
            out,
            None,
            "the output would overwrite one of the CauDEr files being read; write the trace log elsewhere",
        ));
    }
    let imp = read_dir(dir)?;
    let io = |e: std::io::Error| fail(out, None, e.to_string());
    let w = LogWriter::create(out, imp.header, WriterOptions::default()).map_err(io)?;
    w.write_logs(&imp.logs);
    w.finish(imp.outcome).map_err(io)?;
    Ok(imp.report)
}

/// Gives dense indices to the processes the queued ones spawned, breadth first.
fn bfs(
    procs: &BTreeMap<u64, ProcFile>,
    ids: &mut HashMap<u64, u32>,
    order: &mut Vec<(u64, Option<u32>)>,
    queue: &mut VecDeque<u64>,
) {
    while let Some(p) = queue.pop_front() {
        let me = ids[&p];
        let Some(f) = procs.get(&p) else { continue };
        for (_, e) in &f.entries {
            if let Entry::Spawn { pid: child } = *e {
                if let std::collections::hash_map::Entry::Vacant(v) = ids.entry(child) {
                    v.insert(order.len() as u32);
                    order.push((child, Some(me)));
                    queue.push_back(child);
                }
            }
        }
    }
}

/// What `trace_result.log` says.
#[derive(Default)]
struct ResultFile {
    generation: Option<&'static str>,
    call: Option<String>,
    entry_pid: u64,
    node: Option<String>,
    value: Option<String>,
    tracing: Option<String>,
    comp_us: Option<i128>,
    exec_us: Option<i128>,
}

/// A CauDEr log file is text; one from a pipe or device is read up to this.
const MAX_CAUDER_FILE: u64 = 1 << 30;

fn read_text(path: &Path) -> Result<String, CauderError> {
    let bytes = trace_input::read(path, MAX_CAUDER_FILE, "a CauDEr log file")
        .map_err(|e| fail(path, None, e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        fail(path, None, format!("not UTF-8 text (byte {at})"))
    })
}

fn read_result(path: &Path) -> Result<ResultFile, CauderError> {
    let text = read_text(path)?;
    let mut r = ResultFile::default();
    let mut pid = None;
    match consult(&text) {
        Ok(forms) => {
            r.generation = Some("v3");
            for (at, t) in forms {
                let T::Tuple(items) = &t else {
                    return Err(fail(
                        path,
                        Some(line_of(&text, at)),
                        format!("expected {{Key, Value}}, found {t}"),
                    ));
                };
                match (items.first().and_then(T::atom), items.get(1)) {
                    (Some("call"), Some(T::Tuple(mfa))) if mfa.len() == 3 => {
                        let args = match &mfa[2] {
                            T::List(a) => a.iter().map(T::to_string).collect::<Vec<_>>().join(","),
                            other => other.to_string(),
                        };
                        r.call = Some(format!("{}:{}({args})", mfa[0], mfa[1]));
                    }
                    (Some("pid"), Some(T::Int(n))) => pid = u64::try_from(*n).ok(),
                    (Some("node"), Some(T::Atom(n))) => r.node = Some(n.clone()),
                    (Some("return"), Some(T::Atom(a))) if a == "none" => {}
                    (Some("return"), Some(T::Tuple(v)))
                        if v.len() == 2 && v[0].atom() == Some("value") =>
                    {
                        r.value = Some(v[1].to_string())
                    }
                    (Some("tracing"), Some(T::Atom(t))) => r.tracing = Some(t.clone()),
                    (Some("comp"), Some(T::Int(n))) => r.comp_us = Some(*n),
                    (Some("exec"), Some(T::Int(n))) => r.exec_us = Some(*n),
                    _ => {}
                }
            }
        }
        Err(_) => {
            // v1: `key value` lines.
            r.generation = Some("v1");
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                let rest = rest.trim();
                match key {
                    "call" => r.call = Some(rest.trim_matches('"').to_string()),
                    "main_pid" => {
                        pid = Some(parse_pid_text(rest).ok_or_else(|| {
                            fail(
                                path,
                                Some(i + 1),
                                format!("expected a process number, found {rest:?}"),
                            )
                        })?)
                    }
                    "result" if rest != "none" => r.value = Some(rest.to_string()),
                    "tracing" => r.tracing = Some(rest.to_string()),
                    "exec" => r.exec_us = rest.parse().ok(),
                    "comp" => r.comp_us = rest.rsplit(' ').next().and_then(|n| n.parse().ok()),
                    _ => {}
                }
            }
        }
    }
    r.entry_pid =
        pid.ok_or_else(|| fail(path, None, "no entry process ({pid,N} or main_pid N)"))?;
    Ok(r)
}

/// `74` or `<0.74.0>` (old logs print whole pids).
fn parse_pid_text(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
        return inner.split('.').nth(1)?.parse().ok();
    }
    s.parse().ok()
}

/// Warns of each spawn of a process that has no log file: its events, if it
/// had any, are missing from the directory.
fn warn_unlogged_spawns(procs: &BTreeMap<u64, ProcFile>, warnings: &mut Vec<String>) {
    for f in procs.values() {
        for (line, e) in &f.entries {
            if let Entry::Spawn { pid } = e {
                if !procs.contains_key(pid) {
                    warnings.push(format!(
                        "{}:{line}: spawn of process {pid}, which has no log (trace_{pid}.log)",
                        f.path.display()
                    ));
                }
            }
        }
    }
}

/// A process file's generation (if it has entries) and its entries with their lines.
type ProcessEntries = (Option<&'static str>, Vec<(usize, Entry)>);

/// A process file's entries, and the generation they are written in.
fn read_process(
    path: &Path,
    owner: u64,
    dropped: &mut BTreeMap<String, usize>,
    warnings: &mut Vec<String>,
) -> Result<ProcessEntries, CauderError> {
    let text = read_text(path)?;
    // v2/v3 files are `.`-terminated forms; v1 files have one bare term per line.
    let consulted = consult(&text);
    let by_line = consulted.is_err();
    let forms: Vec<(usize, T)> = match consulted {
        Ok(f) => f
            .into_iter()
            .map(|(at, t)| (line_of(&text, at), t))
            .collect(),
        Err(consult_err) => {
            let mut v = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() || line.trim_start().starts_with('%') {
                    continue;
                }
                let mut p = Parser::new(line);
                match p.term() {
                    Ok(t) if p.at_end() => v.push((i + 1, t)),
                    _ => {
                        return Err(fail(
                            path,
                            Some(line_of(&text, consult_err.at)),
                            format!("expected {}", consult_err.expected),
                        ))
                    }
                }
            }
            v
        }
    };
    let mut generation = None;
    let mut entries = Vec::with_capacity(forms.len());
    for (line, t) in forms {
        let bad = || fail(path, Some(line), format!("not a CauDEr log entry: {t}"));
        let T::Tuple(items) = &t else {
            return Err(bad());
        };
        let int = |i: usize| items.get(i).and_then(T::int);
        let pid_of = |t: Option<&T>| t.and_then(T::int).and_then(|n| u64::try_from(n).ok());
        let (g, entry) = match (items.len(), items.first().and_then(T::atom)) {
            (4, Some("trace_spawn")) => {
                let ok = items[3].atom() == Some("true");
                let pid = pid_of(items.get(2)).ok_or_else(bad)?;
                ("v3", ok.then_some(Entry::Spawn { pid }))
            }
            (2, Some("trace_send")) => (
                "v3",
                Some(Entry::Send {
                    uid: int(1).ok_or_else(bad)?,
                }),
            ),
            (2, Some("trace_receive")) => (
                "v3",
                Some(Entry::Receive {
                    uid: int(1).ok_or_else(bad)?,
                }),
            ),
            (3, Some("spawn")) => {
                let T::Tuple(np) = &items[1] else {
                    return Err(bad());
                };
                let pid = pid_of(np.get(1)).ok_or_else(bad)?;
                let ok = items[2].atom() == Some("success");
                ("v2", ok.then_some(Entry::Spawn { pid }))
            }
            (2, Some("send")) => (
                "v2",
                Some(Entry::Send {
                    uid: int(1).ok_or_else(bad)?,
                }),
            ),
            (2, Some("receive")) => (
                "v2",
                Some(Entry::Receive {
                    uid: int(1).ok_or_else(bad)?,
                }),
            ),
            (2, Some("deliver")) => (
                "v2",
                Some(Entry::Deliver {
                    uid: int(1).ok_or_else(bad)?,
                }),
            ),
            (_, Some(node @ ("trace_nodes" | "trace_start" | "nodes" | "start"))) => {
                *dropped.entry(format!("{node} (distribution)")).or_default() += 1;
                continue;
            }
            (3, None) => {
                // v1: {Owner, Kind, Value}
                let who = pid_of(items.first()).ok_or_else(bad)?;
                if who != owner {
                    warnings.push(format!(
                        "{}:{line}: entry of process {who} in the log of process {owner}",
                        path.display()
                    ));
                }
                let v = int(2).ok_or_else(bad)?;
                match items[1].atom() {
                    Some("spawn") => (
                        "v1",
                        Some(Entry::Spawn {
                            pid: u64::try_from(v).map_err(|_| bad())?,
                        }),
                    ),
                    Some("send") => ("v1", Some(Entry::Send { uid: v })),
                    Some("receive") => ("v1", Some(Entry::Receive { uid: v })),
                    _ => return Err(bad()),
                }
            }
            _ => return Err(bad()),
        };
        if by_line && g != "v1" && generation.is_none() {
            // Read as a v1 line: a form of v2 or v3 that lacks its dot.
            warnings.push(format!(
                "{}:{line}: {g} entry without its final '.' (read as a line)",
                path.display()
            ));
        }
        if generation.is_some_and(|x| x != g) {
            warnings.push(format!(
                "{}:{line}: {g} entry in a {} log",
                path.display(),
                generation.unwrap_or("")
            ));
        }
        generation.get_or_insert(g);
        match entry {
            Some(e) => entries.push((line, e)),
            None => *dropped.entry("failed spawn".into()).or_default() += 1,
        }
    }
    Ok((generation, entries))
}
