//! The writer's crowds: new processes write their first slice into a block
//! buffer of their thread's (`ProcessWriter::hold_crowded`), and what they
//! write later into segments of their own. The log reads back the same.

mod common;

use common::*;
use std::time::Duration;
use trace_format::{
    Dest, Event, LogReader, LogWriter, Outcome, Payload, ProcId, ProcessWriter, WriterOptions,
};

fn writer(t: &TempPath, opts: WriterOptions) -> std::sync::Arc<LogWriter> {
    LogWriter::create(&t.0, header(), opts).unwrap()
}

/// A short process's life: a message to its parent and its end, in one slice.
fn short_life(h: &mut ProcessWriter, parent: ProcId) {
    h.hold_crowded(|| true);
    let mut s = h.slice();
    s.push_send(Dest::Proc(parent), Some(&atom("done")));
    s.push_exit(Some(&atom("normal")));
    drop(s);
    h.release();
}

fn short_events(parent: ProcId) -> Vec<Event> {
    vec![
        Event::Send {
            to: Dest::Proc(parent),
            payload: Some(Payload(atom("done"))),
        },
        Event::Exit {
            reason: Some(Payload(atom("normal"))),
        },
    ]
}

#[test]
fn short_processes_share_blocks_and_read_back_whole() {
    let t = TempPath::new("crowd.trace");
    let w = writer(
        &t,
        WriterOptions {
            block_size: 1024,
            ..Default::default()
        },
    );
    let mut parent = w.register(80, None);
    let n = 3000u32;
    for i in 1..=n {
        let mut child = w.register(80 + i as u64, Some(ProcId(0)));
        parent.hold_crowded(|| true);
        parent
            .slice()
            .push_spawn(child.id(), child.pid(), false, false);
        parent.release();
        short_life(&mut child, ProcId(0));
        child.close();
    }
    drop(parent);
    let s = w.finish(Outcome::default()).unwrap();
    assert_eq!(s.events, 3 * n as u64);
    // A block of its own for each child would be 3000 blocks.
    assert!(s.blocks < n as u64 / 20, "{} blocks", s.blocks);
    let r = LogReader::open(&t.0).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let logs = r.read_all().unwrap();
    assert_eq!(logs.len(), n as usize + 1);
    assert_eq!(logs[0].events.len(), n as usize);
    for l in &logs[1..] {
        assert_eq!(l.parent, Some(ProcId(0)));
        assert_eq!(l.pid, 80 + l.id.0 as u64);
        assert_eq!(l.events, short_events(ProcId(0)), "process {}", l.id.0);
    }
}

/// A process that lives on keeps its first slice in the crowd and writes
/// the rest into a segment of its own; a first slice longer than a block
/// goes on in a new row of the next crowd.
/// Processes that take the crowd in another order than they were
/// registered in: the block's rows are put in process order, each with
/// its own events.
#[test]
fn rows_out_of_process_order_read_back_whole() {
    let t = TempPath::new("unordered.trace");
    let w = writer(&t, WriterOptions::default());
    let parent = w.register(80, None);
    let mut children: Vec<_> = (1..=50u64)
        .map(|i| w.register(80 + i, Some(ProcId(0))))
        .collect();
    // The last registered first, then the others, odd ones before even.
    children.reverse();
    children.sort_by_key(|c| c.id().0 % 2 == 0);
    for c in &mut children {
        short_life(c, ProcId(0));
    }
    for c in children {
        c.close();
    }
    drop(parent);
    let s = w.finish(Outcome::default()).unwrap();
    assert_eq!(s.blocks, 1, "one block: the crowd's");
    let r = LogReader::open(&t.0).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let logs = r.read_all().unwrap();
    assert_eq!(logs.len(), 51);
    for l in &logs[1..] {
        assert_eq!(l.pid, 80 + l.id.0 as u64);
        assert_eq!(l.events, short_events(ProcId(0)), "process {}", l.id.0);
    }
}

