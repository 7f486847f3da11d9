//! Symbolic process names: the one namer every command uses. A process is
//! named by its spawn path from the entry process: `P` is the entry
//! process, `P.2` its second child, `P.2.1` the first child of `P.2`;
//! children are numbered from 1 in their parent's spawn order, counting
//! every spawn of the parent. Two runs that spawn the same way give their
//! processes the same names, whatever raw pids they got (the style
//! Concuerror prints).
//!
//! A process that no spawn leads to from the entry process (a log that is
//! inconsistent, or a process whose parent's log was lost) has no symbolic
//! name: it goes by its raw pid `<0.83.0>`, and so do its children.
//!
//! The names come from the spawn tree, read one of two ways: from the log's
//! process table ([`Names::of_table`]: the writer registers a child when
//! its parent spawns it, so a parent's children in table order are its
//! spawns in program order), or from the spawn events themselves
//! ([`Names::of_spawns`], which the causal model uses: exact even when a
//! child's blocks were lost). Either way a process keeps only its parent
//! and its number, so memory stays linear even for long spawn chains; a
//! name is spelled out on demand (cost: its length).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use trace_format::text::{pid_text, Naming};
use trace_format::{MsgId, ProcId, ProcessInfo};

/// A process's row in a log's process table (its position there; the same
/// as its dense `ProcId` unless a recovered log lost whole processes).
pub type TableRow = u32;
/// No row: a child whose log the table does not hold.
pub const NO_ROW: TableRow = u32::MAX;

/// A spawn path: `P.2.1` is `[2, 1]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolicName(pub Vec<u32>);

impl SymbolicName {
    /// `P`, the entry process.
    pub fn root() -> Self {
        SymbolicName(Vec::new())
    }

    pub fn path(&self) -> &[u32] {
        &self.0
    }

    /// The `n`-th child (from 1).
    pub fn child(&self, n: u32) -> Self {
        let mut p = self.0.clone();
        p.push(n);
        SymbolicName(p)
    }

    pub fn parent(&self) -> Option<Self> {
        let (_, rest) = self.0.split_last()?;
        Some(SymbolicName(rest.to_vec()))
    }
}

impl fmt::Display for SymbolicName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("P")?;
        for n in &self.0 {
            write!(f, ".{n}")?;
        }
        Ok(())
    }
}

/// Where a process's name comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Birth {
    Root,
    /// The `number`-th spawn of `parent`.
    Child {
        parent: TableRow,
        number: u32,
    },
    /// No spawn names it (or its ancestors are unnamed): it has no name.
    Unnamed,
}

/// The symbolic names of a log's processes.
#[derive(Clone)]
pub struct Names {
    ids: Vec<ProcId>,
    pids: Vec<u64>,
    birth: Vec<Birth>,
    /// Children of each row in spawn order (`NO_ROW` for a child without a
    /// log), as ranges of `children`.
    child_start: Vec<usize>,
    children: Vec<TableRow>,
}

/// Why a name or pid names no process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// The name's parent exists but spawned fewer children.
    NoSuchChild {
        parent: SymbolicName,
        children: u32,
        wanted: SymbolicName,
    },
    /// The process was spawned but the log holds nothing of it.
    NoLog { name: SymbolicName },
    /// No process has this raw pid.
    NoPid(u64),
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::NoSuchChild {
                parent,
                children: 0,
                wanted,
            } => write!(
                f,
                "no process {wanted} in this log: {parent} spawned no process"
            ),
            LookupError::NoSuchChild {
                parent,
                children: 1,
                wanted,
            } => write!(
                f,
                "no process {wanted} in this log: {parent} spawned one, {}",
                parent.child(1)
            ),
            LookupError::NoSuchChild {
                parent,
                children,
                wanted,
            } => write!(
                f,
                "no process {wanted} in this log: {parent} spawned {children}, {} to {}",
                parent.child(1),
                parent.child(*children)
            ),
            LookupError::NoLog { name } if name.0.is_empty() => {
                write!(f, "the log holds no entry process P")
            }
            LookupError::NoLog { name } => {
                write!(
                    f,
                    "{name} was spawned, but the log holds none of its events"
                )
            }
            LookupError::NoPid(p) => write!(f, "no process {} in this log", pid_text(*p)),
        }
    }
}

impl std::error::Error for LookupError {}

