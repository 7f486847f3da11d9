//! Observing a recorded run again: the program replayed with every logged
//! choice forced (trace-replayer's Director) and the engine asked to report
//! calls of the user's functions, returns and the bindings at each
//! `receive` (`RunOptions::trace_calls`). What each process did is kept in
//! its order, each event with its index in the process's log, so a node of
//! the debugging tree can be named by the events `--until` takes.

use crate::error::{TooBig, TreeError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use trace_capture::SymbolicName;
use trace_format::LogReader;
use trace_replayer::director::LogDirector;
use trace_runtime::hooks::{
    CallReport, Event, Observer, ProcessObserver, ProcessStart, ReturnReport, SharedOp,
};
use trace_runtime::inspect::{FrameState, Place};
use trace_runtime::{Loaded, RunOptions, Runtime};
use trace_term::{Pid, Term};

/// One thing a process did, in its order.
#[derive(Clone, Debug)]
pub enum Item {
    /// A call of a user function (the process's first call is the one it
    /// started in, when that is the user's).
    Call {
        place: Place,
        args: Vec<Term>,
        depth: usize,
    },
    /// A return (of any function) from a frame at `depth`.
    Return {
        value: Term,
        depth: usize,
        line: u32,
    },
    /// The process starts a `receive`, standing in this frame.
    ReceiveAt(FrameState),
    /// An event of its log, at this index.
    Event { index: u64, what: What },
}

/// An event, with what the debugging tree shows of it.
#[derive(Clone, Debug)]
pub enum What {
    Spawn {
        child: Pid,
    },
    /// A message; `signal` is its index among the process's signals.
    Send {
        to: Pid,
        payload: Term,
        signal: u64,
    },
    /// A non-message signal (link, exit, monitor...): takes a signal index.
    Signal {
        signal: u64,
    },
    Receive {
        from: Pid,
        signal: u64,
        payload: Term,
    },
    Timeout,
    Output(Vec<u8>),
    Exit {
        reason: Term,
    },
    Blocked,
    /// Any other event (a delivery the log keeps, a signal taken, a
    /// nondeterministic result, an operation on shared state).
    Other,
}

/// One process of the run, as observed.
#[derive(Clone, Debug)]
pub struct ProcRun {
    pub pid: Pid,
    pub name: SymbolicName,
    pub initial: (String, String, u32),
    pub items: Vec<Item>,
}

/// The observed run: its processes in the order they started.
#[derive(Debug, Default)]
pub struct Observed {
    pub procs: Vec<ProcRun>,
    /// Why the replay could not go as the log says, if it could not.
    pub failure: Option<TreeError>,
}

impl Observed {
    /// The process with raw pid `pid`.
    pub fn by_pid(&self, pid: Pid) -> Option<usize> {
        self.procs.iter().position(|p| p.pid == pid)
    }

    /// A pid as the tree names it: `P.1` for a process of the run.
    pub fn name_of(&self, pid: Pid) -> String {
        match self.by_pid(pid) {
            Some(k) => self.procs[k].name.to_string(),
            None => trace_format::text::pid_text(pid.number()),
        }
    }
}

/// Items kept per node of the budget: calls that span a receive, returns
/// and events become no node of their own.
const ITEMS_PER_NODE: usize = 16;

/// Replays `log` with `loaded` (compiled with debug information, so
/// frames have their bindings) and observes every process, keeping at
/// most `max_nodes` times [`ITEMS_PER_NODE`] items.
pub fn observe(loaded: &Loaded, log: &Arc<LogReader>, max_nodes: usize) -> Observed {
    let director = Arc::new(LogDirector::new(log.clone(), None));
    let sink = Arc::new(Sink {
        procs: Mutex::new(Vec::new()),
        flags: trace_capture::RecordFlags::of_header(log.header()),
        left: Arc::new(AtomicUsize::new(max_nodes.saturating_mul(ITEMS_PER_NODE))),
    });
    let calls = RunOptions {
        trace_calls: true,
        ..RunOptions::default()
    };
    let (entry, run) = match trace_replayer::in_tool_replay(loaded, log, calls) {
        Ok(set) => set,
        Err(why) => {
            return Observed {
                procs: Vec::new(),
                failure: Some(TreeError::Refused(why)),
            }
        }
    };
    let rt = Runtime::new(
        loaded.program.clone(),
        run,
        sink.clone(),
        director,
        Box::new(std::io::sink()),
    );
    let outcome = trace_runtime::run(rt, entry);
    let failure = match (&outcome.divergence, &outcome.unsupported) {
        (Some(d), _) => Some(TreeError::Diverged(d.to_string())),
        (None, Some(u)) => Some(TreeError::Refused(u.clone())),
        (None, None) => None,
    };
    let failure = failure.or_else(|| {
        (sink.left.load(Ordering::Relaxed) == 0)
            .then(|| TreeError::Refused(TooBig { budget: max_nodes }.to_string()))
    });
    let mut procs: Vec<ProcRun> = sink
        .procs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|p| p.lock().unwrap_or_else(|e| e.into_inner()).clone())
        .collect();
    procs.sort_by_key(|p| p.pid);
    Observed { procs, failure }
}

