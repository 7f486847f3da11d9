//! Hand-written logs for the tests: a tiny builder over the log writer, and
//! checking a specification given as text.
#![allow(dead_code)] // each test file uses a part

use std::path::Path;
use trace_causal::EventId;
use trace_check::{Status, Verdict};
use trace_format::{
    Dest, Event, Header, LogReader, LogWriter, MsgId, Outcome, Payload, ProcId, ProcessLog,
    RecordingOptions, SignalEffect, SignalKind, WriterOptions,
};
use trace_term::Term;

#[allow(unused_imports)] // not every test file makes one
pub use trace_fixtures::Scratch;

/// Erlang text to a term (constants only).
pub fn t(s: &str) -> Term {
    let e = trace_syntax::parse_expr(s).unwrap();
    literal(&e)
}

fn literal(e: &trace_syntax::ast::Expr) -> Term {
    use trace_syntax::ast::{ExprKind, IntLit, UnOp};
    match &e.kind {
        ExprKind::Atom(a) => Term::atom(a),
        ExprKind::Integer(IntLit::Small(i)) => Term::int(*i),
        ExprKind::Nil => Term::Nil,
        ExprKind::String(cs) => Term::list(cs.iter().map(|&c| Term::int(c as i64)).collect()),
        ExprKind::Cons(h, tl) => Term::cons(literal(h), literal(tl)),
        ExprKind::Tuple(es) => Term::tuple(es.iter().map(literal).collect()),
        ExprKind::UnOp(UnOp::Neg, x) => match literal(x) {
            Term::Int(i) => Term::int(-i),
            _ => panic!("bad literal"),
        },
        other => panic!("not a literal: {other:?}"),
    }
}

pub fn pid(p: usize) -> Term {
    Term::Pid(trace_term::Pid(80 + p as u64))
}

/// Builds a log process by process; process 0 is the entry process `P`
/// (pid `<0.80.0>`), process `k` has pid `<0.(80+k).0>`.
#[derive(Default)]
pub struct Log {
    events: Vec<Vec<Event>>,
    parents: Vec<Option<usize>>,
    signals: Vec<u64>,
    pub deliveries: bool,
    pub payloads: bool,
    pub incomplete: bool,
}

impl Log {
    pub fn new() -> Log {
        let mut l = Log {
            payloads: true,
            ..Log::default()
        };
        l.events.push(Vec::new());
        l.parents.push(None);
        l.signals.push(0);
        l
    }

    /// `parent` spawns a new process; returns its number.
    pub fn spawn(&mut self, parent: usize) -> usize {
        let c = self.events.len();
        self.events.push(Vec::new());
        self.parents.push(Some(parent));
        self.signals.push(0);
        self.events[parent].push(Event::Spawn {
            child: ProcId(c as u32),
            pid: 80 + c as u64,
            link: false,
            monitor: false,
        });
        c
    }

    fn next_signal(&mut self, p: usize) -> MsgId {
        let m = MsgId {
            sender: ProcId(p as u32),
            index: self.signals[p],
        };
        self.signals[p] += 1;
        m
    }

    /// `from` sends `msg` (Erlang text) to `to`.
    pub fn send(&mut self, from: usize, to: usize, msg: &str) -> MsgId {
        let payload = self
            .payloads
            .then(|| Payload(trace_term::etf::to_vec(&t(msg))));
        self.events[from].push(Event::Send {
            to: Dest::Proc(ProcId(to as u32)),
            payload,
        });
        self.next_signal(from)
    }

    pub fn recv(&mut self, p: usize, m: MsgId) {
        self.events[p].push(Event::Receive { msg: m });
    }

    pub fn deliver(&mut self, p: usize, m: MsgId) {
        self.events[p].push(Event::Deliver { msg: m });
    }

    pub fn timeout(&mut self, p: usize) {
        self.events[p].push(Event::Timeout);
    }

    /// The run ended with `p` waiting: `stuck` (part of a deadlock) or idle.
    pub fn blocked(&mut self, p: usize, stuck: bool) {
        self.events[p].push(Event::Blocked { stuck });
    }

