//! Process built-ins: spawn, links, monitors, exit signals, trap_exit,
//! sending, and liveness. The other process built-ins live in the
//! submodules: registered names ([`registry`]), the process dictionary
//! ([`dictionary`]), `process_info` and `processes` ([`info`]), timers
//! ([`timers`]), the nondeterministic clock, uniqueness and randomness
//! queries ([`clock`]) and what a program reads of the host ([`host`]:
//! `erlang:system_info/1`, `os:getenv`). Every event and nondeterministic result goes
//! through [`Ctx`], so the hooks see it.

mod aliases;
pub(crate) mod clock;
mod dictionary;
mod host;
mod info;
mod registry;
mod timers;

use super::{Builder, Ctx, AUTO, GUARD};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::SentSignal;
use crate::process::Signal;
use crate::sched::spawn::Target;
use trace_term::{atom, Pid, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(
        e,
        "self",
        0,
        |cx, _| Ok(Term::Pid(cx.proc.pid)),
        GUARD | AUTO,
    );
    b.proc(
        e,
        "make_ref",
        0,
        |cx, _| Ok(Term::Ref(cx.proc.make_ref())),
        AUTO,
    );
    b.proc(
        e,
        "spawn",
        1,
        |cx, a| spawn(cx, Target::Fun(a[0].clone()), false, false),
        AUTO,
    );
    b.proc(
        e,
        "spawn",
        3,
        |cx, a| spawn(cx, mfa(a)?, false, false),
        AUTO,
    );
    b.proc(
        e,
        "spawn_link",
        1,
        |cx, a| spawn(cx, Target::Fun(a[0].clone()), true, false),
        AUTO,
    );
    b.proc(
        e,
        "spawn_link",
        3,
        |cx, a| spawn(cx, mfa(a)?, true, false),
        AUTO,
    );
    b.proc(
        e,
        "spawn_monitor",
        1,
        |cx, a| spawn(cx, Target::Fun(a[0].clone()), false, true),
        AUTO,
    );
    b.proc(
        e,
        "spawn_monitor",
        3,
        |cx, a| spawn(cx, mfa(a)?, false, true),
        AUTO,
    );
    b.proc(
        e,
        "spawn_opt",
        2,
        |cx, a| spawn_opt(cx, Target::Fun(a[0].clone()), &a[1]),
        AUTO,
    );
    b.proc(
        e,
        "spawn_opt",
        4,
        |cx, a| spawn_opt(cx, mfa(a)?, &a[3]),
        AUTO,
    );
    b.proc(e, "link", 1, link, AUTO);
    b.proc(e, "unlink", 1, unlink, AUTO);
    b.proc(e, "monitor", 2, monitor, AUTO);
    b.proc(
        e,
        "demonitor",
        1,
        |cx, a| demonitor(cx, &a[0], &Term::Nil),
        AUTO,
    );
    b.proc(e, "demonitor", 2, |cx, a| demonitor(cx, &a[0], &a[1]), AUTO);
    b.proc(e, "exit", 2, exit2, AUTO);
    b.proc(e, "process_flag", 2, process_flag, AUTO);
    b.proc(e, "is_process_alive", 1, is_process_alive, AUTO);
    b.proc(e, "!", 2, send, 0);
    b.proc(e, "send", 2, send, 0);
    b.proc(e, "send", 3, |cx, a| send(cx, &a[..2]), 0);
    b.proc(
        e,
        "group_leader",
        0,
        |cx, _| Ok(Term::Pid(cx.proc.group_leader)),
        AUTO,
    );
    b.proc(e, "group_leader", 2, group_leader2, AUTO);
    b.proc(e, "yield", 0, |_, _| Err(Fault::Yield(Term::TRUE)), 0);
    b.proc(e, "garbage_collect", 0, |_, _| Ok(Term::TRUE), AUTO);
    b.proc(e, "halt", 0, |cx, _| halt(cx, &Term::Int(0)), AUTO);
    b.proc(e, "halt", 1, |cx, a| halt(cx, &a[0]), AUTO);
    b.proc(
        e,
        "halt",
        2,
        |cx, a| match a[1].is_list() {
            true => halt(cx, &a[0]),
            false => Err(badarg()),
        },
        AUTO,
    );
    b.proc(
        e,
        "bump_reductions",
        1,
        |_, a| match a[0].as_int() {
            Some(n) if n >= 0 => Ok(Term::TRUE),
            _ => Err(badarg()),
        },
        0,
    );
    aliases::register(b);
    registry::register(b);
    dictionary::register(b);
    info::register(b);
    timers::register(b);
    clock::register(b);
    host::register(b);
}

