//! Rebuilding a derivation: one interleaving of all events that respects
//! happened-before (Palacios 2020, Definition 5.8: any two such interleavings are
//! causally equivalent, so one stands for all).
//!
//! It is a replay of the log without the program: every process advances
//! through its log until a receipt whose signal has not been sent yet, an
//! operation on a shared object that another process's operation must
//! precede ([`crate::shared`]), or until it has not been spawned yet; it
//! waits there and is woken when the event it waits for happens. Only
//! these can make a process wait, so a process runs in long stretches and
//! the work is proportional to the number of receipts, dependencies,
//! spawns and signals, not of events. When no
//! process can move while some still have events, happened-before has a
//! cycle: each stuck process waits for one event of another, and following
//! those waits leads round a cycle.
//!
//! The facts come through a [`Layout`]: the model's arrays, one chunk a
//! process, or a log's blocks as they are decoded ([`crate::stream`]),
//! where a run that reaches the end of a block goes on into the next, so
//! that the order is the same.

mod stuck;

use crate::facts::{ReceiptFact, SignalFact, SpawnFact, TableRow};
use crate::inconsistency::Wait;
use crate::model::Model;
use crate::shared::DepFact;
use crate::waiters::Waiters;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use trace_format::prefetch::prefetch;
use trace_format::ProcId;

/// What a rebuild found besides the order itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeriveOutcome {
    /// Events placed in the derivation.
    pub ordered: u64,
    /// Happened-before cycles: each wait's `needs` is (at or after) the next
    /// wait's `event`, and the last leads back to the first.
    pub cycles: Vec<Vec<Wait>>,
    /// Processes stuck only because they wait (directly or not) on a cycle.
    pub behind: Vec<ProcId>,
}

/// Per-process state of the rebuild, with what a run reads of the process
/// (the receipts and signals of its chunk), in one cache line: a run
/// touches little else. Spawns and dependencies are rare beside receipts:
/// a run compares with the event of the next of each, and reads their
/// arrays, and where it stands in them ([`Rare`]), only there.
///
/// A process's facts come in chunks ([`Layout`]): the model's arrays are
/// one chunk each; a log's blocks, taken as they are decoded, one a block.
/// Receipts are counted in the chunk, signals in the whole process log.
#[repr(align(64))]
pub(crate) struct Progress<'m> {
    receipts: &'m [ReceiptFact],
    signals: &'m [SignalFact],
    cursor: u32,
    /// The end of the chunk (or of the limit, within it).
    end: u32,
    /// Receipts taken (an index into `receipts`), the one a process waits
    /// for included: it is at `cursor` then.
    r: u32,
    /// Signals sent so far (those of the whole log are in `published`).
    sent: u32,
    /// Signals of the process before its chunk's first.
    sig_base: u32,
    /// The events of the next spawn and dependency (`u32::MAX`: none left).
    next_spawn: u32,
    next_dep: u32,
    started: bool,
    /// Chunks are to come after this one.
    more: bool,
}

const _: () = assert!(std::mem::size_of::<Progress<'static>>() == 64);

/// Per process, the spawns of its chunk and those done, and the
/// dependencies met (indices into the model's array): read only at a
/// spawn or a dependency.
#[derive(Copy, Clone, Default)]
pub(crate) struct Rare<'m> {
    spawns: &'m [SpawnFact],
    k: u32,
    d: u32,
}

/// One chunk of a process's facts: its events up to `end`, after the
/// chunks before it, which held `sig_base` signals.
pub(crate) struct Chunk<'m> {
    pub receipts: &'m [ReceiptFact],
    pub signals: &'m [SignalFact],
    pub spawns: &'m [SpawnFact],
    pub end: u32,
    pub sig_base: u32,
    /// More chunks follow.
    pub more: bool,
}

impl<'m> Progress<'m> {
    /// A process before its first chunk: nothing to run until it is taken.
    pub fn waiting_for_facts(has_facts: bool) -> Self {
        Progress {
            receipts: &[],
            signals: &[],
            cursor: 0,
            end: 0,
            r: 0,
            sent: 0,
            sig_base: 0,
            next_spawn: u32::MAX,
            next_dep: u32::MAX,
            started: false,
            more: has_facts,
        }
    }

