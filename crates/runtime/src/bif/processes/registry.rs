//! Registered names: register/2, unregister/1, whereis/1, registered/0.
//! Each result depends on what other processes did meanwhile, so it is a
//! nondeterministic result (replay makes the registry agree with the log).
//!
//! A successful register/2 or unregister/1 reports `{Name, Pid}` or
//! `{Name, undefined}` to the hooks rather than the `true` the program gets:
//! the log then says which process held which name, so a reader of the log
//! alone (`trace check` resolving `server`) can tell. A failure is `badarg`.

use crate::bif::{Builder, Ctx, AUTO};
use crate::exception::{badarg, BifResult};
use crate::hooks::{NondetBif, Touched};
use trace_term::{atom, Atom, Pid, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(e, "register", 2, register_name, AUTO);
    b.proc(e, "unregister", 1, unregister, AUTO);
    b.proc(e, "whereis", 1, whereis, AUTO);
    b.proc(e, "registered", 0, registered, AUTO);
}

fn register_name(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let (Term::Atom(name), Term::Pid(pid)) = (&a[0], &a[1]) else {
        return Err(badarg());
    };
    if *name == atom::UNDEFINED {
        return Err(badarg());
    }
    // Before the registry changes: a controlled run may stop the call
    // here and run it again later.
    cx.before_event()?;
    cx.touched(Touched::Name(*name));
    cx.touched(Touched::Liveness(*pid));
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
    let v = cx.decide(
        NondetBif::Register,
        if ok {
            Term::tuple(vec![Term::Atom(*name), Term::Pid(*pid)])
        } else {
            Term::Atom(atom::BADARG)
        },
    )?;
    apply_registration(cx, *name, *pid, ok, &v)
}

/// Whether a logged register/unregister result says it succeeded: the
/// `{Name, Holder}` pair, or `true` as logs before the pair held.
fn succeeded(logged: &Term) -> bool {
    !logged.is_atom(atom::BADARG)
}

/// Replay: makes the registry agree with the logged result.
fn apply_registration(cx: &mut Ctx, name: Atom, pid: Pid, did: bool, logged: &Term) -> BifResult {
    let want = succeeded(logged);
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
    cx.before_event()?;
    cx.touched(Touched::Name(*name));
    let removed = cx
        .rt
        .names
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(name);
    let v = cx.decide(
        NondetBif::Register,
        if removed.is_some() {
            Term::tuple(vec![Term::Atom(*name), Term::Atom(atom::UNDEFINED)])
        } else {
            Term::Atom(atom::BADARG)
        },
    )?;
    if succeeded(&v) {
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
    cx.nondet(NondetBif::Registered, v)
}
