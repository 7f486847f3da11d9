//! Timers: receive timeouts and `erlang:send_after`/`start_timer`.
//!
//! One thread sleeps until the earliest deadline. A fired receive timeout
//! wakes its process (which then checks its deadline); a fired message timer
//! delivers its message. The number of pending timers is part of the run's
//! termination test: a run is over only when no process can run and no timer
//! can still make one runnable.

use crate::process::{Signal, SignalId};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;
use trace_term::{Atom, Pid, Ref, Term};

/// What a timer does when it fires.
#[derive(Clone, Debug)]
pub enum TimerAction {
    /// Wake the process (its receive timeout may have expired).
    Wake(Pid),
    /// Deliver a message (send_after / start_timer) to `to`, or, when the
    /// timer was set for a registered name, to whoever holds the name when
    /// it fires (BEAM looks the name up then, and drops the message if
    /// nobody holds it).
    Message {
        to: Pid,
        name: Option<Atom>,
        id: SignalId,
        payload: Term,
    },
}

struct Entry {
    at: Instant,
    id: u64,
    action: TimerAction,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.id == o.id
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.id).cmp(&(o.at, o.id))
    }
}

/// Timers in deadline order, and the ones still live (neither fired nor
/// cancelled) by id: cancelling only forgets the id, and the heap entry is
/// dropped when it comes up, so both are O(log n) however many are pending.
#[derive(Default)]
struct State {
    heap: BinaryHeap<Reverse<Entry>>,
    live: HashMap<u64, Live>,
    /// `erlang:send_after`/`start_timer` timers by reference (any process
    /// may cancel or read one).
    by_ref: HashMap<Ref, u64>,
    /// Message timers by destination pid (cancelled when it ends).
    by_dest: HashMap<Pid, Vec<u64>>,
    /// The live message timers by id, so in the order they were set, with
    /// what they deliver (controlled runs fire them one step at a time:
    /// see [`Timers::pending_messages`]).
    messages: BTreeMap<u64, Pending>,
    shutdown: bool,
}

/// A live message timer, as a controlled run offers it as a step.
struct Pending {
    msg: SignalId,
    /// Milliseconds it was set for (what a controlled run's virtual clock
    /// counts).
    after: u64,
    action: TimerAction,
}

/// A timer neither fired nor cancelled.
struct Live {
    at: Instant,
    /// The reference a program knows it by.
    key: Option<Ref>,
    /// The process its message goes to (not for a registered name).
    dest: Option<Pid>,
}

impl State {
    /// Forgets live timer `id`; true if it was live.
    fn forget(&mut self, id: u64) -> bool {
        let Some(l) = self.live.remove(&id) else {
            return false;
        };
        self.messages.remove(&id);
        if let Some(r) = l.key {
            self.by_ref.remove(&r);
        }
        if let Some(d) = l.dest {
            if let Some(ids) = self.by_dest.get_mut(&d) {
                ids.retain(|x| *x != id);
                if ids.is_empty() {
                    self.by_dest.remove(&d);
                }
            }
        }
        true
    }

    /// Drops the heap's cancelled entries once they outnumber the live ones
    /// (amortised O(1) per cancellation): receives with long `after`s
    /// cancelled at a high rate must not make the heap grow without bound.
    fn sweep(&mut self) {
        if self.heap.len() > 2 * self.live.len() + 1024 {
            let State { heap, live, .. } = self;
            heap.retain(|Reverse(e)| live.contains_key(&e.id));
        }
    }
}

#[derive(Default)]
pub struct Timers {
    state: Mutex<State>,
    cv: Condvar,
    next_id: AtomicU64,
    /// Timers added and neither fired nor cancelled.
    pending: AtomicU64,
}

impl Timers {
    /// Adds a timer; returns its id (for cancellation).
    pub fn add(&self, at: Instant, action: TimerAction) -> u64 {
        self.add_keyed(at, 0, action, None)
    }

