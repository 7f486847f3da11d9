//! Signals between processes: sending (into the target's inbox), delivery
//! (inbox → mailbox, by the target itself), and taking non-message signals
//! with BEAM's semantics for links, exits, `kill`, `normal` and trap_exit
//! (Bereczky et al. 2024's ExitDrop / ExitTerm / ExitTrap rules), monitors and 'DOWN'.

use super::timer::TimerAction;
use super::{Runtime, Worker};
use crate::hooks::{Effect, Event, SentSignal, TimerTarget};
use crate::process::{Message, MonitoredBy, ProcShared, Process, Signal, SignalId};
use std::sync::Arc;
use std::time::Instant;
use trace_term::{atom, Pid, Ref, Term};

/// Reports an event of `p` to the hooks. A Director that rejects it stops
/// the run (replay diverged) and the process is made to end.
pub fn emit(p: &mut Process, rt: &Runtime, ev: Event<'_>) {
    p.events += 1;
    if let Some(o) = p.observer.as_mut() {
        o.event(&ev);
    }
    if let Some(d) = p.director.as_mut() {
        // Events of a built-in call are made with the call's place saved.
        let in_call = matches!(
            ev,
            Event::Spawn { .. }
                | Event::Send { .. }
                | Event::Signal { .. }
                | Event::Nondet { .. }
                | Event::Output { .. }
        );
        match d.event(&ev) {
            Ok(()) => note_agreed(p, rt, in_call),
            Err(div) => {
                rt.diverge(p, div, in_call);
            }
        }
    }
}

/// Notes where `p` last agreed with the log (said when a replay departs,
/// and where `--until` says the process did its event): within a built-in
/// call (`in_call`) the call's place, else the current one.
pub(crate) fn note_agreed(p: &mut Process, rt: &Runtime, in_call: bool) {
    if let Some(pc) = rt.place(p, in_call) {
        p.agreed_at = Some((p.fun, pc as u32));
    }
}

/// Pushes a signal into `to`'s inbox and wakes it; false if `to` is not alive.
/// In a replay, a signal to a process not spawned yet waits for it.
pub fn deliver(rt: &Runtime, wk: Option<&Worker>, to: Pid, sig: Signal) -> bool {
    let Some(t) = rt.table.get(to) else {
        return rt.awaits_unborn && rt.table.hold_for_unborn(to, sig);
    };
    deliver_to(rt, wk, &t, sig)
}

/// Puts `sig` in `t`'s inbox and wakes it; false if it has exited.
fn deliver_to(rt: &Runtime, wk: Option<&Worker>, t: &Arc<ProcShared>, sig: Signal) -> bool {
    if !t.push(sig) {
        return false;
    }
    rt.wake(wk, t);
    true
}

/// [`deliver`] of a message, through the sender's last destination when it
/// is the same process (see [`Process::last_dest`]).
fn deliver_message(p: &mut Process, rt: &Runtime, wk: &Worker, to: Pid, sig: Signal) {
    let cached = match &p.last_dest {
        Some((pid, t)) if *pid == to => t.upgrade(),
        _ => None,
    };
    if let Some(t) = cached {
        if t.is_exited() {
            // Ended: its pid may be a new process's now (a replay forces
            // the pids a log names), which only the table knows.
            p.last_dest = None;
        } else {
            deliver_to(rt, Some(wk), &t, sig);
            return;
        }
    }
    match rt.table.get(to) {
        Some(t) => {
            p.last_dest = Some((to, Arc::downgrade(&t)));
            deliver_to(rt, Some(wk), &t, sig);
        }
        None => {
            deliver(rt, Some(wk), to, sig);
        }
    }
}

/// Sends message `payload` to `to` (a pid, or the creator of alias `via`);
/// the Send event carries its identity.
pub fn send_message(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    to: Pid,
    payload: Term,
    via: Option<trace_term::Ref>,
) {
    let id = p.next_signal_id();
    emit(
        p,
        rt,
        Event::Send {
            id,
            to,
            payload: &payload,
        },
    );
    deliver_message(p, rt, wk, to, Signal::Message { id, payload, via });
}

/// Gives `p`'s next non-message signal, to `to`, its identity and logs it
/// as `out`.
pub fn log_signal(p: &mut Process, rt: &Runtime, to: Pid, out: SentSignal<'_>) -> SignalId {
    let id = p.next_signal_id();
    emit(
        p,
        rt,
        Event::Signal {
            id,
            to,
            signal: out,
        },
    );
    id
}

/// Sends a non-message signal to `to`, logged as `out`; `sig` makes it from
/// its identity. Returns whether `to` was alive.
pub fn send_signal(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    to: Pid,
    out: SentSignal<'_>,
    sig: impl FnOnce(SignalId) -> Signal,
) -> bool {
    let id = log_signal(p, rt, to, out);
    deliver(rt, Some(wk), to, sig(id))
}