/// Collects every process's items.
struct Sink {
    procs: Mutex<Vec<Arc<Mutex<ProcRun>>>>,
    /// What the log holds: its events are counted as the recorder wrote them.
    flags: trace_capture::RecordFlags,
    /// Items that may still be kept, all processes together.
    left: Arc<AtomicUsize>,
}

impl Observer for Sink {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        let run = Arc::new(Mutex::new(ProcRun {
            pid: p.pid,
            name: SymbolicName(p.path.clone()),
            initial: (
                p.initial.0.name().to_string(),
                p.initial.1.name().to_string(),
                p.initial.2,
            ),
            items: Vec::new(),
        }));
        self.procs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(run.clone());
        Some(Box::new(Watch {
            run,
            index: 0,
            signals: 0,
            flags: self.flags,
            left: self.left.clone(),
        }))
    }
}

/// One process's observer: counts its log's events and signals as the
/// recorder writes them.
struct Watch {
    run: Arc<Mutex<ProcRun>>,
    index: u64,
    signals: u64,
    flags: trace_capture::RecordFlags,
    left: Arc<AtomicUsize>,
}

impl Watch {
    fn push(&mut self, item: Item) {
        let kept = self
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        if kept.is_err() {
            return;
        }
        self.run
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .items
            .push(item);
    }

    fn what(&mut self, ev: &Event<'_>) -> What {
        match *ev {
            Event::Spawn { child, .. } => What::Spawn { child },
            Event::Send { to, payload, .. } => {
                self.signals += 1;
                What::Send {
                    to,
                    payload: payload.clone(),
                    signal: self.signals - 1,
                }
            }
            Event::Signal { .. } => {
                self.signals += 1;
                What::Signal {
                    signal: self.signals - 1,
                }
            }
            Event::Receive { id, payload } => What::Receive {
                from: id.sender,
                signal: id.index,
                payload: payload.clone(),
            },
            Event::Timeout => What::Timeout,
            Event::Output { bytes, .. } => What::Output(bytes.to_vec()),
            Event::Exit { reason } => What::Exit {
                reason: reason.clone(),
            },
            Event::Blocked { .. } => What::Blocked,
            _ => What::Other,
        }
    }
}

impl ProcessObserver for Watch {
    fn event(&mut self, ev: &Event<'_>) {
        if !self.flags.logs(ev) {
            return;
        }
        let what = self.what(ev);
        let index = self.index;
        self.index += 1;
        self.push(Item::Event { index, what });
    }

    fn shared(&mut self, _op: &SharedOp<'_>) {
        let index = self.index;
        self.index += 1;
        self.push(Item::Event {
            index,
            what: What::Other,
        });
    }

    fn call(&mut self, c: &CallReport<'_>) {
        self.push(Item::Call {
            place: c.place.clone(),
            args: c.args.to_vec(),
            depth: c.depth,
        });
    }

    fn returned(&mut self, r: &ReturnReport<'_>) {
        self.push(Item::Return {
            value: r.value.clone(),
            depth: r.depth,
            line: r.line,
        });
    }

    fn receive_reached(&mut self, frame: &FrameState) {
        // A receive that waited is reported again when it resumes: keep
        // the latest report only.
        let mut run = self.run.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(Item::ReceiveAt(_)) = run.items.last() {
            run.items.pop();
        }
        run.items.push(Item::ReceiveAt(frame.clone()));
    }
}