impl Names {
    /// Names from the process table alone: a process's children are the
    /// processes that name it as their parent, in table order. No block is
    /// decoded. Exact for a log with its footer; for one recovered by
    /// scanning, a child whose blocks were all lost shifts the numbers of
    /// its later siblings (the causal model names from spawn events instead).
    pub fn of_table(procs: &[ProcessInfo]) -> Names {
        let slot_of = |id: ProcId| id.position_in(procs, |p| p.id).map(|s| s as TableRow);
        let parents: Vec<TableRow> = procs
            .iter()
            .map(|p| p.parent.and_then(slot_of).unwrap_or(NO_ROW))
            .collect();
        let n = procs.len();
        let mut child_start = vec![0usize; n + 1];
        for &p in &parents {
            if p != NO_ROW {
                child_start[p as usize + 1] += 1;
            }
        }
        for i in 1..=n {
            child_start[i] += child_start[i - 1];
        }
        let mut at = child_start.clone();
        let mut children = vec![NO_ROW; child_start[n]];
        let mut birth: Vec<Birth> = vec![Birth::Unnamed; n];
        for (s, &p) in parents.iter().enumerate() {
            if procs[s].id == ProcId(0) {
                birth[s] = Birth::Root;
            } else if p != NO_ROW {
                let k = &mut at[p as usize];
                children[*k] = s as TableRow;
                birth[s] = Birth::Child {
                    parent: p,
                    number: (*k - child_start[p as usize]) as u32 + 1,
                };
                *k += 1;
            }
        }
        Self::finish(
            procs.iter().map(|p| (p.id, p.pid)),
            birth,
            child_start,
            children,
        )
    }

    /// Names from the spawn events: `spawns` gives, for each row in order,
    /// the row of the child each of its spawns created (`NO_ROW` for a
    /// child without a log). A child spawned twice (an inconsistent log) is
    /// named by the first spawn.
    pub fn of_spawns<S, C>(procs: impl Iterator<Item = (ProcId, u64)>, spawns: S) -> Names
    where
        S: IntoIterator<Item = C>,
        C: IntoIterator<Item = TableRow>,
    {
        let procs: Vec<(ProcId, u64)> = procs.collect();
        let n = procs.len();
        let mut child_start = Vec::with_capacity(n + 1);
        let mut children = Vec::new();
        let mut birth: Vec<Birth> = procs
            .iter()
            .map(|(id, _)| {
                if *id == ProcId(0) {
                    Birth::Root
                } else {
                    Birth::Unnamed
                }
            })
            .collect();
        for (parent, kids) in spawns.into_iter().enumerate().take(n) {
            child_start.push(children.len());
            for (k, child) in kids.into_iter().enumerate() {
                children.push(child);
                if let Some(b @ Birth::Unnamed) = birth.get_mut(child as usize) {
                    if procs[child as usize].0 != ProcId(0) {
                        *b = Birth::Child {
                            parent: parent as TableRow,
                            number: k as u32 + 1,
                        };
                    }
                }
            }
        }
        child_start.resize(n + 1, children.len());
        Self::finish(procs.into_iter(), birth, child_start, children)
    }

    fn finish(
        procs: impl Iterator<Item = (ProcId, u64)>,
        mut birth: Vec<Birth>,
        child_start: Vec<usize>,
        children: Vec<TableRow>,
    ) -> Names {
        resolve_unnamed(&mut birth);
        let (ids, pids) = procs.unzip();
        Names {
            ids,
            pids,
            birth,
            child_start,
            children,
        }
    }

    fn slot(&self, id: ProcId) -> Option<TableRow> {
        id.position_in(&self.ids, |&x| x).map(|s| s as TableRow)
    }

    /// The raw pid number the process had.
    pub fn pid(&self, id: ProcId) -> Option<u64> {
        Some(self.pids[self.slot(id)? as usize])
    }

    /// The process's symbolic name; `None` when no spawn in the log leads to
    /// it from the entry process.
    pub fn name(&self, id: ProcId) -> Option<SymbolicName> {
        let mut path = Vec::new();
        let mut at = self.slot(id)?;
        loop {
            match self.birth[at as usize] {
                Birth::Root => break,
                Birth::Child { parent, number } => {
                    path.push(number);
                    at = parent;
                }
                Birth::Unnamed => return None,
            }
        }
        path.reverse();
        Some(SymbolicName(path))
    }

    /// The process that spawned `id` and which of its spawns made it (from
    /// 1), when `id` has a symbolic name other than `P`: a name's last step,
    /// at constant cost, for callers that rebuild the whole tree (spelling
    /// out every name of a spawn chain costs the chain's length squared).
    pub fn birth(&self, id: ProcId) -> Option<(ProcId, u32)> {
        match self.birth[self.slot(id)? as usize] {
            Birth::Child { parent, number } => Some((self.ids[parent as usize], number)),
            Birth::Root | Birth::Unnamed => None,
        }
    }

