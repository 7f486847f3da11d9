//! What a process's end does to the tables it owns: each goes to its heir
//! (which gets `{'ETS-TRANSFER', Tab, FromPid, HeirData}`), if it has a
//! live one, or is deleted, before the end's exit signals go out (as on
//! BEAM, a process that sees the owner's `'DOWN'` finds the table gone).
//! Each is an operation of the ending process on the table, named `"exit"`.

use super::{Table, TableState};
use crate::hooks::SharedTurn;
use crate::process::Process;
use crate::sched::{signals, Runtime, Worker};
use crate::shared::{turn, Access, SharedOp};
use std::sync::Arc;
use trace_term::{Pid, Term};

/// How releasing one table went.
#[derive(Debug, PartialEq, Eq)]
pub enum Release {
    Done,
    /// Its turn (replay) has not come: the process waits.
    Wait,
    /// The process no longer owns it (or it is gone): nothing to do.
    NotOwned,
}

/// Releases every table `p` owns (native order: oldest first). Runs after
/// `p` is marked ended, so no table can be handed to it any more.
pub fn release_all(p: &mut Process, rt: &Runtime, wk: &Worker) {
    for t in std::mem::take(&mut p.ets_fixed) {
        let mut st = t.lock();
        st.fixes.retain(|(who, _)| *who != p.pid);
        if st.fixes.is_empty() {
            st.store.set_fixed(false);
        }
    }
    p.ets_cache = None;
    for t in rt.ets.owned_by(p.pid) {
        release(p, rt, wk, &t, None);
    }
}

/// Replay: the releases the Director says `p`'s end does, each in its
/// turn. False while one has to wait (the process is woken by the table's
/// next operation and tries again).
pub fn exit_turns(p: &mut Process, rt: &Runtime, wk: &Worker) -> bool {
    loop {
        if rt.stopping() {
            return true;
        }
        let Some(d) = p.director.as_mut() else {
            return true;
        };
        let (object, seq) = match d.shared_turn("exit", &Term::Nil) {
            Ok(SharedTurn::At { object, seq, .. }) => (object, seq),
            Ok(_) => return true,
            Err(div) => {
                rt.diverge(p, div, false);
                return true;
            }
        };
        let Some(t) = rt.ets.by_id_or_await(object, p.pid) else {
            return false;
        };
        match release(p, rt, wk, &t, Some(seq)) {
            Release::Done => {}
            Release::Wait => return false,
            // The log says this end released a table it does not own: the
            // Director sees the run depart when the end goes on.
            Release::NotOwned => return true,
        }
    }
}

/// Gives `t` to its heir or deletes it, as `p` ends.
pub fn release(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    t: &Arc<Table>,
    want: Option<u64>,
) -> Release {
    let mut st = t.lock();
    if st.deleted || st.owner != p.pid {
        return Release::NotOwned;
    }
    let Some(seq) = st.ops.take(want, p.pid) else {
        return Release::Wait;
    };
    let heir = st.heir.clone().filter(|(h, _)| *h != p.pid);
    let given = heir.filter(|(h, _)| {
        rt.ets
            .transfer(t, p.pid, *h, || turn::decide_alive(p, rt, *h))
    });
    let access = match &given {
        Some((h, _)) => {
            st.owner = *h;
            Access::Transfer
        }
        None => {
            delete(rt, t, &mut st);
            Access::Delete
        }
    };
    let target = st.id_term(t);
    let name = st.named.then_some(st.name);
    let waiting = st.ops.wakeups();
    drop(st);
    turn::wake(rt, Some(wk), waiting);
    turn::report(
        p,
        rt,
        &SharedOp {
            object: Some(t.id),
            name,
            access,
            function: "exit",
            target: &target,
            key: None,
            seq,
        },
    );
    if let Some((h, data)) = given {
        let msg = transfer_message(&target, p.pid, data);
        signals::send_message(p, rt, wk, h, msg, None);
    }
    Release::Done
}

/// Deletes a table (its state locked): every later operation fails.
pub fn delete(rt: &Runtime, t: &Table, st: &mut TableState) {
    st.deleted = true;
    st.store.clear();
    st.fixes.clear();
    rt.ets.unregister(t, st);
}

/// `{'ETS-TRANSFER', Tab, FromPid, Data}`.
pub fn transfer_message(tab: &Term, from: Pid, data: Term) -> Term {
    Term::tuple(vec![
        Term::atom("ETS-TRANSFER"),
        tab.clone(),
        Term::Pid(from),
        data,
    ])
}
