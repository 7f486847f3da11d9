//! A process: the private state only the scheduler thread running it touches
//! ([`Process`]), and the part other processes reach ([`ProcShared`]): an inbox
//! of incoming signals and a run state used to wake it.
//!
//! Delivery vs receipt: a signal sent to a process lands in its *inbox*; the
//! process itself moves messages from there into its *mailbox* (delivery) at
//! safe points, and a `receive` later consumes one (receipt).

use crate::code::FunId;
pub use crate::frames::{Frame, Frames};
use crate::hooks::{ProcessDirector, ProcessObserver};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use trace_term::{Atom, BitWriter, Pid, Ref, Term};

/// The identity of a signal: its sender and the sender's signal index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SignalId {
    pub sender: Pid,
    pub index: u64,
}

/// A signal between processes (Bereczky et al. 2024's signals plus monitors and timers).
#[derive(Clone, Debug)]
pub enum Signal {
    /// `via`: the alias it was sent to (`Alias ! Msg`); the receiver drops
    /// it unless that alias is still active when the message arrives.
    Message {
        id: SignalId,
        payload: Term,
        via: Option<Ref>,
    },
    /// An exit signal; `linked` when caused by the death of a linked process.
    /// `from` is the process it is about (the sender, except for the `noproc`
    /// signal a process gives itself when linking to a dead one).
    Exit {
        id: SignalId,
        from: Pid,
        reason: Term,
        linked: bool,
    },
    Link {
        id: SignalId,
    },
    Unlink {
        id: SignalId,
    },
    /// `name`: the monitor was set up by registered name (its 'DOWN'
    /// shows `{Name, Node}` instead of the pid).
    Monitor {
        id: SignalId,
        r: Ref,
        name: Option<Atom>,
    },
    Demonitor {
        id: SignalId,
        r: Ref,
    },
    /// `shown` replaces the pid in the message (monitors by registered name).
    Down {
        id: SignalId,
        from: Pid,
        shown: Option<Term>,
        r: Ref,
        reason: Term,
    },
    /// Internal: a receive timer or replay wake-up fired. Not an Erlang signal.
    Wake,
}

impl Signal {
    pub fn id(&self) -> Option<SignalId> {
        match self {
            Signal::Message { id, .. }
            | Signal::Exit { id, .. }
            | Signal::Link { id }
            | Signal::Unlink { id }
            | Signal::Monitor { id, .. }
            | Signal::Demonitor { id, .. }
            | Signal::Down { id, .. } => Some(*id),
            Signal::Wake => None,
        }
    }
}

/// When an alias (a reference messages can be sent to) stops working.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AliasMode {
    /// Only `unalias/1` ends it.
    Explicit,
    /// Also ended with its monitor (`demonitor`, or the monitor's 'DOWN').
    Demonitor,
    /// Ended by the first message that arrives through it.
    Reply,
    /// Both of the above.
    ReplyDemonitor,
}

/// A message in a mailbox.
#[derive(Clone, Debug)]
pub struct Message {
    pub id: SignalId,
    pub payload: Term,
    /// The alias it came through, if any.
    pub via: Option<Ref>,
}

/// A monitor another process holds on this one.
#[derive(Copy, Clone, Debug)]
pub struct MonitoredBy {
    pub r: Ref,
    pub watcher: Pid,
    /// Set up by registered name: the 'DOWN' shows `{Name, Node}`.
    pub name: Option<Atom>,
}

/// An active `try` or `catch`.
#[derive(Copy, Clone, Debug)]
pub struct Handler {
    /// `frames.len()` when the handler was installed.
    pub depth: u32,
    pub fun: FunId,
    pub pc: u32,
    pub base: u32,
    pub reg: u16,
    pub is_catch: bool,
}

/// How the current `receive` chooses its message (decided by the Director).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecvMode {
    /// BEAM's rule: the first message in arrival order that matches a clause.
    FirstMatch,
    /// Replay: exactly this message.
    Exactly(SignalId),
}

/// Whether a process of a controlled run may make its next visible
/// operation now (see [`crate::hooks::Director::controls_scheduling`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Not a controlled run: every operation goes ahead.
    Native,
    /// Picked for a step that has not made its operation yet.
    Open,
    /// The step's operation is made (or the process is only being brought
    /// to its next operation): the next one waits.
    Shut,
    /// Stopped right before an operation, which it makes when picked.
    Poised,
}

impl Gate {
    /// Whether an operation may go ahead now; a refusal leaves the process
    /// poised before it.
    #[inline]
    pub fn pass(&mut self) -> bool {
        match *self {
            Gate::Native => true,
            Gate::Open => {
                *self = Gate::Shut;
                true
            }
            Gate::Shut | Gate::Poised => {
                *self = Gate::Poised;
                false
            }
        }
    }
}

