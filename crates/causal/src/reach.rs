//! How far each process's log can be placed in a derivation, found by all
//! of rayon's threads at once: the check for happened-before cycles that
//! [`crate::validate`] makes, without the order itself.
//!
//! Each process advances through its log until a receipt of a signal not
//! sent yet, a dependency on another's shared-state operation, or its
//! spawn, is due ([`crate::derive`]). Where every process ends up does not
//! depend on who advanced first: each stops at the first event that waits
//! for something that never happens. So the processes are dealt out to
//! workers (row modulo the number of workers), and each worker advances
//! its own as [`crate::derive`] does, with its own lists of waiters. What
//! a process has published (signals sent, events placed) is one atomic
//! word, written by its worker at the end of each run. A worker waiting on
//! another worker's process sets its bit in that process's listeners and
//! reads the word again; the process's worker, having published, reads
//! the listeners and names the process to each, in batches sent under a
//! lock. No lock per run: the work per run is too small for one.
//!
//! The workers stop when every one of them has nothing to do and has seen
//! everything the others published: each counts a new version after it
//! has published and sent its batches, and a worker at rest notes the
//! version under which it last found its inbox empty.

use crate::derive::{self, DeriveOutcome, Progress};
use crate::facts::{TableRow, NO_ROW};
use crate::model::Model;
use crate::waiters::Waiters;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::Mutex;

/// Processes named to another worker before the batch is sent (unless
/// that worker is at rest).
const BATCH: usize = 16;

/// At most this many workers (a bit each in a process's listeners).
const MAX_WORKERS: usize = 64;

/// Below this many processes one worker does it all.
const MIN_PROCESSES: usize = 64;

/// A worker at rest has not noted a version.
const WORKING: u64 = u64::MAX;

/// The outcome of rebuilding the whole log's derivation, without its order
/// (as [`derive::derive`] with a `run` that does nothing), on every thread
/// of rayon's pool; beside it, `side` is called on each thread's own `S`
/// whenever that thread has nothing else to do, and until it returns
/// false (it has done its share of some other work). Returns each
/// thread's `S`.
pub(crate) fn reach_beside<S: Default + Send>(
    model: &Model,
    side: impl Fn(&mut S) -> bool + Sync,
) -> (DeriveOutcome, Vec<S>) {
    let threads = rayon::current_num_threads().min(MAX_WORKERS);
    if threads < 2 || model.procs.len() < MIN_PROCESSES {
        let outcome = derive::derive_slots(model, None, |_, _, _| {});
        let mut s = S::default();
        while side(&mut s) {}
        return (outcome, vec![s]);
    }
    shared_out(model, threads, side)
}

/// [`reach_beside`] on `threads` workers (at least 2; rayon's pool has as
/// many threads or more).
fn shared_out<S: Default + Send>(
    model: &Model,
    threads: usize,
    side: impl Fn(&mut S) -> bool + Sync,
) -> (DeriveOutcome, Vec<S>) {
    let shared = Shared::new(model.procs.len(), threads);
    let both = rayon::broadcast(|ctx| {
        let mut s = S::default();
        // Threads past `threads` only help with the other work.
        let prog = if ctx.index() < threads {
            Worker::new(model, &shared, ctx.index()).work(&side, &mut s)
        } else {
            Vec::new()
        };
        while side(&mut s) {}
        (prog, s)
    });
    let (parts, sides): (Vec<_>, Vec<S>) = both.into_iter().unzip();
    let mut parts: Vec<_> = parts.into_iter().map(Vec::into_iter).collect();
    let prog: Vec<Progress> = (0..model.procs.len())
        .map_while(|s| parts[s % threads].next())
        .collect();
    let ordered = prog.iter().map(|p| p.cursor as u64).sum();
    (derive::outcome(model, &prog, ordered), sides)
}