    /// Adds a timer a program knows by reference `key` (see [`Timers::by_ref`]),
    /// set for `after` milliseconds.
    pub fn add_keyed(&self, at: Instant, after: u64, action: TimerAction, key: Option<Ref>) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        self.pending.fetch_add(1, Ordering::SeqCst);
        let dest = match &action {
            TimerAction::Message { to, name: None, .. } => Some(*to),
            _ => None,
        };
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // The timer thread sleeps until the heap's earliest deadline: it
        // needs waking only for an earlier one. (A receive with a long
        // `after` armed and cancelled per message, as gen_server:call's
        // 5 s, would otherwise wake it every time.)
        let earlier = s.heap.peek().is_none_or(|Reverse(e)| at < e.at);
        s.live.insert(id, Live { at, key, dest });
        if let Some(r) = key {
            s.by_ref.insert(r, id);
        }
        if let Some(d) = dest {
            s.by_dest.entry(d).or_default().push(id);
        }
        if let TimerAction::Message { id: msg, .. } = &action {
            let (msg, action) = (*msg, action.clone());
            s.messages.insert(id, Pending { msg, after, action });
        }
        s.heap.push(Reverse(Entry { at, id, action }));
        drop(s);
        if earlier {
            self.cv.notify_one();
        }
        id
    }

    /// Cancels a timer; true if it had not fired yet.
    pub fn cancel(&self, id: u64) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.forget(id) {
            self.pending.fetch_sub(1, Ordering::SeqCst);
            s.sweep();
            return true;
        }
        false
    }

    /// Cancels the message timers aimed at process `dest`, which has ended
    /// (as BEAM does: their messages could go nowhere, and a pending timer
    /// must not keep a finished run alive).
    pub fn cancel_for(&self, dest: Pid) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(ids) = s.by_dest.remove(&dest) else {
            return;
        };
        for id in ids {
            if s.forget(id) {
                self.pending.fetch_sub(1, Ordering::SeqCst);
            }
        }
        s.sweep();
    }

    /// The live timer known by reference `r`.
    pub fn by_ref(&self, r: Ref) -> Option<u64> {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.by_ref.get(&r).copied()
    }

    /// Milliseconds left before timer `id` fires, if it is pending.
    pub fn remaining_ms(&self, id: u64) -> Option<u64> {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.live
            .get(&id)
            .map(|l| l.at.saturating_duration_since(Instant::now()).as_millis() as u64)
    }

    /// Controlled runs: the messages of the timers still pending, each
    /// with the milliseconds its timer was set for, in the order the
    /// timers were set, to `each`.
    pub fn pending_messages(&self, mut each: impl FnMut(SignalId, u64)) {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for p in s.messages.values() {
            each(p.msg, p.after);
        }
    }

    /// Controlled runs: takes the pending timer whose message is `msg`, to
    /// fire it now (whatever its deadline: time is virtual).
    pub fn take_message(&self, msg: SignalId) -> Option<TimerAction> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (&id, p) = s.messages.iter().find(|(_, p)| p.msg == msg)?;
        let action = p.action.clone();
        s.forget(id);
        self.pending.fetch_sub(1, Ordering::SeqCst);
        s.sweep();
        Some(action)
    }

    pub fn pending(&self) -> u64 {
        self.pending.load(Ordering::SeqCst)
    }

    pub fn shutdown(&self) {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .shutdown = true;
        self.cv.notify_all();
    }

    /// The timer thread's loop: `fire` runs each due action; afterwards the
    /// pending count drops (so a woken process is counted active first).
    pub fn run(&self, fire: impl Fn(TimerAction)) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if s.shutdown {
                return;
            }
            let now = Instant::now();
            match s.heap.peek() {
                Some(Reverse(e)) if e.at <= now => {
                    let Reverse(e) = s.heap.pop().unwrap();
                    if !s.forget(e.id) {
                        continue; // cancelled
                    }
                    drop(s);
                    fire(e.action);
                    self.pending.fetch_sub(1, Ordering::SeqCst);
                    s = self.state.lock().unwrap_or_else(|e| e.into_inner());
                }
                Some(Reverse(e)) => {
                    let wait = e.at - now;
                    s = self
                        .cv
                        .wait_timeout(s, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                None => {
                    s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }
}

/// The signal a fired wake-up timer pushes.
pub fn wake_signal() -> Signal {
    Signal::Wake
}
