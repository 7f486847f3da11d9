//! The diagram's data on runs of the bundled fixtures: a lane per process,
//! an arrow per receipt, rows that respect happened-before, and arrows
//! enough to compute every causal past and future exactly, in every kind
//! of window.

mod common;

use common::{all_events, recorded, How};
use std::collections::BTreeSet;
use trace_capture::EventSpec;
use trace_causal::{EventId, Model};
use trace_format::{Event, EventKind, LogReader};
use trace_view::{build, kind_code, Diagram, Focus, Link};

/// The causal past (bit 1) and future (bit 2) of column `g`, computed from
/// the diagram's data only, as the page's script does: a prefix (and a
/// suffix) of every lane, grown along the arrows.
fn page_marks(d: &Diagram, g: usize) -> Vec<u8> {
    let ev = &d.events;
    let n = ev.len();
    let lanes = d.lanes.len();
    let mut lane_events: Vec<Vec<usize>> = vec![Vec::new(); lanes];
    let mut pos = vec![0usize; n];
    for (x, at) in pos.iter_mut().enumerate() {
        let l = ev.l[x] as usize;
        *at = lane_events[l].len();
        lane_events[l].push(x);
    }
    let spawned_by = |x: usize| -> Option<usize> {
        let l = ev.l[x] as usize;
        (lane_events[l][0] == x)
            .then_some(d.lanes[l].spawn)
            .flatten()
            .map(|s| s as usize)
    };
    // Along a shared object's order: the operation before, and after.
    let mut on_object: Vec<Vec<usize>> = vec![Vec::new(); lanes];
    for x in 0..n {
        if ev.o[x] >= 0 {
            on_object[ev.o[x] as usize].push(x);
        }
    }
    let (mut before, mut after) = (vec![None; n], vec![None; n]);
    for ops in &mut on_object {
        ops.sort_by_key(|&x| ev.q[x]);
        for w in ops.windows(2) {
            before[w[1]] = Some(w[0]);
            after[w[0]] = Some(w[1]);
        }
    }
    let mut effects: Vec<Vec<usize>> = vec![Vec::new(); n];
    for x in 0..n {
        effects[x].extend(after[x]);
    }
    for x in 0..n {
        if ev.c[x] >= 0 {
            effects[ev.c[x] as usize].push(x);
        }
        if let Some(s) = spawned_by(x) {
            effects[s].push(x);
        }
    }
    let mut mark = vec![0u8; n];
    let mut hi: Vec<i64> = vec![-1; lanes];
    let mut stack = vec![g];
    while let Some(x) = stack.pop() {
        let l = ev.l[x] as usize;
        if pos[x] as i64 <= hi[l] {
            continue;
        }
        for &y in &lane_events[l][(hi[l] + 1) as usize..=pos[x]] {
            mark[y] |= 1;
            if ev.c[y] >= 0 {
                stack.push(ev.c[y] as usize);
            }
            stack.extend(spawned_by(y));
            stack.extend(before[y]);
        }
        hi[l] = hi[l].max(pos[x] as i64);
    }
    let mut lo: Vec<usize> = vec![usize::MAX; lanes];
    stack.push(g);
    while let Some(x) = stack.pop() {
        let l = ev.l[x] as usize;
        if pos[x] >= lo[l] {
            continue;
        }
        let end = lo[l].min(lane_events[l].len());
        for &y in &lane_events[l][pos[x]..end] {
            mark[y] |= 2;
            stack.extend(effects[y].iter().copied());
        }
        lo[l] = pos[x];
    }
    mark
}

fn event_of(d: &Diagram, model: &Model, g: usize) -> EventId {
    let name = &d.lanes[d.events.l[g] as usize].name;
    let proc = model.names().lookup(&name.parse().unwrap()).unwrap();
    EventId::new(proc, d.events.i[g])
}

/// Every shown event's past and future, from the page's data, equal the
/// model's, restricted to what the window shows.
fn assert_exact(d: &Diagram, model: &Model) {
    let shown: Vec<EventId> = (0..d.events.len()).map(|g| event_of(d, model, g)).collect();
    for g in 0..d.events.len() {
        let marks = page_marks(d, g);
        let past = model.causal_past(shown[g]);
        let future = model.causal_future(shown[g]);
        for (x, &e) in shown.iter().enumerate() {
            assert_eq!(
                marks[x] & 1 != 0,
                past.contains(e),
                "{}: is {} in its causal past?",
                d.event_name(g as u32),
                d.event_name(x as u32)
            );
            assert_eq!(
                marks[x] & 2 != 0,
                future.contains(e),
                "{}: is {} in its causal future?",
                d.event_name(g as u32),
                d.event_name(x as u32)
            );
        }
    }
}

