//! `save FILE`: the run so far as a log. Each process that exists at the
//! cut keeps the events the cut holds; processes not spawned yet are left
//! out and the others renumbered (the log's process ids are dense). A cut
//! short of the end is saved as a run cut at a limit, which `trace
//! replay` replays as far as it goes; the whole run is saved with the
//! original's end (its `blocked` marks and outcome), the same log again.

use crate::cut::{Cut, StopPoints};
use std::collections::HashMap;
use trace_causal::Model;
use trace_format::{
    Dest, Event, LogReader, LogWriter, MsgId, ObjectId, Outcome, ProcId, ProcessLog, RunEnd,
    WriterOptions,
};

/// Writes the cut's part of `log` to `path`; returns how many events.
pub fn save(
    log: &LogReader,
    model: &Model,
    stops: &StopPoints,
    cut: &Cut,
    path: &str,
) -> Result<u64, String> {
    let complete = *cut == Cut::end(stops);
    let kept: Vec<usize> = (0..model.processes().len())
        .filter(|&s| cut.exists(model, s))
        .collect();
    let renumber: HashMap<ProcId, ProcId> = kept
        .iter()
        .enumerate()
        .map(|(new, &s)| (model.processes()[s].id, ProcId(new as u32)))
        .collect();
    let mut logs = Vec::with_capacity(kept.len());
    let mut events = 0;
    for &s in &kept {
        let p = &model.processes()[s];
        // The whole run keeps its end marks too.
        let upto = if complete { p.events } else { cut.get(s) };
        let mut ev = Vec::new();
        log.for_each_event_of(p.id, |i, _, e| {
            if i < upto {
                ev.push(renumbered(e.to_owned(), &renumber, model));
            }
        })
        .map_err(|e| e.to_string())?;
        events += ev.len() as u64;
        logs.push(ProcessLog {
            id: renumber[&p.id],
            pid: p.pid,
            parent: p.parent.and_then(|q| renumber.get(&q).copied()),
            events: ev,
        });
    }
    let outcome = match (complete, log.outcome()) {
        (true, Some((o, _))) => o.clone(),
        _ => Outcome {
            end: RunEnd::Limited,
            exit_status: None,
            entry_result: None,
        },
    };
    let mut header = log.header().clone();
    header.run_id = 0;
    header.start_time_ns = 0;
    let w = LogWriter::create(path, header, WriterOptions::default())
        .map_err(|e| format!("{path}: {e}"))?;
    w.write_logs(&logs);
    w.finish(outcome).map_err(|e| format!("{path}: {e}"))?;
    Ok(events)
}

/// `e` with its process ids renumbered; a process left out (one the cut
/// does not hold) is named by its raw pid, as a process outside the log.
fn renumbered(e: Event, map: &HashMap<ProcId, ProcId>, model: &Model) -> Event {
    let id = |p: ProcId| map.get(&p).copied();
    let msg = |m: MsgId| MsgId {
        sender: id(m.sender).unwrap_or(ProcId::UNKNOWN),
        index: m.index,
    };
    let dest = |d: Dest| match d {
        Dest::Proc(p) => match id(p) {
            Some(q) => Dest::Proc(q),
            None => Dest::Foreign(model.process(p).map_or(0, |f| f.pid)),
        },
        other => other,
    };
    match e {
        Event::Spawn {
            child,
            pid,
            link,
            monitor,
        } => Event::Spawn {
            child: id(child).unwrap_or(ProcId::UNKNOWN),
            pid,
            link,
            monitor,
        },
        Event::Send { to, payload } => Event::Send {
            to: dest(to),
            payload,
        },
        Event::Deliver { msg: m } => Event::Deliver { msg: msg(m) },
        Event::Receive { msg: m } => Event::Receive { msg: msg(m) },
        Event::Signal { to, kind } => Event::Signal { to: dest(to), kind },
        Event::SignalTaken { signal, effect } => Event::SignalTaken {
            signal: msg(signal),
            effect,
        },
        Event::Shared {
            object,
            access,
            function,
            seq,
            key,
            name,
        } => Event::Shared {
            object: object.map(|o| ObjectId {
                creator: id(o.creator).unwrap_or(o.creator),
                ..o
            }),
            access,
            function,
            seq,
            key,
            name,
        },
        other => other,
    }
}
