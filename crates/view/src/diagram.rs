//! The space-time diagram of one run, as data: lanes (a process each, and
//! a shared object each), the events of a window on them, row by row, each
//! with its text as the one printer writes it and its causes (the arrows),
//! and the operations on shared objects whose order happened-before does
//! not fix (races). The page draws it; the tests read it.

use crate::layout::{class_code, Placed};
use crate::window::{self, Focus, WalkError, WindowNote};
use serde::Serialize;
use std::collections::HashMap;
use trace_capture::Namer;
use trace_causal::{EventId, Model, Step};
use trace_format::text::{render_payload, Printer};
use trace_format::{Access, EventKind, EventRef, LogReader, ObjectId, ObjectKind, ProcId};

/// A lane of the diagram.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lane {
    /// How events name it: `P.1` (or the raw pid), `table P.1/0`.
    pub name: String,
    /// How it is introduced: `P.1 <0.81.0>`, `table P.1/0 named cache`.
    pub label: String,
    /// `process`, or the object's kind: `table`, `atomics`, `counters`,
    /// `persistent_term`.
    pub kind: &'static str,
    /// How it ends in the window: `exit`, `crash`, `idle`, `stuck`
    /// (blocked at the end of the run), `more` (events after the window),
    /// `open` (its log ends without an exit: the run was cut).
    pub end: &'static str,
    /// Hidden at first (`--process` named others).
    pub hidden: bool,
    /// The spawn that created it (an event of the window), when its
    /// first event in the window is its first event of all.
    pub spawn: Option<u32>,
    /// Events of this process in the whole log; for an object, its
    /// operations in the window.
    pub total: u64,
}

/// The events of the window, one entry per event in each column, in the
/// order of the derivation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Events {
    /// Lane.
    pub l: Vec<u32>,
    /// Index in its process log.
    pub i: Vec<u64>,
    /// Row.
    pub r: Vec<u32>,
    /// Kind: an index into [`EventKind::ALL`].
    pub k: Vec<u8>,
    /// Per kind: a signal's class (a [`Link`](crate::Link) code), an exit that is a
    /// crash (1), a process left stuck (1), a shared operation's access
    /// (an index into [`Access::ALL`]).
    pub f: Vec<u8>,
    /// The event it received (an index into these columns), or -1.
    pub c: Vec<i64>,
    /// How it received it (a [`Link`](crate::Link) code), also when the send is not
    /// shown; -1 for an event that received nothing.
    pub a: Vec<i8>,
    /// The object lane of a shared operation, or -1.
    pub o: Vec<i64>,
    /// A shared operation's place in its object's order of operations, or -1.
    pub q: Vec<i64>,
    /// The event as the one printer writes it, without its process.
    pub t: Vec<String>,
    /// Nanoseconds since the run started, when the log has timestamps.
    pub ns: Option<Vec<u64>>,
}

impl Events {
    pub fn len(&self) -> usize {
        self.l.len()
    }

    pub fn is_empty(&self) -> bool {
        self.l.is_empty()
    }
}

/// One run's diagram.
#[derive(Clone, Debug, Serialize)]
pub struct Diagram {
    /// The log's file name and entry call.
    pub title: String,
    pub lanes: Vec<Lane>,
    pub events: Events,
    pub rows: u32,
    pub window: WindowNote,
    /// Pairs of operations on one object, next to each other in its order
    /// of operations, at least one of which changes it, that
    /// happened-before does not order: a scheduling choice decided which
    /// came first.
    pub races: Vec<[u32; 2]>,
    /// Where each shown event is, by its identity (not serialised).
    #[serde(skip)]
    pub(crate) index: HashMap<EventId, u32>,
}

impl Diagram {
    /// The column index of event `e`, when the window shows it.
    pub fn position(&self, e: EventId) -> Option<u32> {
        self.index.get(&e).copied()
    }

    /// `P.1#3`: the event at column `g`, in the EVENT syntax.
    pub fn event_name(&self, g: u32) -> String {
        let g = g as usize;
        format!(
            "{}#{}",
            self.lanes[self.events.l[g] as usize].name, self.events.i[g]
        )
    }
}

/// A lane's place in the picture: the spawn tree depth first (a parent,
/// then its children in spawn order), each object right after the process
/// that created it, unnamed processes and `persistent_term` last.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LaneKey {
    unnamed: bool,
    path: Vec<u32>,
    pid: u64,
    /// 0 for the process, else 1 + the object's kind and its serial.
    object: (u8, u32),
}

/// What a lane stands for while the diagram is built.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum LaneOf {
    Process(ProcId),
    Object(ObjectId),
}

/// Builds the diagram of `focus`'s window.
pub fn build(
    model: &Model,
    reader: &LogReader,
    focus: &Focus,
    title: String,
) -> Result<Diagram, WalkError> {
    let namer = Namer::new(model.names());
    let printer = Printer {
        header: reader.header(),
        names: &namer,
    };
    let mut b = Builder::default();
    let note = window::walk(model, reader, focus, |step, placed| {
        b.push(&printer, step, placed)
    })?;
    Ok(b.finish(model, &namer, &printer, note, title))
}

