//! Writing logs and reading them back.

mod common;

use common::*;
use std::sync::Arc;
use std::time::Duration;
use trace_format::{
    Dest, Event, EventRef, LogReader, LogWriter, MsgId, Outcome, ProcId, RunEnd, WriterOptions,
};

#[test]
fn a_ring_round_trips_through_every_reading_api() {
    let t = TempPath::new("ring.trace");
    let logs = ring(12, 300, true);
    let small_blocks = WriterOptions {
        block_size: 512,
        ..Default::default()
    };
    let summary = write(&t.0, &logs, small_blocks);
    assert_eq!(
        summary.events,
        logs.iter().map(|l| l.events.len() as u64).sum::<u64>()
    );
    assert!(summary.blocks > 12, "small blocks: {summary:?}");

    let r = LogReader::open(&t.0).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    assert!(!r.recovered());
    assert_eq!(r.header().entry, "ring:main()");
    assert_eq!(r.outcome().unwrap().0.end, RunEnd::Completed);
    assert_eq!(r.read_all().unwrap(), logs);
    for l in &logs {
        assert_eq!(r.events_of(l.id).unwrap(), l.events);
        let p = r.process(l.id).unwrap();
        assert_eq!(
            (p.pid, p.parent, p.events),
            (l.pid, l.parent, l.events.len() as u64)
        );
    }
    assert_eq!(r.process_by_pid(85).unwrap().id, ProcId(5));

    // The parallel visitor sees every event once, with its position and signal indices.
    let per_block = r
        .par_map_blocks(|ev| {
            let mut out = Vec::new();
            while let Some(e) = ev.next() {
                out.push((ev.info().process, ev.index(), e.to_owned(), e));
                if let EventRef::Send { msg, .. } = e {
                    assert_eq!(msg.sender, ev.info().process);
                }
            }
            out.into_iter()
                .map(|(p, i, e, _)| (p, i, e))
                .collect::<Vec<_>>()
        })
        .unwrap();
    let flat: Vec<_> = per_block.into_iter().flatten().collect();
    assert_eq!(flat.len() as u64, summary.events);
    for (p, i, e) in flat {
        assert_eq!(logs[p.0 as usize].events[i as usize], e);
    }

    // The fold sees every event once too, each where its process log has it.
    let folded = r
        .par_fold_blocks(Vec::new, |seen, ev| {
            while let Some(e) = ev.next() {
                seen.push((ev.info().process, ev.index(), e.to_owned()));
            }
        })
        .unwrap();
    let mut seen: Vec<_> = folded.into_iter().flatten().collect();
    assert_eq!(seen.len() as u64, summary.events);
    seen.sort_by_key(|(p, i, _)| (*p, *i));
    let want: Vec<_> = logs
        .iter()
        .flat_map(|l| {
            l.events
                .iter()
                .enumerate()
                .map(|(i, e)| (l.id, i as u64, e.clone()))
        })
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn a_block_read_a_few_events_at_a_time_gives_what_a_whole_read_gives() {
    let t = TempPath::new("chunks.trace");
    let logs = ring(3, 400, true);
    let opts = WriterOptions {
        block_size: 4096,
        ..Default::default()
    };
    write(&t.0, &logs, opts);
    let r = LogReader::open(&t.0).unwrap();
    for l in &logs {
        let p = r.process(l.id).unwrap();
        assert!(p.block_positions().len() > 1, "several blocks per process");
        for chunk in [1, 7, 64, 100_000] {
            let mut got = Vec::new();
            for b in p.block_positions() {
                let mut c = r.block_cursor(b).unwrap().unwrap();
                assert_eq!(c.info().process, l.id);
                let mut calls = 0;
                while c
                    .next_events(chunk, |i, e| got.push((i, e.to_owned())))
                    .unwrap()
                {
                    calls += 1;
                    assert!(calls <= c.info().events as usize, "the cursor moves on");
                }
                // Read to its end, it stays there.
                assert!(!c
                    .next_events(chunk, |_, _| panic!("no event left"))
                    .unwrap());
            }
            let want: Vec<_> = (0u64..).zip(l.events.iter().cloned()).collect();
            assert_eq!(got, want, "{chunk} events at a time");
        }
    }
    assert!(r.block_cursor(r.blocks().len()).is_none());
}

#[test]
fn a_block_cursor_reports_a_damaged_block() {
    let t = TempPath::new("damaged.trace");
    write(&t.0, &ring(2, 50, true), WriterOptions::default());
    let mut bytes = std::fs::read(&t.0).unwrap();
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let b = r.blocks().next().unwrap();
    // A byte of the body changed: the checksum says so when the block is opened.
    let at = (b.body_offset + b.stored_len as u64 / 2) as usize;
    bytes[at] ^= 0x40;
    let r = LogReader::from_bytes(bytes).unwrap();
    let err = r.block_cursor(0).unwrap().err().expect("a checksum error");
    assert!(err.to_string().contains("checksum"), "{err}");
}

#[test]
fn sends_carry_their_implicit_message_ids() {
    let t = TempPath::new("ids.trace");
    let logs = ring(3, 4, false);
    write(&t.0, &logs, WriterOptions::default());
    let r = LogReader::open(&t.0).unwrap();
    let mut sends = Vec::new();
    r.for_each_event_of(ProcId(1), |_, _, e| {
        if let EventRef::Send { msg, .. } = e {
            sends.push(msg);
        }
    })
    .unwrap();
    let expect: Vec<MsgId> = (0..4)
        .map(|index| MsgId {
            sender: ProcId(1),
            index,
        })
        .collect();
    assert_eq!(sends, expect);
    // And each receive in process 2 names one of them, in order.
    let got: Vec<MsgId> = r
        .events_of(ProcId(2))
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            Event::Receive { msg } => Some(msg),
            _ => None,
        })
        .collect();
    assert_eq!(got, expect);
}

