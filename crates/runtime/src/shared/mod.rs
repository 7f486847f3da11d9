//! Shared state: what processes read and write besides messages. ETS tables
//! live in [`crate::ets`]; `atomics` and `counters` arrays in [`arrays`];
//! `persistent_term` in [`persistent`].
//!
//! Which process touches an object first is a nondeterministic choice, like
//! the order of writes to standard output: each object counts its
//! operations ([`OpCount`]), every operation is reported to the hooks as a
//! [`SharedOp`] with its position, and a Director may make an operation
//! wait until the object's count reaches a position ([`SharedTurn::At`]).
//! [`turn`] holds that protocol.

pub mod arrays;
pub mod persistent;
pub mod turn;

use trace_term::{Atom, Pid, Term};

/// The names an operation's `function` may take: the built-ins of the
/// modules of shared state, and `exit` (what a process's end does to the
/// tables it owns). A log lists them in its header and names a function by
/// its place in this list.
pub fn function_names() -> Vec<&'static str> {
    const MODULES: [&str; 4] = ["ets", "atomics", "counters", "persistent_term"];
    let mut names: Vec<&'static str> = crate::bif::registry()
        .all()
        .filter(|d| MODULES.contains(&d.module.name()))
        .map(|d| d.name.name())
        .collect();
    names.push("exit");
    names.sort_unstable();
    names.dedup();
    names
}

/// What kind of shared object an operation touches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SharedKind {
    /// An ETS table.
    Table,
    /// An array made by `atomics:new/2`.
    Atomics,
    /// An array made by `counters:new/2`.
    Counters,
    /// The `persistent_term` store (one for the whole run).
    PersistentTerm,
}

/// A shared object's stable identity: the process that created it and how
/// many objects of the same kind that process had created before (its first
/// table is serial 0). Raw addresses and references are not used, so the
/// identity is the same in every run that creates the same objects.
/// `persistent_term`, which exists from the start, is created by `<0.0.0>`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SharedId {
    pub kind: SharedKind,
    pub creator: Pid,
    pub serial: u32,
}

impl SharedId {
    /// The one `persistent_term` store.
    pub const PERSISTENT_TERM: SharedId = SharedId {
        kind: SharedKind::PersistentTerm,
        creator: Pid(0),
        serial: 0,
    };
}

/// What an operation does to the object it touches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Makes the object (its first operation, position 0).
    Create,
    /// Reads it (`lookup`, `get`, `info`, `select`, ...).
    Read,
    /// Changes it without reading (`insert`, `put`, `delete_all_objects`).
    Write,
    /// Reads and changes it in one step (`update_counter`, `take`,
    /// `insert_new`, `select_delete`, `add_get`, `compare_exchange`, ...).
    ReadWrite,
    /// Deletes it (`ets:delete/1`, or its owner's end).
    Delete,
    /// Gives it another owner (`give_away`, `setopts`, the heir at the owner's end).
    Transfer,
}

/// One operation of a process on shared state, as the hooks see it.
#[derive(Clone, Copy, Debug)]
pub struct SharedOp<'a> {
    /// The object; `None` when the operation found none (a deleted table, a
    /// name nobody holds): it then failed, as BEAM fails it (`badarg`, or
    /// `undefined` from `ets:info`/`ets:whereis`).
    pub object: Option<SharedId>,
    /// A named table's name when the operation happened.
    pub name: Option<Atom>,
    pub access: Access,
    /// The function (`"insert"`, `"update_counter"`, `"add_get"`, `"get"`;
    /// `"exit"` for what a process's end does to a table it owns).
    pub function: &'static str,
    /// The argument that named the object (a table id or name, an array
    /// reference, `[]` for `persistent_term` and `"exit"`).
    pub target: &'a Term,
    /// The key or index the operation is about, when it has one.
    pub key: Option<&'a Term>,
    /// The operation's position among all operations on the object (0 is
    /// its creation; `persistent_term` counts from its first use). 0 when
    /// `object` is `None`.
    pub seq: u64,
}

/// When an operation on shared state may happen, as a Director decides.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SharedTurn {
    /// Now, on whatever the argument names now (native).
    Now,
    /// On this object, when its count of operations reaches `seq`: the
    /// process waits until the object exists and the count is there.
    /// `name`: a named table's name after the operation, when the log says
    /// (a rename that failed in the recorded run leaves the old one).
    At {
        object: SharedId,
        seq: u64,
        name: Option<Atom>,
    },
    /// The operation finds no object (it fails as on a deleted table).
    Missing,
}

/// The operations on one object so far, and the processes waiting for a
/// position (replay). Kept under the object's own lock.
#[derive(Default, Debug)]
pub struct OpCount {
    next: u64,
    waiting: Vec<Pid>,
}

impl OpCount {
    /// Takes the next position if `want` (`None`: any) allows it; otherwise
    /// `who` waits to be woken by the next operation.
    pub fn take(&mut self, want: Option<u64>, who: Pid) -> Option<u64> {
        match want {
            Some(w) if w != self.next => {
                if !self.waiting.contains(&who) {
                    self.waiting.push(who);
                }
                None
            }
            _ => {
                self.next += 1;
                Some(self.next - 1)
            }
        }
    }

    /// The processes to wake after an operation (their turn may have come).
    pub fn wakeups(&mut self) -> Vec<Pid> {
        std::mem::take(&mut self.waiting)
    }

    /// How many operations so far.
    pub fn count(&self) -> u64 {
        self.next
    }
}
