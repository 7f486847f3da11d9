//! Steps of a controlled run and what they touch, and when two steps are
//! dependent (their order can change what a run does).

use trace_runtime::hooks::RecvFilter;
use trace_term::{Atom, Term};

/// A map keyed by pids, actors, message keys and names, looked up at
/// every event and pair of steps: hashed as the engine's table keys are
/// (multiply and rotate, not SipHash: the keys come from the engine, not
/// an adversary).
pub type FastMap<K, V> = std::collections::HashMap<K, V, trace_runtime::ets::key::KeyHash>;

/// Who takes a step: a process, by its spawn path (interned, so the same
/// process has the same actor in every run), or the timer whose message
/// a step delivers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Actor {
    Process(u32),
    Timer(MsgKey),
}

/// A message's identity across runs: its sender (interned spawn path) and
/// its number among the sender's messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MsgKey {
    pub sender: u32,
    pub index: u64,
}

/// Processes a step may touch that never had a path (a pid made up from a
/// string): they all count as this one.
pub const UNKNOWN: u32 = u32::MAX;

/// One thing a step read or wrote.
#[derive(Clone, Debug)]
pub enum Access {
    /// A message put in `to`'s mailbox.
    Send {
        to: u32,
        msg: MsgKey,
        payload: Term,
    },
    /// A message of a timer set (delivered later by the timer's own step).
    Arm {
        msg: MsgKey,
    },
    /// A pending timer went without firing during this step (its
    /// destination ended, or the step cancelled it): the timer could
    /// have fired before it instead.
    Cancel {
        msg: MsgKey,
    },
    /// A message taken out of the mailbox.
    Receive {
        msg: MsgKey,
    },
    /// A receive timed out.
    Timeout,
    /// Which messages the step's receive could have taken (`None`: any);
    /// `timed_out`: it took none, so a message that fits, sent earlier,
    /// would have been taken instead.
    Filter {
        filter: Option<RecvFilter>,
        timed_out: bool,
    },
    /// A receive with no clauses: no message could have changed it.
    NoClauses,
    /// The step's receive has an `after` branch: it could have run before
    /// the message it took was sent, and timed out.
    MayTimeOut,
    Spawn {
        child: u32,
    },
    /// A link, exit, monitor or `'DOWN'` signal sent to `to`.
    Signal {
        to: u32,
    },
    Name(Atom),
    Liveness(u32),
    /// `process_info` of this process: everything about it.
    Inspect(u32),
    /// The process ended.
    Exit,
    /// A write to standard output.
    Output,
    /// An operation on shared state (ETS, atomics, counters,
    /// persistent_term); `write` unless it only reads.
    Shared {
        write: bool,
    },
    /// The process changed its monitors or how it takes exit signals
    /// (signals to it then do otherwise: see `touches_process`).
    OwnSignals,
}

/// One step: its actor and what it touched.
#[derive(Clone, Debug)]
pub struct Step {
    pub actor: Actor,
    pub accesses: Vec<Access>,
}

/// How two steps of different actors relate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Relation {
    Independent,
    /// Their order may change the run, and either order can happen.
    Race,
    /// The second one needs the first (a message and its receipt, a spawn
    /// and the child's steps, a timer set and fired).
    Causal,
}

/// What the whole run says about the mailboxes, to tell whether two sends
/// to one process race: only when some receive of that process could take
/// both.
#[derive(Default)]
pub struct Context {
    /// For each process, the filters of its receives (`None`: any message).
    pub filters: FastMap<u32, Vec<Option<RecvFilter>>>,
    /// Whether the order of writes to standard output matters.
    pub output_matters: bool,
    /// For each name, the processes some step registered it to.
    pub holders: FastMap<Atom, Vec<u32>>,
    /// Known: every filter of every process is in `filters` and every
    /// registration in `holders` (the run is over). Otherwise any two sends
    /// to one mailbox are dependent, and so is any end with any name.
    pub complete: bool,
}