/// Run states of [`ProcShared::state`].
pub mod run_state {
    /// Suspended in a receive (or just created and not yet queued): a signal must wake it.
    pub const WAITING: u8 = 0;
    /// In a run queue.
    pub const QUEUED: u8 = 1;
    /// A scheduler thread is running it.
    pub const RUNNING: u8 = 2;
    pub const EXITED: u8 = 3;
}

/// The shared part of a process.
pub struct ProcShared {
    pub pid: Pid,
    /// Signals sent to it and not yet taken out (use the methods below,
    /// which keep `arrived` in step).
    pub inbox: Mutex<Vec<Signal>>,
    /// Whether the inbox holds anything: the owner checks it without the
    /// lock (at every receive that would wait, and before suspending).
    arrived: AtomicBool,
    pub state: AtomicU8,
    /// The private state; taken by the scheduler thread that runs the process.
    pub body: Mutex<Option<Box<Process>>>,
}

impl ProcShared {
    pub fn new(pid: Pid) -> ProcShared {
        ProcShared {
            pid,
            inbox: Mutex::new(Vec::new()),
            arrived: AtomicBool::new(false),
            state: AtomicU8::new(run_state::WAITING),
            body: Mutex::new(None),
        }
    }

    pub fn is_exited(&self) -> bool {
        self.state.load(Ordering::Acquire) == run_state::EXITED
    }

    fn lock_inbox(&self) -> std::sync::MutexGuard<'_, Vec<Signal>> {
        self.inbox.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a signal in the inbox; false if the process has exited.
    pub fn push(&self, sig: Signal) -> bool {
        let mut inbox = self.lock_inbox();
        if self.is_exited() {
            return false;
        }
        inbox.push(sig);
        // SeqCst: pairs with the owner storing WAITING then reading this
        // (see `sched::worker`), so one of the two sees the other.
        self.arrived.store(true, Ordering::SeqCst);
        true
    }

    /// Whether signals are waiting in the inbox.
    pub fn has_arrivals(&self) -> bool {
        self.arrived.load(Ordering::SeqCst)
    }

    /// Takes every signal out of the inbox, in arrival order.
    pub fn take_arrivals(&self) -> Vec<Signal> {
        if !self.has_arrivals() {
            return Vec::new();
        }
        let mut inbox = self.lock_inbox();
        self.arrived.store(false, Ordering::SeqCst);
        std::mem::take(&mut *inbox)
    }

    /// Puts signals taken out back in front of any that arrived since.
    pub fn put_back(&self, earlier: Vec<Signal>) {
        if earlier.is_empty() {
            return;
        }
        let mut inbox = self.lock_inbox();
        let newer = std::mem::replace(&mut *inbox, earlier);
        inbox.extend(newer);
        self.arrived.store(true, Ordering::SeqCst);
    }

    /// Marks the process exited (no signal gets in after this) and returns
    /// what had arrived.
    pub fn close(&self) -> Vec<Signal> {
        let mut inbox = self.lock_inbox();
        self.state.store(run_state::EXITED, Ordering::Release);
        self.arrived.store(false, Ordering::SeqCst);
        std::mem::take(&mut *inbox)
    }
}