#[test]
fn a_long_lived_process_goes_on_in_its_own_segments() {
    for timestamps in [false, true] {
        let t = TempPath::new("long.trace");
        let w = writer(
            &t,
            WriterOptions {
                block_size: 512,
                timestamps,
                ..Default::default()
            },
        );
        let mut p = w.register(80, None);
        let mut want = Vec::new();
        for slice in 0..5u64 {
            p.hold_crowded(|| true);
            let mut s = p.slice();
            // The first slice is longer than a block.
            let events = if slice == 0 { 400 } else { 30 };
            for k in 0..events {
                let value = tagged("t", (k % 200) as u8);
                s.push_send(Dest::Proc(ProcId(0)), Some(&value));
                want.push(Event::Send {
                    to: Dest::Proc(ProcId(0)),
                    payload: Some(Payload(value)),
                });
            }
            drop(s);
            p.release();
        }
        drop(p);
        w.finish(Outcome::default()).unwrap();
        let r = LogReader::open(&t.0).unwrap();
        assert!(r.warnings().is_empty(), "{:?}", r.warnings());
        let logs = r.read_all().unwrap();
        assert_eq!(logs[0].events, want, "timestamps {timestamps}");
    }
}

/// A process that finds its thread's crowd held (here by another process
/// on the same thread) writes a segment of its own.
#[test]
fn a_process_that_finds_the_crowd_held_opens_its_own_segment() {
    let t = TempPath::new("held.trace");
    let w = writer(&t, WriterOptions::default());
    let mut a = w.register(80, None);
    let mut b = w.register(81, Some(ProcId(0)));
    a.hold_crowded(|| true);
    a.slice().push_spawn(ProcId(1), 81, false, false);
    short_life(&mut b, ProcId(0));
    a.slice().push_timeout();
    a.release();
    drop((a, b));
    w.finish(Outcome::default()).unwrap();
    let logs = LogReader::open(&t.0).unwrap().read_all().unwrap();
    assert_eq!(logs[1].events, short_events(ProcId(0)));
    assert_eq!(logs[0].events.len(), 2);
}

/// Threads write their own crowds at once.
#[test]
fn many_threads_fill_crowds_at_once() {
    let t = TempPath::new("threads.trace");
    let w = writer(
        &t,
        WriterOptions {
            block_size: 2048,
            compress_threads: 2,
            ..Default::default()
        },
    );
    let parent = w.register(80, None);
    std::thread::scope(|sc| {
        for th in 0..4u64 {
            let w = &w;
            sc.spawn(move || {
                for i in 0..500u64 {
                    let mut h = w.register(1000 + th * 1000 + i, Some(ProcId(0)));
                    short_life(&mut h, ProcId(0));
                }
            });
        }
    });
    drop(parent);
    let s = w.finish(Outcome::default()).unwrap();
    assert_eq!(s.events, 4 * 500 * 2);
    let r = LogReader::open(&t.0).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let logs = r.read_all().unwrap();
    assert_eq!(logs.len(), 2001);
    for l in &logs[1..] {
        assert_eq!(l.events, short_events(ProcId(0)), "process {}", l.id.0);
    }
}

/// A crowd is written within about the flush interval, whether or not a
/// process holds it when the flusher comes: a killed run loses no more.
#[test]
fn a_crowd_reaches_the_file_within_the_flush_interval() {
    let t = TempPath::new("crowd-killed.trace");
    let w = writer(
        &t,
        WriterOptions {
            flush_interval: Duration::from_millis(20),
            ..Default::default()
        },
    );
    let mut idle = w.register(80, None);
    idle.hold_crowded(|| true);
    idle.slice().push_timeout();
    idle.release();
    let mut holder = w.register(81, None);
    holder.hold_crowded(|| true);
    holder.slice().push_timeout();
    // Held across the flusher's sweeps: its slice end cuts the crowd.
    std::thread::sleep(Duration::from_millis(60));
    holder.release();
    let on_file = || {
        let bytes = std::fs::read(&t.0).unwrap();
        LogReader::from_bytes(bytes)
            .map(|r| r.event_count())
            .unwrap_or(0)
    };
    for _ in 0..2000 {
        if on_file() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let r = LogReader::from_bytes(std::fs::read(&t.0).unwrap()).unwrap();
    assert!(r.recovered());
    let logs = r.read_all().unwrap();
    assert_eq!(logs[0].events, vec![Event::Timeout]);
    assert_eq!(logs[1].events, vec![Event::Timeout]);
    drop((idle, holder));
    w.finish(Outcome::default()).unwrap();
}
