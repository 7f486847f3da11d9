//! How far a rebuild of the derivation gets, found in parallel and without
//! its order: whether happened-before has a cycle.
//!
//! The rebuild ([`crate::derive`]) runs each process until an event whose
//! cause has not happened yet. What has happened only grows, so the events
//! it places in the end do not depend on the order processes ran in: the
//! prefix of each process log whose causes are all placed, closed under
//! happened-before. Here the processes run on every thread of rayon's pool,
//! each publishing how far it got (its signals sent, its events run) and
//! parking on the process it waits for, which wakes it when it gets there.
//! When every event is placed the log has no cycle, and that is all that
//! a check of consistency needs; otherwise the caller rebuilds the
//! derivation in order to name the cycles, the same ones on any thread
//! count.

use crate::derive::{next_stop, signals_before};
use crate::facts::{TableRow, NO_ROW};
use crate::model::Model;
use rayon::Scope;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Where a process stands: what its next run reads from (indices into
/// its receipts, spawns and dependencies, and its signals sent so far).
#[derive(Copy, Clone)]
struct Task {
    p: TableRow,
    cursor: u32,
    r: u32,
    k: u32,
    d: u32,
    sent: u32,
}

impl Task {
    fn start(p: TableRow) -> Task {
        Task {
            p,
            cursor: 0,
            r: 0,
            k: 0,
            d: 0,
            sent: 0,
        }
    }
}

/// What a process waits for: another's signal count above a signal
/// index, or its event count above an event index.
#[derive(Copy, Clone)]
enum Need {
    Signal(TableRow, u32),
    Event(TableRow, u32),
}

/// What every thread sees of a process: how far it got, and who waits
/// for it. One cache line each, so that two threads publishing for two
/// processes do not share one.
#[repr(align(64))]
struct Row {
    sent: AtomicU32,
    cursor: AtomicU32,
    parked: Mutex<Vec<(Need, Task)>>,
}

impl Row {
    fn meets(&self, need: Need) -> bool {
        match need {
            Need::Signal(_, index) => self.sent.load(Ordering::Acquire) > index,
            Need::Event(_, at) => self.cursor.load(Ordering::Acquire) > at,
        }
    }
}

struct Reach<'m> {
    model: &'m Model,
    rows: Vec<Row>,
}

/// True when a rebuild of the whole log places every event: happened-before
/// has no cycle and no process waits for one.
pub(crate) fn places_every_event(model: &Model) -> bool {
    let reach = Reach {
        model,
        rows: (0..model.procs.len())
            .map(|_| Row {
                sent: AtomicU32::new(0),
                cursor: AtomicU32::new(0),
                parked: Mutex::new(Vec::new()),
            })
            .collect(),
    };
    let reach = &reach;
    rayon::scope(|s| {
        for (p, by) in model.spawned_by.iter().enumerate() {
            if by.is_none() {
                let task = Task::start(p as TableRow);
                s.spawn(move |s| reach.drive(s, task));
            }
        }
    });
    reach
        .rows
        .iter()
        .zip(&model.procs)
        .all(|(row, p)| row.cursor.load(Ordering::Acquire) as u64 == p.events)
}

