//! The two hooks that recording and replay plug into (DESIGN §2.1, §4).
//!
//! - An [`Observer`] sees every event of every process: spawn, send,
//!   delivery, receipt, timeout, signals sent and taken, nondeterministic
//!   results, output and exit.
//! - A [`Director`] decides every nondeterministic choice: which message a
//!   receive takes, whether a timeout fires, where an exit signal lands in the
//!   target's steps, the pid of a spawned process, the result of each
//!   nondeterministic built-in, the order of writes to standard output, and
//!   the order in which processes touch shared state.
//!
//! Shared state (ETS tables, `atomics` and `counters` arrays, and
//! `persistent_term`) is touched by several processes, so the order of
//! their operations on one object is a choice like the order of writes to
//! stdout: every object counts its operations, each operation is reported
//! with its position ([`SharedOp`], to [`ProcessObserver::shared`]), and a
//! Director may make an operation wait for a position
//! ([`ProcessDirector::shared_turn`]).
//!
//! A Director may also take control of the run when it settles (nothing
//! can move): [`Director::settled`] sees every process through
//! [`crate::inspect::View`] and may resume chosen processes. A debugger
//! steps processes so, one event at a time; a run without one ends there.
//!
//! Both work per process: when a process starts, each hook may return a
//! per-process object that receives that process's events (on whichever
//! scheduler thread runs it) with no locking. `trace run` uses the native
//! hooks, which return none, so the engine makes no hook calls at all.
//!
//! A Director may also take the scheduling itself ([`Director::controls_scheduling`]):
//! the run then goes one *step* at a time on the caller's thread, with no
//! scheduler or timer threads. A step is one process's visible operation (a
//! send, a receive taking a message or timing out, a spawn, a signal, a
//! registry, liveness or shared-state operation, a write to stdout, its
//! end) and the local computation after it, up to just before its next
//! visible operation; or the delivery of a timer's message. Before each
//! step the Director hears what may go next ([`Ready`]) and picks one
//! ([`Director::pick`]); receive timeouts then take no time (virtual time:
//! a receive with an `after` may time out whenever it is picked with no
//! matching message). Systematic exploration (`trace explore`) is built on
//! this; an Observer of such a run also hears what each step read or wrote
//! beyond its events ([`ProcessObserver::touched`]).

use crate::process::SignalId;
use trace_term::{Atom, Pid, Term};

pub use crate::ir::RecvFilter;
pub use crate::shared::{Access, SharedId, SharedKind, SharedOp, SharedTurn};

/// Which nondeterministic built-in produced a value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NondetBif {
    MonotonicTime,
    SystemTime,
    Timestamp,
    UniqueInteger,
    Random,
    Whereis,
    Register,
    Registered,
    IsProcessAlive,
    Processes,
    ProcessInfo,
    /// Any other nondeterministic built-in, by name.
    Other(&'static str),
}

/// A non-message signal as sent.
#[derive(Clone, Copy, Debug)]
pub enum SentSignal<'a> {
    Link,
    Unlink,
    Exit { reason: &'a Term, linked: bool },
    Monitor,
    Demonitor,
    Down { reason: &'a Term },
}

/// What taking a signal did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    Applied,
    Ignored,
    /// Became a message in the mailbox (`'EXIT'` or `'DOWN'`).
    Converted,
    /// The process dies of it.
    Killed,
}

/// One event of one process, as the engine reports it.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    Spawn {
        child: Pid,
        link: bool,
        monitor: bool,
    },
    Send {
        id: SignalId,
        to: Pid,
        payload: &'a Term,
    },
    /// A message entered the mailbox.
    Deliver {
        id: SignalId,
    },
    /// A receive consumed a message.
    Receive {
        id: SignalId,
        payload: &'a Term,
    },
    Timeout,
    Signal {
        id: SignalId,
        to: Pid,
        signal: SentSignal<'a>,
    },
    SignalTaken {
        id: SignalId,
        effect: Effect,
    },
    Nondet {
        kind: NondetBif,
        value: &'a Term,
    },
    /// A write to standard output; `seq` is its position among all writes.
    Output {
        seq: u64,
        bytes: &'a [u8],
    },
    Exit {
        reason: &'a Term,
    },
    /// The run ended with the process waiting in `receive`: idle in a
    /// server's loop, or stuck — part of a deadlock by the run's end rule
    /// (the entry process, or one waiting for something particular: see
    /// [`crate::Waiting`]). Only processes left waiting get it, once.
    Blocked {
        stuck: bool,
    },
}

