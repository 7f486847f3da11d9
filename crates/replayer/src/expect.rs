//! What the engine did against what the log says: engine events are turned
//! into log events with the recorder's own mapping and compared; both sides
//! are rendered as `trace replay` prints events, with symbolic names, for
//! divergence reports.

use trace_format::text::{self, Context, Naming};
use trace_format::{Event, EventRef, Header, LogReader, MsgId, ProcId};

/// Symbolic names of a log's processes (`P`, `P.2`, `P.2.1`), from the
/// process table alone: the recorder registers a parent's children in the
/// order it spawns them, so a child's number is its rank among its siblings.
pub struct Names {
    short: Vec<String>,
    pids: Vec<u64>,
}

impl Names {
    pub fn of(log: &LogReader) -> Names {
        let procs = log.processes();
        let mut short: Vec<String> = Vec::with_capacity(procs.len());
        let mut children = vec![0u32; procs.len()];
        let mut pids = Vec::with_capacity(procs.len());
        for (i, p) in procs.iter().enumerate() {
            pids.push(p.pid);
            let name = match p.parent.map(|q| q.0 as usize) {
                Some(q) if q < i => {
                    children[q] += 1;
                    format!("{}.{}", short[q], children[q])
                }
                // The entry process; anything else without a known parent
                // goes by its raw pid.
                None if i == 0 => "P".to_string(),
                _ => text::pid_text(p.pid),
            };
            short.push(name);
        }
        Names { short, pids }
    }

    pub fn pid(&self, p: ProcId) -> Option<u64> {
        self.pids.get(p.0 as usize).copied()
    }

    fn short(&self, p: ProcId) -> String {
        self.short
            .get(p.0 as usize)
            .cloned()
            .unwrap_or_else(|| format!("process {}", p.0))
    }
}

impl Naming for Names {
    fn process(&self, p: ProcId) -> String {
        match self.pid(p) {
            Some(pid) if !self.short(p).starts_with('<') => {
                format!("{} {}", self.short(p), text::pid_text(pid))
            }
            _ => self.short(p),
        }
    }

    fn sender(&self, p: ProcId) -> String {
        self.short(p)
    }
}

/// `event` as process `proc`'s event number `index`, as `trace replay`
/// prints it, without the process and index prefix (the report names the
/// process itself).
pub fn describe(
    header: &Header,
    names: &Names,
    proc: ProcId,
    index: u64,
    signal: MsgId,
    e: &Event,
) -> String {
    let pid_of = |p: ProcId| names.pid(p);
    let cx = Context {
        header,
        pid_of: &pid_of,
    };
    let line = text::line_named(&cx, names, proc, index, None, &EventRef::of(e, signal));
    match line.split_once(&format!("#{index} ")) {
        Some((_, rest)) => rest.to_string(),
        None => line,
    }
}
