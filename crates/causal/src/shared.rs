//! Shared state in happened-before. The operations of the processes on one
//! shared object (an ETS table, an `atomics` or `counters` array,
//! `persistent_term`) are ordered: each carries its number among the
//! object's operations, and operation `k` happened before operation `k + 1`
//! (the one that follows it can observe what it did, or changes what it
//! saw). A process's own operations on an object come in program order, so
//! only an operation that follows another process's makes an edge: a
//! *dependency*, which a derivation waits for as it waits for a receipt's
//! send.

use crate::facts::{EventId, TableRow};
use std::collections::HashMap;
use trace_format::{Access, ObjectId};

/// One operation of a process on shared state, in program order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SharedFact {
    /// Event index in the process log.
    pub at: u32,
    /// `None`: the operation found no object (it failed).
    pub object: Option<ObjectId>,
    /// Its number among the object's operations.
    pub seq: u64,
    pub access: Access,
}

/// Event `at` of a process happened after event `after_at` of process
/// `after` (its operation on an object follows the other's).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct DepFact {
    pub at: u32,
    pub after: TableRow,
    pub after_at: u32,
}

/// Two operations of a log claim the same place among one object's
/// operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SameTurn {
    pub object: ObjectId,
    pub seq: u64,
    pub first: EventId,
    pub second: EventId,
}

/// The dependencies of each process (by row, sorted by event), from the
/// operations of all processes; and the operations that claim a place
/// another already holds. `ids` maps rows to process ids for the report.
pub(crate) fn dependencies(
    ops: &[Vec<SharedFact>],
    ids: &[trace_format::ProcId],
) -> (Vec<Vec<DepFact>>, Vec<SameTurn>) {
    let mut by_object: HashMap<ObjectId, Vec<(u64, TableRow, u32)>> = HashMap::new();
    for (s, list) in ops.iter().enumerate() {
        for op in list {
            if let Some(o) = op.object {
                by_object
                    .entry(o)
                    .or_default()
                    .push((op.seq, s as TableRow, op.at));
            }
        }
    }
    let mut deps: Vec<Vec<DepFact>> = vec![Vec::new(); ops.len()];
    let mut clashes = Vec::new();
    for (object, mut list) in by_object {
        list.sort_unstable();
        for w in list.windows(2) {
            let ((seq_a, sa, at_a), (seq_b, sb, at_b)) = (w[0], w[1]);
            if seq_a == seq_b {
                clashes.push(SameTurn {
                    object,
                    seq: seq_a,
                    first: EventId::new(ids[sa as usize], at_a as u64),
                    second: EventId::new(ids[sb as usize], at_b as u64),
                });
            } else if sa != sb {
                deps[sb as usize].push(DepFact {
                    at: at_b,
                    after: sa,
                    after_at: at_a,
                });
            }
        }
    }
    for d in &mut deps {
        d.sort_unstable_by_key(|d| d.at);
    }
    (deps, clashes)
}

/// For each object operation whose predecessor the log lacks (a recording
/// cut short lost it): the process (by row) and the event index. Only
/// operations numbered above 0 have a predecessor.
pub(crate) fn missing_predecessors(ops: &[Vec<SharedFact>]) -> Vec<(TableRow, u32)> {
    let mut present: HashMap<ObjectId, Vec<u64>> = HashMap::new();
    for list in ops {
        for op in list {
            if let Some(o) = op.object {
                present.entry(o).or_default().push(op.seq);
            }
        }
    }
    for seqs in present.values_mut() {
        seqs.sort_unstable();
    }
    let mut out = Vec::new();
    for (s, list) in ops.iter().enumerate() {
        for op in list {
            let Some(o) = op.object else { continue };
            if op.seq > 0 && present[&o].binary_search(&(op.seq - 1)).is_err() {
                out.push((s as TableRow, op.at));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use trace_format::{ObjectKind, ProcId};

    fn op(at: u32, serial: u32, seq: u64) -> SharedFact {
        SharedFact {
            at,
            object: Some(ObjectId {
                kind: ObjectKind::Table,
                creator: ProcId(0),
                serial,
            }),
            seq,
            access: Access::Write,
        }
    }

    #[test]
    fn each_operation_follows_the_one_before_it_on_its_object() {
        // P (row 0) creates table 0 and writes it; row 1 reads it between;
        // row 2 works on another table.
        let ops = vec![
            vec![op(0, 0, 0), op(3, 0, 2)],
            vec![op(1, 0, 1)],
            vec![op(0, 1, 0)],
        ];
        let ids = [ProcId(0), ProcId(1), ProcId(2)];
        let (deps, clashes) = dependencies(&ops, &ids);
        assert!(clashes.is_empty());
        assert_eq!(
            deps[1],
            vec![DepFact {
                at: 1,
                after: 0,
                after_at: 0
            }]
        );
        assert_eq!(
            deps[0],
            vec![DepFact {
                at: 3,
                after: 1,
                after_at: 1
            }]
        );
        assert!(deps[2].is_empty());
        // Two operations on one place are reported.
        let (_, clashes) = dependencies(&[vec![op(0, 0, 0)], vec![op(0, 0, 0)]], &ids[..2]);
        assert_eq!(clashes.len(), 1);
        // A lost predecessor is found.
        assert_eq!(missing_predecessors(&[vec![op(5, 0, 3)]]), vec![(0, 5)]);
    }
}