/// A process's private state.
pub struct Process {
    pub pid: Pid,
    /// Value stack: each function's window of slots.
    pub regs: Vec<Term>,
    pub frames: Frames,
    pub handlers: Vec<Handler>,
    /// Current position. While the process runs, `base` is kept current
    /// by the instruction loop (it is not in its locals); `fun` and `pc`
    /// are saved at a slice's end, for built-ins, a receive and an
    /// exception (a call or return does not write them: the loop finds
    /// them from its instruction pointer when it needs them).
    pub fun: FunId,
    pub pc: u32,
    pub base: u32,
    /// Reductions left in the running slice (kept by the instruction
    /// loop, as `base` is; meaningless between slices).
    pub reds: u32,
    pub mailbox: VecDeque<Message>,
    /// Receive scan position in the mailbox.
    pub cursor: usize,
    /// The stack slot (absolute index) holding the message under the cursor
    /// while a receive matches it. The payload is *moved* there, not cloned
    /// (its mailbox entry holds `[]` meanwhile): scanning a long mailbox
    /// then costs no reference counting.
    pub loan: Option<u32>,
    /// The reference this process made last, and how many messages its
    /// mailbox held then: no message before that position can contain it.
    pub recv_mark: Option<(Ref, usize)>,
    pub recv_mode: RecvMode,
    /// Deadline of the current `receive ... after` (set when it first waits).
    pub deadline: Option<Instant>,
    /// The wake-up timer armed for that deadline: (timer id, deadline).
    pub recv_timer: Option<(u64, Instant)>,
    /// Non-message signals that arrived but may not be taken yet (replay).
    pub pending: VecDeque<Signal>,
    pub links: Vec<Pid>,
    /// Monitors this process holds: (reference, monitored pid).
    pub monitors: Vec<(Ref, Pid)>,
    /// Monitors held on this process.
    pub monitored_by: Vec<MonitoredBy>,
    pub trap_exit: bool,
    /// Active aliases this process created (`alias/0,1`, `monitor/3`).
    pub aliases: Vec<(Ref, AliasMode)>,
    /// Monitors made with `{alias, reply_demonitor}`: receiving a message
    /// through their alias removes them.
    pub reply_demonitors: Vec<Ref>,
    /// The group leader (inherited from the parent; `group_leader/2`).
    pub group_leader: Pid,
    pub dict: Vec<(Term, Term)>,
    /// The process this one last sent a message to: a process sends to
    /// the same one again and again (a server, a ping-pong partner), and
    /// finding it here leaves the process table alone, whose slots are
    /// shared by neighbouring pids that other threads send to. `Weak`: a
    /// cache must not keep a process's state alive, nor make a cycle.
    pub last_dest: Option<(Pid, std::sync::Weak<ProcShared>)>,
    /// Number of signals sent so far (the next signal's index).
    pub signals_sent: u64,
    /// Number of events this process has produced (for exit-signal landing).
    pub events: u64,
    /// Replay only: where the process made the last event the Director
    /// accepted whose place in the source is known (function, instruction),
    /// to say where a run departing from its log last agreed with it.
    pub agreed_at: Option<(FunId, u32)>,
    pub refs_made: u32,
    /// Children spawned so far (for symbolic names).
    pub children: u32,
    /// The spawn path: P = [], P.2.1 = [2, 1].
    pub path: Vec<u32>,
    /// The binary under construction (`BsInit` .. `BsFinish`).
    pub bs: Option<BitWriter>,
    /// The byte buffer of the last binary built by appending to another
    /// (`<<Acc/binary, X:32>>`), kept for the next one: an append loop
    /// then allocates no buffer per append.
    pub bs_spare: Vec<u8>,
    /// The function the process was started in (for reports).
    pub initial: (Atom, Atom, u32),
    /// Set when the process must die at the next safe point (reason).
    pub kill: Option<Term>,
    pub observer: Option<Box<dyn ProcessObserver>>,
    /// The observer wants `Deliver` events (see
    /// [`ProcessObserver::wants_deliveries`]), or a Director may.
    pub reports_deliveries: bool,
    /// Report calls and returns to the observer (`RunOptions::trace_calls`).
    pub trace_calls: bool,
    pub director: Option<Box<dyn ProcessDirector>>,
    /// Non-message signals wait for the Director's word (replay) instead of
    /// being taken as they arrive.
    pub directed_signals: bool,
    /// The entry process's return value, or the value a process ended with.
    pub result: Option<Term>,
    /// Replay: the process has ended but waits for a signal its log says it
    /// took before its end (the signal has not arrived yet).
    pub ending: Option<Box<crate::vm::ExitInfo>>,
    /// This process's shared part (set once it is in the table).
    pub me: Option<std::sync::Arc<ProcShared>>,
    /// The parent's pid (for reports).
    pub parent: Option<Pid>,
    /// Shared objects this process has created, by kind (tables, atomics,
    /// counters): the serial of its next one (see [`crate::shared::SharedId`]).
    pub made: [u32; 3],
    /// The table this process used last, by the term that named it: most
    /// programs hit one table over and over, and this spares them the
    /// table registry's lock.
    pub ets_cache: Option<(Term, std::sync::Arc<crate::ets::Table>)>,
    /// Tables this process fixed with `ets:safe_fixtable/2` (released when
    /// it ends, as on BEAM).
    pub ets_fixed: Vec<std::sync::Arc<crate::ets::Table>>,
    /// `--chaos` preempted it before the shared-state operation it is about
    /// to run again; this time the operation goes ahead.
    pub preempted: bool,
    /// The table operation running now was placed by a Director
    /// (`SharedTurn::At`, replay): a name another table still holds then
    /// yields to it, as it had been given up in the recorded run.
    pub placed: bool,
    /// With `placed`: the table's name after the operation, as the log
    /// says it (a rename the recorded run refused keeps the old name).
    pub placed_name: Option<trace_term::Atom>,
    /// Controlled runs: whether the next visible operation may go ahead.
    pub gate: Gate,
    /// Controlled runs: where the current receive's `RecvPeek` is (its
    /// filter says which messages the receive could take).
    pub recv_peek: u32,
    /// Controlled runs: the current receive has an `after` branch, so it
    /// could have ended without a message.
    pub recv_may_time_out: bool,
}

