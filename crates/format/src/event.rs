//! The events of a process log (DESIGN §4): what one process did, in its own order.
//!
//! A log is one sequence of events per process; there is no global order. A
//! message (and every other signal) is named by its sender and the sender's
//! signal index: the k-th signal a process sends (counting messages, link,
//! unlink, exit, monitor, demonitor and 'DOWN' signals alike, from 0) is
//! `MsgId { sender, index: k }`. The index is implicit in the sender's log: it is
//! the number of `Send` and `Signal` events before it.

/// A process's dense index in one log (the entry process is 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ProcId(pub u32);

impl ProcId {
    /// No process of the log: what a mapping gives a pid the log never
    /// registered (a broken invariant, or a process whose blocks were lost).
    pub const UNKNOWN: ProcId = ProcId(u32::MAX);

    /// Where this process stands in `procs`, a list sorted by id: at its own
    /// index when the ids are dense (the usual case), else found by binary
    /// search.
    #[inline]
    pub fn position_in<T>(self, procs: &[T], id_of: impl Fn(&T) -> ProcId) -> Option<usize> {
        match procs.get(self.0 as usize) {
            Some(p) if id_of(p) == self => Some(self.0 as usize),
            _ => procs.binary_search_by_key(&self, id_of).ok(),
        }
    }
}

/// The identity of a signal (a message is a signal): its sender and the sender's
/// signal index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MsgId {
    pub sender: ProcId,
    pub index: u64,
}

/// A term in the External Term Format (with its leading 131 version byte).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Payload(pub Vec<u8>);

impl Payload {
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Where a signal was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    /// A process of this log.
    Proc(ProcId),
    /// A pid that no process of this log had (`<0.N.0>` number); the signal went nowhere.
    Foreign(u64),
    /// The log does not say (imported logs, e.g. CauDEr's, record no destination).
    Unknown,
}

/// Non-message signals (Bereczky et al. 2024's signals, plus monitors).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SignalKind {
    Link,
    Unlink,
    /// An exit signal. `linked` is true when it was sent because a linked process
    /// ended (the "link-triggered" flag of Bereczky et al. 2024), false for `exit/2`.
    Exit {
        reason: Option<Payload>,
        linked: bool,
    },
    Monitor,
    Demonitor,
    /// The monitored process ended; delivered as a `{'DOWN', Ref, process, Pid, Reason}` message.
    Down {
        reason: Option<Payload>,
    },
}

/// What a signal was, without its reason: the one list of signal classes
/// every reader names signals by. A message is a signal too.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SignalClass {
    Message,
    Link,
    Unlink,
    /// An exit signal; `linked` when a linked process's end sent it.
    Exit {
        linked: bool,
    },
    Monitor,
    Demonitor,
    Down,
}

impl SignalClass {
    pub fn is_message(self) -> bool {
        self == SignalClass::Message
    }

    /// Exit and 'DOWN' signals may become messages when taken.
    pub fn converts(self) -> bool {
        matches!(self, SignalClass::Exit { .. } | SignalClass::Down)
    }

    /// The word `trace dump` writes after `signal`: `link`, `exit`, `down`.
    pub fn name(self) -> &'static str {
        match self {
            SignalClass::Message => "message",
            SignalClass::Link => "link",
            SignalClass::Unlink => "unlink",
            SignalClass::Exit { .. } => "exit",
            SignalClass::Monitor => "monitor",
            SignalClass::Demonitor => "demonitor",
            SignalClass::Down => "down",
        }
    }

    /// What prose calls it: `a message`'s noun, `link signal`, `'DOWN' signal`.
    pub fn noun(self) -> &'static str {
        match self {
            SignalClass::Message => "message",
            SignalClass::Link => "link signal",
            SignalClass::Unlink => "unlink signal",
            SignalClass::Exit { .. } => "exit signal",
            SignalClass::Monitor => "monitor signal",
            SignalClass::Demonitor => "demonitor signal",
            SignalClass::Down => "'DOWN' signal",
        }
    }
}

