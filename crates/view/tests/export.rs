//! The exports on runs of the bundled fixtures: vector clocks equal the
//! causal model's, the ShiViz log reads back as its regular expression
//! says, every Perfetto flow has one start and one end inside slices, and
//! the CSV has a row per event.

mod common;

use common::{open, record, recorded, How, Scratch};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use trace_causal::{EventId, Model};
use trace_view::export;

fn shiviz_text(m: &Model, r: &trace_format::LogReader) -> String {
    let mut out = Vec::new();
    export::shiviz::write(m, r, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// A line as [`export::shiviz::REGEX`] reads it: the host up to the first
/// space, the event between the quotes, the clock after the last `" {`.
fn parse_line(line: &str) -> (String, String, BTreeMap<String, u64>) {
    let (host, rest) = line.split_once(' ').unwrap();
    let rest = rest.strip_prefix('"').unwrap();
    let cut = rest.rfind("\" {").unwrap();
    let clock: BTreeMap<String, u64> = serde_json::from_str(&rest[cut + 2..]).unwrap();
    (host.to_string(), rest[..cut].to_string(), clock)
}

/// The model's vector clock of `e`, by short name.
fn model_clock(m: &Model, e: EventId) -> BTreeMap<String, u64> {
    m.vector_clock(e)
        .processes()
        .map(|(p, n)| (m.names().short(p), n))
        .collect()
}

#[test]
fn shiviz_clocks_are_the_causal_models() {
    let dir = Scratch::new("export-shiviz");
    for (fixture, how) in [
        (
            "conc/links_monitors",
            How {
                deliveries: true,
                ..How::default()
            },
        ),
        ("papers/client_server", How::default()),
        ("conc/exit_signals", How::default()),
        (
            "papers/cfib",
            How {
                no_payloads: true,
                ..How::default()
            },
        ),
    ] {
        let log = record(fixture, &dir.path("run.trace"), how);
        let (r, m) = open(&log);
        let text = shiviz_text(&m, &r);
        assert_eq!(text.lines().count() as u64, m.event_count(), "{fixture}");
        for line in text.lines() {
            let (host, event, clock) = parse_line(line);
            let own = clock[&host];
            let proc = m.names().lookup(&host.parse().unwrap()).unwrap();
            let e = EventId::new(proc, own - 1);
            assert_eq!(clock, model_clock(&m, e), "{fixture}: {line}");
            assert!(!event.contains('\n'));
        }
    }
}

#[test]
fn every_perfetto_flow_starts_and_ends_inside_slices() {
    let (_dir, r, m) = recorded(
        "export-perfetto",
        "conc/links_monitors",
        How {
            deliveries: true,
            ..How::default()
        },
    );
    let mut out = Vec::new();
    let w = export::perfetto::write(&m, &r, &mut out).unwrap();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let slices: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(
        slices.iter().filter(|e| e["pid"] == 1).count() as u64,
        m.event_count()
    );
    let threads: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 1)
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(threads.len(), r.processes().len());
    assert!(threads[0].starts_with("P <0."), "{threads:?}");
    let mut flows: HashMap<u64, Vec<&Value>> = HashMap::new();
    for e in events.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
        flows.entry(e["id"].as_u64().unwrap()).or_default().push(e);
    }
    assert_eq!(flows.len() as u64, w.arrows);
    assert!(w.arrows > 10);
    let inside = |e: &Value| {
        slices.iter().any(|s| {
            s["tid"] == e["tid"]
                && s["pid"] == e["pid"]
                && s["ts"].as_u64() <= e["ts"].as_u64()
                && e["ts"].as_u64().unwrap()
                    <= s["ts"].as_u64().unwrap() + s["dur"].as_u64().unwrap()
        })
    };
    for (id, ends) in flows {
        assert_eq!(ends.len(), 2, "flow {id}");
        let (s, f) = (
            ends.iter().find(|e| e["ph"] == "s").unwrap(),
            ends.iter().find(|e| e["ph"] == "f").unwrap(),
        );
        assert_eq!(f["bp"], "e");
        assert!(
            s["ts"].as_u64() < f["ts"].as_u64(),
            "flow {id} goes back in time"
        );
        assert!(inside(s) && inside(f), "flow {id}: {s} {f}");
    }
}

#[test]
fn csv_has_a_row_per_event_with_its_clock() {
    let (_dir, r, m) = recorded("export-csv", "papers/client_server", How::default());
    let mut out = Vec::new();
    let w = export::csv::write(&m, &r, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(export::csv::HEADER));
    assert_eq!(w.events, m.event_count());
    // A row without payload commas: the clock is the last, quoted field.
    let mut rows = 0;
    for line in lines {
        rows += 1;
        let clock = &line[line.rfind(",\"{").unwrap() + 2..line.len() - 1].replace("\"\"", "\"");
        let clock: BTreeMap<String, u64> = serde_json::from_str(clock).unwrap();
        let fields: Vec<&str> = line.splitn(5, ',').collect();
        let proc = m.names().lookup(&fields[1].parse().unwrap()).unwrap();
        let e = EventId::new(proc, fields[3].parse().unwrap());
        assert_eq!(clock, model_clock(&m, e), "{line}");
    }
    assert_eq!(rows as u64, m.event_count());
}
