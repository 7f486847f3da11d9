//! The flusher thread: cuts blocks that have waited `flush_interval` (so a
//! killed run loses little) and, when the memory budget is exceeded, makes
//! every idle process's block dormant (its bytes alone kept) and, if that
//! is not enough, cuts them. It never waits for a running process: it
//! leaves a hint that the process's slice end picks up.

use super::crowd::CrowdCell;
use super::process::{cut_and, make_dormant, ProcState};
use super::sink::Wake;
use super::Inner;
use crate::sync::lock;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(super) fn run(inner: &Inner) {
    let tick =
        (inner.opts.flush_interval / 4).clamp(Duration::from_millis(1), Duration::from_millis(100));
    loop {
        std::thread::park_timeout(tick);
        if inner.stopping.load(Ordering::SeqCst) {
            return;
        }
        let pressure = inner.flusher_wake.swap(false, Ordering::Relaxed) || inner.over_budget();
        if pressure {
            sweep(inner, Pass::Dormant);
            if inner.over_budget() {
                sweep(inner, Pass::Cut);
            }
        } else {
            sweep(inner, Pass::Old);
        }
    }
}

/// What a sweep does to idle processes' blocks besides cutting the old ones.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Pass {
    Old,
    /// Make the others dormant.
    Dormant,
    /// Cut the others too.
    Cut,
}

fn sweep(inner: &Inner, pass: Pass) {
    let now = Instant::now();
    for shard in inner.open.shards() {
        sweep_shard(inner, &shard.0, pass, now);
    }
    for c in inner.crowds.iter() {
        sweep_crowd(inner, c, pass);
    }
    inner.queue.wake();
}

/// Cuts a crowd that waited the flush interval (any, under pressure), or
/// leaves its holder a hint.
fn sweep_crowd(inner: &Inner, cell: &CrowdCell, pass: Pass) {
    match cell.crowd.try_lock() {
        Some(mut c) => {
            if pass != Pass::Old || c.due(inner) {
                c.cut(inner, Wake::Later);
            }
        }
        None => cell.flush_hint.store(true, Ordering::Relaxed),
    }
}

/// Cuts (or makes dormant) what is due in one shard's list, keeping the
/// rest listed. Processes listed meanwhile are added to the list again.
fn sweep_shard(inner: &Inner, list: &Mutex<Vec<Arc<ProcState>>>, pass: Pass, now: Instant) {
    let listed = std::mem::take(&mut *lock(list));
    if listed.is_empty() {
        return;
    }
    let mut keep = Vec::with_capacity(listed.len());
    for state in listed {
        let mut b = match state.buf.try_lock() {
            Some(b) => b,
            None => {
                state.flush_hint.store(true, Ordering::Relaxed);
                keep.push(state.clone());
                continue;
            }
        };
        let due = match b.opened_at() {
            None => {
                // Cut already (block full, or the process closed).
                b.listed = false;
                continue;
            }
            Some(t) => pass == Pass::Cut || now.duration_since(t) >= inner.opts.flush_interval,
        };
        if due {
            cut_and(&mut b, &state, inner, Wake::Later);
            b.listed = false;
        } else {
            if pass == Pass::Dormant {
                make_dormant(&mut b, inner);
            }
            drop(b);
            keep.push(state);
        }
    }
    lock(list).extend(keep);
}
