//! One scheduler thread: takes runnable processes from its own queue, the
//! global injector or other threads' queues (work stealing), runs each for a
//! slice, and files it back as runnable, waiting or exited.

use super::{exit, signals, Runtime};
use crate::hooks::Settle;
use crate::process::Signal;
use crate::process::{run_state, ProcShared};
use crate::vm::{interp, SliceEnd};
use crossbeam_deque::{Steal, Stealer};
use crossbeam_utils::CachePadded;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct Worker {
    index: usize,
    local: crossbeam_deque::Worker<Arc<ProcShared>>,
    rng: Cell<u64>,
    chaos: bool,
    /// Processes that stopped being active on this thread (they wait or
    /// ended) and are still counted in `Runtime::active`.
    deferred: Cell<i64>,
    /// How many times this thread has emptied its own queue, shared with
    /// the thieves (see [`Victim`]).
    emptied: Arc<CachePadded<AtomicU64>>,
    /// Each other queue's `emptied` count when this thread last saw it
    /// holding a single process.
    seen: RefCell<Vec<u64>>,
    /// How many times in a row this thread has found nothing to run.
    idle_looks: Cell<u32>,
}

/// What other threads see of one thread's queue: its stealing end, and how
/// many times its owner has emptied it.
///
/// A process alone in a queue is the one its owner runs next, usually as
/// soon as the running process stops (a message passed along a ring): a
/// thief taking it would move the work to a cold cache and gain nothing.
/// So a lone process is stolen only when the owner has not emptied its
/// queue since the thief's last look, that is, when it waited there while
/// the owner was busy (two compute-bound processes sharing a thread).
/// Queues holding more are stolen from at once.
pub struct Victim {
    stealer: Stealer<Arc<ProcShared>>,
    emptied: Arc<CachePadded<AtomicU64>>,
}

impl Victim {
    /// Whether the queue holds more than the process its owner runs next.
    pub fn has_spare(&self) -> bool {
        self.stealer.len() > 1
    }
}

impl Worker {
    pub fn new(index: usize, chaos: Option<&super::Chaos>) -> Worker {
        let seed = chaos.map(|c| c.seed).unwrap_or(0x9E37_79B9_7F4A_7C15);
        Worker {
            index,
            local: crossbeam_deque::Worker::new_fifo(),
            rng: Cell::new(first_state(seed, index)),
            chaos: chaos.is_some(),
            deferred: Cell::new(0),
            emptied: Arc::default(),
            seen: RefCell::default(),
            idle_looks: Cell::new(0),
        }
    }

    /// The face this thread's queue shows to the others.
    pub fn victim(&self) -> Victim {
        Victim {
            stealer: self.local.stealer(),
            emptied: self.emptied.clone(),
        }
    }

    /// Takes the next process of this thread's own queue, noting when that
    /// leaves it empty.
    fn pop_own(&self) -> Option<Arc<ProcShared>> {
        let p = self.local.pop()?;
        if self.local.is_empty() {
            // Only this thread writes the count: no read-modify-write.
            let n = self.emptied.load(Ordering::Relaxed);
            self.emptied.store(n + 1, Ordering::Relaxed);
        }
        Some(p)
    }

    /// How long to sleep after finding nothing to run. Work that needs this
    /// thread wakes it (a queue holding more than its next process, a
    /// preempted process with another waiting behind it, a timer, a run
    /// that settles), so the naps only catch what no wake-up announces (a
    /// process queued behind a long built-in call, which then waits at most
    /// 16 ms for a thief), and they lengthen while nothing turns up: fifteen
    /// idle threads of a 16-core machine looking every 2 ms took a tenth of
    /// a core beside a ring with one token.
    fn nap(&self) -> Duration {
        let looks = self.idle_looks.get();
        self.idle_looks.set(looks.saturating_add(1));
        Duration::from_millis(2 << looks.min(3))
    }

    /// This thread found something to run: its next nap is short again.
    fn found_work(&self) {
        self.idle_looks.set(0);
    }

    /// Whether to steal from `v` (queue `i`) now; see [`Victim`].
    fn may_steal(&self, i: usize, v: &Victim) -> bool {
        match v.stealer.len() {
            0 => false,
            1 => {
                let now = v.emptied.load(Ordering::Relaxed);
                let mut seen = self.seen.borrow_mut();
                if seen.len() <= i {
                    seen.resize(i + 1, u64::MAX);
                }
                std::mem::replace(&mut seen[i], now) == now
            }
            _ => true,
        }
    }

    pub fn index(&self) -> usize {
        self.index
    }

    pub fn push(&self, p: Arc<ProcShared>) {
        self.local.push(p);
    }

    /// Takes the next process of this thread's own queue.
    pub fn pop_local(&self) -> Option<Arc<ProcShared>> {
        self.local.pop()
    }

    /// Processes waiting in this thread's own queue.
    pub fn queued(&self) -> usize {
        self.local.len()
    }

