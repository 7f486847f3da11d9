//! `receive`: BEAM's selective receive over the mailbox (scan in arrival
//! order; the first message matching any clause is consumed), with the
//! Director able to force which message or a timeout (replay).
//!
//! The compiled loop is `RecvStart [RecvRef] lp: RecvPeek, clauses ...,
//! RecvNext -> lp, RecvWait[Timeout] -> lp`. The message under the cursor is
//! *lent* to the clauses' subject slot (moved out of its mailbox entry and
//! back on `RecvNext`, kept by `RecvAccept`), so a scan costs no reference
//! counting. `RecvRef` starts the scan at the receive marker when the
//! clauses all need the reference the process made last.

use super::{ExitInfo, SliceEnd};
use crate::hooks::{Event, ReceiveChoice};
use crate::ir::{RecvFilter, Slot, RAISE};
use crate::process::{Process, RecvMode};
use crate::sched::signals::{self, Due};
use crate::sched::{Runtime, Worker};
use std::time::{Duration, Instant};
use trace_term::Term;

pub enum Step {
    /// Go on (scan again).
    Continue,
    /// Take the `after` branch.
    Jump(u32),
    End(SliceEnd),
    /// A controlled run: the timeout is this process's next operation;
    /// stop before it.
    Pause,
}

fn killed(p: &mut Process) -> Option<Step> {
    p.kill
        .take()
        .map(|reason| Step::End(SliceEnd::Exit(ExitInfo::plain(reason))))
}

fn diverged(p: &mut Process, rt: &Runtime, expected: String, happened: String) -> SliceEnd {
    rt.diverged_at(
        p,
        crate::hooks::Divergence {
            pid: p.pid,
            event_index: p.events,
            expected,
            happened,
            location: String::new(),
            agreed: String::new(),
        },
        false,
    );
    SliceEnd::Exit(ExitInfo::plain(Term::atom(crate::sched::DIVERGED)))
}

/// `RecvStart`: a new receive begins.
pub fn start(p: &mut Process, rt: &Runtime, wk: &Worker, after: u32) -> Step {
    p.return_loan();
    p.cursor = 0;
    p.deadline = None;
    p.recv_mode = RecvMode::FirstMatch;
    if p.director.is_none() {
        return Step::Continue;
    }
    if signals::take_due(p, rt, wk) == Due::Missing {
        return Step::End(SliceEnd::Wait { deadline: None });
    }
    if let Some(s) = killed(p) {
        return s;
    }
    let choice = p.director.as_mut().map(|d| d.receive());
    match choice {
        None | Some(Ok(ReceiveChoice::Native)) => Step::Continue,
        Some(Ok(ReceiveChoice::Message(id))) => {
            p.recv_mode = RecvMode::Exactly(id);
            Step::Continue
        }
        Some(Ok(ReceiveChoice::Timeout)) => {
            if after == RAISE {
                return Step::End(diverged(
                    p,
                    rt,
                    "a timeout".into(),
                    "a receive without an after clause".into(),
                ));
            }
            signals::emit(p, rt, Event::Timeout);
            Step::Jump(after)
        }
        Some(Err(d)) => {
            rt.diverged_at(p, d, false);
            Step::End(SliceEnd::Exit(ExitInfo::plain(Term::atom(
                crate::sched::DIVERGED,
            ))))
        }
    }
}

/// `RecvRef`: a receive whose every clause needs `v` in the message starts
/// its scan at the receive marker when `v` is the reference it was set for.
pub fn use_mark(p: &mut Process, v: Option<trace_term::Ref>) {
    if let (Some((r, at)), Some(x), RecvMode::FirstMatch) = (p.recv_mark, v, p.recv_mode) {
        if r == x && p.cursor < at && at <= p.mailbox.len() {
            p.cursor = at;
        }
    }
}

/// Moves the cursor past the messages that `filter` says no clause of the
/// receive can match (`base`: where the function's window starts).
#[inline(always)]
fn pass_over(p: &mut Process, filter: Option<&RecvFilter>, base: usize) {
    if let Some(flt) = filter {
        let frame = &p.regs[base..];
        let rest = p.mailbox.len().saturating_sub(p.cursor);
        p.cursor += p
            .mailbox
            .range(p.cursor.min(p.mailbox.len())..)
            .position(|m| flt.admits(&m.payload, frame))
            .unwrap_or(rest);
    }
}

/// `RecvPeek`'s fast path (BEAM's rule, a message under the cursor):
/// lends it to stack slot `base + dst`; false when [`peek`] must decide.
#[inline(always)]
pub fn lend_current(p: &mut Process, base: usize, dst: Slot, filter: Option<&RecvFilter>) -> bool {
    if p.loan.is_some() || p.recv_mode != RecvMode::FirstMatch {
        return false;
    }
    pass_over(p, filter, base);
    let slot = base + dst as usize;
    let Some(m) = p.mailbox.get_mut(p.cursor) else {
        return false;
    };
    p.regs[slot].set(std::mem::replace(&mut m.payload, Term::Nil));
    p.loan = Some(slot as u32);
    true
}

/// `RecvNext`'s fast path (BEAM's rule): gives the message back and moves
/// the cursor on; false when [`next`] must decide.
#[inline(always)]
pub fn skip_current(p: &mut Process) -> bool {
    if p.recv_mode != RecvMode::FirstMatch {
        return false;
    }
    if let Some(s) = p.loan.take() {
        let v = std::mem::replace(&mut p.regs[s as usize], Term::Nil);
        if let Some(m) = p.mailbox.get_mut(p.cursor) {
            m.payload.set(v);
        }
    }
    p.cursor += 1;
    true
}

