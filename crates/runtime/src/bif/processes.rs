//! Process built-ins: spawn, links, monitors, exit signals, trap_exit,
//! registered names, the process dictionary, timers, and the
//! nondeterministic queries (time, uniqueness, randomness, liveness).

use super::{Builder, Ctx, AUTO, GUARD};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::{NondetKind, SignalOut};
use crate::process::{MsgId, Signal};
use crate::sched::signals;
use crate::sched::spawn::Target;
use crate::sched::timer::TimerAction;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use trace_term::{atom, Atom, Pid, Term};

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
    b.proc(e, "register", 2, register_name, AUTO);
    b.proc(e, "unregister", 1, unregister, AUTO);
    b.proc(e, "whereis", 1, whereis, AUTO);
    b.proc(e, "registered", 0, registered, AUTO);
    b.proc(e, "is_process_alive", 1, is_process_alive, AUTO);
    b.proc(e, "!", 2, send, 0);
    b.proc(e, "send", 2, send, 0);
    b.proc(e, "send", 3, |cx, a| send(cx, &a[..2]), 0);
    b.proc(e, "put", 2, put, AUTO);
    b.proc(e, "get", 1, get, AUTO);
    b.proc(e, "get", 0, get_all, AUTO);
    b.proc(e, "get_keys", 0, get_keys0, AUTO);
    b.proc(e, "get_keys", 1, get_keys1, AUTO);
    b.proc(e, "erase", 1, erase1, AUTO);
    b.proc(e, "erase", 0, erase0, AUTO);
    b.proc(e, "processes", 0, processes, AUTO);
    b.proc(e, "process_info", 2, process_info2, AUTO);
    b.proc(e, "process_info", 1, process_info1, AUTO);
    b.proc(e, "group_leader", 0, |_, _| Ok(Term::Pid(Pid(0))), AUTO);
    b.proc(e, "yield", 0, |_, _| Err(Fault::Yield(Term::TRUE)), 0);
    b.proc(e, "garbage_collect", 0, |_, _| Ok(Term::TRUE), AUTO);
    b.proc(e, "send_after", 3, |cx, a| send_after(cx, a, false), 0);
    b.proc(e, "start_timer", 3, |cx, a| send_after(cx, a, true), 0);
    b.proc(e, "cancel_timer", 1, cancel_timer, 0);
    b.proc(e, "cancel_timer", 2, cancel_timer, 0);
    b.proc(e, "read_timer", 1, read_timer, 0);
    b.proc(
        e,
        "monotonic_time",
        0,
        |cx, _| monotonic(cx, &Term::Atom(atom::NATIVE)),
        0,
    );
    b.proc(e, "monotonic_time", 1, |cx, a| monotonic(cx, &a[0]), 0);
    b.proc(
        e,
        "system_time",
        0,
        |cx, _| system_time(cx, &Term::Atom(atom::NATIVE)),
        0,
    );
    b.proc(e, "system_time", 1, |cx, a| system_time(cx, &a[0]), 0);
    b.proc(
        "os",
        "system_time",
        0,
        |cx, _| system_time(cx, &Term::Atom(atom::NATIVE)),
        0,
    );
    b.proc("os", "system_time", 1, |cx, a| system_time(cx, &a[0]), 0);
    b.proc(e, "timestamp", 0, timestamp, 0);
    b.proc("os", "timestamp", 0, timestamp, 0);
    b.proc(e, "now", 0, timestamp, AUTO);
    b.proc(e, "unique_integer", 0, |cx, _| unique(cx, &Term::Nil), 0);
    b.proc(e, "unique_integer", 1, |cx, a| unique(cx, &a[0]), 0);
    b.proc(e, "localtime", 0, |cx, _| datetime(cx, "localtime"), 0);
    b.proc(
        e,
        "universaltime",
        0,
        |cx, _| datetime(cx, "universaltime"),
        0,
    );
    b.proc(e, "date", 0, |cx, _| date_or_time(cx, true), AUTO);
    b.proc(e, "time", 0, |cx, _| date_or_time(cx, false), AUTO);
    b.proc(e, "statistics", 1, statistics, AUTO);
    b.pure(e, "convert_time_unit", 3, convert_time_unit, 0);
    b.proc("rand", "uniform", 0, |cx, _| uniform(cx, None), 0);
    b.proc("rand", "uniform", 1, |cx, a| uniform(cx, Some(&a[0])), 0);
    b.proc("rand", "uniform_real", 0, |cx, _| uniform(cx, None), 0);
    b.proc("rand", "seed", 1, |cx, _| seed(cx), 0);
    b.proc("rand", "seed", 2, |cx, _| seed(cx), 0);
    b.proc(
        "timer",
        "send_after",
        3,
        |cx, a| timer_send_after(cx, &a[0], &a[1], &a[2]),
        0,
    );
    b.proc(
        "timer",
        "send_after",
        2,
        |cx, a| {
            let me = Term::Pid(cx.proc.pid);
            timer_send_after(cx, &a[0], &me, &a[1])
        },
        0,
    );
    b.proc("timer", "cancel", 1, timer_cancel, 0);
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

