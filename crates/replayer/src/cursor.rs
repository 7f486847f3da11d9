//! One process's replay: a cursor over its process log. The engine asks it
//! for each choice (answered from the next logged event) and shows it each
//! event (which must be that next event); it moves on event by event. The
//! state is a position in the process log, so it can later grow a history
//! for stepping backwards.
//!
//! A cursor may be told to *hold* its process where its events run out: when
//! replaying a causal past (`--until`) or a log whose recording was cut
//! short. A held process is stopped just before its next event — it waits
//! for a signal that never comes — so the run ends with it waiting there,
//! and its place in the code and its mailbox can be shown.

use crate::replay_log::ReplayLog;
use crate::window::Window;
use std::sync::Arc;
use trace_capture::Translator;
use trace_format::{Event, EventRef, MsgId, ProcId};
use trace_runtime::hooks::{
    self, Divergence, NondetBif, OutputTurn, ProcessDirector, ReceiveChoice, SharedOp, SharedTurn,
};
use trace_runtime::process;
use trace_term::{Pid, Term};

/// A signal no process ever sends: waiting for it stops a process for good.
const NEVER: process::SignalId = process::SignalId {
    sender: Pid(u64::MAX),
    index: u64::MAX,
};

pub struct ProcessReplay {
    shared: Arc<ReplayLog>,
    id: Option<ProcId>,
    pid: Pid,
    /// The events to replay: the process log up to the hold point, a block
    /// at a time.
    window: Window,
    /// Stop the process once its events run out instead of reporting what
    /// it does next as a departure.
    hold: bool,
    /// Signals sent so far: the index the next `Send` or `Signal` takes.
    signals: u64,
    /// Maps the engine's events to the log's, to compare them.
    translator: Translator,
}

impl ProcessReplay {
    pub(crate) fn new(
        shared: Arc<ReplayLog>,
        id: Option<ProcId>,
        pid: Pid,
        window: Window,
        hold: bool,
    ) -> Self {
        let translator = Translator::new(shared.flags());
        ProcessReplay {
            shared,
            id,
            pid,
            window,
            hold,
            signals: 0,
            translator,
        }
    }

    fn next(&self) -> Option<&Event> {
        self.window.current().map(|(_, e)| e)
    }

    fn held(&self) -> bool {
        self.hold && self.id.is_some() && self.window.exhausted()
    }

    /// The recorded index of the next event (or one past the last).
    fn index(&self) -> u64 {
        match self.window.current() {
            Some((i, _)) => *i,
            None => self.window.last_index().map_or(0, |i| i + 1),
        }
    }

    fn expected(&self) -> String {
        match (self.id, self.next()) {
            (Some(id), Some(e)) => self.shared.describe(
                MsgId {
                    sender: id,
                    index: self.signals,
                },
                e,
            ),
            (Some(_), None) => "nothing more: the process log ends here".into(),
            (None, _) => "no such process: the log does not have it".into(),
        }
    }

    fn diverge(&self, happened: String) -> Divergence {
        Divergence {
            pid: self.pid,
            event_index: self.index(),
            expected: self.expected(),
            happened,
            location: String::new(),
            agreed: String::new(),
        }
    }

    fn runtime_msg(&self, m: MsgId) -> process::SignalId {
        process::SignalId {
            sender: Pid(self.shared.pid_of(m.sender)),
            index: m.index,
        }
    }
}

impl ProcessDirector for ProcessReplay {
    fn signal_due(&mut self) -> Option<process::SignalId> {
        if self.held() {
            // Every event-making step asks this first: the process waits
            // here, before its next event.
            return Some(NEVER);
        }
        match self.next() {
            Some(Event::SignalTaken { signal, .. }) => Some(self.runtime_msg(*signal)),
            _ => None,
        }
    }

    fn receive(&mut self) -> Result<ReceiveChoice, Divergence> {
        match self.next() {
            Some(Event::Receive { msg }) => Ok(ReceiveChoice::Message(self.runtime_msg(*msg))),
            Some(Event::Timeout) => Ok(ReceiveChoice::Timeout),
            // The log ends here: in the recorded run the process waited in
            // this receive forever (or the replay holds it here). Waiting for
            // a message no process sends makes it do the same.
            None if self.id.is_some() => Ok(ReceiveChoice::Message(NEVER)),
            // The log's next event is something else. A receive can still
            // end without an event (a bad timeout value raises before it
            // waits), so let it go on natively: if it does take a message or
            // time out, the event check reports the departure.
            Some(_) => Ok(ReceiveChoice::Native),
            None => Err(self.diverge("a receive".into())),
        }
    }

    fn spawn_pid(&mut self) -> Result<Option<Pid>, Divergence> {
        match self.next() {
            Some(Event::Spawn { pid, .. }) => Ok(Some(Pid(*pid))),
            _ => Err(self.diverge("a spawn".into())),
        }
    }