    pub fn chaos(&self) -> bool {
        self.chaos
    }

    /// A process running on this thread stopped being active: it is
    /// subtracted from `Runtime::active` when the thread runs out of work
    /// (so the count stays at or above the true one, and reads 0 only when
    /// nothing runs), unless an activation on this thread balances it first.
    pub fn defer_deactivation(&self) {
        self.deferred.set(self.deferred.get() + 1);
    }

    /// Balances one deferred deactivation against an activation; false if
    /// there is none.
    pub fn balance_deactivation(&self) -> bool {
        let n = self.deferred.get();
        if n > 0 {
            self.deferred.set(n - 1);
        }
        n > 0
    }

    /// The deferred deactivations, to subtract now.
    pub fn take_deactivations(&self) -> i64 {
        self.deferred.replace(0)
    }

    /// A pseudo-random number (xorshift), for chaos scheduling.
    pub fn random(&self) -> u64 {
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        x
    }
}

fn find(rt: &Runtime, w: &Worker) -> Option<Arc<ProcShared>> {
    if let Some(p) = w.pop_own() {
        return Some(p);
    }
    loop {
        let mut retry = false;
        match rt.injector.steal_batch_and_pop(&w.local) {
            Steal::Success(p) => return Some(p),
            Steal::Retry => retry = true,
            Steal::Empty => {}
        }
        let n = rt.stealers.len();
        for k in 1..n {
            let i = (w.index + k) % n;
            let v = &rt.stealers[i];
            if !w.may_steal(i, v) {
                continue;
            }
            match v.stealer.steal() {
                Steal::Success(p) => return Some(p),
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
        }
        if !retry {
            return None;
        }
    }
}

/// The scheduler loop.
pub fn run(rt: &Runtime, w: Worker) {
    loop {
        if rt.stopping() {
            rt.notify_all();
            return;
        }
        match find(rt, &w) {
            Some(p) => {
                w.found_work();
                // A bug in the engine must end the run with a report, not
                // leave the other threads waiting for a process that is gone.
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_process(rt, &w, p)
                }));
                if let Err(e) = ran {
                    rt.internal_error(panic_text(&*e));
                    return;
                }
            }
            None => {
                rt.check_time();
                rt.publish_deactivations(&w);
                if rt.idle() {
                    match settle(rt) {
                        Some(true) => continue,
                        Some(false) => {
                            rt.stop.store(true, Ordering::Release);
                            rt.notify_all();
                            return;
                        }
                        // Another thread is asking the Director.
                        None => {}
                    }
                }
                let g = rt.sleep.0.lock().unwrap_or_else(|e| e.into_inner());
                rt.sleepers.fetch_add(1, Ordering::SeqCst);
                // Work queued before the count above was seen is looked for
                // now; work queued after it sends a wake-up (`wake_a_sleeper`).
                if !rt.work_waiting() && !rt.stopping() {
                    let _ = rt
                        .sleep
                        .1
                        .wait_timeout(g, w.nap())
                        .unwrap_or_else(|e| e.into_inner());
                } else {
                    drop(g);
                }
                rt.sleepers.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// The run has settled: asks the Director whether to go on, and wakes the
/// processes it names. `Some(true)`: go on; `Some(false)`: end the run;
/// `None`: another scheduler thread is asking.
fn settle(rt: &Runtime) -> Option<bool> {
    let _only_one = rt.settling.try_lock().ok()?;
    // Settled still, now that no other thread can be settling.
    if !rt.idle() || rt.stopping() {
        return Some(!rt.stopping());
    }
    match rt.director.settled(&crate::inspect::View::new(rt)) {
        Settle::End => Some(false),
        Settle::Resume(pids) => {
            for pid in pids {
                signals::deliver(rt, None, pid, Signal::Wake);
            }
            Some(true)
        }
    }
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

pub(crate) fn run_process(rt: &Runtime, w: &Worker, shared: Arc<ProcShared>) {
    shared.state.store(run_state::RUNNING, Ordering::Release);
    let Some(mut body) = shared.body.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        return;
    };
    if let Some(o) = body.observer.as_mut() {
        o.slice_begin();
    }
    signals::drain(&mut body, rt, w);
    signals::take_due(&mut body, rt, w);
    let budget = if w.chaos {
        1 + (w.random() % (2 * rt.opts.reductions as u64)) as u32
    } else {
        rt.opts.reductions
    };
    let events_before = body.events;
    let end = if rt.stopping() {
        SliceEnd::Yield
    } else if let Some(info) = body.ending.take() {
        // Replay: it had ended and was waiting for a signal to take first.
        SliceEnd::Exit(*info)
    } else {
        interp::run_slice(&mut body, rt, w, budget)
    };
    rt.account(body.events - events_before);
    // Replay: a signal the log says this process took before ending has not
    // arrived; it waits for it, ended but not finished.
    let end = match end {
        // A controlled run: the end is a step of its own; the process
        // stops before it unless it was picked for it.
        SliceEnd::Exit(info) if !body.gate.pass() => {
            body.ending = Some(Box::new(info));
            SliceEnd::Yield
        }
        SliceEnd::Exit(info)
            if body.director.is_some()
                && body.kill.is_none()
                && signals::take_due(&mut body, rt, w) == signals::Due::Missing =>
        {
            body.ending = Some(Box::new(info));
            SliceEnd::Wait { deadline: None }
        }
        // Replay: what the end does to the tables it owns waits for each
        // table's turn.
        SliceEnd::Exit(info)
            if body.director.is_some() && !crate::ets::owner::exit_turns(&mut body, rt, w) =>
        {
            body.ending = Some(Box::new(info));
            SliceEnd::Wait { deadline: None }
        }
        end => end,
    };
    if !matches!(end, SliceEnd::Exit(_)) {
        interp::trim_stack(&mut body, &rt.program);
    }
    match end {
        SliceEnd::Yield => {
            if let Some(o) = body.observer.as_mut() {
                o.slice_end();
            }
            *shared.body.lock().unwrap_or_else(|e| e.into_inner()) = Some(body);
            shared.state.store(run_state::QUEUED, Ordering::Release);
            requeue_preempted(rt, w, shared);
        }
        SliceEnd::Wait { deadline } => {
            if let Some(at) = deadline {
                signals::arm_timeout(&mut body, rt, at);
            }
            if let Some(o) = body.observer.as_mut() {
                o.slice_end();
            }
            *shared.body.lock().unwrap_or_else(|e| e.into_inner()) = Some(body);
            shared.state.store(run_state::WAITING, Ordering::SeqCst);
            if shared.has_arrivals()
                && shared
                    .state
                    .compare_exchange(
                        run_state::WAITING,
                        run_state::QUEUED,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_ok()
            {
                // Re-queued by ourselves: we stay counted as active.
                w.push(shared);
            } else {
                w.defer_deactivation();
            }
        }
        SliceEnd::Exit(info) => {
            exit::finish(rt, w, &shared, body, info);
            w.defer_deactivation();
        }
    }
}

/// Puts a process whose slice ran out back in a run queue: this thread's
/// (the global one, now and then, under chaos). As for any process made
/// runnable, an idle thread is woken when another waits behind it.
fn requeue_preempted(rt: &Runtime, w: &Worker, shared: Arc<ProcShared>) {
    let global = w.chaos && w.random().is_multiple_of(4);
    rt.enqueue((!global).then_some(w), shared);
}

/// The xorshift state a thread starts from: every bit of the seed and the
/// thread's index mixed in (splitmix64's finaliser), so that neighbouring
/// seeds give different schedules, and never 0 (xorshift's fixed point).
fn first_state(seed: u64, index: usize) -> u64 {
    let mut z = seed.wrapping_add((index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    if z == 0 {
        0x9E37_79B9_7F4A_7C15
    } else {
        z
    }
}

#[cfg(test)]
mod tests {
    use super::{first_state, Worker};

    #[test]
    fn deferred_deactivations_are_balanced_by_activations_then_published() {
        let w = Worker::new(0, None);
        // Nothing deferred: an activation must be counted globally.
        assert!(!w.balance_deactivation());
        w.defer_deactivation();
        w.defer_deactivation();
        // One process woke on this thread: it balances one of the two.
        assert!(w.balance_deactivation());
        assert_eq!(w.take_deactivations(), 1);
        assert_eq!(w.take_deactivations(), 0);
        assert!(!w.balance_deactivation());
    }

    #[test]
    fn naps_lengthen_while_nothing_turns_up_and_shorten_on_work() {
        let w = Worker::new(0, None);
        let naps: Vec<u128> = (0..8).map(|_| w.nap().as_millis()).collect();
        assert_eq!(naps, [2, 4, 8, 16, 16, 16, 16, 16]);
        w.found_work();
        assert_eq!(w.nap().as_millis(), 2);
    }

    #[test]
    fn a_queue_has_a_spare_process_only_beyond_the_next_one() {
        let w = Worker::new(0, None);
        let v = w.victim();
        assert!(!v.has_spare());
        w.push(std::sync::Arc::new(crate::process::ProcShared::new(
            trace_term::Pid(1),
        )));
        assert!(!v.has_spare(), "the owner runs a lone process next");
        w.push(std::sync::Arc::new(crate::process::ProcShared::new(
            trace_term::Pid(1),
        )));
        assert!(v.has_spare());
    }

    #[test]
    fn every_seed_and_thread_starts_its_own_sequence() {
        let mut states: Vec<u64> = (0..64)
            .flat_map(|seed| (0..4).map(move |index| first_state(seed, index)))
            .collect();
        assert!(states.iter().all(|&s| s != 0));
        states.sort_unstable();
        states.dedup();
        assert_eq!(
            states.len(),
            64 * 4,
            "two seeds or threads share a schedule"
        );
    }
}
