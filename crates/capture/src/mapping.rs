//! How an engine event becomes a log event: the one mapping from the
//! runtime's vocabulary (raw pids, terms) to the log's (dense process ids,
//! ETF payloads). The recorder writes what [`Translator::log_event`] gives;
//! the replayer compares it with the logged event.

use crate::flags::RecordFlags;
use crate::pidmap::PidMap;
use trace_format::{
    Access, Dest, EventRef, MsgId, NondetKind, ObjectId, ObjectKind, ProcId, SignalEffect,
    SignalKindRef,
};
use trace_runtime::hooks::{self, Effect, SentSignal};
use trace_runtime::process;
use trace_runtime::shared::{self, SharedId, SharedKind, SharedOp};
use trace_term::{Pid, Term};

/// Names behind `NondetKind::Other(n)`, in `n` order (written to the header).
pub const OTHER_NONDET: &[&str] = &[
    "other",
    "cancel_timer",
    "read_timer",
    "localtime",
    "universaltime",
    "date",
    "time",
    "statistics",
    "store",
    "system_info",
    "getenv",
];

/// The log's kind of a nondeterministic built-in.
pub fn nondet_kind(k: hooks::NondetBif) -> NondetKind {
    use hooks::NondetBif as K;
    match k {
        K::MonotonicTime => NondetKind::MonotonicTime,
        K::SystemTime => NondetKind::SystemTime,
        K::Timestamp => NondetKind::Timestamp,
        K::UniqueInteger => NondetKind::UniqueInteger,
        K::Random => NondetKind::Random,
        K::Whereis => NondetKind::Whereis,
        K::Register => NondetKind::Register,
        K::Registered => NondetKind::Registered,
        K::IsProcessAlive => NondetKind::IsProcessAlive,
        K::Processes => NondetKind::Processes,
        K::ProcessInfo => NondetKind::ProcessInfo,
        K::Other(name) => {
            NondetKind::Other(OTHER_NONDET.iter().position(|n| *n == name).unwrap_or(0) as u16)
        }
    }
}

fn effect(e: Effect) -> SignalEffect {
    match e {
        Effect::Applied => SignalEffect::Applied,
        Effect::Ignored => SignalEffect::Ignored,
        Effect::Converted => SignalEffect::Converted,
        Effect::Killed => SignalEffect::Killed,
    }
}

/// A signal's kind in the log, its reason (if recorded) already encoded.
fn signal_kind<'a>(s: SentSignal<'_>, reason: Option<&'a [u8]>) -> SignalKindRef<'a> {
    match s {
        SentSignal::Link => SignalKindRef::Link,
        SentSignal::Unlink => SignalKindRef::Unlink,
        SentSignal::Monitor => SignalKindRef::Monitor,
        SentSignal::Demonitor => SignalKindRef::Demonitor,
        SentSignal::Exit { linked, .. } => SignalKindRef::Exit { reason, linked },
        SentSignal::Down { .. } => SignalKindRef::Down { reason },
    }
}

/// The term an event carries into the log, if it is kept: payloads and
/// reasons when the flags say so, nondeterministic results always (replay
/// needs them).
fn logged_term<'e>(ev: &hooks::Event<'e>, flags: RecordFlags) -> Option<&'e Term> {
    match *ev {
        hooks::Event::Send { payload: t, .. } | hooks::Event::Exit { reason: t } => {
            flags.payloads.then_some(t)
        }
        hooks::Event::Signal {
            signal: SentSignal::Exit { reason: t, .. } | SentSignal::Down { reason: t },
            ..
        } => flags.payloads.then_some(t),
        hooks::Event::Nondet { value, .. } => Some(value),
        _ => None,
    }
}

/// A pid and the dense id it was found to have: a process mostly talks to
/// the same few partners, so one entry saves most lookups.
type LastId = (u64, ProcId);

const NO_ID: LastId = (u64::MAX, ProcId::UNKNOWN);

/// One process's side of the mapping: the flags, one-entry caches of pid
/// lookups (one for destinations, one for senders: a process that relays
/// would make a single entry miss every time), and scratch space for ETF.
pub struct Translator {
    flags: RecordFlags,
    last_dest: LastId,
    last_sender: LastId,
    etf: Vec<u8>,
}

impl Translator {
    pub fn new(flags: RecordFlags) -> Translator {
        Translator {
            flags,
            last_dest: NO_ID,
            last_sender: NO_ID,
            etf: Vec::new(),
        }
    }

    /// Notes that `pid` is the log's `id` (a new process's parent, which it
    /// most likely sends to or hears from first), sparing a lookup.
    pub fn knows(&mut self, pid: u64, id: ProcId) {
        self.last_dest = (pid, id);
        self.last_sender = (pid, id);
    }

