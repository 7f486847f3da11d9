//! The spawn tree: each process but the entry one was spawned exactly once,
//! by the parent the process table names. (A spawn of a process the log does
//! not hold, or with another pid, is found while building the model; a
//! process acting before its spawn shows up as a happened-before cycle.)

use crate::facts::{EventId, NO_ROW};
use crate::inconsistency::{Inconsistency, Unverifiable};
use crate::model::Model;
use trace_format::ProcId;

pub(super) fn check(m: &Model, out: &mut Vec<Inconsistency>, unverifiable: &mut Vec<Unverifiable>) {
    for (p, parent) in m.procs.iter().enumerate() {
        for sp in m.spawns_of(p as u32) {
            if sp.child == NO_ROW {
                continue;
            }
            let spawn = EventId::new(parent.id, sp.at as u64);
            let child = &m.procs[sp.child as usize];
            match m.spawned_by[sp.child as usize] {
                Some((q, at)) if (q, at) != (p as u32, sp.at) => {
                    out.push(Inconsistency::SpawnedTwice {
                        child: child.id,
                        first: EventId::new(m.id(q), at as u64),
                        again: spawn,
                    })
                }
                _ if child.id == ProcId(0) || child.parent != Some(parent.id) => {
                    out.push(Inconsistency::SpawnParent {
                        spawn,
                        child: child.id,
                        table: child.parent,
                    })
                }
                _ => {}
            }
        }
    }
    for (s, p) in m.procs.iter().enumerate() {
        if p.id == ProcId(0) || m.spawned_by[s].is_some() {
            continue;
        }
        // In an incomplete log the parent's spawn may be in a block that was never written.
        let parent_cut = p
            .parent
            .and_then(|q| m.process(q))
            .is_some_and(|q| q.incomplete());
        if m.complete && !parent_cut {
            out.push(Inconsistency::NeverSpawned {
                process: p.id,
                parent: p.parent,
            });
        } else {
            unverifiable.push(Unverifiable::Spawn { process: p.id });
        }
    }
}
