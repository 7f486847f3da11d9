//! What a session prints: the processes at a cut, one process in full,
//! the events done, a message's path, and what a move did or undid.
//! Processes, messages and events are named and printed by the one namer
//! and printer of `trace` (trace-capture, trace-format), so any event shown
//! can be pasted into a command.

use crate::cut::{slot_of, Cut, StopPoints};
use crate::engine::Snapshot;
use crate::words::{plural, short_path};
use std::fmt::Write;
use std::ops::Range;
use trace_capture::Namer;
use trace_causal::{EventId, Model, ReceiptKind};
use trace_format::text::{render_payload, Printer};
use trace_format::{Event, EventRef, LogReader, MsgId};
use trace_runtime::inspect::{Activity, ProcessState};

/// Events listed one by one in a report; beyond, a count per process.
const LISTED: u64 = 40;

/// The session's state, for printing.
pub struct Render<'a> {
    model: &'a Model,
    log: &'a LogReader,
    stops: &'a StopPoints,
    cut: &'a Cut,
    snap: &'a Snapshot,
    namer: Namer<'a>,
    /// A session without a log: what can step at the end of its steps.
    next: Option<&'a [crate::free::Next]>,
}

impl<'a> Render<'a> {
    pub fn new(
        model: &'a Model,
        log: &'a LogReader,
        stops: &'a StopPoints,
        cut: &'a Cut,
        snap: &'a Snapshot,
    ) -> Render<'a> {
        Render {
            model,
            log,
            stops,
            cut,
            snap,
            namer: Namer::new(model.names()),
            next: None,
        }
    }

    /// For a session without a log: what can step at the end of its steps.
    pub fn with_next(mut self, next: Option<&'a [crate::free::Next]>) -> Render<'a> {
        self.next = next;
        self
    }

    /// The list of what can step, when the session schedules freely and
    /// stands at the end of its steps.
    fn free_next(&self) -> Option<&'a [crate::free::Next]> {
        self.next.filter(|_| *self.cut == Cut::end(self.stops))
    }

    /// A process's status at the end of a free session's steps.
    fn free_status(&self, slot: usize, next: &[crate::free::Next]) -> String {
        let path = self
            .model
            .names()
            .name(self.id(slot))
            .map(|n| n.0)
            .unwrap_or_default();
        let found = next
            .iter()
            .find(|n| n.pick == crate::free::Pick::Process(path.clone()));
        match found {
            Some(n) => match n.timeout {
                Some(ms) => format!("can step (no message it takes: its step is the `after {ms}`)"),
                None => "can step".into(),
            },
            None => "waits in receive (no message it takes yet)".into(),
        }
    }

    fn printer(&self) -> Printer<'_> {
        Printer {
            header: self.log.header(),
            names: &self.namer,
        }
    }

    fn id(&self, slot: usize) -> trace_format::ProcId {
        self.model.processes()[slot].id
    }

    fn label(&self, slot: usize) -> String {
        self.namer.label(self.id(slot)).to_string()
    }

    /// The events `range` of the process at `slot`, one line each.
    fn lines(&self, slot: usize, range: Range<u64>) -> Vec<String> {
        let mut v = Vec::new();
        let id = self.id(slot);
        let _ = self.log.for_each_event_of(id, |i, _, e| {
            if range.contains(&i) {
                v.push(self.printer().line(id, i, None, &e));
            }
        });
        v
    }

    /// Event `i` of the process at `slot`, decoded.
    fn event(&self, slot: usize, i: u64) -> Option<(Event, MsgId)> {
        let mut found = None;
        let mut signals = 0;
        let id = self.id(slot);
        let _ = self.log.for_each_event_of(id, |k, _, e| {
            if k == i {
                found = Some((
                    e.to_owned(),
                    MsgId {
                        sender: id,
                        index: signals,
                    },
                ));
            }
            if e.sends_signal() {
                signals += 1;
            }
        });
        found
    }

    /// Whether the process at `slot` exists at the cut.
    fn exists(&self, slot: usize) -> bool {
        self.cut.exists(self.model, slot)
    }

    fn state(&self, slot: usize) -> Option<&ProcessState> {
        self.snap.processes.get(&self.model.processes()[slot].pid)
    }

    /// `exited: normal`, `runnable, next: receive P:0`, ...
    fn status(&self, slot: usize) -> String {
        let k = self.cut.get(slot);
        let p = &self.model.processes()[slot];
        if p.exit.is_some_and(|x| x < k) {
            return match self.event(slot, p.exit.unwrap_or(0)) {
                Some((Event::Exit { reason: Some(r) }, _)) => {
                    format!("exited: {}", render_payload(r.bytes()))
                }
                _ => "exited".into(),
            };
        }
        if let Some(next) = self.free_next() {
            return self.free_status(slot, next);
        }
        if k >= self.stops.len(slot) && self.cut_short() {
            return "its log ends here (the recording was cut short)".into();
        }
        if k >= self.stops.len(slot) && self.next.is_some() {
            // A free run's end is where the user stopped it, not its end.
            return "waits in receive".into();
        }
        if k >= self.stops.len(slot) {
            let stuck = if p.blocked == Some(true) {
                " (stuck)"
            } else {
                ""
            };
            return format!("waits in receive for good{stuck}");
        }
        // The next event, decoded once for its text and what it waits for.
        let Some((e, m)) = self.event(slot, k) else {
            return "runnable, next: ?".into();
        };
        let next = self.printer().event(&EventRef::of(&e, m));
        match self.waiting_on(&e) {
            Some(m) => format!("waits for {}, next: {next}", self.printer().msg(m)),
            None => format!("runnable, next: {next}"),
        }
    }

    /// Whether the run was cut at a limit (its processes' logs just stop).
    fn cut_short(&self) -> bool {
        self.log
            .outcome()
            .is_none_or(|(o, _)| o.end == trace_format::RunEnd::Limited)
    }

    /// The message event `e` (a process's next) takes, when it has not
    /// been sent yet.
    fn waiting_on(&self, e: &Event) -> Option<MsgId> {
        let m = match *e {
            Event::Receive { msg } | Event::SignalTaken { signal: msg, .. } => msg,
            _ => return None,
        };
        let (send, _, _) = self.model.send_of(m)?;
        let s = slot_of(self.model, send.proc)?;
        (!self.cut.holds(s, send)).then_some(m)
    }

    /// `file:line` where a live process stands.
    fn place(&self, slot: usize) -> String {
        match self.state(slot).and_then(|s| s.user_frame()) {
            Some(f) => format!("{}:{}", short_path(&f.place.file), f.place.line),
            None => String::new(),
        }
    }

    /// The `procs` table.
    pub fn procs(&self) -> String {
        let rows: Vec<[String; 3]> = (0..self.model.processes().len())
            .filter(|&s| self.exists(s))
            .map(|s| [self.label(s), self.place(s), self.status(s)])
            .collect();
        let w0 = rows.iter().map(|r| r[0].len()).max().unwrap_or(0);
        let w1 = rows.iter().map(|r| r[1].len()).max().unwrap_or(0);
        let mut out = String::new();
        for [a, b, c] in rows {
            let _ = writeln!(out, "{a:w0$}  {b:w1$}  {c}");
        }
        if let Some(next) = self.free_next() {
            for n in next {
                if let crate::free::Pick::Timer(path, index) = &n.pick {
                    let m = trace_capture::MsgRef {
                        sender: trace_capture::ProcRef::Name(trace_capture::SymbolicName(
                            path.clone(),
                        )),
                        index: *index,
                    };
                    let _ = writeln!(out, "timer message {m} can be delivered (deliver {m})");
                }
            }
            if next.is_empty() {
                out.push_str("nothing can step: the run is over\n");
            }
        }
        out
    }

    /// `show P`.
    pub fn show(&self, slot: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.label(slot));
        if !self.exists(slot) {
            let spawn = format!("spawn({})", self.namer.proc(self.id(slot)));
            let _ = writeln!(out, "  not spawned yet ({spawn} is not done)");
            return out;
        }
        let _ = writeln!(out, "  status: {}", self.status(slot));
        if let Some(s) = self.state(slot) {
            crate::show::process_state(&mut out, s);
        }
        let k = self.cut.get(slot);
        let _ = writeln!(out, "  history ({k} event{}):", plural(k));
        for l in self.lines(slot, 0..k) {
            let _ = writeln!(out, "    {l}");
        }
        out
    }

    /// `log`: the events of the cut in an order that respects happened-before.
    pub fn log(&self) -> String {
        let mut out = String::new();
        let _ = trace_causal::for_each_step(self.model, self.log, Some(&self.cut.0), |step| {
            let line = self.printer().line(
                step.event.proc,
                step.event.index,
                None,
                &step.as_event_ref(),
            );
            let _ = writeln!(out, "{line}");
            true
        });
        if out.is_empty() {
            out.push_str("no event done yet\n");
        }
        out
    }

    /// `trace M`.
    pub fn trace(&self, msg: MsgId) -> String {
        let mut out = String::new();
        let done = |e: EventId| slot_of(self.model, e.proc).is_some_and(|s| self.cut.holds(s, e));
        let mark = |e: EventId| if done(e) { "done" } else { "not done" };
        let _ = writeln!(out, "{}", self.printer().msg(msg));
        let Some((send, _, _)) = self.model.send_of(msg) else {
            return out;
        };
        let row = |out: &mut String, what: &str, e: EventId| {
            let name = self.namer.event_name(e.proc, e.index);
            let _ = writeln!(out, "  {what:<9} {name:<10} {}", mark(e));
        };
        row(&mut out, "sent", send);
        let receipts = self.model.receipts_of_msg(msg);
        for (e, kind) in &receipts {
            let what = match kind {
                ReceiptKind::Deliver => "delivered",
                ReceiptKind::Receive => "received",
                ReceiptKind::Taken(_) => "taken",
            };
            row(&mut out, what, *e);
        }
        if receipts.is_empty() {
            let _ = writeln!(out, "  never received in this run");
        } else if done(send) && receipts.iter().all(|(e, _)| !done(*e)) {
            let _ = writeln!(out, "  in flight: sent, not yet received");
        }
        out
    }

    /// What moving from `old` to `new` (the cut of this render) did and
    /// undid, per process.
    pub fn changes(&self, old: &Cut, new: &Cut) -> String {
        let mut out = String::new();
        let (mut done, mut undone) = (Vec::new(), Vec::new());
        for s in 0..new.0.len() {
            let (a, b) = (old.get(s), new.get(s));
            if b > a {
                done.push((s, a..b));
            } else if a > b {
                undone.push((s, b..a));
            }
        }
        self.list(&mut out, "undid", &undone);
        self.list(&mut out, "did", &done);
        out
    }

    fn list(&self, out: &mut String, verb: &str, parts: &[(usize, Range<u64>)]) {
        if parts.is_empty() {
            return;
        }
        let total: u64 = parts.iter().map(|(_, r)| r.end - r.start).sum();
        let _ = writeln!(
            out,
            "{verb} {total} event{} of {} process{}:",
            plural(total),
            parts.len(),
            if parts.len() == 1 { "" } else { "es" }
        );
        for (s, r) in parts {
            if total <= LISTED {
                for l in self.lines(*s, r.clone()) {
                    let _ = writeln!(out, "  {l}");
                }
            } else {
                let n = r.end - r.start;
                let _ = writeln!(
                    out,
                    "  {} #{}..#{} ({n} event{})",
                    self.label(*s),
                    r.start,
                    r.end - 1,
                    plural(n)
                );
            }
        }
    }

    /// Why the next step of the process at `slot` cannot be done alone:
    /// what it needs from `others` first.
    pub fn waits_for(&self, c: &Cut, slot: usize, next: &Cut, others: &[usize]) -> String {
        let name = self.namer.proc(self.id(slot));
        let event = self.next_event_at(slot, c.get(slot));
        let mut out = format!("{name} cannot step alone: its next event ({event}) needs ");
        let needs: Vec<String> = others
            .iter()
            .map(|&s| {
                let n = self.namer.proc(self.id(s));
                format!("{n} up to {n}#{}", next.get(s) - 1)
            })
            .collect();
        let _ = write!(out, "{} first", needs.join(", "));
        let target = self.namer.event_name(self.id(slot), c.get(slot));
        let _ = writeln!(out, " (forward {target} does it all)");
        out
    }

    fn next_event_at(&self, slot: usize, k: u64) -> String {
        match self.event(slot, k) {
            Some((e, m)) => self.printer().event(&EventRef::of(&e, m)),
            None => "?".into(),
        }
    }
}

/// Whether a process is waiting in a receive (for `show`).
pub fn receiving(s: &ProcessState) -> bool {
    s.activity == Activity::Receiving
}