/// What the workers share.
struct Shared {
    /// Per worker, per row it owns (row / workers): what the process
    /// published and who listens ([`Word`]). One array per worker, so that
    /// a worker's writes do not share lines with another's.
    done: Vec<Vec<Word>>,
    /// Per worker: processes that published what it may wait for.
    inbox: Vec<Mutex<Vec<TableRow>>>,
    /// Counts the times a worker published and then came to rest.
    version: AtomicU64,
    /// Per worker: the version under which it found nothing to do, or
    /// [`WORKING`].
    rested: Vec<AtomicU64>,
}

impl Shared {
    fn new(n: usize, threads: usize) -> Shared {
        Shared {
            done: (0..threads)
                .map(|w| (w..n).step_by(threads).map(|_| Word::default()).collect())
                .collect(),
            inbox: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            version: AtomicU64::new(0),
            rested: (0..threads).map(|_| AtomicU64::new(WORKING)).collect(),
        }
    }

    fn word(&self, s: TableRow) -> &Word {
        let t = self.done.len();
        &self.done[s as usize % t][s as usize / t]
    }

    /// Signals published and events placed by process `s`.
    #[inline]
    fn load(&self, s: TableRow) -> (u32, u32) {
        let v = self.word(s).done.load(SeqCst);
        (v as u32, (v >> 32) as u32)
    }

    /// Sequentially consistent, as the listeners' bits: a listener that
    /// set its bit after the publisher read them reads what was published.
    #[inline]
    fn publish(&self, s: TableRow, sent: u32, placed: u32) {
        self.word(s)
            .done
            .store(sent as u64 | (placed as u64) << 32, SeqCst);
    }

    /// Every worker rests having found nothing to do under `v`, and
    /// nothing was published since.
    fn finished(&self, v: u64) -> bool {
        self.rested.iter().all(|r| r.load(SeqCst) == v) && self.version.load(SeqCst) == v
    }
}

/// What one process published: signals (low half) and events placed
/// (high half); and the workers waiting on it (a bit each), on the same
/// line, as its worker reads them after each publication.
#[derive(Default)]
struct Word {
    done: AtomicU64,
    listeners: AtomicU64,
}

/// What a waiting process waits for.
enum Need {
    /// Signal `index` of `sender`.
    Signal(TableRow, u32),
    /// Event `at` of `process` (a dependency, or its spawn).
    Event(TableRow, u32),
}

/// One worker: the processes whose row is `me` modulo the workers.
struct Worker<'m, 's> {
    model: &'m Model,
    shared: &'s Shared,
    me: usize,
    workers: usize,
    /// Per owned row (row / workers).
    prog: Vec<Progress<'m>>,
    /// Own processes waiting for a signal (by sender) and for an event.
    waiters: Waiters,
    event_waiters: Waiters,
    ready: VecDeque<TableRow>,
    /// Per worker: processes to name to it, not sent yet.
    outbox: Vec<Vec<TableRow>>,
    /// The inbox, taken out (its buffer kept for the next time).
    taken: Vec<TableRow>,
}

impl<'m, 's> Worker<'m, 's> {
    fn new(model: &'m Model, shared: &'s Shared, me: usize) -> Self {
        let n = model.procs.len();
        let workers = shared.done.len();
        let mut prog = derive::progress(model, None);
        let mut i = 0;
        prog.retain(|_| {
            i += 1;
            (i - 1) % workers == me
        });
        let mut w = Worker {
            model,
            shared,
            me,
            workers,
            prog,
            waiters: Waiters::new(n),
            event_waiters: Waiters::new(n),
            ready: VecDeque::new(),
            outbox: vec![Vec::new(); workers],
            taken: Vec::new(),
        };
        // A process starts after its spawn; one no spawn created, at once.
        for s in (me..n).step_by(workers) {
            match model.spawned_by[s] {
                None => w.ready.push_back(s as TableRow),
                Some((parent, at)) => w.wait(s as TableRow, Need::Event(parent, at)),
            }
        }
        w
    }