/// The columns as they fill, lanes still keyed by what they stand for.
#[derive(Default)]
struct Builder {
    events: Events,
    times: Vec<u64>,
    lane_of: Vec<LaneOf>,
    lanes: HashMap<LaneOf, u32>,
    index: HashMap<EventId, u32>,
    rows: u32,
    /// Per process lane: its spawn's column, and how its window ends.
    spawn: HashMap<ProcId, u32>,
    end: HashMap<ProcId, &'static str>,
    /// Per process: the index of its last event in the window.
    last: HashMap<ProcId, u64>,
    /// Named tables: the name their creation gave.
    named: HashMap<ObjectId, String>,
    /// Operations on each object: (its place in the object's order, column).
    ops: HashMap<ObjectId, Vec<(u64, u32)>>,
}

impl Builder {
    fn lane(&mut self, l: LaneOf) -> u32 {
        let next = self.lane_of.len() as u32;
        *self.lanes.entry(l).or_insert_with(|| {
            self.lane_of.push(l);
            next
        })
    }

    fn push(&mut self, printer: &Printer<'_>, step: &Step<'_>, placed: Placed) {
        let e = step.event;
        let ev = step.as_event_ref();
        let g = self.events.len() as u32;
        self.index.insert(e, g);
        let lane = self.lane(LaneOf::Process(e.proc));
        let (flag, object) = self.details(&ev, g);
        let cols = &mut self.events;
        cols.l.push(lane);
        cols.i.push(e.index);
        cols.r.push(placed.row);
        cols.k.push(kind_code(ev.kind()));
        cols.f.push(flag);
        let cause = placed.cause.and_then(|(c, _)| self.index.get(&c));
        cols.c.push(cause.map_or(-1, |&c| c as i64));
        cols.a
            .push(placed.cause.map_or(-1, |(_, l)| l.code() as i8));
        cols.t.push(printer.event(&ev));
        self.times.push(step.time.unwrap_or(0));
        let o = object.map(|o| self.lane(LaneOf::Object(o)));
        self.events.o.push(o.map_or(-1, i64::from));
        let seq = match ev {
            EventRef::Shared {
                object: Some(_),
                seq,
                ..
            } => i64::try_from(seq).unwrap_or(i64::MAX),
            _ => -1,
        };
        self.events.q.push(seq);
        if let Some(s) = placed.spawned_by.and_then(|s| self.index.get(&s)) {
            self.spawn.insert(e.proc, *s);
        }
        if let Some(end) = end_of(&ev) {
            self.end.insert(e.proc, end);
        }
        self.last.insert(e.proc, e.index);
        self.rows = self.rows.max(placed.row + 1);
    }

    /// The kind's flag, and the object a shared operation touched.
    fn details(&mut self, ev: &EventRef<'_>, g: u32) -> (u8, Option<ObjectId>) {
        match *ev {
            EventRef::Signal { kind, .. } => (class_code(kind.class()), None),
            EventRef::SignalTaken { .. } => (0, None),
            EventRef::Exit { reason } => (u8::from(reason.is_some_and(is_crash)), None),
            EventRef::Blocked { stuck } => (u8::from(stuck), None),
            EventRef::Shared {
                object,
                access,
                seq,
                name,
                ..
            } => {
                let a = Access::ALL.iter().position(|&x| x == access).unwrap_or(0) as u8;
                if let Some(o) = object {
                    self.ops.entry(o).or_default().push((seq, g));
                    if let Some(n) = name {
                        self.named.entry(o).or_insert_with(|| render_payload(n));
                    }
                }
                (a, object)
            }
            _ => (0, None),
        }
    }