    pub fn exit(&mut self, p: usize, reason: &str) {
        let reason = self
            .payloads
            .then(|| Payload(trace_term::etf::to_vec(&t(reason))));
        self.events[p].push(Event::Exit { reason });
    }

    /// `from` sends an exit signal to `to`.
    pub fn exit_signal(&mut self, from: usize, to: usize, reason: &str, linked: bool) -> MsgId {
        let reason = Some(Payload(trace_term::etf::to_vec(&t(reason))));
        self.events[from].push(Event::Signal {
            to: Dest::Proc(ProcId(to as u32)),
            kind: SignalKind::Exit { reason, linked },
        });
        self.next_signal(from)
    }

    pub fn link(&mut self, from: usize, to: usize) -> MsgId {
        self.events[from].push(Event::Signal {
            to: Dest::Proc(ProcId(to as u32)),
            kind: SignalKind::Link,
        });
        self.next_signal(from)
    }

    pub fn taken(&mut self, p: usize, m: MsgId, effect: SignalEffect) {
        self.events[p].push(Event::SignalTaken { signal: m, effect });
    }

    pub fn nondet(&mut self, p: usize, kind: trace_format::NondetKind, value: &str) {
        self.events[p].push(Event::Nondet {
            kind,
            value: Payload(trace_term::etf::to_vec(&t(value))),
        });
    }

    /// The index the next event of `p` will get.
    pub fn next(&self, p: usize) -> u64 {
        self.events[p].len() as u64
    }

    pub fn write(&self, path: &Path) {
        let header = Header {
            entry: "test:main()".into(),
            node: "nonode@nohost".into(),
            entry_pid: 80,
            options: RecordingOptions {
                payloads: self.payloads,
                deliveries: self.deliveries,
                ..RecordingOptions::default()
            },
            ..Default::default()
        };
        let logs: Vec<ProcessLog> = (self.events.iter().enumerate())
            .map(|(p, events)| ProcessLog {
                id: ProcId(p as u32),
                pid: 80 + p as u64,
                parent: self.parents[p].map(|q| ProcId(q as u32)),
                events: events.clone(),
            })
            .collect();
        let w = LogWriter::create(path, header, WriterOptions::default()).unwrap();
        w.write_logs(&logs);
        let mut outcome = Outcome::default();
        if self.incomplete {
            outcome.end = trace_format::RunEnd::Interrupted;
        }
        w.finish(outcome).unwrap();
    }
}

/// Checks `spec` (text) on `log`; panics on errors.
pub fn verdicts(log: &Log, spec: &str) -> Vec<(String, Verdict)> {
    let dir = Scratch::new(&format!("v{}", rand_tag()));
    let path = dir.path("run.trace");
    log.write(&path);
    let compiled = trace_check::load_str(Path::new("t.tspec"), spec).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let reader = LogReader::open(&path).unwrap();
    let (_, v) = trace_check::check(&compiled, &reader).unwrap();
    v.into_iter()
        .map(|v| (compiled.properties[v.property].name.clone(), v))
        .collect()
}

fn rand_tag() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The verdict of the one property in `spec`: `Ok(())` when satisfied,
/// else the violating events as `(process, index)`.
pub fn verdict(log: &Log, spec: &str) -> Result<(), Vec<Option<(u32, u64)>>> {
    let v = verdicts(log, spec);
    assert_eq!(v.len(), 1, "one property");
    let (_, v) = &v[0];
    match &v.status {
        Status::Satisfied => Ok(()),
        Status::Violated => Err(v
            .violations
            .iter()
            .map(|x| x.event.map(|e: EventId| (e.proc.0, e.index)))
            .collect()),
        Status::GaveUp(why) => panic!("gave up: {why}"),
    }
}

/// The first error a bad specification gets.
pub fn spec_error(spec: &str) -> String {
    match trace_check::load_str(Path::new("t.tspec"), spec) {
        Ok(_) => panic!("the specification compiled: {spec}"),
        Err(e) => e[0].to_string(),
    }
}