#[test]
fn many_threads_write_many_processes() {
    let t = TempPath::new("threads.trace");
    let w = LogWriter::create(
        &t.0,
        header(),
        WriterOptions {
            block_size: 1024,
            compress_threads: 2,
            ..Default::default()
        },
    )
    .unwrap();
    // Register 400 processes, then let 4 threads push for them; a process
    // moves between threads between slices.
    let handles: Vec<_> = (0..400u64).map(|i| w.register(1000 + i, None)).collect();
    let handles = Arc::new(std::sync::Mutex::new(handles));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let handles = handles.clone();
            std::thread::spawn(move || {
                for round in 0..50u64 {
                    for i in 0..400usize {
                        let mut hs = handles.lock().unwrap();
                        let h = &mut hs[i];
                        let mut s = h.slice();
                        let to = Dest::Proc(ProcId(((i + 1) % 400) as u32));
                        s.push_send(to, None);
                        s.push_timeout();
                        let _ = round;
                    }
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    drop(handles);
    let s = w.finish(Outcome::default()).unwrap();
    assert_eq!(s.events, 400 * 50 * 4 * 2);
    let r = LogReader::open(&t.0).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    for l in r.read_all().unwrap() {
        assert_eq!(l.events.len(), 400);
        for (k, pair) in l.events.chunks(2).enumerate() {
            assert_eq!(
                pair,
                &[
                    Event::Send {
                        to: Dest::Proc(ProcId((l.id.0 + 1) % 400)),
                        payload: None
                    },
                    Event::Timeout
                ],
                "process {} pair {k}",
                l.id.0
            );
        }
    }
}

#[test]
fn idle_processes_are_flushed_by_time_and_a_killed_run_is_recovered() {
    let t = TempPath::new("killed.trace");
    let w = LogWriter::create(
        &t.0,
        header(),
        WriterOptions {
            flush_interval: Duration::from_millis(20),
            ..Default::default()
        },
    )
    .unwrap();
    let mut p0 = w.register(80, None);
    let mut p1 = w.register(81, Some(ProcId(0)));
    p0.slice().push_spawn(ProcId(1), 81, false, false);
    p1.slice().push_timeout();
    // Wait (without asserting on time) until both blocks reached the file.
    let ready = |len: u64| {
        LogReader::open(&t.0)
            .map(|r| r.event_count() == len)
            .unwrap_or(false)
    };
    for _ in 0..2000 {
        if ready(2) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Read the file as a killed run would leave it: no footer.
    let bytes = std::fs::read(&t.0).unwrap();
    let r = LogReader::from_bytes(bytes).unwrap();
    assert!(r.recovered());
    assert!(
        r.warnings()[0].message.contains("no footer"),
        "{:?}",
        r.warnings()
    );
    let logs = r.read_all().unwrap();
    assert_eq!(
        logs[0].events,
        vec![Event::Spawn {
            child: ProcId(1),
            pid: 81,
            link: false,
            monitor: false
        }]
    );
    assert_eq!(logs[1].events, vec![Event::Timeout]);
    assert_eq!(logs[1].parent, Some(ProcId(0)));
    assert_eq!(logs[1].pid, 81);
    drop((p0, p1));
    w.finish(Outcome {
        end: RunEnd::Interrupted,
        exit_status: Some(130),
        entry_result: None,
    })
    .unwrap();
    let r = LogReader::open(&t.0).unwrap();
    assert_eq!(r.outcome().unwrap().0.end, RunEnd::Interrupted);
}

#[test]
fn timestamps_are_recorded_and_never_go_backwards() {
    let t = TempPath::new("times.trace");
    let logs = ring(4, 50, false);
    write(
        &t.0,
        &logs,
        WriterOptions {
            timestamps: true,
            block_size: 256,
            ..Default::default()
        },
    );
    let r = LogReader::open(&t.0).unwrap();
    assert!(r.header().options.timestamps);
    assert_eq!(r.read_all().unwrap(), logs);
    let times = r
        .par_map_blocks(|ev| {
            let mut ts = Vec::new();
            while ev.next().is_some() {
                ts.push(ev.time().expect("timestamps"));
            }
            (ev.info().process, ts)
        })
        .unwrap();
    let mut last = std::collections::HashMap::new();
    for (p, ts) in times {
        for t in ts {
            let prev = last.insert(p, t).unwrap_or(0);
            assert!(t >= prev);
        }
    }
}

#[test]
fn a_tight_memory_budget_still_yields_every_event() {
    // Events enough, to destinations no predictor guesses, that making every
    // block dormant (its bytes and a few more kept) cannot bring the writer
    // under its budget: with 20 each to the next process in turn it could,
    // when the flusher first ran after the pushes, and nothing had to be cut.
    const ROUNDS: usize = 40;
    let t = TempPath::new("budget.trace");
    let w = LogWriter::create(
        &t.0,
        header(),
        WriterOptions {
            max_buffered_bytes: 64 << 10,
            block_size: 1 << 20,
            flush_interval: Duration::from_secs(3600),
            ..Default::default()
        },
    )
    .unwrap();
    // Measured before any push: the flusher may cut blocks while they go on.
    let header_only = std::fs::metadata(&t.0).unwrap().len();
    // 2000 processes each push a little and stay open: only the budget can cut them.
    let mut hs: Vec<_> = (0..2000u64).map(|i| w.register(100 + i, None)).collect();
    for round in 0..ROUNDS {
        for (i, h) in hs.iter_mut().enumerate() {
            let mut s = h.slice();
            let to = (i * 7919 + round * 104_729) ^ (i * round * 31);
            s.push_send(Dest::Proc(ProcId((to % 2000) as u32)), None);
        }
    }
    // The flusher cuts blocks on its own thread: on a busy machine it may
    // not have run yet. Give it time to write some before finishing, which
    // would cut everything anyway.
    let start = std::time::Instant::now();
    while std::fs::metadata(&t.0).unwrap().len() == header_only
        && start.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Blocks reached the file before `finish`: only the budget cut them
    // (how many segments each process got depends on when the flusher ran,
    // during the pushes or after them).
    let cut_early = std::fs::metadata(&t.0).unwrap().len() > header_only;
    let s = w.finish(Outcome::default()).unwrap();
    drop(hs);
    assert!(cut_early, "the budget forced cuts before finish");
    assert_eq!(s.events, 2000 * ROUNDS as u64);
    let r = LogReader::open(&t.0).unwrap();
    assert_eq!(r.event_count(), 2000 * ROUNDS as u64);
    assert!(r.blocks().len() >= 2000);
}

#[test]
fn the_largest_block_a_writer_makes_is_still_readable() {
    use trace_format::container::MAX_TERM;
    use trace_format::writer::MAX_BLOCK_SIZE;
    let t = TempPath::new("large.trace");
    let w = LogWriter::create(
        &t.0,
        header(),
        WriterOptions {
            block_size: MAX_BLOCK_SIZE,
            flush_interval: Duration::from_secs(3600),
            ..Default::default()
        },
    )
    .unwrap();
    let mut p = w.register(80, None);
    // Just under the block size, then the largest term a log holds: the
    // block goes one event past its size, as far as it ever can.
    let filler: Vec<u8> = (0..MAX_BLOCK_SIZE - 64)
        .map(|i| (i * 7 % 251) as u8)
        .collect();
    let big: Vec<u8> = (0..MAX_TERM).map(|i| (i * 13 % 253) as u8).collect();
    let too_big = vec![0u8; MAX_TERM + 1];
    {
        let mut s = p.slice();
        s.push_send(Dest::Proc(ProcId(0)), Some(&filler));
        s.push_send(Dest::Proc(ProcId(0)), Some(&big));
        s.push_send(Dest::Proc(ProcId(0)), Some(&too_big));
        s.push_nondet(trace_format::NondetKind::Random, &too_big);
        s.push_exit(Some(&too_big));
    }
    drop(p);
    let summary = w.finish(Outcome::default()).unwrap();
    assert_eq!(summary.oversized_terms, 3);
    assert_eq!(summary.lost_events, 0);
    let r = LogReader::open(&t.0).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let first = r.blocks().next().unwrap();
    assert_eq!(first.events, 2);
    assert!(first.raw_len as usize > filler.len() + MAX_TERM);
    let events = r.events_of(ProcId(0)).unwrap();
    assert_eq!(events.len(), 5);
    assert!(matches!(&events[0], Event::Send { payload: Some(p), .. } if p.0 == filler));
    assert!(matches!(&events[1], Event::Send { payload: Some(p), .. } if p.0 == big));
    // Too large for any block: the send stays, its payload is left out.
    assert!(matches!(&events[2], Event::Send { payload: None, .. }));
    assert!(matches!(&events[3], Event::Nondet { value, .. } if value.0.is_empty()));
    assert!(matches!(&events[4], Event::Exit { reason: None }));
}