/// Moves arrived signals out of the inbox: messages into the mailbox (delivery),
/// other signals taken now (native) or kept until the Director says (replay).
/// Returns true if the mailbox grew.
pub fn drain(p: &mut Process, rt: &Runtime, wk: &Worker) -> bool {
    let sigs = match &p.me {
        Some(s) => s.take_arrivals(),
        None => return false,
    };
    let sigs = if wk.chaos() && p.director.is_none() {
        chaos_defer(p, wk, sigs)
    } else {
        sigs
    };
    let mut grew = false;
    for s in sigs {
        if p.kill.is_some()
            && !matches!(
                s,
                Signal::Link { .. }
                    | Signal::Unlink { .. }
                    | Signal::Monitor { .. }
                    | Signal::Demonitor { .. }
            )
        {
            // Killed by a signal taken above: messages and exit signals that
            // arrived with it reach a dead process and are dropped (link and
            // monitor requests still get their answer when it ends).
            continue;
        }
        match s {
            Signal::Wake => {}
            Signal::Message { id, payload, via } => {
                grew |= arrive(p, rt, id, payload, via);
            }
            other => {
                if p.directed_signals {
                    p.pending.push_back(other);
                } else {
                    grew |= take(p, rt, wk, other);
                }
            }
        }
    }
    grew
}

/// Chaos mode: holds back everything some senders sent (their signals stay in
/// the inbox, in order, for a later delivery), so that signals from different
/// senders arrive in unusual orders while each sender's order is kept.
fn chaos_defer(p: &mut Process, wk: &Worker, sigs: Vec<Signal>) -> Vec<Signal> {
    let mut held: Vec<trace_term::Pid> = Vec::new();
    let mut seen: Vec<trace_term::Pid> = Vec::new();
    let mut now = Vec::with_capacity(sigs.len());
    let mut later = Vec::new();
    for s in sigs {
        // What a process sends itself is in its mailbox at once, as on BEAM.
        let Some(id) = s.id().filter(|id| id.sender != p.pid) else {
            now.push(s);
            continue;
        };
        if !seen.contains(&id.sender) {
            seen.push(id.sender);
            if wk.random().is_multiple_of(3) {
                held.push(id.sender);
            }
        }
        if held.contains(&id.sender) {
            later.push(s);
        } else {
            now.push(s);
        }
    }
    if !later.is_empty() {
        if let Some(me) = &p.me {
            me.put_back(later);
        }
    }
    now
}

/// Whether a signal the Director says is due could be taken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Due {
    /// Nothing is due (or everything due was taken).
    Clear,
    /// A due signal has not arrived yet: the process must wait for it.
    Missing,
}

/// Replay: takes the signals the Director says land before the next event.
pub fn take_due(p: &mut Process, rt: &Runtime, wk: &Worker) -> Due {
    loop {
        if p.kill.is_some() {
            return Due::Clear;
        }
        let Some(d) = p.director.as_mut() else {
            return Due::Clear;
        };
        let Some(id) = d.signal_due() else {
            return Due::Clear;
        };
        match p.pending.iter().position(|s| s.id() == Some(id)) {
            Some(i) => {
                let s = p.pending.remove(i).expect("position is valid");
                take(p, rt, wk, s);
            }
            None => {
                if !drain_pending(p, rt, id) {
                    return Due::Missing;
                }
            }
        }
    }
}

/// Drains the inbox; true if the signal `want` is now pending.
fn drain_pending(p: &mut Process, rt: &Runtime, want: SignalId) -> bool {
    let Some(s) = p.me.clone() else {
        return false;
    };
    for sig in s.take_arrivals() {
        match sig {
            Signal::Wake => {}
            Signal::Message { id, payload, via } => {
                arrive(p, rt, id, payload, via);
            }
            other => p.pending.push_back(other),
        }
    }
    p.pending.iter().any(|s| s.id() == Some(want))
}

/// A message reaches `p`'s mailbox (logged as its delivery); false when it
/// came through an alias that is no longer active and is dropped, as BEAM
/// drops it. A replay keeps every message: its receives take exactly the
/// logged ones, so one dropped in the recorded run is never taken, while
/// dropping by the replay's own arrival times could lose one that was taken.
fn arrive(p: &mut Process, rt: &Runtime, id: SignalId, payload: Term, via: Option<Ref>) -> bool {
    if let Some(r) = via {
        if !p.admit_alias(r) && p.director.is_none() {
            return false;
        }
    }
    p.mailbox.push_back(Message { id, payload, via });
    if p.reports_deliveries {
        emit(p, rt, Event::Deliver { id });
    } else {
        p.events += 1;
    }
    true
}

/// Logs that `p` took the signal `id`, with `effect`.
fn signal_taken(p: &mut Process, rt: &Runtime, id: SignalId, effect: Effect) {
    emit(p, rt, Event::SignalTaken { id, effect });
}