/// `erlang:halt(Status)`: the run ends at once with exit status `Status`,
/// the other processes left where they are, as the VM leaves them (what
/// was written is flushed; `halt/2`'s options change nothing here). A
/// replay holds the halting process instead, so that the others still go
/// on to where their logs end; the log says the run halted and with what
/// status.
fn halt(cx: &mut Ctx, status: &Term) -> Result<Term, Fault> {
    let status = match status {
        Term::Int(n) if *n >= 0 => (*n).min(i32::MAX as i64) as i32,
        Term::Atom(a) if a.name() == "abort" => {
            return Err(Fault::Unsupported(
                "erlang:halt(abort) is not supported by trace".into(),
            ))
        }
        t if t.is_list() => {
            return Err(Fault::Unsupported(
                "erlang:halt/1 with a slogan (a crash dump) is not supported by trace".into(),
            ))
        }
        _ => return Err(badarg()),
    };
    if cx.proc.director.is_none() {
        cx.rt.halt_with(status);
    }
    Err(Fault::Block)
}

fn mfa(a: &[Term]) -> Result<Target, Fault> {
    match (&a[0], &a[1]) {
        (Term::Atom(m), Term::Atom(f)) => {
            Ok(Target::Mfa(*m, *f, a[2].to_vec().ok_or_else(badarg)?))
        }
        _ => Err(badarg()),
    }
}

fn spawn(cx: &mut Ctx, t: Target, link: bool, monitor: bool) -> BifResult {
    let (pid, r) = cx.spawn(t, link, monitor)?;
    Ok(match r {
        Some(r) => Term::tuple(vec![Term::Pid(pid), Term::Ref(r)]),
        None => Term::Pid(pid),
    })
}

/// `spawn_opt`: `link` and `monitor` act; the memory and scheduling options
/// OTP code passes (`priority`, heap sizes, `fullsweep_after`,
/// `message_queue_data`) are checked and have no effect, as the engine has
/// no such knobs; anything else is `badarg`, as on BEAM.
fn spawn_opt(cx: &mut Ctx, t: Target, opts: &Term) -> BifResult {
    let opts = opts.to_vec().ok_or_else(badarg)?;
    let (mut link, mut monitor) = (false, false);
    for o in &opts {
        match o {
            Term::Atom(atom::LINK) => link = true,
            Term::Atom(atom::MONITOR) => monitor = true,
            _ => check_spawn_option(o)?,
        }
    }
    spawn(cx, t, link, monitor)
}