/// Who a process is, when it starts.
#[derive(Clone, Debug)]
pub struct ProcessStart {
    pub pid: Pid,
    pub parent: Option<Pid>,
    /// Spawn path (`P.2.1` = `[2, 1]`).
    pub path: Vec<u32>,
    /// The function it starts in.
    pub initial: (Atom, Atom, u32),
}

/// What a step of a controlled run read or wrote besides what its events
/// say (see [`ProcessObserver::touched`]).
#[derive(Clone, Copy, Debug)]
pub enum Touched<'a> {
    /// The receive just reported (a `Receive`, or a `Timeout`) would have
    /// taken a message only if it fits this filter (a necessary condition:
    /// guards are not run). `None`: any message may fit; a receive with no
    /// clauses (`receive after T -> ... end`) gives [`Touched::NoClauses`].
    Receive(Option<&'a RecvFilter>),
    /// The receive just reported has no clauses: no message fits it.
    NoClauses,
    /// The receive just reported has an `after` branch: had it run before
    /// the message it took was sent, it would have timed out instead.
    MayTimeOut,
    /// Whether this process is alive was observed (`is_process_alive`,
    /// `register`, the target of a link or a monitor, an heir).
    Liveness(Pid),
    /// This registered name was looked up or changed (`whereis`, a send or
    /// a monitor by name, `register`, `unregister`).
    Name(Atom),
    /// The state of this process as a whole was read (`process_info`).
    Process(Pid),
    /// The process changed its monitors or took a `'DOWN'` out of its
    /// mailbox (`demonitor`).
    Monitors,
    /// The process changed how it takes exit signals (`process_flag(trap_exit, _)`).
    TrapExit,
}

/// Something a controlled run may do next (see [`Director::pick`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ready {
    /// A process can take its next step. `timeout`: it waits in a receive
    /// with this `after` (milliseconds) and no matching message, so its
    /// step, if it is picked before a message comes, is the timeout.
    Process { pid: Pid, timeout: Option<u64> },
    /// The message of a timer (`erlang:send_after/3`, `start_timer/3`) can
    /// be delivered. `id` is the message's identity: its `Send` event was
    /// reported when the timer was set. `after`: the milliseconds it was
    /// set for.
    Timer { id: SignalId, after: u64 },
}

/// Sees events.
pub trait Observer: Send + Sync {
    /// A process starts; return an observer for its events, or `None`.
    fn process_started(&self, _p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        None
    }
}

