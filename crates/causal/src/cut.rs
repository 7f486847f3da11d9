//! The consistent cut of a log cut short: a recording killed or interrupted
//! keeps whatever blocks reached the file, so one process's log may hold the
//! receipt of a message whose send, in another process's log, was lost. The
//! largest part of such a log that could have happened on its own is the
//! largest set of events closed under happened-before: every event's causes
//! are in it. It is a prefix of every process log, found by cutting each
//! process before its first event whose cause is missing, until nothing
//! changes. An operation on a shared object whose predecessor on the
//! object the log lost entirely is cut too: a replay could not give it its
//! turn.

use crate::facts::NO_ROW;
use crate::model::Model;

/// For each process (in [`Model::processes`] order), how many of its
/// first events belong to the consistent cut. For a complete,
/// consistent log that is every event. Costs O(receipts) per round, and
/// a round only follows a cut.
pub fn consistent_cut(model: &Model) -> Vec<u64> {
    let mut holds: Vec<u64> = model.procs.iter().map(|p| p.events).collect();
    for (s, at) in crate::shared::missing_predecessors(&model.shared) {
        holds[s as usize] = holds[s as usize].min(u64::from(at));
    }
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..model.procs.len() {
            // A process other than the entry exists only after its spawn.
            let spawned = match model.spawned_by[s] {
                Some((parent, at)) => u64::from(at) < holds[parent as usize],
                None => model.procs[s].id == trace_format::ProcId(0),
            };
            if !spawned {
                if holds[s] > 0 {
                    holds[s] = 0;
                    changed = true;
                }
                continue;
            }
            for rc in model.receipts_of(s as u32) {
                if u64::from(rc.at) >= holds[s] {
                    break;
                }
                let sent = match rc.sender {
                    NO_ROW => None,
                    q => model
                        .signal(q, rc.index)
                        .filter(|f| u64::from(f.at) < holds[q as usize]),
                };
                if sent.is_none() {
                    holds[s] = u64::from(rc.at);
                    changed = true;
                    break;
                }
            }
            for d in model.deps_of(s as u32) {
                if u64::from(d.at) >= holds[s] {
                    break;
                }
                if u64::from(d.after_at) >= holds[d.after as usize] {
                    holds[s] = u64::from(d.at);
                    changed = true;
                    break;
                }
            }
        }
    }
    holds
}
