//! What the engine did against what the log says: engine events are turned
//! into log events with the recorder's own mapping and compared; both sides
//! are rendered as `trace replay` prints events, with symbolic names, for
//! divergence reports.

use trace_format::text::{self, Context, Naming};
use trace_format::{Event, EventRef, Header, LogReader, MsgId, ProcId};

/// Symbolic names of a log's processes (`P`, `P.2`, `P.2.1`), from the
/// process table alone: the recorder registers a parent's children in the
/// order it spawns them, so a child's number is its rank among its siblings.
/// Each process keeps its parent and number; a name is spelled out when a
/// report needs it (a spawn chain thousands deep would otherwise hold names
/// as long as itself, for every process).
pub struct Names {
    birth: Vec<Birth>,
    pids: Vec<u64>,
}

#[derive(Copy, Clone)]
enum Birth {
    /// `P`, the entry process.
    Entry,
    /// The `number`-th child of the process at `parent` (an earlier one).
    Child { parent: u32, number: u32 },
    /// Without a known parent: goes by its raw pid.
    Pid,
}

impl Names {
    pub fn of(log: &LogReader) -> Names {
        let procs = log.processes();
        let mut birth = Vec::with_capacity(procs.len());
        let mut children = vec![0u32; procs.len()];
        let mut pids = Vec::with_capacity(procs.len());
        for (i, p) in procs.iter().enumerate() {
            pids.push(p.pid);
            birth.push(match p.parent.map(|q| q.0 as usize) {
                // Parents come first, so following parents always ends.
                Some(q) if q < i => {
                    children[q] += 1;
                    Birth::Child {
                        parent: q as u32,
                        number: children[q],
                    }
                }
                None if i == 0 => Birth::Entry,
                _ => Birth::Pid,
            });
        }
        Names { birth, pids }
    }

    pub fn pid(&self, p: ProcId) -> Option<u64> {
        self.pids.get(p.0 as usize).copied()
    }

    fn short(&self, p: ProcId) -> String {
        let mut path = Vec::new();
        let mut at = p.0 as usize;
        let mut name = loop {
            match self.birth.get(at) {
                // The recorder's mapping gives this id to a process the log
                // does not hold (its blocks were lost with the end of a run).
                None if p.0 == u32::MAX => return "a process the log does not hold".into(),
                None => return format!("process {}", p.0),
                Some(Birth::Entry) => break String::from("P"),
                // A process without a known parent goes by its raw pid, and
                // its descendants by their path from it.
                Some(Birth::Pid) => break text::pid_text(self.pids[at]),
                Some(&Birth::Child { parent, number }) => {
                    path.push(number);
                    at = parent as usize;
                }
            }
        };
        for n in path.iter().rev() {
            name.push_str(&format!(".{n}"));
        }
        name
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