    pub fn flags(&self) -> RecordFlags {
        self.flags
    }

    fn id_of(pids: &PidMap, last: &mut LastId, pid: Pid) -> Option<ProcId> {
        let n = pid.number();
        if last.0 == n {
            return Some(last.1);
        }
        let id = pids.get(n)?;
        *last = (n, id);
        Some(id)
    }

    /// Where a signal to `pid` went: a process of the log, or a pid no
    /// process of the log had.
    pub fn dest(&mut self, pids: &PidMap, pid: Pid) -> Dest {
        match Self::id_of(pids, &mut self.last_dest, pid) {
            Some(id) => Dest::Proc(id),
            None => Dest::Foreign(pid.number()),
        }
    }

    /// A signal's identity in the log. Every sender was registered before it
    /// could send, so an unknown one is a broken invariant.
    pub fn msg(&mut self, pids: &PidMap, id: process::SignalId) -> MsgId {
        MsgId {
            sender: Self::id_of(pids, &mut self.last_sender, id.sender).unwrap_or(ProcId::UNKNOWN),
            index: id.index,
        }
    }

    /// A send whose payload the log keeps, as the destination and the
    /// term: the recorder encodes the term straight into its block
    /// ([`trace_format::Slice::push_send_with`]) rather than into this
    /// translator's scratch space to be copied. `None` for any other event,
    /// which goes through [`Translator::log_event`].
    #[inline]
    pub fn send_with_payload<'e>(
        &mut self,
        pids: &PidMap,
        ev: &hooks::Event<'e>,
    ) -> Option<(Dest, &'e Term)> {
        match *ev {
            hooks::Event::Send { to, payload, .. } if self.flags.payloads => {
                Some((self.dest(pids, to), payload))
            }
            _ => None,
        }
    }

    /// The reason of an `Exit` whose reason is logged, for the recorder's
    /// direct path ([`trace_format::Slice::push_exit_with`]); `None` for
    /// any other event.
    #[inline]
    pub fn exit_reason<'e>(&self, ev: &hooks::Event<'e>) -> Option<&'e Term> {
        match *ev {
            hooks::Event::Exit { reason } if self.flags.payloads => Some(reason),
            _ => None,
        }
    }

    /// The message a `Receive` took, for the recorder's direct path
    /// ([`trace_format::Slice::push_receive`]); `None` for any other event.
    #[inline]
    pub fn receipt(&mut self, pids: &PidMap, ev: &hooks::Event<'_>) -> Option<MsgId> {
        match *ev {
            hooks::Event::Receive { id, .. } => Some(self.msg(pids, id)),
            _ => None,
        }
    }

    /// The log event the engine event `ev` is recorded as. `own` is the
    /// identity a `Send` or `Signal` takes (the writer assigns its own; the
    /// replayer passes the next one the process log expects). A term is
    /// encoded into this translator's scratch space, so mapping allocates
    /// nothing once it has warmed up. `Deliver` is mapped whatever the
    /// flags say: whether to keep it is the recorder's decision.
    pub fn log_event<'a>(
        &'a mut self,
        pids: &PidMap,
        ev: &hooks::Event<'a>,
        own: MsgId,
    ) -> EventRef<'a> {
        // Identities first: they need `self` mutably, the payload borrows it.
        let (dest, msg) = match *ev {
            hooks::Event::Send { to, .. } | hooks::Event::Signal { to, .. } => {
                (self.dest(pids, to), None)
            }
            hooks::Event::Deliver { id }
            | hooks::Event::Receive { id, .. }
            | hooks::Event::SignalTaken { id, .. } => (Dest::Unknown, Some(self.msg(pids, id))),
            _ => (Dest::Unknown, None),
        };
        let msg = msg.unwrap_or(own);
        let term = logged_term(ev, self.flags);
        self.etf.clear();
        if let Some(t) = term {
            trace_term::etf::encode(t, &mut self.etf);
        }
        let bytes = term.map(|_| &self.etf[..]);
        match *ev {
            hooks::Event::Spawn {
                child,
                link,
                monitor,
            } => EventRef::Spawn {
                child: pids.get(child.number()).unwrap_or(ProcId::UNKNOWN),
                pid: child.number(),
                link,
                monitor,
            },
            hooks::Event::Send { .. } => EventRef::Send {
                msg: own,
                to: dest,
                payload: bytes,
            },
            hooks::Event::Deliver { .. } => EventRef::Deliver { msg },
            hooks::Event::Receive { .. } => EventRef::Receive { msg },
            hooks::Event::Timeout => EventRef::Timeout,
            hooks::Event::Signal { signal, .. } => EventRef::Signal {
                signal: own,
                to: dest,
                kind: signal_kind(signal, bytes),
            },
            hooks::Event::SignalTaken { effect: e, .. } => EventRef::SignalTaken {
                signal: msg,
                effect: effect(e),
            },
            hooks::Event::Nondet { kind, .. } => EventRef::Nondet {
                kind: nondet_kind(kind),
                value: bytes.unwrap_or_default(),
            },
            hooks::Event::Output { seq, bytes } => EventRef::Output {
                seq,
                bytes: self.flags.output.then_some(bytes),
            },
            hooks::Event::Exit { .. } => EventRef::Exit { reason: bytes },
            hooks::Event::Blocked { stuck } => EventRef::Blocked { stuck },
        }
    }

    /// The log event an operation on shared state is recorded as. Its key
    /// is kept with the payloads, and a table's name when the operation
    /// names it anew (its creation, a rename).
    pub fn shared_event<'a>(
        &'a mut self,
        pids: &PidMap,
        functions: &SharedFunctions,
        op: &SharedOp<'_>,
    ) -> EventRef<'a> {
        let object = op.object.map(|o| object_id(pids, o));
        let access = access(op.access);
        let function = functions.index(op.function);
        let with_name = matches!(access, Access::Create) || op.function == "rename";
        self.etf.clear();
        let key_at = self.flags.payloads.then(|| {
            if let Some(k) = op.key {
                trace_term::etf::encode(k, &mut self.etf);
            }
            self.etf.len()
        });
        let name_term = op.name.filter(|_| with_name && self.flags.payloads);
        if let Some(n) = name_term {
            trace_term::etf::encode(&Term::Atom(n), &mut self.etf);
        }
        let split = key_at.unwrap_or(0);
        let (key, name) = self.etf.split_at(split);
        EventRef::Shared {
            object,
            access,
            function,
            seq: op.seq,
            key: (op.key.is_some() && key_at.is_some()).then_some(key),
            name: name_term.map(|_| name),
        }
    }
}

