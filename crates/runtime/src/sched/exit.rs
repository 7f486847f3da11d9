//! A process's end: its tables, signals to its links and monitors,
//! reports, and the end-of-run list of processes blocked forever.

use super::{signals, Blocked, Crash, EntryOutcome, RunOutcome, Runtime, Waiting, Worker};
use crate::hooks::{Event, SentSignal};
use crate::ir::Instr;
use crate::process::{ProcShared, Process, Signal};
use crate::vm::ExitInfo;
use std::fmt::Write;
use std::sync::Arc;
use trace_term::{atom, Term};

/// Ends process `p`: takes the link and monitor requests that reached it,
/// reports `Exit`, sends exit signals to its links and 'DOWN' to its monitors.
pub fn finish(
    rt: &Runtime,
    wk: &Worker,
    shared: &Arc<ProcShared>,
    mut p: Box<Process>,
    info: ExitInfo,
) {
    // Replay: signals the log says this process took before ending.
    signals::take_due(&mut p, rt, wk);
    let leftover = shared.close();
    // Links and monitors that arrived before the end are honoured: the new
    // partners hear of this exit like the others.
    if !p.directed_signals {
        for s in leftover {
            match s {
                Signal::Link { .. }
                | Signal::Monitor { .. }
                | Signal::Unlink { .. }
                | Signal::Demonitor { .. } => {
                    signals::take(&mut p, rt, wk, s);
                }
                _ => {}
            }
        }
    }
    signals::cancel_timeout(&mut p, rt);
    rt.timers.cancel_for(p.pid);
    // Its tables go before its links and monitors hear of the end, as on
    // BEAM; after `close`, so that none can be handed to it any more.
    crate::ets::owner::release_all(&mut p, rt, wk);
    let reason = info.reason.clone();
    signals::emit(&mut p, rt, Event::Exit { reason: &reason });
    // As on BEAM, the process's names are gone before its links and
    // monitors hear of its end: a supervisor restarting it on the 'EXIT'
    // can register the name again.
    {
        let mut names = rt.names.lock().unwrap_or_else(|e| e.into_inner());
        if !names.is_empty() {
            names.retain(|_, pid| *pid != p.pid);
        }
    }
    let from = p.pid;
    for l in std::mem::take(&mut p.links) {
        let out = SentSignal::Exit {
            reason: &reason,
            linked: true,
        };
        signals::send_signal(&mut p, rt, wk, l, out, |id| Signal::Exit {
            id,
            from,
            reason: reason.clone(),
            linked: true,
        });
    }
    for mb in std::mem::take(&mut p.monitored_by) {
        let out = SentSignal::Down { reason: &reason };
        signals::send_signal(&mut p, rt, wk, mb.watcher, out, |id| Signal::Down {
            id,
            from,
            shown: mb
                .name
                .map(|n| Term::tuple(vec![Term::Atom(n), Term::Atom(atom::NONODE)])),
            r: mb.r,
            reason: reason.clone(),
        });
    }
    if let Some(o) = p.observer.as_mut() {
        o.slice_end();
    }
    rt.table.remove(p.pid);

    let abnormal = !reason.is_atom(atom::NORMAL);
    if p.pid == rt.entry_pid {
        rt.record_entry(match &info.result {
            Some(v) if !abnormal => EntryOutcome::Returned(v.clone()),
            _ => EntryOutcome::Crashed(reason.clone()),
        });
        if rt.opts.halt {
            rt.halt();
        }
    }
    if abnormal {
        rt.record_crash(Crash {
            pid: p.pid,
            symbolic: p.symbolic_name(),
            reason: reason.clone(),
        });
    }
    if rt.opts.reports {
        if info.crash.is_some() {
            crash_report(rt, &p, &reason);
        } else if abnormal && p.pid == rt.entry_pid {
            // An `exit/1` or an exit signal is no crash BEAM's logger reports;
            // but the entry ending so is what `erl -eval` reports ("init
            // terminating in do_boot"): say it, once.
            entry_exit_report(rt, &p, &reason);
        }
    }
    p.me = None;
}

/// The report for an entry process that ended abnormally without an error
/// or a throw (`exit(Reason)`, or an exit signal it did not trap).
fn entry_exit_report(rt: &Runtime, p: &Process, reason: &Term) {
    let text = crate::bif::terms::pretty(reason);
    rt.report(&format!(
        "trace: the entry process {} ({}) exited with reason:\n{text}\n\n",
        p.pid,
        p.symbolic_name()
    ));
}