    /// Goes on into the next chunk (where the last one ended).
    pub fn take(&mut self, rare: &mut Rare<'m>, c: Chunk<'m>) {
        self.receipts = c.receipts;
        self.signals = c.signals;
        self.end = c.end;
        self.r = 0;
        self.sig_base = c.sig_base;
        self.next_spawn = c.spawns.first().map_or(u32::MAX, |f| f.at);
        self.more = c.more;
        rare.spawns = c.spawns;
        rare.k = 0;
    }

    /// The end of the chunks taken so far, and the signals they hold.
    pub fn reached(&self) -> (u32, u32) {
        (self.end, self.sig_base + self.signals.len() as u32)
    }

    /// It has events it could not run (a process never started stands at
    /// 0, or before its first chunk).
    pub fn unfinished(&self) -> bool {
        self.more || self.cursor < self.end
    }
}

/// How far ahead in the ready queue a process's state, and then its next
/// receipt and signal, are asked for (the queue holds about 60 processes on
/// the synthetic log of `cargo xtask bench causal`).
const AHEAD_STATE: usize = 6;
const AHEAD_ARRAYS: usize = 3;

/// The processes ready to run, first in, first out: a ring over an array
/// of a power of two at least the number of processes (a process is queued
/// at most once: when it starts, or when what it waits for happens).
struct Ready {
    ring: Vec<TableRow>,
    /// `ring.len() - 1`: every index into the ring is masked with it.
    mask: usize,
    head: usize,
    len: usize,
}

impl Ready {
    fn new(n: usize) -> Ready {
        let size = n.max(1).next_power_of_two();
        Ready {
            ring: vec![0; size],
            mask: size - 1,
            head: 0,
            len: 0,
        }
    }

    /// The slot `i` places after the head: masked, so always in the ring
    /// (the accesses below skip the bounds check on that ground).
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.mask
    }

    #[inline]
    fn push(&mut self, p: TableRow) {
        let at = self.slot(self.len);
        // SAFETY: `at` is masked with `mask`, `ring.len() - 1` for a length
        // that is a power of two, so `at < ring.len()`.
        unsafe { *self.ring.get_unchecked_mut(at) = p };
        self.len += 1;
    }

    #[inline]
    fn pop(&mut self) -> Option<TableRow> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: `head` is always masked (here and in `new`), so it is
        // below `ring.len()`, as in `push`.
        let p = unsafe { *self.ring.get_unchecked(self.head) };
        self.head = self.slot(1);
        self.len -= 1;
        Some(p)
    }

    #[inline]
    fn get(&self, i: usize) -> Option<TableRow> {
        // SAFETY: a masked index, as in `push`.
        (i < self.len).then(|| unsafe { *self.ring.get_unchecked(self.slot(i)) })
    }
}

/// Where a rebuild reads the facts of each process: the model's arrays,
/// all there from the start, or a log's blocks, each taken when the
/// rebuild reaches it ([`crate::stream`]).
pub(crate) trait Layout<'m> {
    /// The processes.
    fn len(&self) -> usize;
    /// Each process's state before the rebuild, and where it stands in its
    /// rare facts.
    fn progress(&self, limit: Option<&[u64]>) -> (Vec<Progress<'m>>, Vec<Rare<'m>>);
    /// No spawn creates `s`: it starts at once.
    fn is_root(&self, s: TableRow) -> bool;
    /// The signals `s` sends in all (`u32::MAX`: not known yet, so a
    /// receipt of any signal of it waits for it).
    fn sent_in_all(&self, s: TableRow) -> u32;
    /// The child that `p`'s spawn `f` starts, if it starts one.
    fn starts_child(&self, p: TableRow, f: &SpawnFact) -> Option<TableRow>;
    /// The operations of other processes that `s`'s own follow.
    fn deps_of(&self, s: TableRow) -> &'m [DepFact];
    /// Process `s`'s next chunk, once there; `None` when it cannot be had
    /// (the rebuild is then given up).
    fn next_chunk(&mut self, s: TableRow, st: &Progress<'m>) -> Option<Chunk<'m>>;
}