    fn finish(
        mut self,
        model: &Model,
        namer: &Namer<'_>,
        printer: &Printer<'_>,
        note: WindowNote,
        title: String,
    ) -> Diagram {
        // Signals taken: their class comes from their send, which the
        // model knows even when the window does not show it.
        for g in 0..self.events.len() {
            if self.events.k[g] == kind_code(EventKind::SignalTaken) && self.events.a[g] >= 0 {
                self.events.f[g] = self.events.a[g] as u8;
            }
        }
        if self.times.iter().any(|&t| t > 0) {
            self.events.ns = Some(std::mem::take(&mut self.times));
        }
        let races = self.races(model);
        let order = self.lane_order(model);
        let lanes = order
            .iter()
            .map(|&old| self.describe(self.lane_of[old as usize], model, namer, printer, &note))
            .collect();
        let mut renumber = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old as usize] = new as u32;
        }
        for l in &mut self.events.l {
            *l = renumber[*l as usize];
        }
        for o in &mut self.events.o {
            if *o >= 0 {
                *o = renumber[*o as usize] as i64;
            }
        }
        Diagram {
            title,
            lanes,
            events: self.events,
            rows: self.rows,
            window: note,
            races,
            index: self.index,
        }
    }

    /// Consecutive operations on one object, one of them a change, that
    /// only the object's order puts one after the other (see
    /// `Model::raced`).
    fn races(&self, model: &Model) -> Vec<[u32; 2]> {
        let mut races = Vec::new();
        let mut objects: Vec<_> = self.ops.iter().collect();
        objects.sort_by_key(|(o, _)| **o);
        for (_, ops) in objects {
            let mut ops = ops.clone();
            ops.sort_unstable();
            for w in ops.windows(2) {
                let (a, b) = (w[0].1 as usize, w[1].1 as usize);
                let writes = |g: usize| Access::ALL[self.events.f[g] as usize].writes();
                let id = |g: usize| EventId::new(self.proc_of(g), self.events.i[g]);
                if (writes(a) || writes(b)) && model.raced(id(a), id(b)) {
                    races.push([a as u32, b as u32]);
                }
            }
        }
        races
    }

    fn proc_of(&self, g: usize) -> ProcId {
        match self.lane_of[self.events.l[g] as usize] {
            LaneOf::Process(p) => p,
            LaneOf::Object(_) => ProcId::UNKNOWN,
        }
    }

    /// Lanes (old numbers) in the order the picture shows them.
    fn lane_order(&self, model: &Model) -> Vec<u32> {
        let names = model.names();
        let key_of_proc = |p: ProcId| match names.name(p) {
            Some(n) => (false, n.0, 0),
            None => (true, Vec::new(), names.pid(p).unwrap_or(u64::MAX)),
        };
        let mut keyed: Vec<(LaneKey, u32)> = self
            .lane_of
            .iter()
            .enumerate()
            .map(|(old, &l)| {
                let key = match l {
                    LaneOf::Process(p) => {
                        let (unnamed, path, pid) = key_of_proc(p);
                        LaneKey {
                            unnamed,
                            path,
                            pid,
                            object: (0, 0),
                        }
                    }
                    LaneOf::Object(o) => {
                        let kind = 1 + ObjectKind::ALL
                            .iter()
                            .position(|&k| k == o.kind)
                            .unwrap_or(0) as u8;
                        let (unnamed, path, pid) = if o.creator == ProcId::UNKNOWN {
                            (true, Vec::new(), u64::MAX)
                        } else {
                            key_of_proc(o.creator)
                        };
                        LaneKey {
                            unnamed,
                            path,
                            pid,
                            object: (kind, o.serial),
                        }
                    }
                };
                (key, old as u32)
            })
            .collect();
        keyed.sort();
        keyed.into_iter().map(|(_, old)| old).collect()
    }

    fn describe(
        &self,
        l: LaneOf,
        model: &Model,
        namer: &Namer<'_>,
        printer: &Printer<'_>,
        note: &WindowNote,
    ) -> Lane {
        match l {
            LaneOf::Process(p) => {
                let total = model.process(p).map_or(0, |f| f.events);
                let last = self.last.get(&p).copied();
                let end = match self.end.get(&p) {
                    Some(e) => e,
                    None if last.is_some_and(|i| i + 1 < total) => "more",
                    None => "open",
                };
                Lane {
                    name: namer.proc(p).to_string(),
                    label: namer.label(p).to_string(),
                    kind: "process",
                    end,
                    hidden: note.hidden.contains(&p),
                    spawn: self.spawn.get(&p).copied(),
                    total,
                }
            }
            LaneOf::Object(o) => {
                let name = printer.object(o);
                let label = match self.named.get(&o) {
                    Some(n) => format!("{name} named {n}"),
                    None => name.clone(),
                };
                Lane {
                    name,
                    label,
                    kind: o.kind.name(),
                    end: "open",
                    hidden: false,
                    spawn: None,
                    total: self.ops.get(&o).map_or(0, |v| v.len() as u64),
                }
            }
        }
    }
}

/// The kind's index in [`EventKind::ALL`].
pub fn kind_code(k: EventKind) -> u8 {
    EventKind::ALL.iter().position(|&x| x == k).unwrap_or(0) as u8
}

/// How an exit or a block ends a lane.
fn end_of(ev: &EventRef<'_>) -> Option<&'static str> {
    match *ev {
        EventRef::Exit { reason } if reason.is_some_and(is_crash) => Some("crash"),
        EventRef::Exit { .. } => Some("exit"),
        EventRef::Blocked { stuck: true } => Some("stuck"),
        EventRef::Blocked { stuck: false } => Some("idle"),
        _ => None,
    }
}

/// An exit reason that is a crash (not `normal`, `shutdown`, `{shutdown, _}`).
fn is_crash(reason: &[u8]) -> bool {
    trace_term::etf::decode(reason).map_or(true, |r| trace_term::exit_reason::is_abnormal(&r))
}

#[cfg(test)]
mod crash_tests {
    use super::is_crash;
    use trace_term::{etf, Term};

    #[test]
    fn a_supervised_shutdown_is_not_drawn_as_a_crash() {
        let shutdown = Term::tuple(vec![Term::atom("shutdown"), Term::atom("stop")]);
        assert!(!is_crash(&etf::to_vec(&Term::atom("shutdown"))));
        assert!(!is_crash(&etf::to_vec(&shutdown)));
        assert!(!is_crash(&etf::to_vec(&Term::atom("normal"))));
        assert!(is_crash(&etf::to_vec(&Term::atom("boom"))));
    }
}