/// What taking a signal did to the process that took it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SignalEffect {
    /// Link, unlink, monitor or demonitor bookkeeping was updated.
    Applied,
    /// The signal had no effect (e.g. an exit signal with reason `normal` to a
    /// process not trapping exits).
    Ignored,
    /// The signal became a message in the mailbox (`{'EXIT', From, Reason}` when
    /// trapping exits, or `{'DOWN', ...}`); a later `Receive` names it by the same id.
    Converted,
    /// The process died of it; its `Exit` event follows.
    Killed,
}

/// Which nondeterministic built-in produced a `Nondet` value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NondetKind {
    /// erlang:monotonic_time/0,1
    MonotonicTime,
    /// erlang:system_time/0,1, os:system_time/0,1
    SystemTime,
    /// erlang:timestamp/0, os:timestamp/0, erlang:now/0
    Timestamp,
    /// erlang:unique_integer/0,1
    UniqueInteger,
    /// rand:uniform/0,1, rand:uniform_real/0 and other draws from the random source
    Random,
    /// erlang:whereis/1, and the name lookup of `Name ! Msg`
    Whereis,
    /// erlang:register/2 and unregister/1 (`true`, or the atom `badarg` when it failed)
    Register,
    /// erlang:registered/0
    Registered,
    /// erlang:is_process_alive/1
    IsProcessAlive,
    /// erlang:processes/0
    Processes,
    /// erlang:process_info/1,2
    ProcessInfo,
    /// Any other nondeterministic built-in; the log's header lists its name.
    Other(u16),
}

/// What kind of shared object an operation touched.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKind {
    /// An ETS table.
    Table,
    /// An array made by `atomics:new/2`.
    Atomics,
    /// An array made by `counters:new/2`.
    Counters,
    /// The `persistent_term` store, one per run.
    PersistentTerm,
}

impl ObjectKind {
    pub const ALL: [ObjectKind; 4] = [
        ObjectKind::Table,
        ObjectKind::Atomics,
        ObjectKind::Counters,
        ObjectKind::PersistentTerm,
    ];

    /// How `trace dump` names it.
    pub fn name(self) -> &'static str {
        match self {
            ObjectKind::Table => "table",
            ObjectKind::Atomics => "atomics",
            ObjectKind::Counters => "counters",
            ObjectKind::PersistentTerm => "persistent_term",
        }
    }
}

/// A shared object's identity in a log: the process that created it and how
/// many objects of the same kind that process had created before (its first
/// table is serial 0), as a message is named by its sender and index: the
/// same in every run that creates the same objects. The `persistent_term`
/// store, which no process creates, has creator [`ProcId::UNKNOWN`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    pub kind: ObjectKind,
    pub creator: ProcId,
    pub serial: u32,
}

/// What an operation did to the shared object it touched.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Made it (its first operation, number 0).
    Create,
    /// Read it (`lookup`, `get`, `info`, `select`, ...).
    Read,
    /// Changed it without reading (`insert`, `put`, ...).
    Write,
    /// Read and changed it in one step (`update_counter`, `take`, ...).
    ReadWrite,
    /// Deleted it (`ets:delete/1`, or its owner's end).
    Delete,
    /// Gave it another owner (`give_away`, the heir at the owner's end).
    Transfer,
}

impl Access {
    pub const ALL: [Access; 6] = [
        Access::Create,
        Access::Read,
        Access::Write,
        Access::ReadWrite,
        Access::Delete,
        Access::Transfer,
    ];

    /// Whether it changes the object: two operations on one object are
    /// ordered (happened-before) unless both only read it.
    pub fn writes(self) -> bool {
        self != Access::Read
    }

    pub fn name(self) -> &'static str {
        match self {
            Access::Create => "create",
            Access::Read => "read",
            Access::Write => "write",
            Access::ReadWrite => "read_write",
            Access::Delete => "delete",
            Access::Transfer => "transfer",
        }
    }
}

