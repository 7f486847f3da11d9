//! ETS: tables shared between processes, with BEAM's semantics (OTP 25).
//!
//! - [`table`]: one table, its fixed properties and its locked state;
//! - [`store`]: how a table keeps its objects (a hash index in insertion
//!   order for `set`/`bag`/`duplicate_bag`, a B-tree for `ordered_set`),
//!   with [`key`] saying how keys compare;
//! - [`ms`]: match specifications (`select`, `match`, `match_spec_run`);
//! - [`update`]: `update_counter` and `update_element`;
//! - [`owner`]: what a process's end does to its tables (deleted, or given
//!   to the heir).
//!
//! [`Tables`] is the registry: tables by reference, by name, by identity,
//! and by owner. Each table has its own lock; the registry's lock is taken
//! only to find a table (and processes remember the table they used last,
//! so a program hammering one table skips it), to create, delete, rename
//! one or change its owner. Locks are taken table first, registry second.
//!
//! The built-ins are in `bif::ets`; every operation on a table is a
//! shared-state operation ([`crate::shared`]).

pub mod key;
pub mod ms;
pub mod owner;
pub mod store;
pub mod table;
pub mod update;

pub use table::{Kind, Protection, Table, TableState};

use crate::exception::{badarg, Fault};
use crate::shared::SharedId;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use trace_term::{Atom, Pid, Ref, Term};

#[derive(Default)]
struct Registry {
    by_ref: HashMap<Ref, Arc<Table>>,
    by_name: HashMap<Atom, Arc<Table>>,
    by_id: HashMap<SharedId, Arc<Table>>,
    /// Tables by owner, in creation order of their references.
    owned: HashMap<Pid, BTreeSet<Ref>>,
    /// Processes waiting for a table to be created (replay).
    awaiting: Vec<Pid>,
}

/// Every live table of a run.
#[derive(Default)]
pub struct Tables {
    reg: RwLock<Registry>,
    live: AtomicUsize,
}

/// What names a table in a call: its reference or its name.
pub fn is_table_name(t: &Term) -> bool {
    matches!(t, Term::Ref(_) | Term::Atom(_))
}

impl Tables {
    fn read(&self) -> RwLockReadGuard<'_, Registry> {
        self.reg.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Registry> {
        self.reg.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Live tables.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Acquire)
    }

    /// The table `name` (a reference or a named table's name) stands for
    /// now; `badarg` for a term that cannot name a table.
    pub fn resolve(&self, name: &Term) -> Result<Option<Arc<Table>>, Fault> {
        let reg = self.read();
        Ok(match name {
            Term::Ref(r) => reg.by_ref.get(r).cloned(),
            Term::Atom(a) => reg.by_name.get(a).cloned(),
            _ => return Err(badarg()),
        })
    }

    /// The table with identity `id`; if it does not exist yet, `who` waits
    /// to be woken when a table is created (replay: its creator has not
    /// caught up).
    pub fn by_id_or_await(&self, id: SharedId, who: Pid) -> Option<Arc<Table>> {
        if let Some(t) = self.read().by_id.get(&id) {
            return Some(t.clone());
        }
        let mut reg = self.write();
        match reg.by_id.get(&id) {
            Some(t) => Some(t.clone()),
            None => {
                if !reg.awaiting.contains(&who) {
                    reg.awaiting.push(who);
                }
                None
            }
        }
    }

    /// Registers a new table owned by `owner`, under `name` if it is a
    /// named table. `None` if another table holds the name, unless `force`
    /// (a replay Director forces a creation that happened after the other
    /// table gave the name up: the new table takes it). Otherwise returns
    /// the processes waiting for a creation.
    pub fn register(
        &self,
        t: Arc<Table>,
        name: Option<Atom>,
        owner: Pid,
        force: bool,
    ) -> Option<Vec<Pid>> {
        let mut reg = self.write();
        if let Some(n) = name {
            if reg.by_name.contains_key(&n) && !force {
                return None;
            }
            reg.by_name.insert(n, t.clone());
        }
        reg.by_ref.insert(t.tid, t.clone());
        reg.by_id.insert(t.id, t.clone());
        reg.owned.entry(owner).or_default().insert(t.tid);
        self.live.fetch_add(1, Ordering::AcqRel);
        Some(std::mem::take(&mut reg.awaiting))
    }

    /// Forgets a deleted table (called with its state locked).
    pub fn unregister(&self, t: &Table, st: &TableState) {
        let mut reg = self.write();
        if reg.by_ref.remove(&t.tid).is_none() {
            return;
        }
        reg.by_id.remove(&t.id);
        if st.named && reg.by_name.get(&st.name).is_some_and(|x| x.tid == t.tid) {
            reg.by_name.remove(&st.name);
        }
        if let Some(s) = reg.owned.get_mut(&st.owner) {
            s.remove(&t.tid);
            if s.is_empty() {
                reg.owned.remove(&st.owner);
            }
        }
        self.live.fetch_sub(1, Ordering::AcqRel);
    }

    /// Moves a named table from its name to `new` (called with its state
    /// locked); false if another table holds `new`, unless `force` (as for
    /// [`Tables::register`]).
    pub fn rename(&self, t: &Table, st: &TableState, new: Atom, force: bool) -> bool {
        let mut reg = self.write();
        match reg.by_name.get(&new) {
            Some(x) if x.tid == t.tid => return true,
            Some(_) if !force => return false,
            _ => {}
        }
        let Some(me) = reg.by_ref.get(&t.tid).cloned() else {
            return false;
        };
        if reg.by_name.get(&st.name).is_some_and(|x| x.tid == t.tid) {
            reg.by_name.remove(&st.name);
        }
        reg.by_name.insert(new, me);
        true
    }

    /// Makes `to` the owner of a table owned by `from` (called with its
    /// state locked), if `alive` says `to` is alive. `alive` runs under the
    /// registry's lock, which a process's end takes after it is marked
    /// ended, so a table cannot be given to a process that has already
    /// released its tables.
    pub fn transfer(&self, t: &Table, from: Pid, to: Pid, alive: impl FnOnce() -> bool) -> bool {
        let mut reg = self.write();
        if !alive() {
            return false;
        }
        if let Some(s) = reg.owned.get_mut(&from) {
            s.remove(&t.tid);
            if s.is_empty() {
                reg.owned.remove(&from);
            }
        }
        reg.owned.entry(to).or_default().insert(t.tid);
        true
    }

    /// The tables `pid` owns, oldest first; they stay registered.
    pub fn owned_by(&self, pid: Pid) -> Vec<Arc<Table>> {
        if self.live() == 0 {
            return Vec::new();
        }
        let reg = self.read();
        reg.owned
            .get(&pid)
            .map(|s| {
                s.iter()
                    .filter_map(|r| reg.by_ref.get(r).cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every live table, in order of identity.
    pub fn all(&self) -> Vec<Arc<Table>> {
        let mut v: Vec<Arc<Table>> = self.read().by_ref.values().cloned().collect();
        v.sort_by_key(|t| t.id);
        v
    }
}