/// Takes one non-message signal; returns true if it put a message in the mailbox.
pub fn take(p: &mut Process, rt: &Runtime, _wk: &Worker, sig: Signal) -> bool {
    match sig {
        Signal::Exit {
            id,
            from,
            reason,
            linked,
        } => {
            let effect = if linked && !p.is_linked(from) {
                // The link was removed before the signal arrived (Bereczky et al. 2024: ExitDrop).
                Effect::Ignored
            } else {
                if linked {
                    p.remove_link(from);
                }
                if !linked && reason.is_atom(atom::KILL) {
                    Effect::Killed
                } else if p.trap_exit {
                    Effect::Converted
                } else if reason.is_atom(atom::NORMAL) && id.sender != p.pid {
                    Effect::Ignored
                } else {
                    Effect::Killed
                }
            };
            signal_taken(p, rt, id, effect);
            match effect {
                Effect::Converted => {
                    let msg =
                        Term::tuple(vec![Term::Atom(atom::EXIT_UPPER), Term::Pid(from), reason]);
                    p.mailbox.push_back(Message {
                        id,
                        payload: msg,
                        via: None,
                    });
                    return true;
                }
                Effect::Killed => {
                    let r = if !linked && reason.is_atom(atom::KILL) {
                        Term::Atom(atom::KILLED)
                    } else {
                        reason
                    };
                    if p.kill.is_none() {
                        p.kill = Some(r);
                    }
                }
                _ => {}
            }
            false
        }
        Signal::Link { id } => {
            p.add_link(id.sender);
            signal_taken(p, rt, id, Effect::Applied);
            false
        }
        Signal::Unlink { id } => {
            p.remove_link(id.sender);
            signal_taken(p, rt, id, Effect::Applied);
            false
        }
        Signal::Monitor { id, r, name } => {
            p.monitored_by.push(MonitoredBy {
                r,
                watcher: id.sender,
                name,
            });
            signal_taken(p, rt, id, Effect::Applied);
            false
        }
        Signal::Demonitor { id, r } => {
            p.monitored_by.retain(|m| m.r != r);
            signal_taken(p, rt, id, Effect::Applied);
            false
        }
        Signal::Down {
            id,
            from,
            shown,
            r,
            reason,
        } => {
            let held = p.monitors.iter().position(|(x, _)| *x == r);
            match held {
                Some(i) => {
                    p.monitors.remove(i);
                    p.end_monitor_alias(r);
                    signal_taken(p, rt, id, Effect::Converted);
                    let msg = Term::tuple(vec![
                        Term::Atom(atom::DOWN),
                        Term::Ref(r),
                        Term::Atom(atom::PROCESS),
                        shown.unwrap_or(Term::Pid(from)),
                        reason,
                    ]);
                    p.mailbox.push_back(Message {
                        id,
                        payload: msg,
                        via: None,
                    });
                    true
                }
                None => {
                    // Demonitored meanwhile: the 'DOWN' is dropped.
                    signal_taken(p, rt, id, Effect::Ignored);
                    false
                }
            }
        }
        Signal::Message { id, payload, via } => arrive(p, rt, id, payload, via),
        Signal::Wake => false,
    }
}

/// Arms (or keeps) the wake-up timer of a `receive ... after`.
pub fn arm_timeout(p: &mut Process, rt: &Runtime, at: Instant) {
    if let Some((id, when)) = p.recv_timer {
        if when == at {
            return;
        }
        rt.timers.cancel(id);
    }
    let id = rt.timers.add(at, TimerAction::Wake(p.pid));
    p.recv_timer = Some((id, at));
}

/// Cancels the wake-up timer when the receive is over.
pub fn cancel_timeout(p: &mut Process, rt: &Runtime) {
    if let Some((id, _)) = p.recv_timer.take() {
        rt.timers.cancel(id);
    }
}

/// What a fired timer does.
pub fn fire_timer(rt: &Runtime, action: TimerAction) {
    match action {
        TimerAction::Wake(pid) => {
            deliver(rt, None, pid, Signal::Wake);
        }
        TimerAction::Message {
            to,
            name,
            id,
            payload,
        } => {
            let to = match name {
                Some(n) => match rt.director.timer_target(id) {
                    TimerTarget::Native => {
                        let names = rt.names.lock().unwrap_or_else(|e| e.into_inner());
                        match names.get(&n) {
                            Some(p) => *p,
                            None => return,
                        }
                    }
                    TimerTarget::Process(p) => p,
                    TimerTarget::Nowhere => return,
                    TimerTarget::Later => {
                        let at = Instant::now() + std::time::Duration::from_millis(1);
                        let action = TimerAction::Message {
                            to,
                            name,
                            id,
                            payload,
                        };
                        rt.timers.add(at, action);
                        return;
                    }
                },
                None => to,
            };
            deliver(
                rt,
                None,
                to,
                Signal::Message {
                    id,
                    payload,
                    via: None,
                },
            );
        }
    }
}