/// `RecvPeek`: lends the message to try next to stack slot `base + dst`;
/// false when there is none.
pub fn peek(p: &mut Process, rt: &Runtime, wk: &Worker, base: usize, dst: Slot) -> bool {
    p.return_loan();
    let slot = base + dst as usize;
    loop {
        let at = match p.recv_mode {
            RecvMode::FirstMatch => (p.cursor < p.mailbox.len()).then_some(p.cursor),
            RecvMode::Exactly(id) => p.mailbox.iter().position(|m| m.id == id),
        };
        if let Some(i) = at {
            p.cursor = i;
            let v = std::mem::replace(&mut p.mailbox[i].payload, Term::Nil);
            p.regs[slot] = v;
            p.loan = Some(slot as u32);
            return true;
        }
        if !signals::drain(p, rt, wk) || p.kill.is_some() {
            return false;
        }
    }
}

/// `RecvNext`: the current message matched no clause.
pub fn next(p: &mut Process, rt: &Runtime) -> Result<(), SliceEnd> {
    p.return_loan();
    match p.recv_mode {
        RecvMode::FirstMatch => {
            p.cursor += 1;
            Ok(())
        }
        RecvMode::Exactly(id) => Err(diverged(
            p,
            rt,
            format!("the receive to take message {}:{}", id.sender, id.index),
            "that message matches no clause of the receive".into(),
        )),
    }
}

/// `RecvAccept`: consume the current message (a receipt).
pub fn accept(p: &mut Process, rt: &Runtime) -> Result<(), SliceEnd> {
    let m = p
        .mailbox
        .remove(p.cursor)
        .expect("accept without a current message");
    // The payload is on loan in its slot, which now owns it.
    let slot = p.loan.take().expect("accept without a message on loan") as usize;
    if let Some((_, at)) = &mut p.recv_mark {
        if p.cursor < *at {
            *at -= 1;
        }
    }
    signals::cancel_timeout(p, rt);
    p.cursor = 0;
    p.deadline = None;
    p.recv_mode = RecvMode::FirstMatch;
    let via = m.via;
    if p.observer.is_some() || p.director.is_some() {
        let payload = std::mem::replace(&mut p.regs[slot], Term::Nil);
        signals::emit(
            p,
            rt,
            Event::Receive {
                id: m.id,
                payload: &payload,
            },
        );
        p.regs[slot] = payload;
    } else {
        p.events += 1;
    }
    if let Some(r) = via {
        reply_demonitor(p, rt, r);
    }
    match killed(p) {
        Some(Step::End(e)) => Err(e),
        _ => Ok(()),
    }
}

/// A message received through the alias of a `{alias, reply_demonitor}`
/// monitor ends the monitor. (BEAM ends it when the message arrives; the
/// engine when it is received, a point of the process's own run that a
/// replay reproduces.)
fn reply_demonitor(p: &mut Process, rt: &Runtime, r: trace_term::Ref) {
    if !p.reply_demonitors.contains(&r) {
        return;
    }
    p.reply_demonitors.retain(|x| *x != r);
    p.aliases.retain(|(a, _)| *a != r);
    if let Some(i) = p.monitors.iter().position(|(x, _)| *x == r) {
        let (_, target) = p.monitors.remove(i);
        let id = signals::log_signal(p, rt, target, crate::hooks::SentSignal::Demonitor);
        signals::deliver(
            rt,
            None,
            target,
            crate::process::Signal::Demonitor { id, r },
        );
    }
}

/// `RecvWait`/`RecvWaitTimeout`: nothing matched. `ms` is the timeout
/// (`None` = infinity). `Jump` means the timeout expired.
pub fn wait(p: &mut Process, rt: &Runtime, wk: &Worker, ms: Option<u64>) -> Step {
    if signals::drain(p, rt, wk) {
        return Step::Continue;
    }
    if let Some(s) = killed(p) {
        return s;
    }
    let forced = matches!(p.recv_mode, RecvMode::Exactly(_));
    let Some(ms) = ms.filter(|_| !forced) else {
        return Step::End(SliceEnd::Wait { deadline: None });
    };
    if rt.controlled {
        // Virtual time: the timeout may fire whenever the process is
        // picked with no matching message. Messages that came while it
        // was poised here (taken in at the slice's start) are scanned
        // first.
        if p.cursor < p.mailbox.len() {
            return Step::Continue;
        }
        if !p.gate.pass() {
            return Step::Pause;
        }
        p.deadline = None;
        p.cursor = 0;
        signals::emit(p, rt, Event::Timeout);
        return Step::Jump(0);
    }
    let now = Instant::now();
    let deadline = match p.deadline {
        Some(d) => Some(d),
        None => {
            let d = now.checked_add(Duration::from_millis(ms));
            p.deadline = d;
            d
        }
    };
    match deadline {
        Some(d) if now < d => Step::End(SliceEnd::Wait { deadline: Some(d) }),
        Some(_) => {
            signals::cancel_timeout(p, rt);
            p.deadline = None;
            p.cursor = 0;
            signals::emit(p, rt, Event::Timeout);
            Step::Jump(0)
        }
        // A timeout too far away to represent: never fires.
        None => Step::End(SliceEnd::Wait { deadline: None }),
    }
}