impl Context {
    /// Whether `a` may hold name `n` (at its end).
    fn may_hold(&self, n: Atom, a: Actor) -> bool {
        !self.complete
            || pid_of(a).is_some_and(|p| self.holders.get(&n).is_some_and(|h| h.contains(&p)))
    }

    fn both_fit(&self, to: u32, a: &Term, b: &Term) -> bool {
        if !self.complete {
            return true;
        }
        let Some(fs) = self.filters.get(&to) else {
            return false;
        };
        fs.iter().any(|f| match f {
            None => true,
            Some(f) => f.admits(a, &[]) && f.admits(b, &[]),
        })
    }
}

fn pid_of(a: Actor) -> Option<u32> {
    match a {
        Actor::Process(p) => Some(p),
        Actor::Timer(_) => None,
    }
}

/// What kinds of access a step made, one bit each: a cheap first test
/// of whether two steps can be dependent at all ([`may_depend`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Kinds(u16);

const SEND: u16 = 1;
const RECEIVE: u16 = 1 << 1;
const ARM: u16 = 1 << 2;
const TIMED_OUT: u16 = 1 << 3;
const NAME: u16 = 1 << 4;
const LIVENESS: u16 = 1 << 5;
const EXIT: u16 = 1 << 6;
const SHARED: u16 = 1 << 7;
const OUTPUT: u16 = 1 << 8;
/// A spawn, a signal or an inspection: it acts on a process as a whole.
const ON_PROCESS: u16 = 1 << 9;

impl Kinds {
    pub fn of(s: &Step) -> Kinds {
        let mut k = 0;
        for a in &s.accesses {
            k |= match a {
                Access::Send { .. } => SEND,
                Access::Receive { .. } => RECEIVE,
                Access::Arm { .. } => ARM,
                Access::Filter {
                    timed_out: true, ..
                } => TIMED_OUT,
                Access::Name(_) => NAME,
                Access::Liveness(_) => LIVENESS,
                Access::Exit => EXIT,
                Access::Shared { .. } => SHARED,
                Access::Output => OUTPUT,
                Access::Spawn { .. } | Access::Signal { .. } | Access::Inspect(_) => ON_PROCESS,
                _ => 0,
            };
        }
        Kinds(k)
    }
}

/// False when steps of kinds `a` (earlier) and `b` (later, of a timer
/// when `b_timer`) of different actors are certainly independent: no
/// pair of their accesses is ever dependent in [`relation`].
pub fn may_depend(a: Kinds, b: Kinds, b_timer: bool) -> bool {
    let (a, b) = (a.0, b.0);
    let has = |k: u16, bits: u16| k & bits != 0;
    let one_way = |x: u16, y: u16| {
        (has(x, SEND) && has(y, SEND | RECEIVE | TIMED_OUT))
            || (has(x, TIMED_OUT) && has(y, SEND))
            || (has(x, NAME) && has(y, NAME | EXIT))
            || (has(x, LIVENESS) && has(y, EXIT))
            || (has(x, SHARED) && has(y, SHARED | EXIT))
            || (has(x, OUTPUT) && has(y, OUTPUT))
            || has(x, ON_PROCESS)
    };
    (has(a, ARM) && b_timer) || one_way(a, b) || one_way(b, a)
}

/// How step `a` (earlier) and step `b` (later) of different actors relate.
pub fn relation(a: &Step, b: &Step, cx: &Context) -> Relation {
    if a.actor == b.actor {
        return Relation::Causal;
    }
    if takes_what_it_could_have_missed(a, b) || cancels(a, b) || cancels(b, a) {
        return Relation::Race;
    }
    let mut rel = Relation::Independent;
    for x in &a.accesses {
        for y in &b.accesses {
            match pair(a.actor, x, b.actor, y, cx) {
                Relation::Causal => return Relation::Causal,
                Relation::Race => rel = Relation::Race,
                Relation::Independent => {}
            }
        }
    }
    if rel == Relation::Independent {
        rel = touches_process(a, b).max_with(touches_process(b, a));
    }
    rel
}