fn diagram(r: &LogReader, m: &Model, focus: &Focus) -> Diagram {
    build(m, r, focus, "test".into()).unwrap()
}

fn spec(s: &str) -> Option<EventSpec> {
    Some(s.parse().unwrap())
}

#[test]
fn a_lane_per_process_and_an_arrow_per_receipt() {
    let (_dir, r, m) = recorded(
        "view-lanes",
        "conc/links_monitors",
        How {
            deliveries: true,
            ..How::default()
        },
    );
    let d = diagram(&r, &m, &Focus::default());
    let procs: Vec<_> = d.lanes.iter().filter(|l| l.kind == "process").collect();
    assert_eq!(procs.len(), r.processes().len());
    assert_eq!(d.lanes[0].name, "P");
    assert_eq!(d.events.len() as u64, m.event_count());
    // Every receive of a message, delivery and signal taken has an arrow
    // from its send, of the right kind.
    let (mut receives, mut deliveries, mut taken) = (0, 0, 0);
    for p in r.processes() {
        for e in r.events_of(p.id).unwrap() {
            match e {
                Event::Receive { msg } if m.send_of(msg).unwrap().1.is_message() => receives += 1,
                Event::Deliver { .. } => deliveries += 1,
                Event::SignalTaken { .. } => taken += 1,
                _ => {}
            }
        }
    }
    let arrows = |code: u8| {
        (0..d.events.len())
            .filter(|&g| d.events.c[g] >= 0 && d.events.a[g] == code as i8)
            .count()
    };
    assert!(receives > 0 && deliveries > 0 && taken > 0);
    assert_eq!(arrows(Link::Message.code()), receives);
    assert_eq!(arrows(Link::Delivery.code()), deliveries);
    let signals: usize = (3..Link::NAMES.len() as u8).map(arrows).sum();
    assert_eq!(signals, taken);
    // The crash and the process left blocked end their lanes so.
    let ends: BTreeSet<&str> = d.lanes.iter().map(|l| l.end).collect();
    assert!(
        ends.contains("crash") && ends.contains("idle") && ends.contains("exit"),
        "{ends:?}"
    );
    // Every spawned process's lane starts at its spawn.
    for l in &d.lanes[1..] {
        let s = l.spawn.expect("a spawn for every child") as usize;
        assert_eq!(d.events.k[s], kind_code(EventKind::Spawn));
    }
    // Texts are the one printer's.
    assert!(
        d.events
            .t
            .iter()
            .any(|t| t.starts_with("signal P.2:0 down to P <0.")),
        "{:?}",
        d.events.t
    );
}

#[test]
fn rows_respect_happened_before() {
    let (_dir, r, m) = recorded("view-rows", "papers/client_server", How::default());
    let d = diagram(&r, &m, &Focus::default());
    let ev = &d.events;
    for g in 0..ev.len() {
        if ev.c[g] >= 0 {
            assert!(
                ev.r[ev.c[g] as usize] < ev.r[g],
                "{}",
                d.event_name(g as u32)
            );
        }
        for h in 0..g {
            if ev.l[h] == ev.l[g] {
                assert!(ev.r[h] < ev.r[g]);
            }
        }
    }
    for l in &d.lanes {
        if let Some(s) = l.spawn {
            let first = (0..ev.len())
                .find(|&g| d.lanes[ev.l[g] as usize].name == l.name)
                .unwrap();
            assert!(ev.r[s as usize] < ev.r[first]);
        }
    }
    assert!(d.rows < ev.len() as u32, "concurrent events share rows");
}

#[test]
fn the_page_computes_exact_pasts_and_futures_in_every_window() {
    let (_dir, r, m) = recorded(
        "view-exact",
        "conc/links_monitors",
        How {
            deliveries: true,
            ..How::default()
        },
    );
    assert_exact(&diagram(&r, &m, &Focus::default()), &m);
    let windows = [
        Focus {
            until: spec("P#12"),
            ..Focus::default()
        },
        Focus {
            around: spec("P.1#2"),
            ..Focus::default()
        },
        Focus {
            from: spec("P#6"),
            ..Focus::default()
        },
        Focus {
            from: spec("P#3"),
            limit: 9,
            ..Focus::default()
        },
        Focus {
            around: spec("P#8"),
            until: spec("P#20"),
            ..Focus::default()
        },
    ];
    for f in &windows {
        let d = diagram(&r, &m, f);
        assert!(!d.events.is_empty(), "{f:?}");
        assert_exact(&d, &m);
    }
}