    fn owns(&self, s: TableRow) -> bool {
        s as usize % self.workers == self.me
    }

    /// Advances own processes until every one waits or is done and no
    /// other worker can change that, doing a step of `side` when it waits
    /// on the others; returns their progress, by row.
    fn work<S>(mut self, side: &impl Fn(&mut S) -> bool, s: &mut S) -> Vec<Progress<'m>> {
        let mut published = false;
        loop {
            while let Some(p) = self.ready.pop_front() {
                self.run(p);
                published = true;
                if self.ready.is_empty() {
                    self.drain();
                }
            }
            for w in 0..self.workers {
                self.send(w);
            }
            if published {
                self.shared.version.fetch_add(1, SeqCst);
                published = false;
            }
            let v = self.shared.version.load(SeqCst);
            if self.drain() {
                self.shared.rested[self.me].store(WORKING, SeqCst);
                continue;
            }
            self.shared.rested[self.me].store(v, SeqCst);
            if self.shared.finished(v) {
                return self.prog;
            }
            if !side(s) {
                std::thread::yield_now();
            }
        }
    }

    fn wait(&mut self, p: TableRow, need: Need) {
        let q = match need {
            Need::Signal(q, index) => {
                self.waiters.add(q, index, p);
                q
            }
            Need::Event(q, at) => {
                self.event_waiters.add(q, at, p);
                q
            }
        };
        if !self.owns(q) {
            self.listen(q);
        }
    }

    /// Asks to be told when another worker's process `q` publishes, then
    /// wakes whom what it published already lets go (it may have
    /// published before the bit was set).
    fn listen(&mut self, q: TableRow) {
        self.shared.word(q).listeners.fetch_or(1 << self.me, SeqCst);
        self.wake(q);
    }

    /// Wakes own processes whose wait on `q` is over.
    fn wake(&mut self, q: TableRow) {
        let (sent, placed) = self.shared.load(q);
        let Worker {
            waiters,
            event_waiters,
            ready,
            ..
        } = self;
        waiters.wake(q, sent, |w| ready.push_back(w));
        event_waiters.wake(q, placed, |w| ready.push_back(w));
    }

    /// Names own process `p`, which has just published, to the workers
    /// listening to it.
    fn tell(&mut self, p: TableRow) {
        let listeners = &self.shared.word(p).listeners;
        if listeners.load(SeqCst) == 0 {
            return;
        }
        let mut bits = listeners.swap(0, SeqCst);
        while bits != 0 {
            let w = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.outbox[w].push(p);
            if self.outbox[w].len() >= BATCH || self.shared.rested[w].load(SeqCst) != WORKING {
                self.send(w);
            }
        }
    }

    fn send(&mut self, w: usize) {
        if self.outbox[w].is_empty() {
            return;
        }
        let mut inbox = self.shared.inbox[w]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        inbox.append(&mut self.outbox[w]);
    }

    /// Wakes own processes on what the processes named in the inbox
    /// published; true if it woke any.
    fn drain(&mut self) -> bool {
        let before = self.ready.len();
        {
            let mut inbox = self.shared.inbox[self.me]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            std::mem::swap(&mut *inbox, &mut self.taken);
        }
        let mut taken = std::mem::take(&mut self.taken);
        for &q in &taken {
            self.wake(q);
            if !(self.waiters.is_empty(q) && self.event_waiters.is_empty(q)) {
                // Telling cleared the bit: ask again for what is still awaited.
                self.listen(q);
            }
        }
        taken.clear();
        self.taken = taken;
        self.ready.len() > before
    }

    /// Runs own process `p` as far as it goes now (as a run of
    /// [`derive::derive_slots`], spawns apart: a child waits for its
    /// spawn as for any event), publishes how far, and wakes those of
    /// its own waiting on that.
    fn run(&mut self, p: TableRow) {
        let model = self.model;
        let local = p as usize / self.workers;
        let st = &mut self.prog[local];
        st.started = true;
        let (recs, deps) = (st.receipts, st.deps);
        let end = st.end;
        let (mut r, mut d) = (st.r as usize, st.d as usize);
        let mut sent = st.sent;
        let sent_before = |from: u32, at: u32| {
            let sigs = model.signals_of(p);
            let mut n = from as usize;
            while n < sigs.len() && sigs[n].at < at {
                n += 1;
            }
            n as u32
        };
        let mut need = None;
        let cur = loop {
            let stop = match recs.get(r) {
                Some(rc) if rc.at < end => rc.at,
                _ => end,
            };
            let stop = match deps.get(d) {
                Some(dp) if dp.at < stop => dp.at,
                _ => stop,
            };
            let cur = stop;
            if cur == end {
                sent = if end as u64 == model.procs[p as usize].events {
                    model.sent[p as usize]
                } else {
                    sent_before(sent, end)
                };
                break cur;
            }
            if let Some(dp) = deps.get(d).filter(|dp| dp.at == cur) {
                if self.shared.load(dp.after).1 <= dp.after_at {
                    sent = sent_before(sent, cur);
                    need = Some(Need::Event(dp.after, dp.after_at));
                    break cur;
                }
                d += 1;
                continue;
            }
            let rc = &recs[r];
            if rc.sender != NO_ROW {
                // A receipt of a signal no log holds orders nothing (validation reports it).
                let done = if rc.sender == p {
                    sent = sent_before(sent, rc.at);
                    sent
                } else {
                    self.shared.load(rc.sender).0
                };
                if rc.index < model.sent[rc.sender as usize] && rc.index >= done {
                    sent = sent_before(sent, rc.at);
                    need = Some(Need::Signal(rc.sender, rc.index));
                    break cur;
                }
            }
            r += 1;
        };
        st.cursor = cur;
        st.r = r as u32;
        st.d = d as u32;
        st.sent = sent;
        self.shared.publish(p, sent, cur);
        self.tell(p);
        if let Some(need) = need {
            self.wait(p, need);
        }
        let Worker {
            waiters,
            event_waiters,
            ready,
            ..
        } = self;
        waiters.wake(p, sent, |q| ready.push_back(q));
        event_waiters.wake(p, cur, |q| ready.push_back(q));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::*;
    use trace_format::Event;

    /// Random runs, and the same runs with a process's first receipt
    /// moved to its start (a cycle when the signal's send follows from
    /// what the process did before): the workers stop every process where
    /// the sequential rebuild does, and find the same cycles, on any
    /// number of workers.
    #[test]
    fn shared_out_stops_where_the_sequential_rebuild_does() {
        let dir = Scratch::new("reach");
        let pools: Vec<_> = [2, 3, 4]
            .map(|n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
            })
            .into();
        let mut cycles = 0;
        for seed in 1..40 {
            let mut procs = random_run(seed, 600);
            if seed % 2 == 0 {
                for p in procs.iter_mut().skip(seed as usize % 3) {
                    let first = p
                        .events
                        .iter()
                        .position(|e| matches!(e, Event::Receive { .. }));
                    if let Some(k) = first.filter(|&k| k > 0) {
                        let e = p.events.remove(k);
                        p.events.insert(0, e);
                        break;
                    }
                }
            }
            let reader = open(&dir, &procs);
            let m = Model::build(&reader);
            let alone = derive::derive_slots(&m, None, |_, _, _| {});
            cycles += alone.cycles.len();
            for pool in &pools {
                let n = pool.current_num_threads();
                let (shared, sides) = pool.install(|| shared_out(&m, n, |_: &mut ()| false));
                assert_eq!(shared, alone, "seed {seed}, {n} workers");
                assert_eq!(sides.len(), n);
            }
        }
        assert!(cycles > 0, "some runs have cycles");
    }
}