/// Whether `b` is a receive with an `after` branch that took a message `a`
/// sent: the two race, for `b` run first would have timed out (a receive
/// without `after` is only enabled once the message is there, and stays
/// caused by the send).
fn takes_what_it_could_have_missed(a: &Step, b: &Step) -> bool {
    if !b.accesses.iter().any(|x| matches!(x, Access::MayTimeOut)) {
        return false;
    }
    a.accesses.iter().any(|x| match x {
        Access::Send { msg, .. } => b
            .accesses
            .iter()
            .any(|y| matches!(y, Access::Receive { msg: m } if m == msg)),
        _ => false,
    })
}

/// Whether `a` made the timer that takes step `b` go without firing.
/// The two never both happen in one run; this tells a sleep set that a
/// timer's delivery wakes the step that cancelled it.
fn cancels(a: &Step, b: &Step) -> bool {
    let Actor::Timer(m) = b.actor else {
        return false;
    };
    a.accesses
        .iter()
        .any(|x| matches!(x, Access::Cancel { msg } if *msg == m))
}

impl Relation {
    fn max_with(self, o: Relation) -> Relation {
        match (self, o) {
            (Relation::Causal, _) | (_, Relation::Causal) => Relation::Causal,
            (Relation::Race, _) | (_, Relation::Race) => Relation::Race,
            _ => Relation::Independent,
        }
    }
}

/// Whether `a` acts on `b`'s process as a whole: a signal to it (it lands
/// before or after any of its steps), a spawn of it, an inspection.
fn touches_process(a: &Step, b: &Step) -> Relation {
    let Some(p) = pid_of(b.actor) else {
        return Relation::Independent;
    };
    let mut rel = Relation::Independent;
    for x in &a.accesses {
        match x {
            Access::Spawn { child } if *child == p => return Relation::Causal,
            Access::Signal { to } | Access::Inspect(to) if *to == p || *to == UNKNOWN => {
                rel = Relation::Race
            }
            _ => {}
        }
    }
    rel
}

/// How one access of actor `pa` relates to one of a later actor `pb`.
fn pair(pa: Actor, x: &Access, pb: Actor, y: &Access, cx: &Context) -> Relation {
    use Access::*;
    match (x, y) {
        (Send { msg, .. }, Receive { msg: m }) if msg == m => Relation::Causal,
        (Arm { msg }, _) if pb == Actor::Timer(*msg) => Relation::Causal,
        (
            Send {
                to: t1, payload: a, ..
            },
            Send {
                to: t2, payload: b, ..
            },
        ) if t1 == t2 => race(cx.both_fit(*t1, a, b)),
        // A message that arrives before a receive times out may be taken
        // instead; one that the receive took was sent before it anyway.
        (
            Send { to, payload, .. },
            Filter {
                filter,
                timed_out: true,
            },
        )
        | (
            Filter {
                filter,
                timed_out: true,
            },
            Send { to, payload, .. },
        ) => {
            let receiver = if matches!(x, Send { .. }) { pb } else { pa };
            race(
                pid_of(receiver) == Some(*to)
                    && filter.as_ref().is_none_or(|f| f.admits(payload, &[])),
            )
        }
        (Name(a), Name(b)) => race(a == b),
        (Liveness(p), Exit) => race(pid_of(pb) == Some(*p)),
        (Exit, Liveness(p)) => race(pid_of(pa) == Some(*p)),
        // A process's end frees the names it holds and the tables it owns.
        (Exit, Name(n)) => race(cx.may_hold(*n, pa)),
        (Name(n), Exit) => race(cx.may_hold(*n, pb)),
        (Exit, Shared { .. }) | (Shared { .. }, Exit) => Relation::Race,
        (Shared { write: w1 }, Shared { write: w2 }) => race(*w1 || *w2),
        (Output, Output) => race(cx.output_matters),
        _ => Relation::Independent,
    }
}

fn race(b: bool) -> Relation {
    if b {
        Relation::Race
    } else {
        Relation::Independent
    }
}
