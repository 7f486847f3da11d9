//! `--observe P ...`: the observational comparison of Bereczky et al. 2024 (barbed
//! bisimulation observing a set of pids). An observer's behaviour is what
//! it consumes and sends, in its own order, and how it ends: its `receive`s
//! (each with the payload its sender sent — for an exit or 'DOWN' signal
//! turned into a message, the signal's reason), its message `send`s, and
//! its `exit`. Who sent what it consumed is not compared, nor are the
//! destinations of its sends unless they are observers too; spawns, other
//! signals, timeouts, built-in results and output are not observed.
//!
//! A projection is held whole: an observer's events, plus the payloads of
//! the messages it consumed, read from the senders' blocks that hold them
//! (each such block decoded once).

use crate::event::{ConsumedKind, Item, LoggedEvent, Span};
use crate::run::{Run, TableRow};
use crate::source::Projected;
use std::collections::BTreeMap;
use trace_format::text::pid_text;
use trace_format::{EventRef, SignalKindRef, Warning};

/// Keeps `bytes` in the projection's arena; past 4 GiB they are dropped
/// (and `lost` says so).
fn keep(arena: &mut Vec<u8>, bytes: &[u8], lost: &mut bool) -> Option<Span> {
    let s = Span::push(arena, bytes);
    *lost |= s.is_none();
    s
}

/// The observable events of `row`, with the payloads of what it consumed.
pub(crate) fn project(run: &Run<'_>, slot: TableRow, warnings: &mut Vec<Warning>) -> Projected {
    let mut p = Projected::default();
    let mut lost = false;
    // (sender row, signal index) → positions of the items that consumed it.
    let mut wanted: BTreeMap<(TableRow, u64), Vec<usize>> = BTreeMap::new();
    let (mut signals, mut spawns, mut events) = (0u64, 0u64, 0u64);
    for k in run.blocks(slot) {
        let saved = (signals, spawns, events);
        let (items, arena) = (&mut p.items, &mut p.arena);
        let r = run.reader.for_each_event_in_block(k, |index, _, e| {
            let ev = match e {
                EventRef::Send { to, payload, .. } => Some(LoggedEvent::Send {
                    to,
                    payload: payload.and_then(|b| keep(arena, b, &mut lost)),
                }),
                EventRef::Receive { msg } => {
                    if let Some(s) = run.slot(msg.sender) {
                        wanted.entry((s, msg.index)).or_default().push(items.len());
                    }
                    Some(LoggedEvent::ConsumedKind {
                        msg,
                        what: ConsumedKind::Unknown,
                        payload: None,
                    })
                }
                EventRef::Exit { reason } => Some(LoggedEvent::Exit {
                    reason: reason.and_then(|b| keep(arena, b, &mut lost)),
                }),
                _ => None,
            };
            if let Some(ev) = ev {
                items.push(Item {
                    index,
                    signals,
                    spawns,
                    ev,
                });
            }
            match e {
                EventRef::Send { .. } | EventRef::Signal { .. } => signals += 1,
                EventRef::Spawn { .. } => spawns += 1,
                _ => {}
            }
            events = index + 1;
        });
        if let Err(e) = r {
            let first = run.block_first_event(k);
            warnings.push(Warning::at(
                e.offset().unwrap_or(0),
                format!(
                    "process {} {}: {e}; its log is compared up to event {first}",
                    run.id(slot).0,
                    pid_text(run.pid(slot))
                ),
            ));
            // Drop what the bad block gave: the log ends before it.
            (signals, spawns, events) = saved;
            p.items.retain(|it| it.index < first);
            wanted.retain(|_, v| {
                v.retain(|&i| i < p.items.len());
                !v.is_empty()
            });
            break;
        }
    }
    p.total = crate::source::Cut {
        events,
        signals,
        spawns,
    };
    fill_payloads(run, &mut p, &wanted, &mut lost, warnings);
    if lost {
        warnings.push(Warning::limit(format!(
            "process {} {}: what it sent and consumed passes 4 GiB; payloads beyond are not compared",
            run.id(slot).0,
            pid_text(run.pid(slot))
        )));
    }
    p
}

/// Reads what each consumed message carried from its sender's log.
fn fill_payloads(
    run: &Run<'_>,
    p: &mut Projected,
    wanted: &BTreeMap<(TableRow, u64), Vec<usize>>,
    lost: &mut bool,
    warnings: &mut Vec<Warning>,
) {
    let mut blocks: Vec<(TableRow, usize)> = wanted
        .keys()
        .map(|&(s, i)| (s, run.block_of_signal(s, i)))
        .collect();
    blocks.dedup();
    for (sender, k) in blocks {
        let (items, arena) = (&mut p.items, &mut p.arena);
        let r = run.reader.for_each_event_in_block(k, |_, _, e| {
            let (msg, what, payload) = match e {
                EventRef::Send { msg, payload, .. } => (msg, ConsumedKind::Message, payload),
                EventRef::Signal { signal, kind, .. } => match kind {
                    SignalKindRef::Exit { reason, .. } => (signal, ConsumedKind::Exit, reason),
                    SignalKindRef::Down { reason } => (signal, ConsumedKind::Down, reason),
                    _ => return,
                },
                _ => return,
            };
            if let Some(at) = wanted.get(&(sender, msg.index)) {
                let payload = payload.and_then(|b| keep(arena, b, lost));
                for &i in at {
                    if let LoggedEvent::ConsumedKind { msg, .. } = items[i].ev {
                        items[i].ev = LoggedEvent::ConsumedKind { msg, what, payload };
                    }
                }
            }
        });
        if let Err(e) = r {
            warnings.push(Warning::at(
                e.offset().unwrap_or(0),
                format!("{e}; messages it sent are compared without their payloads"),
            ));
        }
    }
}