/// Receives one process's events, in the process's order.
pub trait ProcessObserver: Send {
    fn event(&mut self, ev: &Event<'_>);
    /// Whether this observer wants [`Event::Deliver`]s. Asked once, when the
    /// process starts: a recording without deliveries is not called for
    /// each message entering a mailbox (one in three events of a ring).
    fn wants_deliveries(&self) -> bool {
        true
    }
    /// An operation on shared state (a table, an array, `persistent_term`),
    /// in the process's order among its [`Event`]s. Kept beside `event`
    /// rather than in [`Event`] until the log has a record for it.
    fn shared(&mut self, _op: &SharedOp<'_>) {}
    /// The process starts running on a scheduler thread.
    fn slice_begin(&mut self) {}
    /// The process stops running (it yields, waits or exits).
    fn slice_end(&mut self) {}
    /// Controlled runs only ([`Director::controls_scheduling`]): what the
    /// current step read or wrote beyond its events, reported right after
    /// the event it belongs to (a receive's filter) or before it (a name,
    /// a liveness).
    fn touched(&mut self, _t: &Touched<'_>) {}
    /// Runs with [`crate::RunOptions::trace_calls`] only: a function of the
    /// user's modules (not the library's) was entered, or the process
    /// started in one.
    fn call(&mut self, _c: &CallReport<'_>) {}
    /// Runs with `trace_calls` only: a function (the user's or the
    /// library's) returned. Frames deeper than `depth` that did not return
    /// were unwound by an exception.
    fn returned(&mut self, _r: &ReturnReport<'_>) {}
    /// Runs with `trace_calls` only: the process starts a `receive` (it
    /// may be reported again for the same receive, after a wait).
    fn receive_reached(&mut self, _frame: &crate::inspect::FrameState) {}
}

/// A call of a user function (see [`ProcessObserver::call`]).
#[derive(Clone, Copy, Debug)]
pub struct CallReport<'a> {
    /// The function, at its first line.
    pub place: &'a crate::inspect::Place,
    pub args: &'a [Term],
    /// The number of frames below the function's (a tail call keeps its
    /// caller's depth).
    pub depth: usize,
}

/// A return (see [`ProcessObserver::returned`]).
#[derive(Clone, Copy, Debug)]
pub struct ReturnReport<'a> {
    pub value: &'a Term,
    /// The depth of the frame returning, as in [`CallReport::depth`].
    pub depth: usize,
    /// The source line the function returned from.
    pub line: u32,
}

/// The run departed from what the Director expected (replay of a different
/// program, or a wrong log).
#[derive(Clone, Debug)]
pub struct Divergence {
    pub pid: Pid,
    /// Index of the process's event where it happened.
    pub event_index: u64,
    pub expected: String,
    pub happened: String,
    /// `file:line` of the code the process was running (filled in by the
    /// engine, which knows where the process is); empty when the engine
    /// cannot tell (a receive it did not wait in).
    pub location: String,
    /// `file:line` of the last event of the process that agreed with the
    /// log at a place the engine knows (the log's expected event was due
    /// after it); empty when there is none.
    pub agreed: String,
}

impl std::fmt::Display for Divergence {
    /// One line for a session that replays a log (`trace debug`, `trace why`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the replay departed from the log at {} ({}): the log has {}, the run did {}",
            self.pid, self.location, self.expected, self.happened
        )
    }
}

/// How a receive picks its message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReceiveChoice {
    /// BEAM's rule: first matching message in arrival order; timeouts by the clock.
    Native,
    /// Exactly this message (wait for it if it has not arrived).
    Message(SignalId),
    /// Take the `after` branch now.
    Timeout,
}

/// Whether a write to standard output may happen now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutputTurn {
    /// Write now (native: whatever position it gets).
    Now,
    /// Write when the run's output count reaches this position.
    At(u64),
}

/// Where the message of a timer set for a registered name goes when it fires.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimerTarget {
    /// Whoever holds the name now (BEAM's rule); dropped if nobody does.
    Native,
    /// This process.
    Process(Pid),
    /// Nobody: the message is dropped.
    Nowhere,
    /// Ask again a millisecond later (the process that must get it has not
    /// started yet).
    Later,
}

/// What a run does once it has settled: no process can move (each has
/// ended, waits in `receive`, or is held by its Director) and no timer is
/// pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settle {
    /// End the run (what a run without a debugger always does).
    End,
    /// Go on: these processes are woken (their Director now lets them
    /// move) and the run continues until it settles again.
    Resume(Vec<Pid>),
}

/// Decides choices.
pub trait Director: Send + Sync {
    /// A process starts; return a director for its choices, or `None` (native).
    fn process_started(&self, _p: &ProcessStart) -> Option<Box<dyn ProcessDirector>> {
        None
    }

    /// Whether every spawn's pid is forced to a recorded one (replay): a
    /// signal to a pid that no process has had yet then waits for the
    /// process that will have it, instead of being dropped.
    fn forces_pids(&self) -> bool {
        false
    }

    /// A timer set for a registered name fired (its message `id` was sent,
    /// as far as the sender's log goes, when the timer was set): who gets it.
    fn timer_target(&self, _id: SignalId) -> TimerTarget {
        TimerTarget::Native
    }

