//! A debugging session over one recorded run: the log, its causal model,
//! the cut the user stands at, and the run brought to life at that cut.
//! Each command computes a new cut ([`crate::cut`]), brings it to life
//! ([`crate::engine`]) and says what changed ([`crate::render`]).

use crate::command::{Command, HELP};
use crate::cut::{self, Cut, StopPoints};
use crate::engine::{self, Snapshot};
use crate::render::Render;
use std::sync::Arc;
use trace_capture::{EventSpec, ProcRef};
use trace_causal::{EventId, Model};
use trace_format::{LogReader, ProcId};
use trace_runtime::Loaded;

/// How a command went, and whether the session goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Go,
    /// The command failed (it said why); the session goes on.
    Failed,
    Quit,
}

/// One session.
pub struct Session {
    loaded: Loaded,
    log: Arc<LogReader>,
    model: Model,
    stops: StopPoints,
    /// Every write to standard output of the log: `(seq, slot, index)`,
    /// by `seq`.
    writes: Vec<(u64, usize, u64)>,
    cut: Cut,
    snap: Snapshot,
    /// Breakpoints, in the order set: as the user wrote them, resolved.
    breaks: Vec<(EventSpec, EventId)>,
    /// A session without a log: the run it schedules freely.
    pub(crate) free: Option<crate::free::Free>,
}

impl Session {
    /// A session at the start of the run `log` recorded from `loaded` (a
    /// program loaded with debug information, `LoadOptions::debug`).
    pub fn open(loaded: Loaded, log: Arc<LogReader>, force: bool) -> Result<Session, String> {
        trace_replayer::refuse_other_program(log.header(), &loaded, force, "debugs")?;
        let crate::scan::Scanned {
            model,
            stops,
            writes,
        } = crate::scan::scan(&log);
        let cut = Cut::start(model.processes().len());
        let mut s = Session {
            loaded,
            log,
            model,
            stops,
            writes,
            cut: cut.clone(),
            snap: Snapshot {
                processes: Default::default(),
                output: Vec::new(),
                failure: None,
            },
            breaks: Vec::new(),
            free: None,
        };
        s.snap = s.bring_to_life(&cut);
        if let Some(f) = s.snap.failure.take() {
            return Err(f);
        }
        Ok(s)
    }

    /// Stands the session on another log of the same program (a free
    /// session's new run), at its start; breakpoints that name events of
    /// the new log stay.
    pub(crate) fn install(&mut self, log: Arc<LogReader>) {
        let scanned = crate::scan::scan(&log);
        self.model = scanned.model;
        self.stops = scanned.stops;
        self.writes = scanned.writes;
        self.log = log;
        self.cut = Cut::start(self.model.processes().len());
        let model = &self.model;
        let breaks = std::mem::take(&mut self.breaks);
        self.breaks = breaks
            .into_iter()
            .filter_map(|(spec, _)| {
                let e = trace_causal::resolve(model, &spec).ok()?;
                Some((spec, e))
            })
            .collect();
    }

    pub(crate) fn set_cut(&mut self, cut: Cut) {
        self.cut = cut;
    }

    pub(crate) fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    pub(crate) fn set_snapshot(&mut self, snap: Snapshot) {
        self.snap = snap;
    }

    /// The cut the session stands at.
    pub fn cut(&self) -> &Cut {
        &self.cut
    }

    /// The run at that cut.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snap
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    pub fn log(&self) -> &Arc<LogReader> {
        &self.log
    }

    pub(crate) fn stops(&self) -> &StopPoints {
        &self.stops
    }

    /// The current cut with the process at `slot` back at its start (and
    /// what depends on its steps undone).
    pub(crate) fn cut_with_start(&self, slot: usize) -> Cut {
        cut::rollback(
            &self.model,
            &self.stops,
            &self.cut,
            &[EventId::new(self.id(slot), 0)],
        )
    }