fn check_spawn_option(o: &Term) -> Result<(), Fault> {
    let Some([Term::Atom(k), v]) = o.as_tuple() else {
        return Err(badarg());
    };
    let ok = match k.name() {
        "priority" => matches!(
            v.as_atom().map(|a| a.name()),
            Some("low" | "normal" | "high" | "max")
        ),
        "fullsweep_after" | "min_heap_size" | "min_bin_vheap_size" => {
            matches!(v, Term::Int(n) if *n >= 0)
        }
        "max_heap_size" => matches!(v, Term::Int(n) if *n >= 0) || matches!(v, Term::Map(_)),
        "message_queue_data" => {
            matches!(v.as_atom().map(|a| a.name()), Some("off_heap" | "on_heap"))
        }
        "async_dist" => matches!(v, Term::Atom(atom::TRUE | atom::FALSE)),
        "monitor" => {
            return Err(Fault::Unsupported(
                "spawn_opt with {monitor, Options} is not implemented by trace".into(),
            ))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(badarg())
    }
}

pub(super) fn pid_arg(t: &Term) -> Result<Pid, Fault> {
    t.as_pid().ok_or_else(badarg)
}

/// An exit signal to ourselves that did not come from a link: `from` is shown
/// as its source (e.g. the dead process a link was attempted to).
fn self_exit(cx: &mut Ctx, from: Pid, reason: Term) {
    let me = cx.proc.pid;
    let r2 = reason.clone();
    cx.signal(
        me,
        SentSignal::Exit {
            reason: &r2,
            linked: false,
        },
        |id| Signal::Exit {
            id,
            from,
            reason,
            linked: false,
        },
    );
}

fn link(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    cx.before_event()?;
    if pid == cx.proc.pid || cx.proc.is_linked(pid) {
        return Ok(Term::TRUE);
    }
    cx.proc.add_link(pid);
    let alive = cx.signal_alive(pid, SentSignal::Link, |id| Signal::Link { id })?;
    if !alive {
        // Linking to a process that does not exist: trapping gives
        // {'EXIT', Pid, noproc}, otherwise link/1 raises error:noproc (BEAM's
        // link_1 does so for a local pid, where checking is cheap).
        cx.proc.remove_link(pid);
        if !cx.proc.trap_exit {
            return Err(Fault::Error(Term::Atom(atom::NOPROC)));
        }
        self_exit(cx, pid, Term::Atom(atom::NOPROC));
    }
    Ok(Term::TRUE)
}

fn unlink(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    cx.before_event()?;
    if cx.proc.is_linked(pid) {
        cx.proc.remove_link(pid);
        cx.signal(pid, SentSignal::Unlink, |id| Signal::Unlink { id });
    }
    Ok(Term::TRUE)
}

pub(super) fn monitor(cx: &mut Ctx, a: &[Term]) -> BifResult {
    if !a[0].is_atom(atom::PROCESS) {
        return Err(badarg());
    }
    // By name: the 'DOWN' shows {Name, Node} instead of the pid.
    let (pid, name) = match &a[1] {
        Term::Pid(p) => (Some(*p), None),
        Term::Atom(name) => (cx.whereis(*name)?, Some(*name)),
        Term::Tuple(t) if t.arity() == 2 => match t.elements() {
            [Term::Atom(name), Term::Atom(node)] if *node == atom::NONODE => {
                (cx.whereis(*name)?, Some(*name))
            }
            _ => return Err(badarg()),
        },
        _ => return Err(badarg()),
    };
    let shown = match name {
        Some(n) => Term::tuple(vec![Term::Atom(n), Term::Atom(atom::NONODE)]),
        None => a[1].clone(),
    };
    cx.before_event()?;
    let r = cx.proc.make_ref();
    let alive = match pid {
        // A monitor on oneself is not kept: nothing will ever arrive.
        Some(p) if p == cx.proc.pid => return Ok(Term::Ref(r)),
        Some(p) => {
            cx.proc.monitors.push((r, p));
            cx.signal_alive(p, SentSignal::Monitor, |id| Signal::Monitor { id, r, name })?
        }
        None => false,
    };
    if !alive {
        // Monitoring what does not exist: an immediate 'DOWN' with noproc.
        let from = pid.unwrap_or(cx.proc.pid);
        if pid.is_none() {
            cx.proc.monitors.push((r, from));
        }
        let me = cx.proc.pid;
        let reason = Term::Atom(atom::NOPROC);
        cx.signal(me, SentSignal::Down { reason: &reason }, |id| {
            Signal::Down {
                id,
                from,
                shown: Some(shown),
                r,
                reason: Term::Atom(atom::NOPROC),
            }
        });
    }
    Ok(Term::Ref(r))
}

fn demonitor(cx: &mut Ctx, r: &Term, opts: &Term) -> BifResult {
    let Term::Ref(r) = r else {
        return Err(badarg());
    };
    let opts = opts.to_vec().ok_or_else(badarg)?;
    cx.before_event()?;
    cx.touched(crate::hooks::Touched::Monitors);
    let held = cx.proc.monitors.iter().position(|(x, _)| x == r);
    let result = match held {
        Some(i) => {
            let (_, target) = cx.proc.monitors.remove(i);
            cx.proc.end_monitor_alias(*r);
            if target != cx.proc.pid {
                let rr = *r;
                cx.signal(target, SentSignal::Demonitor, |id| Signal::Demonitor {
                    id,
                    r: rr,
                });
            }
            true
        }
        None => false,
    };
    if opts.iter().any(|o| o.is_atom(atom::FLUSH)) {
        let rr = *r;
        cx.proc.mailbox.retain(|m| {
            !matches!(m.payload.as_tuple(), Some(t) if t.len() == 5 && t[0].is_atom(atom::DOWN) && matches!(t[1], Term::Ref(x) if x == rr))
        });
        cx.proc.cursor = 0;
        // Positions moved: the receive marker no longer says where to start.
        cx.proc.recv_mark = None;
    }
    if opts.iter().any(|o| o.is_atom(atom::INFO)) {
        return Ok(Term::bool(result));
    }
    Ok(Term::TRUE)
}

fn exit2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    cx.before_event()?;
    let reason = a[1].clone();
    let me = cx.proc.pid;
    let r2 = reason.clone();
    cx.signal(
        pid,
        SentSignal::Exit {
            reason: &r2,
            linked: false,
        },
        |id| Signal::Exit {
            id,
            from: me,
            reason,
            linked: false,
        },
    );
    if cx.proc.kill.is_some() {
        return Err(Fault::Yield(Term::TRUE));
    }
    Ok(Term::TRUE)
}