    /// The run has settled. A controlling Director (a debugger stepping
    /// processes one event at a time) looks at the processes through
    /// `view` (which reads them only while nothing runs) and says whether
    /// to go on. Asked on one scheduler thread at a time; the others wait.
    fn settled(&self, _view: &crate::inspect::View<'_>) -> Settle {
        Settle::End
    }

    /// Whether this Director schedules the run itself, one step at a time
    /// (see the module's doc): one thread, no timers running on the clock,
    /// and [`Director::pick`] before every step.
    fn controls_scheduling(&self) -> bool {
        false
    }

    /// A controlled run: which of `ready` (never empty, processes in pid
    /// order, then timers in the order they were set) takes the next step;
    /// `None` ends the run here, cut at a limit ([`crate::Limit::Steps`]).
    fn pick(&self, _ready: &[Ready]) -> Option<usize> {
        Some(0)
    }
}

/// Decides one process's choices and checks its events.
pub trait ProcessDirector: Send {
    /// Before the process's next event: a signal it must take first, if any.
    fn signal_due(&mut self) -> Option<SignalId>;
    /// At the start of a receive.
    fn receive(&mut self) -> Result<ReceiveChoice, Divergence>;
    /// The pid of the process about to be spawned (`None`: allocate one).
    fn spawn_pid(&mut self) -> Result<Option<Pid>, Divergence>;
    /// The result of a nondeterministic built-in, given the one computed now.
    fn nondet(&mut self, kind: NondetBif, computed: Term) -> Result<Term, Divergence>;
    /// When the next write to standard output may happen.
    fn output_turn(&mut self) -> Result<OutputTurn, Divergence>;
    /// Every event the process produces, to check it against what was expected.
    fn event(&mut self, ev: &Event<'_>) -> Result<(), Divergence>;
    /// Before an operation on shared state: when it may happen, and on
    /// which object. `function` names the operation (`"insert"`,
    /// `"add_get"`, `"new"`, ...); `target` is the argument that names the
    /// object (a table id or name, an array reference, a `persistent_term`
    /// key). A replaying Director answers [`SharedTurn::At`] with the
    /// object and position the log gives, so that a table found by name in
    /// the recorded run is found again even if names were bound in another
    /// order meanwhile, or [`SharedTurn::Missing`] when the operation found
    /// no object. Like `output_turn`, this only looks at the next
    /// operation: a process that has to wait asks again when woken, and
    /// the operation is done when [`ProcessDirector::shared_event`] sees it.
    ///
    /// When the process ends, it asks with `function` `"exit"` and `target`
    /// `[]`, again after each answer, until the answer is not `At`: each
    /// `At` names a table the end releases (deletes, or gives to its heir)
    /// in that turn; tables it still owns after that are released natively.
    fn shared_turn(
        &mut self,
        _function: &'static str,
        _target: &Term,
    ) -> Result<SharedTurn, Divergence> {
        Ok(SharedTurn::Now)
    }
    /// Every operation on shared state the process performs (as
    /// [`ProcessObserver::shared`] sees it), to check it.
    fn shared_event(&mut self, _op: &SharedOp<'_>) -> Result<(), Divergence> {
        Ok(())
    }
    /// Whether this process takes non-message signals (links, exits,
    /// monitors) as they arrive, as without a Director. A Director that
    /// steers only some choices (a test forcing an order) says true; a
    /// replaying one says false, and each signal then waits until
    /// [`ProcessDirector::signal_due`] names it.
    fn takes_signals_natively(&self) -> bool {
        false
    }
}

/// The hooks of `trace run`: observe nothing, decide nothing.
pub struct Native;

impl Observer for Native {}
impl Director for Native {}

/// An Observer that receives every event of every process and drops it:
/// what the hooks cost before any recording work (`trace run
/// --discarding-observer`, used by the benchmarks beside a plain run).
pub struct Discard;

struct DiscardEvents;

impl Observer for Discard {
    fn process_started(&self, _p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(DiscardEvents))
    }
}

impl ProcessObserver for DiscardEvents {
    fn event(&mut self, ev: &Event<'_>) {
        std::hint::black_box(ev);
    }
    fn shared(&mut self, op: &SharedOp<'_>) {
        std::hint::black_box(op);
    }
}