    fn nondet(&mut self, kind: NondetBif, _computed: Term) -> Result<Term, Divergence> {
        let want = trace_capture::mapping::nondet_kind(kind);
        match self.next() {
            Some(Event::Nondet { kind: k, value }) if *k == want => {
                trace_term::etf::decode(value.bytes()).map_err(|e| {
                    self.diverge(format!(
                        "a nondeterministic result the log holds as bad ETF: {e}"
                    ))
                })
            }
            _ => Err(self.diverge(format!(
                "a call of a nondeterministic built-in ({})",
                trace_format::text::nondet_name(want)
            ))),
        }
    }

    fn output_turn(&mut self) -> Result<OutputTurn, Divergence> {
        match self.next() {
            Some(Event::Output { seq, .. }) => Ok(OutputTurn::At(self.shared.output_turn(*seq))),
            _ => Err(self.diverge("a write to standard output".into())),
        }
    }

    fn event(&mut self, ev: &hooks::Event<'_>) -> Result<(), Divergence> {
        if matches!(ev, hooks::Event::Deliver { .. }) {
            return Ok(());
        }
        // The end of a run finds processes waiting: a held one waits on
        // purpose, and a log of version 1 does not say.
        if matches!(ev, hooks::Event::Blocked { .. })
            && (self.held() || !matches!(self.next(), Some(Event::Blocked { .. })))
        {
            return Ok(());
        }
        // Compared borrowed, the engine's term encoded into the
        // translator's scratch space: replay checks every event and
        // allocates for none. On a departure the event is kept, owned, for
        // the report.
        let own = self.own();
        let ev = self.shared.renumbered(ev);
        let got = self.translator.log_event(self.shared.pids(), &ev, own);
        let same = Self::compare(&self.window, own, got);
        self.follow(own, same)
    }

    fn shared_turn(
        &mut self,
        function: &'static str,
        _target: &trace_term::Term,
    ) -> Result<SharedTurn, Divergence> {
        // A process's end asks for each table it releases in turn, and
        // then once more: the log's next event says whether there is one.
        if function == "exit" {
            let exit = self.shared.functions().index("exit");
            if !matches!(self.next(), Some(Event::Shared { function: f, .. }) if *f == exit) {
                return Ok(SharedTurn::Now);
            }
        }
        // The operation may observe whether a process is alive (`give_away`
        // to a pid, an heir) between asking and happening: its event then
        // follows that observation.
        let log = self.shared.log();
        let next = match self.window.ahead(log, 0) {
            Some((_, Event::Nondet { .. })) => self.window.ahead(log, 1),
            other => other,
        };
        match next.map(|(_, e)| e) {
            Some(Event::Shared {
                object: Some(o),
                seq,
                name,
                ..
            }) => {
                let shared = &self.shared;
                let name = name
                    .as_ref()
                    .and_then(|n| trace_term::etf::decode(n.bytes()).ok())
                    .and_then(|t| t.as_atom());
                Ok(SharedTurn::At {
                    object: trace_capture::mapping::shared_id(*o, |p| Some(shared.pid_of(p))),
                    seq: *seq,
                    name,
                })
            }
            Some(Event::Shared { object: None, .. }) => Ok(SharedTurn::Missing),
            _ => Err(self.diverge(format!("an operation on shared state ({function})"))),
        }
    }

    fn shared_event(&mut self, op: &SharedOp<'_>) -> Result<(), Divergence> {
        let own = self.own();
        let got = self
            .translator
            .shared_event(self.shared.pids(), self.shared.functions(), op);
        let same = Self::compare(&self.window, own, got);
        self.follow(own, same)
    }
}

impl ProcessReplay {
    /// The identity a `Send` or `Signal` of this process takes next.
    fn own(&self) -> MsgId {
        MsgId {
            sender: self.id.unwrap_or(ProcId::UNKNOWN),
            index: self.signals,
        }
    }

    /// Whether the engine's event is the logged one: whether it sends a
    /// signal, or the event, owned, for the report.
    fn compare(window: &Window, own: MsgId, got: EventRef<'_>) -> Result<bool, Event> {
        if window.current().map(|(_, e)| EventRef::of(e, own)) == Some(got) {
            Ok(got.sends_signal())
        } else {
            Err(got.to_owned())
        }
    }

    /// Moves past the logged event, or reports the departure.
    fn follow(&mut self, own: MsgId, same: Result<bool, Event>) -> Result<(), Divergence> {
        match same {
            Ok(sends) => {
                self.signals += sends as u64;
                self.window.advance(self.shared.log());
                if let Some(id) = self.id {
                    self.shared
                        .progressed(id, self.window.position(), self.window.exhausted());
                }
                Ok(())
            }
            Err(got) => Err(self.diverge(self.shared.describe(own, &got))),
        }
    }
}
