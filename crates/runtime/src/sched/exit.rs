//! A process's end: signals to its links and monitors, reports, and the
//! end-of-run list of processes blocked forever.

use super::{signals, Blocked, Crash, EntryOutcome, Runtime, Worker};
use crate::hooks::{Event, SignalOut};
use crate::process::{ProcShared, Process, Signal};
use crate::vm::ExitInfo;
use std::io::Write;
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
        let out = SignalOut::Exit {
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
        let out = SignalOut::Down { reason: &reason };
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
    }
    if abnormal {
        rt.record_crash(Crash {
            pid: p.pid,
            symbolic: p.symbolic_name(),
            reason: reason.clone(),
        });
    }
    if let (Some(_), true) = (&info.crash, rt.opts.reports) {
        crash_report(rt, &p, &reason);
    }
    p.me = None;
}

/// BEAM's report for a process that died of an uncaught error or throw.
fn crash_report(rt: &Runtime, p: &Process, reason: &Term) {
    let _g = rt.stderr.lock().unwrap_or_else(|e| e.into_inner());
    let now = crate::bif::erlang::local_time_string();
    let text = crate::bif::terms::pretty(reason);
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "=ERROR REPORT==== {now} ===\nError in process {} with exit value:\n{text}\n\n",
        p.pid
    );
}

/// Every process still alive at the end: each is blocked forever.
pub fn blocked_report(rt: &Runtime) -> Vec<Blocked> {
    let mut out = Vec::new();
    for shared in rt.table.all() {
        let g = shared.body.lock().unwrap_or_else(|e| e.into_inner());
        let Some(p) = g.as_ref() else { continue };
        let code = &rt.program.funs[p.fun as usize];
        out.push(Blocked {
            pid: p.pid,
            symbolic: p.symbolic_name(),
            mfa: (code.module, code.name, code.arity),
            file: rt
                .program
                .files
                .get(code.file as usize)
                .map(|f| f.display().to_string())
                .unwrap_or_default(),
            line: code.line_at(p.pc as usize),
            mailbox_len: p.mailbox.len(),
            mailbox: p
                .mailbox
                .iter()
                .take(super::BLOCKED_MAILBOX_SHOWN)
                .map(|m| m.payload.clone())
                .collect(),
        });
    }
    out.sort_by_key(|b| b.pid);
    out
}

pub fn print_blocked(rt: &Runtime, blocked: &[Blocked]) {
    let _g = rt.stderr.lock().unwrap_or_else(|e| e.into_inner());
    let mut err = std::io::stderr().lock();
    let n = blocked.len();
    let _ = writeln!(
        err,
        "trace: {n} process{} blocked forever at the end of the run (deadlock):",
        if n == 1 { "" } else { "es" }
    );
    for b in blocked {
        let _ = writeln!(
            err,
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
