//! One table: what never changes after `ets:new` (its identity, type and key
//! position) and, behind the table's own lock, what does (owner, heir,
//! name, access, objects, and its count of operations).

use super::store::Store;
use crate::exception::{badarg, Fault};
use crate::shared::{OpCount, SharedId};
use std::sync::{Mutex, MutexGuard};
use trace_term::{Atom, Pid, Ref, Term};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Set,
    OrderedSet,
    Bag,
    DuplicateBag,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Set => "set",
            Kind::OrderedSet => "ordered_set",
            Kind::Bag => "bag",
            Kind::DuplicateBag => "duplicate_bag",
        }
    }

    /// One object per key.
    pub fn is_set(self) -> bool {
        matches!(self, Kind::Set | Kind::OrderedSet)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Protection {
    Public,
    Protected,
    Private,
}

impl Protection {
    pub fn name(self) -> &'static str {
        match self {
            Protection::Public => "public",
            Protection::Protected => "protected",
            Protection::Private => "private",
        }
    }
}

/// Options that change nothing in the engine but are reported by `ets:info`.
#[derive(Clone, Debug)]
pub struct Tuning {
    pub read_concurrency: bool,
    /// `true`, `false` or `auto`.
    pub write_concurrency: Term,
    pub compressed: bool,
    pub decentralized_counters: bool,
}

pub struct Table {
    pub id: SharedId,
    /// The reference that names it (`ets:whereis/1`, `info(T, id)`; what
    /// `ets:new/2` returns for a table without `named_table`).
    pub tid: Ref,
    pub kind: Kind,
    /// 1-based position of the key in objects.
    pub keypos: usize,
    pub tuning: Tuning,
    state: Mutex<TableState>,
}

pub struct TableState {
    pub ops: OpCount,
    /// Deleted (by `ets:delete/1` or its owner's end): every later operation
    /// fails. A process may still hold the table in its cache.
    pub deleted: bool,
    pub owner: Pid,
    pub heir: Option<(Pid, Term)>,
    pub name: Atom,
    pub named: bool,
    pub protection: Protection,
    pub store: Store,
    /// Processes that fixed the table with `safe_fixtable/2`, and how often.
    pub fixes: Vec<(Pid, u64)>,
    /// When it was first fixed: `erlang:timestamp()` and monotonic
    /// nanoseconds (what `info/2` reports for `safe_fixed` and
    /// `safe_fixed_monotonic_time`).
    pub fixed_at: (Term, i64),
}

/// Everything `ets:new/2` decides.
pub struct Spec {
    pub kind: Kind,
    pub keypos: usize,
    pub protection: Protection,
    pub named: bool,
    pub heir: Option<(Pid, Term)>,
    pub tuning: Tuning,
}

impl Table {
    pub fn new(id: SharedId, tid: Ref, name: Atom, owner: Pid, spec: Spec) -> Table {
        Table {
            id,
            tid,
            kind: spec.kind,
            keypos: spec.keypos,
            tuning: spec.tuning,
            state: Mutex::new(TableState {
                ops: OpCount::default(),
                deleted: false,
                owner,
                heir: spec.heir,
                name,
                named: spec.named,
                protection: spec.protection,
                store: Store::new(spec.kind),
                fixes: Vec::new(),
                fixed_at: (Term::Nil, 0),
            }),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, TableState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl TableState {
    /// What the table is called in results and messages: its name if it is
    /// a named table, else its reference.
    pub fn id_term(&self, t: &Table) -> Term {
        if self.named {
            Term::Atom(self.name)
        } else {
            Term::Ref(t.tid)
        }
    }

    /// `badarg` unless `who` may read (everyone but on a private table).
    pub fn check_read(&self, who: Pid) -> Result<(), Fault> {
        if self.protection == Protection::Private && who != self.owner {
            return Err(badarg());
        }
        Ok(())
    }

    /// `badarg` unless `who` may write (the owner, or anyone on a public table).
    pub fn check_write(&self, who: Pid) -> Result<(), Fault> {
        if self.protection != Protection::Public && who != self.owner {
            return Err(badarg());
        }
        Ok(())
    }

    /// `badarg` unless `who` owns the table.
    pub fn check_owner(&self, who: Pid) -> Result<(), Fault> {
        if who != self.owner {
            return Err(badarg());
        }
        Ok(())
    }
}