/// One event of a process log.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// This process created `child`; `pid` is the child's raw pid number (`<0.N.0>`).
    Spawn {
        child: ProcId,
        pid: u64,
        link: bool,
        monitor: bool,
    },
    /// This process sent a message: its next signal index names it.
    Send { to: Dest, payload: Option<Payload> },
    /// A message entered this process's mailbox (only when deliveries are recorded).
    Deliver { msg: MsgId },
    /// A `receive` consumed the message `msg` (the nondeterministic choice).
    Receive { msg: MsgId },
    /// A `receive ... after` took its `after` branch.
    Timeout,
    /// This process sent a non-message signal; it takes the next signal index.
    Signal { to: Dest, kind: SignalKind },
    /// This process took the signal `signal` at this point of its steps.
    SignalTaken { signal: MsgId, effect: SignalEffect },
    /// The result of a nondeterministic built-in (always recorded: replay needs it).
    Nondet { kind: NondetKind, value: Payload },
    /// The process wrote to standard output. `seq` is the write's position among
    /// all writes of the run (output order across processes is a choice too);
    /// the bytes are present only when output is recorded.
    Output { seq: u64, bytes: Option<Vec<u8>> },
    /// The process ended with this reason (`normal` or the crash reason).
    Exit { reason: Option<Payload> },
    /// An operation on shared state (an ETS table, an `atomics` or
    /// `counters` array, `persistent_term`): the object (`None` when the
    /// operation found none and failed), what it did, the function (an
    /// index into the header's `shared_functions`), its place `seq` among
    /// all operations on the object (the order of operations on one object
    /// is a choice, as a receipt is), and when payloads are recorded the
    /// key it was about and a named table's name.
    Shared {
        object: Option<ObjectId>,
        access: Access,
        function: u16,
        seq: u64,
        key: Option<Payload>,
        name: Option<Payload>,
    },
    /// The run ended with this process waiting in `receive`: idle (a
    /// server waiting for work) or stuck (waiting for something particular
    /// that nothing left can send: a deadlock).
    Blocked { stuck: bool },
}

impl Event {
    /// True for the events that take a signal index of this process.
    pub fn sends_signal(&self) -> bool {
        matches!(self, Event::Send { .. } | Event::Signal { .. })
    }

    /// The event's kind.
    pub fn kind(&self) -> EventKind {
        match self {
            Event::Spawn { .. } => EventKind::Spawn,
            Event::Send { .. } => EventKind::Send,
            Event::Deliver { .. } => EventKind::Deliver,
            Event::Receive { .. } => EventKind::Receive,
            Event::Timeout => EventKind::Timeout,
            Event::Signal { .. } => EventKind::Signal,
            Event::SignalTaken { .. } => EventKind::SignalTaken,
            Event::Nondet { .. } => EventKind::Nondet,
            Event::Output { .. } => EventKind::Output,
            Event::Exit { .. } => EventKind::Exit,
            Event::Shared { .. } => EventKind::Shared,
            Event::Blocked { .. } => EventKind::Blocked,
        }
    }
}

/// The kinds of events of a process log: the one list every command names
/// them by (`trace dump`, `stats`, `--json`, reports).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    Spawn,
    Send,
    Deliver,
    Receive,
    Timeout,
    Signal,
    SignalTaken,
    Nondet,
    Output,
    Exit,
    Shared,
    Blocked,
}

impl EventKind {
    /// Every kind, in the order `trace stats` lists them.
    pub const ALL: [EventKind; 12] = [
        EventKind::Spawn,
        EventKind::Send,
        EventKind::Deliver,
        EventKind::Receive,
        EventKind::Timeout,
        EventKind::Signal,
        EventKind::SignalTaken,
        EventKind::Nondet,
        EventKind::Output,
        EventKind::Exit,
        EventKind::Shared,
        EventKind::Blocked,
    ];

    /// Its short lowercase name, as `trace dump`, `stats` and `--json` show it.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Spawn => "spawn",
            EventKind::Send => "send",
            EventKind::Deliver => "deliver",
            EventKind::Receive => "receive",
            EventKind::Timeout => "timeout",
            EventKind::Signal => "signal",
            EventKind::SignalTaken => "signal_taken",
            EventKind::Nondet => "nondet",
            EventKind::Output => "output",
            EventKind::Exit => "exit",
            EventKind::Shared => "shared",
            EventKind::Blocked => "blocked",
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One process's log, decoded: its identity and its events in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessLog {
    pub id: ProcId,
    /// The raw pid number (`<0.N.0>`) the process had in the recorded run.
    pub pid: u64,
    /// The process that spawned it (`None` for the entry process).
    pub parent: Option<ProcId>,
    pub events: Vec<Event>,
}