/// The log's identity of a shared object: its creator as a process of the
/// log (the `persistent_term` store, which no process creates, has
/// [`ProcId::UNKNOWN`]).
pub fn object_id(pids: &PidMap, o: SharedId) -> ObjectId {
    let kind = match o.kind {
        SharedKind::Table => ObjectKind::Table,
        SharedKind::Atomics => ObjectKind::Atomics,
        SharedKind::Counters => ObjectKind::Counters,
        SharedKind::PersistentTerm => ObjectKind::PersistentTerm,
    };
    ObjectId {
        kind,
        creator: pids.get(o.creator.number()).unwrap_or(ProcId::UNKNOWN),
        serial: o.serial,
    }
}

/// The engine's identity of a logged shared object, given the raw pid of
/// each process of the log.
pub fn shared_id(o: ObjectId, pid_of: impl Fn(ProcId) -> Option<u64>) -> SharedId {
    let kind = match o.kind {
        ObjectKind::Table => SharedKind::Table,
        ObjectKind::Atomics => SharedKind::Atomics,
        ObjectKind::Counters => SharedKind::Counters,
        ObjectKind::PersistentTerm => return SharedId::PERSISTENT_TERM,
    };
    SharedId {
        kind,
        creator: Pid(pid_of(o.creator).unwrap_or(u64::MAX)),
        serial: o.serial,
    }
}

fn access(a: shared::Access) -> Access {
    match a {
        shared::Access::Create => Access::Create,
        shared::Access::Read => Access::Read,
        shared::Access::Write => Access::Write,
        shared::Access::ReadWrite => Access::ReadWrite,
        shared::Access::Delete => Access::Delete,
        shared::Access::Transfer => Access::Transfer,
    }
}

/// The functions a `Shared` event names by number: the engine's list when
/// recording (the header records it), a log's own when replaying it.
pub struct SharedFunctions {
    names: Vec<String>,
    index: std::collections::HashMap<String, u16>,
}

impl Default for SharedFunctions {
    fn default() -> Self {
        let names: Vec<String> = shared::function_names()
            .into_iter()
            .map(String::from)
            .collect();
        Self::of_names(&names)
    }
}

/// The number a function the list lacks is recorded as (none should be).
pub const UNKNOWN_FUNCTION: u16 = u16::MAX;

impl SharedFunctions {
    /// The list a log's header holds.
    pub fn of_names(names: &[String]) -> SharedFunctions {
        SharedFunctions {
            names: names.to_vec(),
            index: names
                .iter()
                .enumerate()
                .filter_map(|(i, n)| Some((n.clone(), u16::try_from(i).ok()?)))
                .collect(),
        }
    }

    /// The list, for the header.
    pub fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    pub fn index(&self, f: &str) -> u16 {
        self.index.get(f).copied().unwrap_or(UNKNOWN_FUNCTION)
    }
}
