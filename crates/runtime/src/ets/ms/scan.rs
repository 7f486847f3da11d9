//! Running a match specification over a table's objects, in the table's
//! order (or backwards, for `select_reverse` on an `ordered_set`), from a
//! position and up to a number of results: what `select/1,2,3`,
//! `match/1,2,3` and their continuations do.

use super::MatchSpec;
use crate::ets::store::Store;
use trace_term::order::compare;
use trace_term::{Pid, Term};

/// Where a search stopped.
#[derive(Clone, Debug)]
pub enum Position {
    Start,
    /// `ordered_set`: after (or, backwards, before) this key.
    Key(Term),
    /// Other tables: after the slot at `index`, which held `key`, as the
    /// slots were in compaction `epoch`.
    Slot {
        epoch: u64,
        index: usize,
        key: Term,
    },
}

/// A search's results and, if it stopped at its limit, where to go on.
pub struct Chunk {
    pub results: Vec<Term>,
    pub next: Option<Position>,
}

pub struct Search<'a> {
    pub ms: &'a MatchSpec,
    pub keypos: usize,
    pub me: Pid,
    pub reverse: bool,
    pub limit: Option<usize>,
}

impl Search<'_> {
    /// Runs the search on `store` from `from`.
    pub fn run(&self, store: &Store, from: &Position) -> Chunk {
        let mut out = Chunk {
            results: Vec::new(),
            next: None,
        };
        let mut binds = Vec::new();
        let bound = self.ms.bound_key(self.keypos);
        match store {
            Store::Ordered(o) => {
                let after = match from {
                    Position::Key(k) => Some(k),
                    _ => None,
                };
                if let Some(k) = bound {
                    let ahead = after.is_none_or(|a| {
                        let c = compare(k, a);
                        if self.reverse {
                            c.is_lt()
                        } else {
                            c.is_gt()
                        }
                    });
                    if let (true, Some(obj)) = (ahead, o.get(k)) {
                        self.take(obj, &mut out, &mut binds, || Position::Key(k.clone()));
                    }
                    return out;
                }
                let it: Box<dyn Iterator<Item = (&Term, &Term)>> = if self.reverse {
                    Box::new(o.down_from(after))
                } else {
                    Box::new(o.from(after))
                };
                for (k, obj) in it {
                    if self.take(obj, &mut out, &mut binds, || Position::Key(k.clone())) {
                        break;
                    }
                }
            }
            Store::Hashed(h) => {
                let start = match from {
                    Position::Start | Position::Key(_) => 0,
                    Position::Slot { epoch, index, key } => {
                        if *epoch == h.epoch() {
                            index + 1
                        } else {
                            // Compacted since: find the key again (BEAM
                            // too may skip or repeat objects of a table
                            // changed between the calls).
                            h.position(key).map_or(*index + 1, |p| p + 1)
                        }
                    }
                };
                let epoch = h.epoch();
                let mut i = start;
                while let Some((at, k, objs)) = h.at_or_after(i) {
                    i = at + 1;
                    if bound.is_some_and(|b| !trace_term::order::exact_eq(b, k)) {
                        continue;
                    }
                    let mut stop = false;
                    for obj in objs.as_slice() {
                        stop |= self.take(obj, &mut out, &mut binds, || Position::Slot {
                            epoch,
                            index: at,
                            key: k.clone(),
                        });
                    }
                    if stop {
                        break;
                    }
                }
            }
        }
        out
    }

    /// Runs the specification on one object; true once the limit is
    /// reached (the position after this object's key is then saved).
    fn take(
        &self,
        obj: &Term,
        out: &mut Chunk,
        binds: &mut Vec<Term>,
        at: impl FnOnce() -> Position,
    ) -> bool {
        if let Some(r) = self.ms.run(obj, self.me, binds) {
            out.results.push(r);
        }
        match self.limit {
            Some(l) if out.results.len() >= l => {
                if out.next.is_none() {
                    out.next = Some(at());
                }
                true
            }
            _ => false,
        }
    }
}