/// BEAM's report for a process that died of an uncaught error or throw.
fn crash_report(rt: &Runtime, p: &Process, reason: &Term) {
    let now = crate::bif::erlang::local_time_string();
    let text = crate::bif::terms::pretty(reason);
    rt.report(&format!(
        "=ERROR REPORT==== {now} ===\nError in process {} with exit value:\n{text}\n\n",
        p.pid
    ));
}

/// Every process still alive at the end: each is blocked forever, and
/// its hooks hear so (a `Blocked` event, its last).
pub fn blocked_report(rt: &Runtime) -> Vec<Blocked> {
    let mut out = Vec::new();
    for shared in rt.table.all() {
        let mut g = shared.body.lock().unwrap_or_else(|e| e.into_inner());
        let Some(p) = g.as_mut() else { continue };
        let code = &rt.program.funs[p.fun as usize];
        let w = waiting(&code.code, p.pc as usize);
        out.push(Blocked {
            pid: p.pid,
            symbolic: p.symbolic_name(),
            waiting: w,
            mfa: (code.module, code.name, code.arity),
            file: rt.program.file_text(p.fun),
            line: code.line_at(p.pc as usize),
            last_event_at: p.agreed_at.map(|(fun, pc)| rt.line_of(fun, pc as usize)),
            mailbox_len: p.mailbox.len(),
            mailbox: p
                .mailbox
                .iter()
                .take(super::BLOCKED_MAILBOX_SHOWN)
                .map(|m| m.payload.clone())
                .collect(),
        });
        // Stuck: part of a deadlock by the run's end rule.
        let stuck = rt.opts.end_rule.is_deadlock(rt.entry_pid, p.pid, w);
        signals::emit(p, rt, Event::Blocked { stuck });
        if let Some(o) = p.observer.as_mut() {
            o.slice_end();
        }
    }
    out.sort_by_key(|b| b.pid);
    out
}

/// What the receive at `pc` waits for. A process waits at the head of its
/// receive's scan (the `RecvPeek` its wait goes back to); one stopped
/// anywhere else (a built-in waiting for its turn under replay) is stuck.
fn waiting(code: &[Instr], pc: usize) -> Waiting {
    match code.get(pc) {
        Some(Instr::RecvPeek { filter, .. }) => match filter {
            Some(f) if f.is_specific() => Waiting::Stuck,
            _ => Waiting::Idle,
        },
        _ => Waiting::Stuck,
    }
}

/// The end-of-run report on stderr: the processes that make a deadlock,
/// each with where it waits, and one line naming the servers left idle.
pub fn print_blocked(rt: &Runtime, o: &RunOutcome) {
    let mut err = String::new();
    let stuck: Vec<&Blocked> = o.deadlocked().collect();
    if !stuck.is_empty() {
        let n = stuck.len();
        let _ = writeln!(
            &mut err,
            "trace: {n} process{} blocked forever at the end of the run (deadlock):",
            if n == 1 { "" } else { "es" }
        );
        for b in stuck {
            let _ = writeln!(
                &mut err,
                "  {} ({}) in {}:{}/{} waiting in receive at {}:{} ({} message{} in mailbox)",
                b.pid,
                b.symbolic,
                b.mfa.0.name(),
                b.mfa.1.name(),
                b.mfa.2,
                b.file,
                b.line,
                b.mailbox_len,
                if b.mailbox_len == 1 { "" } else { "s" }
            );
        }
    }
    let idle: Vec<&Blocked> = o.idle().collect();
    if !idle.is_empty() {
        const NAMED: usize = 5;
        let names: Vec<String> = idle
            .iter()
            .take(NAMED)
            .map(|b| {
                format!(
                    "{} ({}) in {}:{}/{}",
                    b.pid,
                    b.symbolic,
                    b.mfa.0.name(),
                    b.mfa.1.name(),
                    b.mfa.2
                )
            })
            .collect();
        let more = match idle.len().saturating_sub(NAMED) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let _ = writeln!(
            &mut err,
            "trace: left idle in receive at the end of the run: {}{more}",
            names.join(", ")
        );
    }
    rt.report(&err);
}