impl<'m> Layout<'m> for &'m Model {
    fn len(&self) -> usize {
        self.procs.len()
    }

    fn progress(&self, limit: Option<&[u64]>) -> (Vec<Progress<'m>>, Vec<Rare<'m>>) {
        let model: &'m Model = self;
        (0..self.procs.len() as TableRow)
            .map(|s| {
                let events = model.procs[s as usize].events;
                let mut st = Progress::waiting_for_facts(false);
                let mut rare = Rare::default();
                st.take(
                    &mut rare,
                    Chunk {
                        receipts: model.receipts_of(s),
                        signals: model.signals_of(s),
                        spawns: model.spawns_of(s),
                        end: limit.map_or(events, |l| l[s as usize].min(events)) as u32,
                        sig_base: 0,
                        more: false,
                    },
                );
                st.next_dep = model.deps_of(s).first().map_or(u32::MAX, |f| f.at);
                (st, rare)
            })
            .unzip()
    }

    fn is_root(&self, s: TableRow) -> bool {
        self.spawned_by[s as usize].is_none()
    }

    fn sent_in_all(&self, s: TableRow) -> u32 {
        self.sent[s as usize]
    }

    #[inline]
    fn starts_child(&self, p: TableRow, f: &SpawnFact) -> Option<TableRow> {
        Model::starts_child(self, p, f)
    }

    #[inline]
    fn deps_of(&self, s: TableRow) -> &'m [DepFact] {
        let model: &'m Model = self;
        model.deps_of(s)
    }

    fn next_chunk(&mut self, _: TableRow, _: &Progress<'m>) -> Option<Chunk<'m>> {
        None
    }
}

/// Rebuilds a derivation of the whole log: calls `run(p, from..to)` for
/// each stretch of consecutive events of one process, in an order
/// consistent with happened-before. Cost: linear in receipts and spawns
/// (a wait costs a list insertion, usually at the end); memory: a few
/// words per process.
pub fn derive(model: &Model, run: impl FnMut(ProcId, Range<u64>)) -> DeriveOutcome {
    derive_within(model, None, run)
}

/// As [`derive`](Self::derive), limited to the first `limit[p]` events
/// of each process (by row, as in [`Model::processes`]). A causal past
/// is such a limit, closed under happened-before.
pub fn derive_within(
    model: &Model,
    limit: Option<&[u64]>,
    mut run: impl FnMut(ProcId, Range<u64>),
) -> DeriveOutcome {
    derive_slots(model, limit, |s, from, to| {
        run(model.id(s), from as u64..to as u64)
    })
}

pub(crate) fn derive_slots(
    model: &Model,
    limit: Option<&[u64]>,
    run: impl FnMut(TableRow, u32, u32),
) -> DeriveOutcome {
    derive_slots_unless(model, limit, None, run).unwrap_or_default()
}

/// As [`derive_slots`], given up (`None`) as soon as `cancel` is set: for
/// a derivation built beside other work that may find it unneeded.
pub(crate) fn derive_slots_unless(
    model: &Model,
    limit: Option<&[u64]>,
    cancel: Option<&AtomicBool>,
    run: impl FnMut(TableRow, u32, u32),
) -> Option<DeriveOutcome> {
    let mut layout = model;
    let (ordered, prog, rare) = rebuild(&mut layout, limit, cancel, run)?;
    let (cycles, behind) = stuck::stuck(model, &prog, &rare);
    Some(DeriveOutcome {
        ordered,
        cycles,
        behind,
    })
}

/// Who waits for what while a derivation is rebuilt, and who may run.
struct Queues {
    ready: Ready,
    /// Processes waiting for a signal, by the number of its sender's
    /// signals sent so far.
    waiters: Waiters,
    /// Processes waiting for another's event (a dependency), by the number
    /// of that process's events run so far.
    event_waiters: Waiters,
}