impl<'m> Reach<'m> {
    /// Runs `task`'s process, then whatever its runs wake, one after the
    /// other on this thread; each further process woken at once goes to
    /// the pool, for another thread to take.
    fn drive<'s>(&'s self, s: &Scope<'s>, task: Task) {
        let mut next = Some(task);
        while let Some(mut task) = next.take() {
            let need = self.run(s, &mut task);
            let row = &self.rows[task.p as usize];
            row.sent.store(task.sent, Ordering::Release);
            row.cursor.store(task.cursor, Ordering::Release);
            self.wake(s, task.p, &mut next);
            if let Some(need) = need {
                self.park(s, need, task, &mut next);
            }
        }
    }

    /// Hands over the processes parked on `p` that its progress lets go:
    /// the first to `next`, the others to the pool.
    fn wake<'s>(&'s self, s: &Scope<'s>, p: TableRow, next: &mut Option<Task>) {
        let row = &self.rows[p as usize];
        let mut parked = row.parked.lock().unwrap_or_else(|e| e.into_inner());
        let mut i = 0;
        while i < parked.len() {
            if !row.meets(parked[i].0) {
                i += 1;
                continue;
            }
            let (_, task) = parked.swap_remove(i);
            if next.is_none() {
                *next = Some(task);
            } else {
                s.spawn(move |s| self.drive(s, task));
            }
        }
    }

    /// Parks `task` on the process it needs or, when that process got
    /// there meanwhile, lets it run on. The check is made under the lock
    /// its waker takes after publishing: no wake is lost.
    fn park<'s>(&'s self, s: &Scope<'s>, need: Need, task: Task, next: &mut Option<Task>) {
        let on = match need {
            Need::Signal(q, _) | Need::Event(q, _) => q,
        };
        let row = &self.rows[on as usize];
        let mut parked = row.parked.lock().unwrap_or_else(|e| e.into_inner());
        if !row.meets(need) {
            parked.push((need, task));
        } else if next.is_none() {
            *next = Some(task);
        } else {
            s.spawn(move |s| self.drive(s, task));
        }
    }

    /// Runs process `task.p` from where it stands until it waits or ends,
    /// starting the children it spawns; returns what it waits for.
    fn run<'s>(&'s self, s: &Scope<'s>, task: &mut Task) -> Option<Need> {
        let m = self.model;
        let p = task.p;
        let (recs, spawns, deps) = (m.receipts_of(p), m.spawns_of(p), m.deps_of(p));
        let sigs = m.signals_of(p);
        let end = m.procs[p as usize].events as u32;
        let (mut r, mut k, mut d) = (task.r as usize, task.k as usize, task.d as usize);
        // Own signals sent before event `at`, counted on from `from`.
        let sent_before = |from: u32, at: u32| signals_before(sigs, from, at);
        let mut sent = task.sent;
        let mut need = None;
        loop {
            let next_dep = deps.get(d).map_or(u32::MAX, |dp| dp.at);
            let (stop, receipt) = next_stop(recs, r, next_dep, end);
            while k < spawns.len() && spawns[k].at < stop {
                if let Some(c) = m.starts_child(p, &spawns[k]) {
                    let child = Task::start(c);
                    s.spawn(move |s| self.drive(s, child));
                }
                k += 1;
            }
            task.cursor = stop;
            let Some(rc) = receipt else {
                if stop == end {
                    sent = sigs.len() as u32;
                    break;
                }
                // A dependency: the operation of another process it follows.
                let dp = &deps[d];
                let ready = if dp.after == p {
                    task.cursor > dp.after_at
                } else {
                    self.rows[dp.after as usize].cursor.load(Ordering::Acquire) > dp.after_at
                };
                if !ready {
                    need = Some(Need::Event(dp.after, dp.after_at));
                    break;
                }
                d += 1;
                continue;
            };
            // A receipt of a signal no log holds orders nothing (validation reports it).
            if rc.sender != NO_ROW && rc.index < m.sent[rc.sender as usize] {
                let done = if rc.sender == p {
                    sent = sent_before(sent, rc.at);
                    sent
                } else {
                    self.rows[rc.sender as usize].sent.load(Ordering::Acquire)
                };
                if rc.index >= done {
                    need = Some(Need::Signal(rc.sender, rc.index));
                    break;
                }
            }
            r += 1;
        }
        if need.is_some() {
            sent = sent_before(sent, task.cursor);
        }
        task.r = r as u32;
        task.k = k as u32;
        task.d = d as u32;
        task.sent = sent;
        need
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::*;
    use trace_format::Event;

    /// `random_run(seed)` with some receives moved earlier in their
    /// process: some then wait for what they cause (a cycle), or for a
    /// process stuck on one.
    fn scrambled(seed: u64) -> Vec<Proc> {
        let mut procs = random_run(seed, 400);
        for (n, p) in procs.iter_mut().enumerate() {
            let receives: Vec<usize> = (0..p.events.len())
                .filter(|&i| matches!(p.events[i], Event::Receive { .. }))
                .collect();
            if let Some(&i) = receives.get((seed as usize + n) % 3) {
                let e = p.events.remove(i);
                p.events.insert(i / 2, e);
            }
        }
        procs
    }

    #[test]
    fn every_event_is_placed_exactly_when_the_derivation_places_it() {
        let dir = Scratch::new("reach");
        let (mut cyclic, mut clean) = (0, 0);
        for seed in 1..40 {
            for procs in [random_run(seed, 400), scrambled(seed)] {
                let path = dir.path("run.trace");
                write(&path, &procs, false, Ending::Complete);
                let reader = trace_format::LogReader::open(&path).unwrap();
                let m = Model::build(&reader);
                let out = crate::derive::derive_slots(&m, None, |_, _, _| {});
                let all = out.ordered == m.event_count();
                for threads in [1, 2, 4] {
                    assert_eq!(
                        on_threads(threads, || places_every_event(&m)),
                        all,
                        "seed {seed}, {threads} threads"
                    );
                }
                if all {
                    clean += 1;
                } else {
                    cyclic += 1;
                }
            }
        }
        assert!(cyclic > 5 && clean > 40, "{cyclic} cyclic, {clean} clean");
    }

    #[test]
    fn a_report_is_the_same_on_any_thread_count() {
        let dir = Scratch::new("reach-report");
        for seed in 1..20 {
            let path = dir.path("run.trace");
            write(&path, &scrambled(seed), false, Ending::Complete);
            let reader = trace_format::LogReader::open(&path).unwrap();
            let m = Model::build(&reader);
            let one = format!("{:?}", on_threads(1, || crate::validate(&m)));
            for threads in [2, 4] {
                let many = format!("{:?}", on_threads(threads, || crate::validate(&m)));
                assert_eq!(one, many, "seed {seed}, {threads} threads");
            }
        }
    }
}
