//! A session without a log: the moves that schedule the run freely
//! (`step P`, `deliver P.1:3`, `run` at the end of the steps so far). Each
//! runs the program again under [`crate::free`], forcing the steps the
//! current state holds and then the new ones, and stands the session on
//! the new run's log; every other command works on that log as on any.

use crate::cut::Cut;
use crate::free::{self, Free, FreeConfig, Pick, Then};
use crate::session::Session;
use std::sync::Arc;
use trace_capture::{MsgRef, ProcRef, SymbolicName};
use trace_format::LogReader;
use trace_runtime::Loaded;

/// Most steps `run` takes in a session without a log (a program that never
/// ends is cut there, or earlier at --max-events or --time-limit).
pub const MAX_RUN_STEPS: u64 = 1_000_000;

impl Session {
    /// A session at the start of a run of `loaded` that the user
    /// schedules: nothing has run yet but the entry process's start.
    pub fn open_free(loaded: Loaded, cfg: FreeConfig) -> Result<Session, String> {
        let run = free::run(&loaded, &cfg, Vec::new(), Then::Default(0));
        // Made first, so that its log is removed on any error.
        let mut free = Free {
            cfg,
            taken: Vec::new(),
            next: Vec::new(),
        };
        free.next = run?.next;
        let log = open_log(&free)?;
        let mut s = Session::open(loaded, log, false)?;
        s.free = Some(free);
        Ok(s)
    }

    /// The run the session schedules, when it has no log.
    pub fn free_steps_taken(&self) -> Option<usize> {
        self.free.as_ref().map(|f| f.taken.len())
    }

    pub(crate) fn free_steps(
        &mut self,
        p: &ProcRef,
        n: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let slot = self.slot(p)?;
        let path = self.path_of(slot);
        self.free_move(Then::Repeat(Pick::Process(path), n), out)
    }

    pub(crate) fn free_deliver(&mut self, m: &MsgRef, out: &mut Vec<u8>) -> Result<(), String> {
        let id = trace_causal::resolve_proc(self.model(), &m.sender).map_err(|e| e.to_string())?;
        let path = self
            .model()
            .names()
            .name(id)
            .map(|n| n.0)
            .unwrap_or_default();
        self.free_move(Then::Repeat(Pick::Timer(path, m.index), 1), out)
    }

    pub(crate) fn free_run(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        self.free_move(Then::Default(MAX_RUN_STEPS), out)
    }

    /// The spawn path of the process at `slot`.
    fn path_of(&self, slot: usize) -> Vec<u32> {
        let id = self.id(slot);
        self.model()
            .names()
            .name(id)
            .map(|n| n.0)
            .unwrap_or_default()
    }

    /// Events of the process with spawn path `path` the cut holds.
    fn done_of(&self, path: &[u32]) -> u64 {
        let name = ProcRef::Name(SymbolicName(path.to_vec()));
        trace_causal::resolve_proc(self.model(), &name)
            .ok()
            .and_then(|id| crate::cut::slot_of(self.model(), id))
            .map_or(0, |slot| self.cut().get(slot))
    }

    /// Runs the steps the state holds, then `then`, and stands at the end
    /// of the new run, printing what the new steps did.
    fn free_move(&mut self, then: Then, out: &mut Vec<u8>) -> Result<(), String> {
        let Some(f) = self.free.as_ref() else {
            return Err("this session walks a log".into());
        };
        let at_end = *self.cut() == Cut::end(self.stops());
        let kept = if at_end {
            f.taken.clone()
        } else {
            free::kept(&f.taken, |p| self.done_of(p))
        };
        let dropped = f.taken.len() - kept.len();
        let before = free::counts(&kept);
        let schedule: Vec<Pick> = kept.iter().map(|t| t.pick.clone()).collect();
        let run = free::run(self.loaded(), &f.cfg, schedule, then)?;
        let log = open_log(f)?;
        self.install(log);
        if let Some(f) = self.free.as_mut() {
            f.taken = run.taken;
            f.next = run.next;
        }
        if dropped > 0 {
            out.extend_from_slice(
                format!(
                    "the {dropped} step{} after this state are dropped\n",
                    crate::words::plural(dropped as u64)
                )
                .as_bytes(),
            );
        }
        if let Some(i) = run.departed {
            out.extend_from_slice(
                format!(
                    "note: step {} could not be taken again (the program did \
                     otherwise this time); the run stops there\n",
                    i + 1
                )
                .as_bytes(),
            );
        }
        let start = Cut((0..self.model().processes().len())
            .map(|s| before.get(&self.path_of(s)).copied().unwrap_or(0))
            .collect());
        let end = Cut::end(self.stops());
        if start == end {
            let snap = self.bring_to_life(&end);
            if let Some(e) = &snap.failure {
                return Err(format!("could not bring the run to that state: {e}"));
            }
            self.set_cut(end);
            self.set_snapshot(snap);
            if run.refused.is_none() {
                out.extend_from_slice(b"nothing to do\n");
            }
        } else {
            self.set_cut(start);
            self.go_to(end, out)?;
        }
        if let Some(p) = run.refused {
            let why = self.cannot_step(&p);
            out.extend_from_slice(why.as_bytes());
        }
        Ok(())
    }

    /// Why a pick could not go.
    fn cannot_step(&self, p: &Pick) -> String {
        match p {
            Pick::Timer(path, index) => {
                let m = MsgRef {
                    sender: ProcRef::Name(SymbolicName(path.clone())),
                    index: *index,
                };
                format!("{m} is not a timer's message waiting to be delivered\n")
            }
            Pick::Process(path) => {
                let name = SymbolicName(path.clone());
                let exited = trace_causal::resolve_proc(self.model(), &ProcRef::Name(name.clone()))
                    .ok()
                    .and_then(|id| self.model().process(id))
                    .is_some_and(|p| p.exit.is_some());
                if exited {
                    format!("{name} cannot step: it has exited\n")
                } else {
                    format!(
                        "{name} cannot step: it waits in receive with no message it takes \
                         (procs says who can step)\n"
                    )
                }
            }
        }
    }
}

fn open_log(f: &Free) -> Result<Arc<LogReader>, String> {
    LogReader::open(&f.cfg.path)
        .map(Arc::new)
        .map_err(|e| format!("{}: {e}", f.cfg.path.display()))
}