    /// The short form, as inside events and messages: the name (`P.2`), or
    /// the raw pid for a process without one.
    pub fn short(&self, id: ProcId) -> String {
        match (self.name(id), self.pid(id)) {
            (Some(n), _) => n.to_string(),
            (None, Some(pid)) => pid_text(pid),
            (None, None) => unknown(id),
        }
    }

    /// The full form, as a process is introduced: `P.2 <0.83.0>`, or the raw
    /// pid alone for a process without a name.
    pub fn label(&self, id: ProcId) -> String {
        match (self.name(id), self.pid(id)) {
            (Some(n), Some(pid)) => format!("{n} {}", pid_text(pid)),
            (None, Some(pid)) => pid_text(pid),
            _ => unknown(id),
        }
    }

    /// The spawn tree by row (position in the process table the names
    /// were built from), for walking two trees side by side: the root's
    /// row.
    pub fn root_slot(&self) -> Option<TableRow> {
        self.birth
            .iter()
            .position(|b| *b == Birth::Root)
            .map(|s| s as TableRow)
    }

    /// The children of row `s` in spawn order (`NO_ROW` where a spawn's
    /// child has no log).
    pub fn children_of_slot(&self, s: TableRow) -> &[TableRow] {
        &self.children[self.child_start[s as usize]..self.child_start[s as usize + 1]]
    }

    /// The parent's row and the child's number (from 1) of row `s`, when
    /// it has a symbolic name other than `P`.
    pub fn birth_of_slot(&self, s: TableRow) -> Option<(TableRow, u32)> {
        match self.birth[s as usize] {
            Birth::Child { parent, number } => Some((parent, number)),
            Birth::Root | Birth::Unnamed => None,
        }
    }

    /// The process with this symbolic name.
    pub fn lookup(&self, name: &SymbolicName) -> Result<ProcId, LookupError> {
        let mut at = self.root_slot().ok_or(LookupError::NoLog {
            name: SymbolicName::root(),
        })?;
        for (depth, &n) in name.0.iter().enumerate() {
            let kids = self.children_of_slot(at);
            let here = SymbolicName(name.0[..depth].to_vec());
            match kids.get((n as usize).wrapping_sub(1)) {
                Some(&c)
                    if c != NO_ROW
                        && self.birth[c as usize]
                            == (Birth::Child {
                                parent: at,
                                number: n,
                            }) =>
                {
                    at = c
                }
                // Without a log, or spawned twice (the log is
                // inconsistent: the first spawn names it).
                Some(_) => {
                    return Err(LookupError::NoLog {
                        name: here.child(n),
                    })
                }
                None => {
                    return Err(LookupError::NoSuchChild {
                        children: kids.len() as u32,
                        parent: here,
                        wanted: name.clone(),
                    })
                }
            }
        }
        Ok(self.ids[at as usize])
    }

    /// The process that had raw pid number `pid`.
    pub fn lookup_pid(&self, pid: u64) -> Result<ProcId, LookupError> {
        self.pids
            .iter()
            .position(|&p| p == pid)
            .map(|s| self.ids[s])
            .ok_or(LookupError::NoPid(pid))
    }
}

/// [`Names`] for a report that names the same processes over and over (a
/// derivation, a diff): spelled-out names are cached, within a budget so
/// that a log of deep spawn chains cannot blow the memory up.
pub struct Namer<'a> {
    names: &'a Names,
    cache: RefCell<NameCache>,
}

#[derive(Default)]
struct NameCache {
    /// Per process: its short name and its label.
    names: HashMap<ProcId, (Rc<str>, Rc<str>)>,
    bytes: usize,
}

/// Bytes of cached names before the cache starts over.
const NAME_CACHE_BYTES: usize = 16 << 20;

impl<'a> Namer<'a> {
    pub fn new(names: &'a Names) -> Self {
        Namer {
            names,
            cache: RefCell::default(),
        }
    }