    /// A fresh replay of the program to `cut`.
    pub fn bring_to_life(&self, cut: &Cut) -> Snapshot {
        let mut holds = vec![0u64; self.log.id_slots()];
        for (slot, p) in self.model.processes().iter().enumerate() {
            if let Some(h) = holds.get_mut(p.id.0 as usize) {
                *h = cut.get(slot);
            }
        }
        engine::materialise(&self.loaded, &self.log, holds)
    }

    /// Runs one command line, writing what it prints (program output
    /// included) to `out`.
    pub fn execute(&mut self, line: &str, out: &mut Vec<u8>) -> Flow {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Flow::Go;
        }
        match line.parse::<Command>() {
            Ok(Command::Quit) => Flow::Quit,
            Ok(c) => match self.command(c, out) {
                Ok(()) => Flow::Go,
                Err(e) => {
                    out.extend_from_slice(format!("error: {e}\n").as_bytes());
                    Flow::Failed
                }
            },
            Err(e) => {
                out.extend_from_slice(format!("error: {e}\n").as_bytes());
                Flow::Failed
            }
        }
    }

    fn render(&self) -> Render<'_> {
        Render::new(&self.model, &self.log, &self.stops, &self.cut, &self.snap)
            .with_next(self.free.as_ref().map(|f| &f.next[..]))
    }

    fn command(&mut self, c: Command, out: &mut Vec<u8>) -> Result<(), String> {
        let text = match c {
            Command::Procs => self.render().procs(),
            Command::Show(p) => {
                let slot = self.slot(&p)?;
                self.render().show(slot)
            }
            Command::Log => self.render().log(),
            Command::Trace(m) => {
                let msg = trace_causal::resolve_msg(&self.model, &m)?;
                self.render().trace(msg)
            }
            Command::Output => {
                out.extend(self.snap.output.iter().flatten());
                return Ok(());
            }
            Command::Help => format!("{HELP}\n"),
            Command::Save(path) => {
                let n = crate::save::save(&self.log, &self.model, &self.stops, &self.cut, &path)?;
                format!("saved {n} events to {path}\n")
            }
            Command::Break(None) => self.list_breaks(),
            Command::Break(Some(e)) => self.add_break(e)?,
            Command::Delete(e) => self.delete_break(e)?,
            Command::Quit => String::new(),
            moving => return self.travel(moving, out),
        };
        out.extend_from_slice(text.as_bytes());
        Ok(())
    }

    /// The commands that move the session to another cut.
    fn travel(&mut self, c: Command, out: &mut Vec<u8>) -> Result<(), String> {
        if self.free.is_some() {
            match c {
                Command::Step(p, n) => return self.free_steps(&p, n, out),
                Command::Deliver(m) => return self.free_deliver(&m, out),
                Command::Run(None) if self.cut == Cut::end(&self.stops) => {
                    return self.free_run(out);
                }
                _ => {}
            }
        }
        let (target, note) = match c {
            Command::Deliver(m) => {
                return Err(format!(
                    "deliver {m}: the log says when each timer fired; \
                     deliver is for a session without a log"
                ))
            }
            Command::Step(p, n) => self.steps_forward(&p, n)?,
            Command::Back(p, n) => (self.steps_back(&p, n)?, None),
            Command::Rollback(e) => (self.rollback(&e)?, None),
            Command::Forward(e) => (self.forward(&e)?, None),
            Command::Run(None) => self.run_to_break(),
            Command::Run(Some(e)) => (self.forward(&e)?, None),
            Command::RollbackVar(p, name) => {
                return self.rollback_var(&p, &name, out);
            }
            _ => return Ok(()),
        };
        if note.is_none() || target != self.cut {
            self.go_to(target, out)?;
        }
        if let Some(n) = note {
            out.extend_from_slice(n.as_bytes());
        }
        Ok(())
    }

    /// Moves to `target`, printing the program's new output and what was
    /// done or undone.
    pub(crate) fn go_to(&mut self, target: Cut, out: &mut Vec<u8>) -> Result<(), String> {
        if target == self.cut {
            out.extend_from_slice(b"nothing to do\n");
            return Ok(());
        }
        let snap = self.bring_to_life(&target);
        if let Some(f) = snap.failure {
            return Err(format!("could not bring the run to that state: {f}"));
        }
        self.new_output(&target, &snap, out);
        let report = Render::new(&self.model, &self.log, &self.stops, &target, &snap)
            .changes(&self.cut, &target);
        out.extend_from_slice(report.as_bytes());
        self.cut = target;
        self.snap = snap;
        Ok(())
    }

    /// Prints the writes to standard output that `target` makes and the
    /// current cut did not.
    fn new_output(&self, target: &Cut, snap: &Snapshot, out: &mut Vec<u8>) {
        let done = |c: &Cut, slot: usize, i: u64| i < c.get(slot);
        let mut k = 0;
        for &(_, slot, i) in &self.writes {
            if !done(target, slot, i) {
                continue;
            }
            if !done(&self.cut, slot, i) {
                if let Some(b) = snap.output.get(k) {
                    out.extend_from_slice(b);
                }
            }
            k += 1;
        }
    }

    /// The model slot of a process the user named.
    pub(crate) fn slot(&self, p: &ProcRef) -> Result<usize, String> {
        let id = trace_causal::resolve_proc(&self.model, p).map_err(|e| e.to_string())?;
        cut::slot_of(&self.model, id).ok_or_else(|| format!("{p} has no log"))
    }

    fn event(&self, spec: &EventSpec) -> Result<(usize, EventId), String> {
        let e = trace_causal::resolve(&self.model, spec).map_err(|e| e.to_string())?;
        let slot = cut::slot_of(&self.model, e.proc).ok_or_else(|| format!("{spec}: no log"))?;
        Ok((slot, e))
    }

    pub(crate) fn name(&self, slot: usize) -> String {
        self.model.names().short(self.id(slot))
    }

    pub(crate) fn id(&self, slot: usize) -> ProcId {
        self.model.processes()[slot].id
    }

    fn rollback(&self, spec: &EventSpec) -> Result<Cut, String> {
        let (slot, e) = self.event(spec)?;
        if !self.cut.holds(slot, e) {
            return Err(format!("{spec} is not done: nothing to undo"));
        }
        Ok(cut::rollback(&self.model, &self.stops, &self.cut, &[e]))
    }

    fn forward(&self, spec: &EventSpec) -> Result<Cut, String> {
        let (slot, e) = self.event(spec)?;
        if self.cut.holds(slot, e) {
            return Err(format!("{spec} is done already"));
        }
        if e.index >= self.stops.len(slot) {
            return Err(format!("{spec} is the mark the run's end left, not a step"));
        }
        Ok(cut::forward(&self.model, &self.stops, &self.cut, &[e]))
    }

    /// `n` steps of a process; stops early (with a note saying why) at the
    /// end of its run or at a step that waits for another process.
    fn steps_forward(&self, p: &ProcRef, n: u64) -> Result<(Cut, Option<String>), String> {
        let slot = self.slot(p)?;
        let mut c = self.cut.clone();
        for _ in 0..n {
            let k = c.get(slot);
            if k >= self.stops.len(slot) {
                let note = format!(
                    "{} has no more steps: {}\n",
                    self.name(slot),
                    self.end_of(slot)
                );
                return Ok((c, Some(note)));
            }
            let last = self.stops.at_or_after(slot, k + 1) - 1;
            let next = cut::forward(
                &self.model,
                &self.stops,
                &c,
                &[EventId::new(self.id(slot), last)],
            );
            let others: Vec<usize> = (0..c.0.len())
                .filter(|&s| s != slot && next.get(s) != c.get(s))
                .collect();
            if !others.is_empty() {
                let why = self.render().waits_for(&c, slot, &next, &others);
                return Ok((c, Some(why)));
            }
            c = next;
        }
        Ok((c, None))
    }

    /// The end of the run, less the breakpoints ahead and what depends on
    /// them; a breakpoint the session stands at (its event is next and its
    /// causes are done) is passed, as a debugger's `continue` does.
    fn run_to_break(&self) -> (Cut, Option<String>) {
        let ahead: Vec<&(EventSpec, EventId)> = self
            .breaks
            .iter()
            .filter(|(_, e)| !self.at_break(*e))
            .collect();
        let end = Cut::end(&self.stops);
        let mut target = end.clone();
        let ids: Vec<EventId> = ahead.iter().map(|(_, e)| *e).collect();
        if !ids.is_empty() {
            target = cut::rollback(&self.model, &self.stops, &end, &ids);
        }
        // What is done stays done (a rollback is its own command).
        let target = Cut((0..target.0.len())
            .map(|s| target.get(s).max(self.cut.get(s)))
            .collect());
        let hit: Vec<String> = ahead
            .iter()
            .filter(|(_, e)| self.slot_holds(&target, *e) == Some(false))
            .map(|(spec, _)| spec.to_string())
            .collect();
        let note = (!hit.is_empty()).then(|| format!("stopped before {}\n", hit.join(", ")));
        (target, note)
    }

    /// Whether the session stands just before `e`: its causes done, it not.
    fn at_break(&self, e: EventId) -> bool {
        let Some(slot) = cut::slot_of(&self.model, e.proc) else {
            return false;
        };
        if self.cut.get(slot) != e.index {
            return false;
        }
        let with = cut::forward(&self.model, &self.stops, &self.cut, &[e]);
        (0..with.0.len()).all(|s| s == slot || with.get(s) == self.cut.get(s))
    }

    fn slot_holds(&self, c: &Cut, e: EventId) -> Option<bool> {
        cut::slot_of(&self.model, e.proc).map(|s| c.holds(s, e))
    }

    fn add_break(&mut self, spec: EventSpec) -> Result<String, String> {
        let (_, e) = self.event(&spec)?;
        if self.breaks.iter().any(|(_, b)| *b == e) {
            return Ok(format!("{spec} is a breakpoint already\n"));
        }
        let name = self.model.names().short(e.proc);
        self.breaks.push((spec.clone(), e));
        Ok(format!("breakpoint before {spec} ({name}#{})\n", e.index))
    }

    fn delete_break(&mut self, spec: Option<EventSpec>) -> Result<String, String> {
        let Some(spec) = spec else {
            let n = self.breaks.len() as u64;
            self.breaks.clear();
            return Ok(format!(
                "deleted {n} breakpoint{}\n",
                crate::words::plural(n)
            ));
        };
        let (_, e) = self.event(&spec)?;
        let before = self.breaks.len();
        self.breaks.retain(|(_, b)| *b != e);
        if self.breaks.len() == before {
            return Err(format!("{spec} is not a breakpoint"));
        }
        Ok(format!("deleted the breakpoint before {spec}\n"))
    }

    fn list_breaks(&self) -> String {
        if self.breaks.is_empty() {
            return "no breakpoints\n".into();
        }
        let mut out = String::new();
        for (spec, e) in &self.breaks {
            let state = match self.slot_holds(&self.cut, *e) {
                Some(true) => "passed",
                _ if self.at_break(*e) => "here",
                _ => "ahead",
            };
            out.push_str(&format!("{spec}  {state}\n"));
        }
        out
    }

    /// How a process's run ends, for a note.
    fn end_of(&self, slot: usize) -> String {
        match self.model.processes()[slot].exit {
            Some(_) => "it has exited".into(),
            None => "the run ended with it waiting".into(),
        }
    }

    fn steps_back(&self, p: &ProcRef, n: u64) -> Result<Cut, String> {
        let slot = self.slot(p)?;
        let mut c = self.cut.clone();
        for _ in 0..n {
            let k = c.get(slot);
            if k == 0 {
                break;
            }
            let start = self.stops.at_or_before(slot, k - 1);
            c = cut::rollback(
                &self.model,
                &self.stops,
                &c,
                &[EventId::new(self.id(slot), start)],
            );
        }
        if c == self.cut {
            return Err(format!(
                "{} is at its start: no step to undo",
                self.name(slot)
            ));
        }
        Ok(c)
    }
}