fn process_flag(cx: &mut Ctx, a: &[Term]) -> BifResult {
    match (&a[0], &a[1]) {
        (Term::Atom(atom::TRAP_EXIT), Term::Atom(v @ (atom::TRUE | atom::FALSE))) => {
            // How exit signals are taken changes here: a controlled run
            // lets a signal land before or after it.
            cx.gate()?;
            cx.touched(crate::hooks::Touched::TrapExit);
            let old = cx.proc.trap_exit;
            cx.proc.trap_exit = *v == atom::TRUE;
            Ok(Term::bool(old))
        }
        (Term::Atom(f), _) => match f.name() {
            "priority" => Ok(Term::atom("normal")),
            "min_heap_size" | "min_bin_vheap_size" | "max_heap_size" => Ok(Term::Int(233)),
            "message_queue_data" => Ok(Term::atom("on_heap")),
            "sensitive" | "save_calls" => Ok(Term::FALSE),
            _ => Err(badarg()),
        },
        _ => Err(badarg()),
    }
}

/// `group_leader(Leader, Pid)`: a process may set its own group leader (as
/// an application master does before it starts the application); another
/// process's would need a signal the engine does not have.
fn group_leader2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let (leader, pid) = (pid_arg(&a[0])?, pid_arg(&a[1])?);
    if pid != cx.proc.pid {
        return Err(Fault::Unsupported(
            "erlang:group_leader/2 for another process than the caller is not implemented by trace"
                .into(),
        ));
    }
    cx.proc.group_leader = leader;
    Ok(Term::TRUE)
}

fn is_process_alive(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    Ok(Term::bool(cx.alive(pid)?))
}

fn send(cx: &mut Ctx, a: &[Term]) -> BifResult {
    cx.send(&a[0], a[1].clone())?;
    Ok(a[1].clone())
}