impl Process {
    pub fn new(
        pid: Pid,
        fun: FunId,
        args: Vec<Term>,
        nslots: u16,
        path: Vec<u32>,
        initial: (Atom, Atom, u32),
    ) -> Process {
        let mut regs = Vec::with_capacity((nslots as usize).max(args.len()).max(8));
        regs.extend(args);
        regs.resize(regs.len().max(nslots as usize), Term::Nil);
        Process {
            pid,
            regs,
            frames: Frames::default(),
            handlers: Vec::new(),
            fun,
            pc: 0,
            base: 0,
            reds: 0,
            mailbox: VecDeque::new(),
            cursor: 0,
            loan: None,
            recv_mark: None,
            recv_mode: RecvMode::FirstMatch,
            deadline: None,
            recv_timer: None,
            pending: VecDeque::new(),
            links: Vec::new(),
            monitors: Vec::new(),
            monitored_by: Vec::new(),
            trap_exit: false,
            aliases: Vec::new(),
            reply_demonitors: Vec::new(),
            group_leader: Pid(0),
            dict: Vec::new(),
            last_dest: None,
            signals_sent: 0,
            events: 0,
            agreed_at: None,
            refs_made: 0,
            children: 0,
            path,
            bs: None,
            bs_spare: Vec::new(),
            initial,
            kill: None,
            observer: None,
            reports_deliveries: false,
            trace_calls: false,
            director: None,
            directed_signals: false,
            result: None,
            ending: None,
            me: None,
            parent: None,
            made: [0; 3],
            ets_cache: None,
            ets_fixed: Vec::new(),
            preempted: false,
            placed: false,
            placed_name: None,
            gate: Gate::Native,
            recv_peek: 0,
            recv_may_time_out: false,
        }
    }

    /// Puts the message on loan back in its mailbox entry.
    pub fn return_loan(&mut self) {
        if let Some(s) = self.loan.take() {
            let v = std::mem::replace(&mut self.regs[s as usize], Term::Nil);
            if let Some(m) = self.mailbox.get_mut(self.cursor) {
                m.payload = v;
            }
        }
    }

    /// The next signal identity this process sends.
    pub fn next_signal_id(&mut self) -> SignalId {
        let id = SignalId {
            sender: self.pid,
            index: self.signals_sent,
        };
        self.signals_sent += 1;
        id
    }

    /// A fresh reference, deterministic given the process.
    pub fn make_ref(&mut self) -> Ref {
        self.refs_made = self.refs_made.wrapping_add(1);
        let r = Ref::new(self.pid, self.refs_made);
        self.recv_mark = Some((r, self.mailbox.len()));
        r
    }

    /// The symbolic name: `P`, `P.2`, `P.2.1`.
    pub fn symbolic_name(&self) -> String {
        symbolic_name(&self.path)
    }

    pub fn is_linked(&self, p: Pid) -> bool {
        self.links.contains(&p)
    }

    pub fn add_link(&mut self, p: Pid) {
        if !self.links.contains(&p) {
            self.links.push(p);
        }
    }

    pub fn remove_link(&mut self, p: Pid) {
        self.links.retain(|&x| x != p);
    }

    /// Whether a message sent to alias `r` is let in now; an alias that
    /// ends with its first message is ended here.
    pub fn admit_alias(&mut self, r: Ref) -> bool {
        match self.aliases.iter().position(|(a, _)| *a == r) {
            Some(i) => {
                if matches!(
                    self.aliases[i].1,
                    AliasMode::Reply | AliasMode::ReplyDemonitor
                ) {
                    self.aliases.swap_remove(i);
                }
                true
            }
            None => false,
        }
    }

    /// Ends alias `r` if it was made to end with its monitor.
    pub fn end_monitor_alias(&mut self, r: Ref) {
        self.reply_demonitors.retain(|x| *x != r);
        self.aliases.retain(|(a, m)| {
            *a != r || !matches!(m, AliasMode::Demonitor | AliasMode::ReplyDemonitor)
        });
    }
}

/// `P`, `P.2`, `P.2.1` from a spawn path.
pub fn symbolic_name(path: &[u32]) -> String {
    let mut s = String::from("P");
    for i in path {
        s.push('.');
        s.push_str(&i.to_string());
    }
    s
}
