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

use crate::facts::{EventId, ReceiptFact, SignalFact, TableRow};
use crate::inconsistency::{Wait, WaitReason};
use crate::model::Model;
use crate::waiters::Waiters;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use trace_format::prefetch::prefetch;
use trace_format::{MsgId, ProcId};

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
/// (its receipts and signals), in one cache line: a run touches little
/// else. Spawns and dependencies are rare beside receipts: a run compares
/// with the event of the next of each, and reads their arrays, and where
/// it stands in them ([`Rare`]), only there.
#[repr(align(64))]
struct Progress<'m> {
    receipts: &'m [ReceiptFact],
    signals: &'m [SignalFact],
    cursor: u32,
    end: u32,
    /// Receipts taken (an index into `receipts`), the one a process waits
    /// for included: it is at `cursor` then.
    r: u32,
    /// Signals sent so far (those of the whole log are in `published`).
    sent: u32,
    /// The events of the next spawn and dependency (`u32::MAX`: none left).
    next_spawn: u32,
    next_dep: u32,
    started: bool,
}

const _: () = assert!(std::mem::size_of::<Progress<'static>>() == 64);

/// Per process, the spawns done and dependencies met (indices into the
/// model's arrays): read only at a spawn or a dependency.
#[derive(Copy, Clone, Default)]
struct Rare {
    k: u32,
    d: u32,
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
    head: usize,
    len: usize,
}

impl Ready {
    fn new(n: usize) -> Ready {
        Ready {
            ring: vec![0; n.max(1).next_power_of_two()],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, p: TableRow) {
        let mask = self.ring.len() - 1;
        self.ring[(self.head + self.len) & mask] = p;
        self.len += 1;
    }

    #[inline]
    fn pop(&mut self) -> Option<TableRow> {
        if self.len == 0 {
            return None;
        }
        let p = self.ring[self.head];
        self.head = (self.head + 1) & (self.ring.len() - 1);
        self.len -= 1;
        Some(p)
    }

    #[inline]
    fn get(&self, i: usize) -> Option<TableRow> {
        (i < self.len).then(|| self.ring[(self.head + i) & (self.ring.len() - 1)])
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

/// As [`derive_slots`], given up (`None`) as soon as `cancel` is set: for
/// a derivation built beside other work that may find it unneeded.
pub(crate) fn derive_slots_unless(
    model: &Model,
    limit: Option<&[u64]>,
    cancel: Option<&AtomicBool>,
    mut run: impl FnMut(TableRow, u32, u32),
) -> Option<DeriveOutcome> {
    let n = model.procs.len();
    let mut prog = progress(model, limit);
    let mut rare = vec![Rare::default(); n];
    let mut q = Queues {
        ready: Ready::new(n),
        waiters: Waiters::new(n),
        event_waiters: Waiters::new(n),
    };
    // Per process: the signals it has sent so far and those of its whole
    // log, what a receipt checks of its sender. Kept apart from the rest
    // of the state so that it stays in cache, and side by side so that a
    // receipt reads one line.
    let mut published: Vec<[u32; 2]> = model.sent.iter().map(|&t| [0, t]).collect();
    roots(model, &mut prog, &mut q.ready);
    // Only operations on shared state make a process wait for another's
    // event: a log without them has nobody to wake that way.
    let has_deps = model.deps.iter().any(|d| !d.is_empty());
    let mut ordered = 0u64;
    // First in, first out, with what a process's run reads asked for in
    // advance: the run of a process starts with a cache miss otherwise.
    while let Some(p) = q.ready.pop() {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return None;
        }
        prefetch_ahead(&prog, &q.ready);
        let start = prog[p as usize].cursor;
        let (cur, sent) = run_process(model, &mut prog, &mut rare, &published, &mut q, p);
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
        let next_signal = st.signals.as_ptr().wrapping_add(sent as usize);
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
    let (cycles, behind) = stuck(model, &prog, &rare);
    Some(DeriveOutcome {
        ordered,
        cycles,
        behind,
    })
}

/// Runs process `p` from where it stands until it waits (put among the
/// waiters) or reaches its end; returns where it stopped and the signals
/// it sent before that, both also kept in its progress.
#[inline(always)]
fn run_process(
    model: &Model,
    prog: &mut [Progress],
    rare: &mut [Rare],
    published: &[[u32; 2]],
    q: &mut Queues,
    p: TableRow,
) -> (u32, u32) {
    let st = &prog[p as usize];
    let recs = st.receipts;
    let end = st.end;
    let mut cur;
    let (mut r, mut next_spawn, mut next_dep) = (st.r as usize, st.next_spawn, st.next_dep);
    // Signals sent before `cur`; brought forward only where a receipt
    // needs it (a wait, or a signal to itself), by walking the process's
    // signals from where the last run left them.
    let mut sent = st.sent;
    let sigs = st.signals;
    let sent_before = |from: u32, at: u32| signals_before(sigs, from, at);
    loop {
        let (stop, receipt) = next_stop(recs, r, next_dep, end);
        if next_spawn < stop {
            next_spawn = start_children(model, prog, &mut rare[p as usize], &mut q.ready, p, stop);
        }
        cur = stop;
        let Some(rc) = receipt else {
            if cur == end {
                sent = if end as u64 == model.procs[p as usize].events {
                    published[p as usize][1]
                } else {
                    sent_before(sent, end)
                };
                break;
            }
            // A dependency: the operation of another process it follows.
            let (deps, d) = (model.deps_of(p), rare[p as usize].d as usize);
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
    (cur, sent)
}

/// Starts the children `p` spawned before its event `stop` (those whose
/// first spawn this is); returns the event of its next spawn.
#[cold]
fn start_children(
    model: &Model,
    prog: &mut [Progress],
    rare: &mut Rare,
    ready: &mut Ready,
    p: TableRow,
    stop: u32,
) -> u32 {
    let spawns = model.spawns_of(p);
    let mut k = rare.k as usize;
    while k < spawns.len() && spawns[k].at < stop {
        if let Some(c) = model.starts_child(p, &spawns[k]) {
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

/// Each process's progress before the derivation: nothing run, up to its
/// last event (or `limit`'s).
fn progress<'m>(model: &'m Model, limit: Option<&[u64]>) -> Vec<Progress<'m>> {
    model
        .procs
        .iter()
        .enumerate()
        .map(|(s, p)| {
            let s = s as TableRow;
            Progress {
                receipts: model.receipts_of(s),
                signals: model.signals_of(s),
                cursor: 0,
                end: limit.map_or(p.events, |l| l[s as usize].min(p.events)) as u32,
                r: 0,
                sent: 0,
                next_spawn: model.spawns_of(s).first().map_or(u32::MAX, |f| f.at),
                next_dep: model.deps_of(s).first().map_or(u32::MAX, |f| f.at),
                started: false,
            }
        })
        .collect()
}

/// Processes no spawn created start at once: the entry process first.
fn roots(model: &Model, prog: &mut [Progress], ready: &mut Ready) {
    for (s, st) in prog.iter_mut().enumerate() {
        if model.spawned_by[s].is_none() {
            st.started = true;
            ready.push(s as TableRow);
        }
    }
}

/// Asks for what the runs of processes soon to come read: the state of
/// one a few places ahead, the receipt and signal of a nearer one (whose
/// state was asked for then).
#[inline(always)]
fn prefetch_ahead(prog: &[Progress], ready: &Ready) {
    if let Some(q) = ready.get(AHEAD_STATE) {
        prefetch(&prog[q as usize]);
    }
    if let Some(q) = ready.get(AHEAD_ARRAYS) {
        let next = &prog[q as usize];
        prefetch(next.receipts.as_ptr().wrapping_add(next.r as usize));
        prefetch(next.signals.as_ptr().wrapping_add(next.sent as usize));
    }
}

/// The wait of a process that did not finish, if it has one.
fn wait_of(model: &Model, s: TableRow, st: &Progress, rare: Rare) -> Option<Wait> {
    let me = model.id(s);
    if !st.started {
        let (parent, at) = model.spawned_by[s as usize]?;
        return Some(Wait {
            event: EventId::new(me, 0),
            needs: EventId::new(model.id(parent), at as u64),
            why: WaitReason::Spawn,
        });
    }
    if let Some(dp) = model
        .deps_of(s)
        .get(rare.d as usize)
        .filter(|dp| dp.at == st.cursor)
    {
        return Some(Wait {
            event: EventId::new(me, dp.at as u64),
            needs: EventId::new(model.id(dp.after), dp.after_at as u64),
            why: WaitReason::Shared,
        });
    }
    // A process waiting for a signal stands at the receipt it has taken
    // in advance (see `run_process`).
    let taken = (st.r as usize).checked_sub(1)?;
    let rc = st.receipts.get(taken).filter(|rc| rc.at == st.cursor)?;
    let f = model.signal(rc.sender, rc.index)?;
    let sender = model.id(rc.sender);
    Some(Wait {
        event: EventId::new(me, rc.at as u64),
        needs: EventId::new(sender, f.at as u64),
        why: WaitReason::Signal(MsgId {
            sender,
            index: rc.index as u64,
        }),
    })
}

/// Follows the waits of the processes left unfinished: every one waits
/// for exactly one other, so the waits form cycles with trees hanging
/// off them.
fn stuck(model: &Model, prog: &[Progress], rare: &[Rare]) -> (Vec<Vec<Wait>>, Vec<ProcId>) {
    let stuck: Vec<TableRow> = (0..prog.len() as TableRow)
        .filter(|&s| {
            let st = &prog[s as usize];
            !st.started && st.end > 0 || st.cursor < st.end
        })
        .collect();
    if stuck.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let waits: Vec<Option<Wait>> = (0..prog.len() as TableRow)
        .map(|s| {
            let st = &prog[s as usize];
            if !st.started && st.end > 0 || st.cursor < st.end {
                wait_of(model, s, st, rare[s as usize])
            } else {
                None
            }
        })
        .collect();
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; prog.len()];
    let mut cycles = Vec::new();
    let mut on_cycle = vec![false; prog.len()];
    for &start in &stuck {
        let mut path: Vec<TableRow> = Vec::new();
        let mut at = start;
        loop {
            if state[at as usize] == DONE {
                break;
            }
            if state[at as usize] == ON_PATH {
                // `at` closes a cycle: the part of the path from it.
                let from = path.iter().position(|&x| x == at).unwrap_or(0);
                let cycle: Vec<Wait> = path[from..]
                    .iter()
                    .filter_map(|&x| waits[x as usize])
                    .collect();
                for &x in &path[from..] {
                    on_cycle[x as usize] = true;
                }
                cycles.push(cycle);
                break;
            }
            state[at as usize] = ON_PATH;
            path.push(at);
            match waits[at as usize].and_then(|w| model.slot(w.needs.proc)) {
                Some(next) if waits[next as usize].is_some() => at = next,
                _ => break,
            }
        }
        for x in path {
            state[x as usize] = DONE;
        }
    }
    let behind = stuck
        .into_iter()
        .filter(|&s| !on_cycle[s as usize])
        .map(|s| model.id(s))
        .collect();
    (cycles, behind)
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
    match recs.get(r) {
        // A receipt and an operation on shared state are never one event.
        Some(rc) if rc.at < end && rc.at < next_dep => (rc.at, Some(rc)),
        _ => (end.min(next_dep), None),
    }
}