#[test]
fn windows_hold_what_they_say() {
    let (_dir, r, m) = recorded("view-windows", "papers/client_server", How::default());
    let until = "P.2#3".parse::<EventSpec>().unwrap();
    let e = trace_causal::resolve(&m, &until).unwrap();
    let d = diagram(
        &r,
        &m,
        &Focus {
            until: Some(until),
            ..Focus::default()
        },
    );
    let past = m.causal_past(e);
    assert_eq!(d.events.len() as u64, past.len());
    assert_eq!(d.window.total, Some(past.len()));
    for x in all_events(&m) {
        assert_eq!(d.position(x).is_some(), past.contains(x));
    }
    // A limit: the first events of a derivation, and the one that comes next.
    let d = diagram(
        &r,
        &m,
        &Focus {
            limit: 5,
            ..Focus::default()
        },
    );
    assert_eq!(d.window.shown, 5);
    let next = d
        .window
        .next
        .clone()
        .expect("the next window's first event");
    let after = diagram(
        &r,
        &m,
        &Focus {
            from: spec(&next),
            limit: 5,
            ..Focus::default()
        },
    );
    assert_eq!(after.event_name(0), next);
    // --process hides the other lanes, and keeps their events.
    let d = diagram(
        &r,
        &m,
        &Focus {
            processes: vec!["P.1".parse().unwrap()],
            ..Focus::default()
        },
    );
    assert_eq!(d.events.len() as u64, m.event_count());
    assert!(d.lanes.iter().all(|l| l.hidden == (l.name != "P.1")));
}

#[test]
fn focus_errors_name_what_is_wrong() {
    let (_dir, r, m) = recorded("view-errors", "papers/client_server", How::default());
    let err = |f: Focus| build(&m, &r, &f, "t".into()).unwrap_err().to_string();
    assert_eq!(
        err(Focus {
            until: spec("P.9#0"),
            ..Focus::default()
        }),
        format!(
            "--until P.9#0: {}",
            trace_causal::resolve(&m, &"P.9#0".parse().unwrap())
                .unwrap_err()
                .reason
        )
    );
    let e = err(Focus {
        until: spec("P#0"),
        from: spec("P#3"),
        ..Focus::default()
    });
    assert_eq!(e, "--from P#3: not in the causal past of P#0, from P#3");
    let e = err(Focus {
        processes: vec!["P.7".parse().unwrap()],
        ..Focus::default()
    });
    assert!(e.starts_with("--process P.7: "), "{e}");
    let e = err(Focus {
        limit: trace_view::MAX_LIMIT + 1,
        ..Focus::default()
    });
    assert!(e.contains("at most"), "{e}");
}

#[test]
fn shared_objects_get_lanes_and_unordered_writes_are_races() {
    let (_dir, r, m) = recorded(
        "view-shared",
        "conc/ets_shared",
        How {
            chaos: Some(3),
            ..How::default()
        },
    );
    let d = diagram(&r, &m, &Focus::default());
    let table = d
        .lanes
        .iter()
        .position(|l| l.kind == "table")
        .expect("a lane for the table");
    assert_eq!(d.lanes[table].name, "table P/0");
    assert_eq!(
        d.lanes[table - 1].name,
        "P",
        "a table's lane follows its creator's"
    );
    let ops = (0..d.events.len())
        .filter(|&g| d.events.o[g] == table as i64)
        .count();
    assert!(ops > 4000, "{ops}");
    // Four workers bump one counter with nothing ordering them: races, each
    // between operations of two processes that happened-before leaves apart.
    assert!(!d.races.is_empty());
    for &[a, b] in &d.races {
        let (a, b) = (a as usize, b as usize);
        assert_ne!(d.events.l[a], d.events.l[b]);
        let (ea, eb) = (event_of(&d, &m, a), event_of(&d, &m, b));
        // Ordered by the table alone: b follows a there, and a is not in
        // the past of what came before b in its process.
        assert_eq!(m.shared_predecessor(eb), Some(ea));
        assert!(eb.index == 0 || !m.happened_before(ea, EventId::new(eb.proc, eb.index - 1)));
    }
    // The page's pasts stay exact with the table's lane (a smaller window).
    assert_exact(
        &diagram(
            &r,
            &m,
            &Focus {
                limit: 300,
                ..Focus::default()
            },
        ),
        &m,
    );
}