/// The rebuild over any layout: the events placed, and where each process
/// stands at the end. `None` when `cancel` was set or a chunk could not be
/// had.
pub(crate) fn rebuild<'m, L: Layout<'m>>(
    layout: &mut L,
    limit: Option<&[u64]>,
    cancel: Option<&AtomicBool>,
    mut run: impl FnMut(TableRow, u32, u32),
) -> Option<(u64, Vec<Progress<'m>>, Vec<Rare<'m>>)> {
    let n = layout.len();
    let (mut prog, mut rare) = layout.progress(limit);
    let mut q = Queues {
        ready: Ready::new(n),
        waiters: Waiters::new(n),
        event_waiters: Waiters::new(n),
    };
    // Per process: the signals it has sent so far and those of its whole
    // log, what a receipt checks of its sender. Kept apart from the rest
    // of the state so that it stays in cache, and side by side so that a
    // receipt reads one line.
    let mut published: Vec<[u32; 2]> = (0..n as TableRow)
        .map(|s| [0, layout.sent_in_all(s)])
        .collect();
    for (s, st) in prog.iter_mut().enumerate() {
        if layout.is_root(s as TableRow) {
            st.started = true;
            q.ready.push(s as TableRow);
        }
    }
    // Only operations on shared state make a process wait for another's
    // event: a log without them has nobody to wake that way.
    let has_deps = (0..n as TableRow).any(|s| !layout.deps_of(s).is_empty());
    let limited = limit.is_some();
    let mut ordered = 0u64;
    // First in, first out, with what a process's run reads asked for in
    // advance: the run of a process starts with a cache miss otherwise.
    while let Some(p) = q.ready.pop() {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return None;
        }
        prefetch_ahead(&prog, &q.ready);
        let start = prog[p as usize].cursor;
        // A run that reaches the end of a chunk goes on into the next (a
        // process's first is taken so too: it starts with an empty one).
        let (cur, sent) = loop {
            let (cur, sent, chunk_done) = run_process(
                &*layout, &mut prog, &mut rare, &published, &mut q, p, limited,
            );
            if !chunk_done {
                break (cur, sent);
            }
            let c = layout.next_chunk(p, &prog[p as usize])?;
            prog[p as usize].take(&mut rare[p as usize], c);
        };
        if cur > start {
            run(p, start, cur);
            ordered += (cur - start) as u64;
        }
        // The process's next run reads on from here, after other runs
        // have gone by: ask for its next receipts and signals now, the
        // lines past the current ones included (a thousand processes
        // interleaved are too many streams for the hardware to follow).
        let st = &prog[p as usize];
        let next_receipt = st.receipts.as_ptr().wrapping_add(st.r as usize);
        let next_signal = st
            .signals
            .as_ptr()
            .wrapping_add(sent.wrapping_sub(st.sig_base) as usize);
        for line in [0, 64] {
            prefetch((next_receipt as *const u8).wrapping_add(line));
            prefetch((next_signal as *const u8).wrapping_add(line));
        }
        published[p as usize][0] = sent;
        q.waiters.wake(p, sent, |w| q.ready.push(w));
        if has_deps {
            q.event_waiters.wake(p, cur, |w| q.ready.push(w));
        }
    }
    Some((ordered, prog, rare))
}

