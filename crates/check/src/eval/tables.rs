//! ETS tables as `ets(P, Table, Op, Key)` names them: a named table by the
//! name it had at the operation (the one it was created with, or its last
//! `rename` before), an unnamed one as `{Creator, Serial}` (the creating
//! process's pid and the number of objects it had created before). The log
//! names a table only in its `new` and `rename` events (docs/format.md
//! §6.6), so the log is read for names only when a property uses `ets`.

use std::collections::HashMap;
use trace_format::{Access, EventRef, LogReader, ObjectId, ObjectKind, ProcId};
use trace_term::{Pid, Term};

/// The names tables were created with.
#[derive(Default)]
pub struct TableNames {
    /// Per named table, its names from the operation (its position among
    /// the table's operations) that gave each, in order.
    named: HashMap<ObjectId, Vec<(u64, Term)>>,
    /// Every table created in the readable blocks, named or not.
    created: Vec<ObjectId>,
}

impl TableNames {
    /// Every table's `new` and every name a `rename` gave, from the
    /// readable blocks.
    pub fn read(reader: &LogReader) -> TableNames {
        let per_block = reader.par_map_each_block(|events| {
            let mut found = Vec::new();
            for e in events.by_ref() {
                if let EventRef::Shared {
                    object: Some(o),
                    access,
                    name,
                    seq,
                    ..
                } = e
                {
                    let created = access == Access::Create;
                    if created || name.is_some() {
                        let name = name.and_then(|n| trace_term::etf::decode(n).ok());
                        found.push((o, created, seq, name));
                    }
                }
            }
            found
        });
        let mut t = TableNames::default();
        for (o, created, seq, name) in per_block.into_iter().flatten().flatten() {
            if created && is_table(Some(o)) {
                t.created.push(o);
            }
            if let Some(n) = name {
                t.named.entry(o).or_default().push((seq, n));
            }
        }
        for names in t.named.values_mut() {
            names.sort_by_key(|(seq, _)| *seq);
        }
        t
    }

    /// The terms every table created in the log is matched as, under any
    /// of its names.
    pub fn all_terms(&self, pid: impl Fn(ProcId) -> Option<u64> + Copy) -> Vec<Term> {
        let mut all = Vec::new();
        for &o in &self.created {
            match self.named.get(&o) {
                Some(names) => all.extend(names.iter().map(|(_, n)| n.clone())),
                None => all.push(self.term(o, 0, pid)),
            }
        }
        all
    }

    /// The term `object` is matched as at its operation number `seq`;
    /// `pid` gives a process's raw pid.
    pub fn term(&self, object: ObjectId, seq: u64, pid: impl Fn(ProcId) -> Option<u64>) -> Term {
        if let Some(names) = self.named.get(&object) {
            // A rename is named by the name it was called with: the one before.
            let at = names.partition_point(|(s, _)| *s < seq).max(1);
            return names[at - 1].1.clone();
        }
        let creator = pid(object.creator).map_or(Term::atom("undefined"), |n| Term::Pid(Pid(n)));
        Term::tuple(vec![creator, Term::Int(object.serial as i64)])
    }
}

/// Whether a shared event's object is an ETS table.
pub fn is_table(object: Option<ObjectId>) -> bool {
    object.is_some_and(|o| o.kind == ObjectKind::Table)
}