fn spawn_opt(cx: &mut Ctx, t: Target, opts: &Term) -> BifResult {
    let opts = opts.to_vec().ok_or_else(badarg)?;
    let link = opts.iter().any(|o| o.is_atom(atom::LINK));
    let monitor = opts.iter().any(|o| o.is_atom(atom::MONITOR));
    spawn(cx, t, link, monitor)
}

fn pid_arg(t: &Term) -> Result<Pid, Fault> {
    t.as_pid().ok_or_else(badarg)
}

/// An exit signal to ourselves that did not come from a link: `from` is shown
/// as its source (e.g. the dead process a link was attempted to).
fn self_exit(cx: &mut Ctx, from: Pid, reason: Term) {
    let me = cx.proc.pid;
    let r2 = reason.clone();
    cx.signal(
        me,
        SignalOut::Exit {
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
    let alive = cx.signal_alive(pid, SignalOut::Link, |id| Signal::Link { id })?;
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
        cx.signal(pid, SignalOut::Unlink, |id| Signal::Unlink { id });
    }
    Ok(Term::TRUE)
}

fn monitor(cx: &mut Ctx, a: &[Term]) -> BifResult {
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
            cx.signal_alive(p, SignalOut::Monitor, |id| Signal::Monitor { id, r, name })?
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
        cx.signal(me, SignalOut::Down { reason: &reason }, |id| Signal::Down {
            id,
            from,
            shown: Some(shown),
            r,
            reason: Term::Atom(atom::NOPROC),
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
    let held = cx.proc.monitors.iter().position(|(x, _)| x == r);
    let result = match held {
        Some(i) => {
            let (_, target) = cx.proc.monitors.remove(i);
            if target != cx.proc.pid {
                let rr = *r;
                cx.signal(target, SignalOut::Demonitor, |id| Signal::Demonitor {
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
        SignalOut::Exit {
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

fn register_name(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let (Term::Atom(name), Term::Pid(pid)) = (&a[0], &a[1]) else {
        return Err(badarg());
    };
    if *name == atom::UNDEFINED {
        return Err(badarg());
    }
    let ok = {
        let mut names = cx.rt.names.lock().unwrap_or_else(|e| e.into_inner());
        let alive = *pid == cx.proc.pid || cx.rt.table.get(*pid).is_some_and(|s| !s.is_exited());
        if alive && !names.contains_key(name) && !names.values().any(|p| p == pid) {
            names.insert(*name, *pid);
            true
        } else {
            false
        }
    };
    let v = cx.nondet(
        NondetKind::Register,
        if ok {
            Term::TRUE
        } else {
            Term::Atom(atom::BADARG)
        },
    )?;
    apply_registration(cx, *name, *pid, ok, &v)
}

/// Replay: makes the registry agree with the logged result.
fn apply_registration(cx: &mut Ctx, name: Atom, pid: Pid, did: bool, logged: &Term) -> BifResult {
    let want = logged.is_atom(atom::TRUE);
    if want != did {
        let mut names = cx.rt.names.lock().unwrap_or_else(|e| e.into_inner());
        if want {
            names.insert(name, pid);
        } else if names.get(&name) == Some(&pid) {
            names.remove(&name);
        }
    }
    if want {
        Ok(Term::TRUE)
    } else {
        Err(badarg())
    }
}

fn unregister(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Atom(name) = &a[0] else {
        return Err(badarg());
    };
    let removed = cx
        .rt
        .names
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(name);
    let v = cx.nondet(
        NondetKind::Register,
        if removed.is_some() {
            Term::TRUE
        } else {
            Term::Atom(atom::BADARG)
        },
    )?;
    if v.is_atom(atom::TRUE) {
        Ok(Term::TRUE)
    } else {
        if let Some(p) = removed {
            // Replay says it failed: put it back.
            cx.rt
                .names
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(*name, p);
        }
        Err(badarg())
    }
}

fn whereis(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Atom(name) = &a[0] else {
        return Err(badarg());
    };
    Ok(cx
        .whereis(*name)?
        .map(Term::Pid)
        .unwrap_or(Term::Atom(atom::UNDEFINED)))
}

fn registered(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let mut names: Vec<Atom> = cx
        .rt
        .names
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .copied()
        .collect();
    names.sort_by(|a, b| a.cmp_by_name(*b));
    let v = Term::list(names.into_iter().map(Term::Atom).collect());
    cx.nondet(NondetKind::Registered, v)
}

fn is_process_alive(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    Ok(Term::bool(cx.alive(pid)?))
}

fn send(cx: &mut Ctx, a: &[Term]) -> BifResult {
    cx.send(&a[0], a[1].clone())?;
    Ok(a[1].clone())
}

fn put(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let d = &mut cx.proc.dict;
    match d
        .iter_mut()
        .find(|(k, _)| trace_term::order::exact_eq(k, &a[0]))
    {
        Some((_, v)) => Ok(std::mem::replace(v, a[1].clone())),
        None => {
            d.push((a[0].clone(), a[1].clone()));
            Ok(Term::Atom(atom::UNDEFINED))
        }
    }
}

fn get(cx: &mut Ctx, a: &[Term]) -> BifResult {
    Ok(cx
        .proc
        .dict
        .iter()
        .find(|(k, _)| trace_term::order::exact_eq(k, &a[0]))
        .map(|(_, v)| v.clone())
        .unwrap_or(Term::Atom(atom::UNDEFINED)))
}

fn get_all(cx: &mut Ctx, _: &[Term]) -> BifResult {
    Ok(Term::list(
        cx.proc
            .dict
            .iter()
            .rev()
            .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
            .collect(),
    ))
}

fn get_keys0(cx: &mut Ctx, _: &[Term]) -> BifResult {
    Ok(Term::list(
        cx.proc.dict.iter().rev().map(|(k, _)| k.clone()).collect(),
    ))
}

fn get_keys1(cx: &mut Ctx, a: &[Term]) -> BifResult {
    Ok(Term::list(
        cx.proc
            .dict
            .iter()
            .rev()
            .filter(|(_, v)| trace_term::order::exact_eq(v, &a[0]))
            .map(|(k, _)| k.clone())
            .collect(),
    ))
}

fn erase1(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let d = &mut cx.proc.dict;
    match d
        .iter()
        .position(|(k, _)| trace_term::order::exact_eq(k, &a[0]))
    {
        Some(i) => Ok(d.remove(i).1),
        None => Ok(Term::Atom(atom::UNDEFINED)),
    }
}

fn erase0(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let all = get_all(cx, &[])?;
    cx.proc.dict.clear();
    Ok(all)
}

fn processes(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let mut pids: Vec<Pid> = cx
        .rt
        .table
        .all()
        .iter()
        .filter(|s| !s.is_exited())
        .map(|s| s.pid)
        .collect();
    pids.sort();
    cx.nondet(
        NondetKind::Processes,
        Term::list(pids.into_iter().map(Term::Pid).collect()),
    )
}

fn info_item(cx: &mut Ctx, item: Atom) -> Result<Term, Fault> {
    let p = &*cx.proc;
    let v = match item.name() {
        "message_queue_len" => Term::Int(p.mailbox.len() as i64),
        "messages" => Term::list(p.mailbox.iter().map(|m| m.payload.clone()).collect()),
        "links" => Term::list(p.links.iter().map(|l| Term::Pid(*l)).collect()),
        "trap_exit" => Term::bool(p.trap_exit),
        "status" => Term::Atom(atom::RUNNING),
        "dictionary" => Term::list(
            p.dict
                .iter()
                .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
                .collect(),
        ),
        "registered_name" => {
            let names = cx.rt.names.lock().unwrap_or_else(|e| e.into_inner());
            match names.iter().find(|(_, pid)| **pid == p.pid) {
                Some((n, _)) => Term::Atom(*n),
                None => Term::Nil,
            }
        }
        "monitors" => Term::list(
            p.monitors
                .iter()
                .map(|(_, t)| Term::tuple(vec![Term::Atom(atom::PROCESS), Term::Pid(*t)]))
                .collect(),
        ),
        "current_function" => {
            let (m, f, a) = cx.rt.program.mfa(p.fun);
            Term::tuple(vec![Term::Atom(m), Term::Atom(f), Term::Int(a as i64)])
        }
        "initial_call" => Term::tuple(vec![
            Term::Atom(p.initial.0),
            Term::Atom(p.initial.1),
            Term::Int(p.initial.2 as i64),
        ]),
        "group_leader" => Term::Pid(Pid(0)),
        "heap_size" | "total_heap_size" | "stack_size" | "reductions" | "memory" => Term::Int(0),
        "priority" => Term::atom("normal"),
        _ => return Err(badarg()),
    };
    Ok(Term::tuple(vec![Term::Atom(item), v]))
}

fn process_info2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    if pid != cx.proc.pid {
        // Another process's state is not ours to read mid-run; report liveness only.
        let alive = cx.alive(pid)?;
        return if alive {
            Ok(Term::Nil)
        } else {
            Ok(Term::Atom(atom::UNDEFINED))
        };
    }
    let v = match &a[1] {
        Term::Atom(item) => info_item(cx, *item)?,
        items @ (Term::Cons(_) | Term::Nil) => {
            let mut out = Vec::new();
            for it in items.to_vec().ok_or_else(badarg)? {
                out.push(info_item(cx, it.as_atom().ok_or_else(badarg)?)?);
            }
            Term::list(out)
        }
        _ => return Err(badarg()),
    };
    cx.nondet(NondetKind::ProcessInfo, v)
}

fn process_info1(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let items = Term::list(
        [
            "registered_name",
            "current_function",
            "initial_call",
            "status",
            "message_queue_len",
            "links",
            "dictionary",
            "trap_exit",
        ]
        .iter()
        .map(|s| Term::atom(s))
        .collect(),
    );
    process_info2(cx, &[a[0].clone(), items])
}

fn timer_arg(t: &Term) -> Result<u64, Fault> {
    match t {
        Term::Int(i) if *i >= 0 && *i <= u32::MAX as i64 => Ok(*i as u64),
        _ => Err(badarg()),
    }
}

fn send_after(cx: &mut Ctx, a: &[Term], wrap: bool) -> BifResult {
    let ms = timer_arg(&a[0])?;
    // A name is looked up when the timer fires; the Send event names the
    // process holding it now (or none: pid 0).
    let (to, name) = match &a[1] {
        Term::Pid(p) => (*p, None),
        Term::Atom(name) => (cx.whereis(*name)?.unwrap_or(Pid(0)), Some(*name)),
        _ => return Err(badarg()),
    };
    cx.before_event()?;
    let r = cx.proc.make_ref();
    let payload = if wrap {
        Term::tuple(vec![Term::Atom(atom::TIMEOUT), Term::Ref(r), a[2].clone()])
    } else {
        a[2].clone()
    };
    // The message's identity and Send event belong to the caller, now; the
    // delivery happens when the timer fires.
    let id = cx.proc.next_signal_id();
    signals::emit(
        cx.proc,
        cx.rt,
        crate::hooks::Event::Send {
            id,
            to,
            payload: &payload,
        },
    );
    let at = if cx.rt.opts.instant_timers {
        Instant::now()
    } else {
        Instant::now() + Duration::from_millis(ms)
    };
    let tid = cx.rt.timers.add(
        at,
        TimerAction::Message {
            to,
            name,
            id,
            payload,
        },
    );
    cx.proc.timers.push((r, tid));
    Ok(Term::Ref(r))
}

fn find_timer(cx: &mut Ctx, r: &Term) -> Option<u64> {
    let Term::Ref(r) = r else { return None };
    cx.proc.timers.iter().find(|(x, _)| x == r).map(|(_, t)| *t)
}

fn cancel_timer(cx: &mut Ctx, a: &[Term]) -> BifResult {
    if !matches!(a[0], Term::Ref(_)) {
        return Err(badarg());
    }
    let left = find_timer(cx, &a[0]).and_then(|t| {
        let left = cx.rt.timers.remaining_ms(t);
        cx.rt.timers.cancel(t).then_some(left.unwrap_or(0))
    });
    let v = left.map(|ms| Term::Int(ms as i64)).unwrap_or(Term::FALSE);
    cx.nondet(NondetKind::Other("cancel_timer"), v)
}

fn read_timer(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let v = find_timer(cx, &a[0])
        .and_then(|t| cx.rt.timers.remaining_ms(t))
        .map(|ms| Term::Int(ms as i64))
        .unwrap_or(Term::FALSE);
    cx.nondet(NondetKind::Other("read_timer"), v)
}

fn timer_send_after(cx: &mut Ctx, ms: &Term, dest: &Term, msg: &Term) -> BifResult {
    let r = send_after(cx, &[ms.clone(), dest.clone(), msg.clone()], false)?;
    Ok(Term::tuple(vec![
        Term::OK,
        Term::tuple(vec![Term::atom("send_local"), r]),
    ]))
}

fn timer_cancel(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let r = match a[0].as_tuple() {
        Some([_, r]) => r.clone(),
        _ => {
            return Ok(Term::tuple(vec![
                Term::Atom(atom::ERROR),
                Term::atom("badarg"),
            ]))
        }
    };
    let _ = cancel_timer(cx, &[r])?;
    Ok(Term::tuple(vec![Term::OK, Term::atom("cancel")]))
}

/// Parts per second of a time unit.
fn unit_pps(u: &Term) -> Result<u64, Fault> {
    match u {
        Term::Atom(a) => match a.name() {
            "second" | "seconds" => Ok(1),
            "millisecond" | "milli_seconds" => Ok(1_000),
            "microsecond" | "micro_seconds" => Ok(1_000_000),
            "nanosecond" | "nano_seconds" | "native" | "perf_counter" => Ok(1_000_000_000),
            _ => Err(badarg()),
        },
        Term::Int(n) if *n > 0 => Ok(*n as u64),
        _ => Err(badarg()),
    }
}

fn scale(ns: i128, pps: u64) -> Term {
    let v = ns * pps as i128 / 1_000_000_000;
    Term::Int(v as i64)
}

fn monotonic(cx: &mut Ctx, unit: &Term) -> BifResult {
    let pps = unit_pps(unit)?;
    // Offset so values look like BEAM's (large negative numbers are common there too).
    let ns = cx.rt.start.elapsed().as_nanos() as i128 - 576_460_752_303_423_488;
    cx.nondet(NondetKind::MonotonicTime, scale(ns, pps))
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

fn system_time(cx: &mut Ctx, unit: &Term) -> BifResult {
    let pps = unit_pps(unit)?;
    cx.nondet(NondetKind::SystemTime, scale(now_ns(), pps))
}

fn timestamp(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let us = now_ns() / 1000;
    let (mega, rest) = (us / 1_000_000_000_000, us % 1_000_000_000_000);
    let v = Term::tuple(vec![
        Term::Int(mega as i64),
        Term::Int((rest / 1_000_000) as i64),
        Term::Int((rest % 1_000_000) as i64),
    ]);
    cx.nondet(NondetKind::Timestamp, v)
}

fn unique(cx: &mut Ctx, opts: &Term) -> BifResult {
    let opts = opts.to_vec().ok_or_else(badarg)?;
    let positive = opts.iter().any(|o| o.is_atom(atom::POSITIVE));
    let n = cx
        .rt
        .unique
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed) as i64;
    let v = if positive {
        n
    } else {
        n - 576_460_752_303_423_488
    };
    cx.nondet(NondetKind::UniqueInteger, Term::Int(v))
}

fn datetime(cx: &mut Ctx, which: &'static str) -> BifResult {
    let secs = (now_ns() / 1_000_000_000) as i64;
    let (y, mo, d, h, mi, s) = super::erlang::civil(secs);
    let v = Term::tuple(vec![
        Term::tuple(vec![Term::Int(y), Term::Int(mo), Term::Int(d)]),
        Term::tuple(vec![Term::Int(h), Term::Int(mi), Term::Int(s)]),
    ]);
    cx.nondet(NondetKind::Other(which), v)
}

fn date_or_time(cx: &mut Ctx, date: bool) -> BifResult {
    let secs = (now_ns() / 1_000_000_000) as i64;
    let (y, mo, d, h, mi, s) = super::erlang::civil(secs);
    let v = if date {
        Term::tuple(vec![Term::Int(y), Term::Int(mo), Term::Int(d)])
    } else {
        Term::tuple(vec![Term::Int(h), Term::Int(mi), Term::Int(s)])
    };
    cx.nondet(NondetKind::Other(if date { "date" } else { "time" }), v)
}

fn statistics(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let ms = cx.rt.start.elapsed().as_millis() as i64;
    let v = match a[0].as_atom().map(|x| x.name()) {
        Some("runtime" | "wall_clock") => Term::tuple(vec![Term::Int(ms), Term::Int(0)]),
        Some("reductions") => Term::tuple(vec![Term::Int(0), Term::Int(0)]),
        Some("run_queue") => Term::Int(0),
        _ => return Err(badarg()),
    };
    cx.nondet(NondetKind::Other("statistics"), v)
}

fn convert_time_unit(a: &[Term]) -> BifResult {
    let (from, to) = (unit_pps(&a[1])?, unit_pps(&a[2])?);
    match &a[0] {
        Term::Int(t) => {
            let v = (*t as i128) * to as i128;
            let q = v.div_euclid(from as i128);
            Ok(Term::Int(q as i64))
        }
        _ => Err(badarg()),
    }
}

/// A pseudo-random source per run; every draw is a nondeterministic result.
fn draw(cx: &mut Ctx) -> u64 {
    let n = cx
        .rt
        .unique
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = now_ns() as u64;
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ t ^ (cx.proc.pid.number() << 32);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

fn uniform(cx: &mut Ctx, n: Option<&Term>) -> BifResult {
    let x = draw(cx);
    let v = match n {
        None => Term::Float((x >> 11) as f64 / (1u64 << 53) as f64),
        Some(Term::Int(n)) if *n >= 1 => Term::Int(1 + (x % *n as u64) as i64),
        Some(_) => return Err(badarg()),
    };
    cx.nondet(NondetKind::Random, v)
}

fn seed(cx: &mut Ctx) -> BifResult {
    cx.nondet(
        NondetKind::Random,
        Term::tuple(vec![Term::atom("exsss"), Term::Nil]),
    )
}

#[allow(dead_code)]
fn _id(_: MsgId) {}
