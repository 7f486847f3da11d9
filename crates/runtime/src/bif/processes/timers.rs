//! Timers: erlang:send_after/start_timer/cancel_timer/read_timer. The
//! message of a timer is sent (its identity and Send event belong to the
//! caller) when the timer is set, and delivered when it fires. The timer
//! module is Erlang (`prelude/timer.erl`); its helper processes are named by
//! references made here (`trace_prelude:timer_ref/1`, `timer_process/1`).

use crate::bif::{Builder, Ctx};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::NondetBif;
use crate::sched::signals;
use crate::sched::timer::TimerAction;
use std::time::{Duration, Instant};
use trace_term::{atom, Pid, Ref, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(e, "send_after", 3, |cx, a| send_after(cx, a, false), 0);
    b.proc(e, "start_timer", 3, |cx, a| send_after(cx, a, true), 0);
    b.proc(e, "send_after", 4, |cx, a| send_after4(cx, a, false), 0);
    b.proc(e, "start_timer", 4, |cx, a| send_after4(cx, a, true), 0);
    b.proc(e, "cancel_timer", 1, cancel_timer, 0);
    b.proc(e, "cancel_timer", 2, cancel_timer2, 0);
    b.proc(e, "read_timer", 1, read_timer, 0);
    b.proc(e, "read_timer", 2, read_timer2, 0);
    b.pure("trace_prelude", "timer_ref", 1, timer_ref, 0);
    b.pure("trace_prelude", "timer_process", 1, timer_process, 0);
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
    // A timer for a process that has ended is cancelled at once, as on BEAM
    // (it ends with the process it is for: see `Timers::cancel_for`).
    let gone =
        name.is_none() && to != cx.proc.pid && cx.rt.table.get(to).is_none_or(|s| s.is_exited());
    if gone {
        return Ok(Term::Ref(r));
    }
    let at = if cx.rt.opts.instant_timers {
        Instant::now()
    } else {
        Instant::now() + Duration::from_millis(ms)
    };
    cx.rt.timers.add_keyed(
        at,
        ms,
        TimerAction::Message {
            to,
            name,
            id,
            payload,
        },
        Some(r),
    );
    Ok(Term::Ref(r))
}

/// `send_after/4`, `start_timer/4`: `[{abs, true}]` makes the time an
/// absolute point of `erlang:monotonic_time(millisecond)`.
fn send_after4(cx: &mut Ctx, a: &[Term], wrap: bool) -> BifResult {
    let mut abs = false;
    for o in a[3].to_vec().ok_or_else(badarg)? {
        match o.as_tuple() {
            Some([Term::Atom(k), Term::Atom(v @ (atom::TRUE | atom::FALSE))])
                if k.name() == "abs" =>
            {
                abs = *v == atom::TRUE
            }
            _ => return Err(badarg()),
        }
    }
    if !abs {
        return send_after(cx, &a[..3], wrap);
    }
    let Term::Int(at) = a[0] else {
        return Err(badarg());
    };
    let now = super::clock::monotonic_ms(cx)?;
    let ms = Term::Int(at.saturating_sub(now).max(0));
    send_after(cx, &[ms, a[1].clone(), a[2].clone()], wrap)
}

/// `Options` of `cancel_timer/2` and `read_timer/2`: `{async, false}` and
/// `{info, Bool}`; an asynchronous answer (a message) is not implemented.
fn timer_options(opts: &Term, allow_info: bool) -> Result<bool, Fault> {
    let mut info = true;
    for o in opts.to_vec().ok_or_else(badarg)? {
        match o.as_tuple() {
            Some([Term::Atom(k), Term::Atom(v @ (atom::TRUE | atom::FALSE))]) => {
                match k.name() {
                    "async" if *v == atom::TRUE => return Err(Fault::Unsupported(
                        "erlang timer functions with {async, true} are not implemented by trace"
                            .into(),
                    )),
                    "async" => {}
                    "info" if allow_info => info = *v == atom::TRUE,
                    _ => return Err(badarg()),
                }
            }
            _ => return Err(badarg()),
        }
    }
    Ok(info)
}

fn cancel_timer2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let info = timer_options(&a[1], true)?;
    let v = cancel_timer(cx, &a[..1])?;
    Ok(if info { v } else { Term::OK })
}

fn read_timer2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    timer_options(&a[1], false)?;
    read_timer(cx, &a[..1])
}

fn find_timer(cx: &mut Ctx, r: &Term) -> Option<u64> {
    let Term::Ref(r) = r else { return None };
    cx.rt.timers.by_ref(*r)
}

fn cancel_timer(cx: &mut Ctx, a: &[Term]) -> BifResult {
    if !matches!(a[0], Term::Ref(_)) {
        return Err(badarg());
    }
    // The gate and the signals due come before the cancel, not after: a
    // built-in stopped there runs again, and would find its timer gone
    // (a controlled run stops before it, so that the timer may fire
    // first; a replay may wait there for a signal).
    cx.before_event()?;
    let left = find_timer(cx, &a[0]).and_then(|t| {
        let left = cx.rt.timers.remaining_ms(t);
        cx.rt.timers.cancel(t).then_some(left.unwrap_or(0))
    });
    let v = left.map(|ms| Term::Int(ms as i64)).unwrap_or(Term::FALSE);
    cx.decide(NondetBif::Other("cancel_timer"), v)
}

fn read_timer(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let v = find_timer(cx, &a[0])
        .and_then(|t| cx.rt.timers.remaining_ms(t))
        .map(|ms| Term::Int(ms as i64))
        .unwrap_or(Term::FALSE);
    cx.nondet(NondetBif::Other("read_timer"), v)
}

/// The reference that names a timer's helper process: the helper's own,
/// numbered 0, which no `make_ref/0` of that process gives (they count from
/// 1), so it cannot be mistaken for another reference.
fn timer_ref(a: &[Term]) -> BifResult {
    match a[0] {
        Term::Pid(p) => Ok(Term::Ref(Ref::new(p, 0))),
        _ => Err(badarg()),
    }
}

/// The helper process a timer reference names, or `false`.
fn timer_process(a: &[Term]) -> BifResult {
    match a[0] {
        Term::Ref(r) if r.counter() == 0 => Ok(Term::Pid(Pid(r.creator()))),
        _ => Ok(Term::FALSE),
    }
}
