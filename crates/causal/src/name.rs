//! Symbolic process names (DESIGN §2.3): a process is named by its spawn
//! path from the entry process. `P` is the entry process, `P.2` its second
//! child, `P.2.1` the first child of `P.2`; children are numbered from 1 in
//! their parent's spawn order. Two runs that spawn the same way give their
//! processes the same names, whatever raw pids they got.
//!
//! The table keeps, per process, only its parent and its number, so memory
//! stays linear even for long spawn chains; a name is spelled out on demand
//! (cost: its length).

use crate::model::{AllFacts, ProcFacts, Slot, NO_SLOT};
use crate::syntax::{Cursor, SyntaxError};
use std::fmt;
use trace_format::ProcId;

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

impl std::str::FromStr for SymbolicName {
    type Err = SyntaxError;

    fn from_str(s: &str) -> Result<Self, SyntaxError> {
        let mut c = Cursor::new(s);
        c.skip_space();
        let name = c.symbolic_name()?;
        c.skip_space();
        c.end()?;
        Ok(name)
    }
}

/// Where a process's name comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Birth {
    Root,
    /// The `number`-th spawn of `parent`.
    Child {
        parent: Slot,
        number: u32,
    },
    /// No spawn names it (or its ancestors are unnamed): it has no name.
    Unnamed,
}

/// The symbolic names of a log's processes.
pub struct Names {
    ids: Vec<ProcId>,
    pids: Vec<u64>,
    birth: Vec<Birth>,
    /// Children of each slot in spawn order (`NO_SLOT` for a child without a
    /// log), as ranges of `children`.
    child_start: Vec<usize>,
    children: Vec<Slot>,
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
            LookupError::NoPid(p) => write!(f, "no process <0.{p}.0> in this log"),
        }
    }
}

impl std::error::Error for LookupError {}

impl Names {
    pub(crate) fn new(
        procs: &[ProcFacts],
        facts: &AllFacts,
        spawned_by: &[Option<(Slot, u32)>],
    ) -> Names {
        let n = procs.len();
        let mut child_start = Vec::with_capacity(n + 1);
        let mut children = Vec::with_capacity(facts.spawns.iter().map(Vec::len).sum());
        // The number of a child: its parent's spawn it came from, counted from 1.
        let mut number = vec![0u32; n];
        for (slot, spawns) in facts.spawns.iter().enumerate() {
            child_start.push(children.len());
            for (k, s) in spawns.iter().enumerate() {
                children.push(s.child);
                if s.child != NO_SLOT && spawned_by[s.child as usize] == Some((slot as Slot, s.at))
                {
                    number[s.child as usize] = k as u32 + 1;
                }
            }
        }
        child_start.push(children.len());
        let mut birth: Vec<Birth> = (0..n)
            .map(|s| match spawned_by[s] {
                _ if procs[s].id == ProcId(0) => Birth::Root,
                Some((parent, _)) => Birth::Child {
                    parent,
                    number: number[s],
                },
                None => Birth::Unnamed,
            })
            .collect();
        resolve_unnamed(&mut birth);
        Names {
            ids: procs.iter().map(|p| p.id).collect(),
            pids: procs.iter().map(|p| p.pid).collect(),
            birth,
            child_start,
            children,
        }
    }

    fn slot(&self, id: ProcId) -> Option<Slot> {
        match self.ids.get(id.0 as usize) {
            Some(&x) if x == id => Some(id.0),
            _ => self.ids.binary_search(&id).ok().map(|s| s as Slot),
        }
    }

    /// The process's symbolic name; `None` when no spawn in the log leads to
    /// it from the entry process.
    pub fn name(&self, id: ProcId) -> Option<SymbolicName> {
        self.name_of_slot(self.slot(id)?)
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

    pub(crate) fn name_of_slot(&self, s: Slot) -> Option<SymbolicName> {
        let mut path = Vec::new();
        let mut at = s;
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

    /// `P.2 <0.83.0>`, or the raw pid alone for a process without a name.
    pub fn label(&self, id: ProcId) -> String {
        match self.slot(id) {
            Some(s) => self.label_of_slot(s),
            None => format!("process {}", id.0),
        }
    }

    pub(crate) fn label_of_slot(&self, s: Slot) -> String {
        let pid = self.pids[s as usize];
        match self.name_of_slot(s) {
            Some(n) => format!("{n} <0.{pid}.0>"),
            None => format!("<0.{pid}.0>"),
        }
    }

    /// The short form used inside events: the name, or the raw pid.
    pub fn short(&self, id: ProcId) -> String {
        match self.slot(id) {
            Some(s) => self.short_of_slot(s),
            None => format!("process {}", id.0),
        }
    }

    pub(crate) fn short_of_slot(&self, s: Slot) -> String {
        match self.name_of_slot(s) {
            Some(n) => n.to_string(),
            None => format!("<0.{}.0>", self.pids[s as usize]),
        }
    }

    /// The process with this symbolic name.
    pub fn lookup(&self, name: &SymbolicName) -> Result<ProcId, LookupError> {
        let mut at =
            self.birth
                .iter()
                .position(|b| *b == Birth::Root)
                .ok_or(LookupError::NoLog {
                    name: SymbolicName::root(),
                })? as Slot;
        for (depth, &n) in name.0.iter().enumerate() {
            let kids =
                &self.children[self.child_start[at as usize]..self.child_start[at as usize + 1]];
            let here = SymbolicName(name.0[..depth].to_vec());
            match kids.get((n as usize).wrapping_sub(1)) {
                Some(&NO_SLOT) => {
                    return Err(LookupError::NoLog {
                        name: here.child(n),
                    })
                }
                Some(&c)
                    if self.birth[c as usize]
                        == (Birth::Child {
                            parent: at,
                            number: n,
                        }) =>
                {
                    at = c
                }
                // Spawned twice (the log is inconsistent): the first spawn names it.
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

/// A child of an unnamed process (or a spawn cycle, which an inconsistent
/// log may hold) has no name either. Each slot is decided once: a walk up
/// stops at the first slot already decided.
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
