//! Where a rebuild that did not place every event stopped: each stuck
//! process waits for one event of another, and following those waits
//! leads round the happened-before cycles.

use super::{Progress, Rare};
use crate::facts::{EventId, TableRow};
use crate::inconsistency::{Wait, WaitReason};
use crate::model::Model;
use trace_format::{MsgId, ProcId};

/// The wait of a process that did not finish, if it has one.
fn wait_of(model: &Model, s: TableRow, st: &Progress, rare: Rare) -> Option<Wait> {
    let me = model.id(s);
    if !st.started {
        let (parent, at) = model.spawned_by[s as usize]?;
        return Some(Wait {
            event: EventId::new(me, 0),
            needs: EventId::new(model.id(parent), at as u64),
            why: WaitReason::Spawn,
        });
    }
    if let Some(dp) = model
        .deps_of(s)
        .get(rare.d as usize)
        .filter(|dp| dp.at == st.cursor)
    {
        return Some(Wait {
            event: EventId::new(me, dp.at as u64),
            needs: EventId::new(model.id(dp.after), dp.after_at as u64),
            why: WaitReason::Shared,
        });
    }
    // A process waiting for a signal stands at the receipt it has taken
    // in advance (see `run_process`).
    let taken = (st.r as usize).checked_sub(1)?;
    let rc = st.receipts.get(taken).filter(|rc| rc.at == st.cursor)?;
    let f = model.signal(rc.sender, rc.index)?;
    let sender = model.id(rc.sender);
    Some(Wait {
        event: EventId::new(me, rc.at as u64),
        needs: EventId::new(sender, f.at as u64),
        why: WaitReason::Signal(MsgId {
            sender,
            index: rc.index as u64,
        }),
    })
}

/// Follows the waits of the processes left unfinished: every one waits
/// for exactly one other, so the waits form cycles with trees hanging
/// off them.
pub(super) fn stuck(
    model: &Model,
    prog: &[Progress],
    rare: &[Rare],
) -> (Vec<Vec<Wait>>, Vec<ProcId>) {
    let stuck: Vec<TableRow> = (0..prog.len() as TableRow)
        .filter(|&s| {
            let st = &prog[s as usize];
            !st.started && st.end > 0 || st.cursor < st.end
        })
        .collect();
    if stuck.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let waits: Vec<Option<Wait>> = (0..prog.len() as TableRow)
        .map(|s| {
            let st = &prog[s as usize];
            if !st.started && st.end > 0 || st.cursor < st.end {
                wait_of(model, s, st, rare[s as usize])
            } else {
                None
            }
        })
        .collect();
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; prog.len()];
    let mut cycles = Vec::new();
    let mut on_cycle = vec![false; prog.len()];
    for &start in &stuck {
        let mut path: Vec<TableRow> = Vec::new();
        let mut at = start;
        loop {
            if state[at as usize] == DONE {
                break;
            }
            if state[at as usize] == ON_PATH {
                // `at` closes a cycle: the part of the path from it.
                let from = path.iter().position(|&x| x == at).unwrap_or(0);
                let cycle: Vec<Wait> = path[from..]
                    .iter()
                    .filter_map(|&x| waits[x as usize])
                    .collect();
                for &x in &path[from..] {
                    on_cycle[x as usize] = true;
                }
                cycles.push(cycle);
                break;
            }
            state[at as usize] = ON_PATH;
            path.push(at);
            match waits[at as usize].and_then(|w| model.slot(w.needs.proc)) {
                Some(next) if waits[next as usize].is_some() => at = next,
                _ => break,
            }
        }
        for x in path {
            state[x as usize] = DONE;
        }
    }
    let behind = stuck
        .into_iter()
        .filter(|&s| !on_cycle[s as usize])
        .map(|s| model.id(s))
        .collect();
    (cycles, behind)
}
