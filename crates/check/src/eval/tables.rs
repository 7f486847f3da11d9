//! ETS tables as `ets(P, Table, Op, Key)` names them: a named table by the
//! name it was created with, an unnamed one as `{Creator, Serial}` (the
//! creating process's pid and the number of objects it had created before).
//! The log names a table only in its `new` event (docs/format.md §6.6), so
//! the log is read for names only when a property uses `ets`.

use std::collections::HashMap;
use trace_format::{Access, EventRef, LogReader, ObjectId, ObjectKind, ProcId};
use trace_term::{Pid, Term};

/// The names tables were created with.
#[derive(Default)]
pub struct TableNames {
    named: HashMap<ObjectId, Term>,
    /// Every table created in the readable blocks, named or not.
    created: Vec<ObjectId>,
}

impl TableNames {
    /// Every table's `new` event the readable blocks hold.
    pub fn read(reader: &LogReader) -> TableNames {
        let per_block = reader.par_map_each_block(|events| {
            let mut found = Vec::new();
            for e in events.by_ref() {
                if let EventRef::Shared {
                    object: Some(o),
                    access: Access::Create,
                    name,
                    ..
                } = e
                {
                    let name = name.and_then(|n| trace_term::etf::decode(n).ok());
                    found.push((o, name));
                }
            }
            found
        });
        let mut t = TableNames::default();
        for (o, name) in per_block.into_iter().flatten().flatten() {
            if is_table(Some(o)) {
                t.created.push(o);
            }
            if let Some(n) = name {
                t.named.insert(o, n);
            }
        }
        t
    }

    /// The terms every table created in the log is matched as.
    pub fn all_terms(&self, pid: impl Fn(ProcId) -> Option<u64> + Copy) -> Vec<Term> {
        self.created.iter().map(|&o| self.term(o, pid)).collect()
    }

    /// The term `object` is matched as; `pid` gives a process's raw pid.
    pub fn term(&self, object: ObjectId, pid: impl Fn(ProcId) -> Option<u64>) -> Term {
        if let Some(t) = self.named.get(&object) {
            return t.clone();
        }
        let creator = pid(object.creator).map_or(Term::atom("undefined"), |n| Term::Pid(Pid(n)));
        Term::tuple(vec![creator, Term::Int(object.serial as i64)])
    }
}

/// Whether a shared event's object is an ETS table.
pub fn is_table(object: Option<ObjectId>) -> bool {
    object.is_some_and(|o| o.kind == ObjectKind::Table)
}