    pub fn names(&self) -> &'a Names {
        self.names
    }

    fn cached(&self, p: ProcId) -> (Rc<str>, Rc<str>) {
        if let Some(n) = self.cache.borrow().names.get(&p) {
            return n.clone();
        }
        let n: (Rc<str>, Rc<str>) = (self.names.short(p).into(), self.names.label(p).into());
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
        self.cached(p).0
    }

    /// `P.1 <0.81.0>`.
    pub fn label(&self, p: ProcId) -> Rc<str> {
        self.cached(p).1
    }

    /// `P.1:3`.
    pub fn msg(&self, m: MsgId) -> String {
        format!("{}:{}", self.proc(m.sender), m.index)
    }

    /// `P.1#3`: event 3 of `P.1`'s log, in the EVENT syntax.
    pub fn event_name(&self, p: ProcId, index: u64) -> String {
        format!("{}#{index}", self.proc(p))
    }

    /// `P.1#3 <0.81.0>`: the event and its process's raw pid, for the event a
    /// finding is about.
    pub fn event_at(&self, p: ProcId, index: u64) -> String {
        match (self.names.name(p), self.names.pid(p)) {
            (Some(_), Some(pid)) => format!("{} {}", self.event_name(p, index), pid_text(pid)),
            _ => self.event_name(p, index),
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

    fn pid(&self, p: ProcId) -> Option<u64> {
        self.names.pid(p)
    }

    fn child(&self, child: ProcId, pid: u64) -> String {
        self.names.child(child, pid)
    }
}

/// A process id the names do not hold.
fn unknown(id: ProcId) -> String {
    if id == ProcId::UNKNOWN {
        // The mapping gives this id to a process the log does not hold (its
        // blocks were lost with the end of a run).
        "a process the log does not hold".into()
    } else {
        format!("process {}", id.0)
    }
}

impl Naming for Names {
    fn process(&self, p: ProcId) -> String {
        self.label(p)
    }

    fn sender(&self, p: ProcId) -> String {
        self.short(p)
    }

    fn pid(&self, p: ProcId) -> Option<u64> {
        Names::pid(self, p)
    }

    fn child(&self, child: ProcId, pid: u64) -> String {
        match Names::pid(self, child) {
            Some(_) => self.label(child),
            // The child's log is lost: its pid is in the spawn event.
            None => pid_text(pid),
        }
    }
}

/// A child of an unnamed process (or a spawn cycle, which an inconsistent
/// log may hold) has no name either. Each row is decided once: a walk up
/// stops at the first row already decided.
fn resolve_unnamed(birth: &mut [Birth]) {
    const UNKNOWN: u8 = 0;
    const NAMED: u8 = 1;
    const UNNAMED: u8 = 2;
    const ON_PATH: u8 = 3;
    let mut state = vec![UNKNOWN; birth.len()];
    let mut path = Vec::new();
    for start in 0..birth.len() {
        let mut at = start;
        let named = loop {
            match state[at] {
                NAMED => break true,
                UNNAMED | ON_PATH => break false,
                _ => {}
            }
            match birth[at] {
                Birth::Root => {
                    state[at] = NAMED;
                    break true;
                }
                Birth::Unnamed => {
                    state[at] = UNNAMED;
                    break false;
                }
                Birth::Child { parent, .. } => {
                    state[at] = ON_PATH;
                    path.push(at);
                    at = parent as usize;
                }
            }
        };
        for p in path.drain(..) {
            state[p] = if named { NAMED } else { UNNAMED };
            if !named {
                birth[p] = Birth::Unnamed;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(parents: &[Option<u32>]) -> Vec<ProcessInfo> {
        parents
            .iter()
            .enumerate()
            .map(|(i, p)| ProcessInfo::new(ProcId(i as u32), 80 + i as u64, p.map(ProcId)))
            .collect()
    }

    #[test]
    fn the_table_names_children_in_spawn_order() {
        // P spawns 1 and 3; 1 spawns 2; 4 has a parent the table lacks.
        let t = table(&[None, Some(0), Some(1), Some(0), Some(9)]);
        let n = Names::of_table(&t);
        assert_eq!(n.short(ProcId(1)), "P.1");
        assert_eq!(n.short(ProcId(2)), "P.1.1");
        assert_eq!(n.label(ProcId(3)), "P.2 <0.83.0>");
        assert_eq!(n.short(ProcId(4)), "<0.84.0>");
        assert_eq!(n.lookup(&SymbolicName(vec![1, 1])), Ok(ProcId(2)));
        assert_eq!(
            n.lookup(&SymbolicName(vec![3])).unwrap_err().to_string(),
            "no process P.3 in this log: P spawned 2, P.1 to P.2"
        );
        assert_eq!(n.short(ProcId::UNKNOWN), "a process the log does not hold");
    }

    #[test]
    fn spawn_events_name_around_a_lost_child() {
        // P's second spawn created a process whose log was lost.
        let procs = [(ProcId(0), 80), (ProcId(1), 81), (ProcId(3), 83)];
        let n = Names::of_spawns(procs.into_iter(), [vec![1, NO_ROW, 2], vec![], vec![]]);
        assert_eq!(n.short(ProcId(3)), "P.3");
        assert_eq!(
            n.lookup(&SymbolicName(vec![2])).unwrap_err().to_string(),
            "P.2 was spawned, but the log holds none of its events"
        );
        assert_eq!(n.birth(ProcId(3)), Some((ProcId(0), 3)));
    }
}