/// Runs process `p` from where it stands until it waits (put among the
/// waiters) or reaches the end of its chunk; returns where it stopped and
/// the signals it sent before that, both also kept in its progress, and
/// whether it stopped at the end of a chunk that others follow.
#[inline(always)]
fn run_process<'m, L: Layout<'m>>(
    layout: &L,
    prog: &mut [Progress<'m>],
    rare: &mut [Rare<'m>],
    published: &[[u32; 2]],
    q: &mut Queues,
    p: TableRow,
    limited: bool,
) -> (u32, u32, bool) {
    let st = &prog[p as usize];
    let recs = st.receipts;
    let end = st.end;
    let mut cur;
    let mut chunk_done = false;
    let (mut r, mut next_spawn, mut next_dep) = (st.r as usize, st.next_spawn, st.next_dep);
    // Signals sent before `cur`; brought forward only where a receipt
    // needs it (a wait, or a signal to itself), by walking the chunk's
    // signals from where the last run left them.
    let mut sent = st.sent;
    let (sigs, base) = (st.signals, st.sig_base);
    let sent_before = |from: u32, at: u32| base + signals_before(sigs, from - base, at);
    loop {
        let (stop, receipt) = next_stop(recs, r, next_dep, end);
        if next_spawn < stop {
            next_spawn = start_children(layout, prog, &mut rare[p as usize], &mut q.ready, p, stop);
        }
        cur = stop;
        let Some(rc) = receipt else {
            if cur == end {
                // A whole chunk run: every signal of it was sent.
                sent = if limited {
                    sent_before(sent, end)
                } else {
                    base + sigs.len() as u32
                };
                chunk_done = prog[p as usize].more;
                break;
            }
            // A dependency: the operation of another process it follows.
            let (deps, d) = (layout.deps_of(p), rare[p as usize].d as usize);
            let dp = deps[d];
            if prog[dp.after as usize].cursor <= dp.after_at {
                sent = sent_before(sent, cur);
                q.event_waiters.add(dp.after, dp.after_at, p);
                break;
            }
            rare[p as usize].d += 1;
            next_dep = deps.get(d + 1).map_or(u32::MAX, |d| d.at);
            continue;
        };
        // A receipt of a signal no log holds orders nothing (validation
        // reports it); its sender, `NO_ROW`, is beyond the table.
        // What a sender has published is at most what it has sent, so a
        // signal published is sent; one not yet may be a process's own,
        // sent since its last run: only then are its signals counted.
        if let Some(&[published_by, sent_in_all]) = published.get(rc.sender as usize) {
            if rc.index >= published_by
                && rc.index < sent_in_all
                && (rc.sender != p || rc.index >= sent_before(sent, rc.at))
            {
                sent = sent_before(sent, rc.at);
                q.waiters.add(rc.sender, rc.index, p);
                // Only the signal wakes it: the receipt is taken then, so
                // its next run starts after it instead of checking it again.
                r += 1;
                break;
            }
        }
        r += 1;
    }
    let st = &mut prog[p as usize];
    st.cursor = cur;
    st.r = r as u32;
    st.sent = sent;
    st.next_spawn = next_spawn;
    st.next_dep = next_dep;
    (cur, sent, chunk_done)
}

/// Starts the children `p` spawned before its event `stop` (those whose
/// first spawn this is); returns the event of its next spawn in the chunk.
#[cold]
fn start_children<'m, L: Layout<'m>>(
    layout: &L,
    prog: &mut [Progress<'m>],
    rare: &mut Rare<'m>,
    ready: &mut Ready,
    p: TableRow,
    stop: u32,
) -> u32 {
    let spawns = rare.spawns;
    let mut k = rare.k as usize;
    while k < spawns.len() && spawns[k].at < stop {
        if let Some(c) = layout.starts_child(p, &spawns[k]) {
            if !prog[c as usize].started {
                prog[c as usize].started = true;
                ready.push(c);
            }
        }
        k += 1;
    }
    rare.k = k as u32;
    spawns.get(k).map_or(u32::MAX, |s| s.at)
}

/// Asks for what the runs of processes soon to come read: the state of
/// one a few places ahead, the receipt and signal of a nearer one (whose
/// state was asked for then).
#[inline(always)]
fn prefetch_ahead(prog: &[Progress], ready: &Ready) {
    if let Some(q) = ready.get(AHEAD_STATE) {
        // Only a hint, which never faults: the address needs no check.
        prefetch(prog.as_ptr().wrapping_add(q as usize));
    }
    if let Some(next) = ready.get(AHEAD_ARRAYS).and_then(|q| prog.get(q as usize)) {
        prefetch(next.receipts.as_ptr().wrapping_add(next.r as usize));
        let sent = next.sent.wrapping_sub(next.sig_base);
        prefetch(next.signals.as_ptr().wrapping_add(sent as usize));
    }
}

/// The process's own signals sent before its event `at`, counted on from
/// `from` (a rebuild walks a process's signals only as far as a receipt
/// needs them).
pub(crate) fn signals_before(sigs: &[SignalFact], from: u32, at: u32) -> u32 {
    let mut n = from as usize;
    while n < sigs.len() && sigs[n].at < at {
        n += 1;
    }
    n as u32
}

/// Where a process's run must stop next: at its next receipt (`recs[r]`,
/// handed back with it) or at `next_dep`, the event of its next dependency
/// (`u32::MAX`: none), whichever comes first, or at `end`.
#[inline(always)]
pub(crate) fn next_stop(
    recs: &[ReceiptFact],
    r: usize,
    next_dep: u32,
    end: u32,
) -> (u32, Option<&ReceiptFact>) {
    let limit = end.min(next_dep);
    match recs.get(r) {
        // A receipt and an operation on shared state are never one event.
        Some(rc) if rc.at < limit => (rc.at, Some(rc)),
        _ => (limit, None),
    }
}
