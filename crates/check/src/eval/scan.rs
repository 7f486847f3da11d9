//! What only the decoded events hold — payloads, reasons, nondeterministic
//! values, timeouts — is matched while the causal model decodes the log:
//! each block's events go through a [`BlockScan`] on the thread decoding the
//! block, so the log is read once. Names (`<P.2>`) are not resolved yet at
//! that point: a named process is matched as a variable and its value kept
//! with the match, to be compared with the name's pid afterwards. What
//! matches is kept as *hits*; everything else about events — who spawned,
//! sent, received what — comes from the causal model's facts
//! ([`super::source`]).
//!
//! A `receive` names its message but does not hold it, so a predicate on
//! what a process received is matched where the message is: at its send,
//! with the receiver taken from the send's destination. Its hits are filed
//! under the receiver, keyed by the message, and joined with the receiver's
//! receipts — a lookup in a short list of the receiver's own, not a jump
//! into the sender's.

use super::matcher::{match_view, Env, Plan, TermIn, View};
use super::tables::{is_table, TableNames};
use crate::compiled::{CompiledPredicate, CompiledProperty};
use crate::spec::PredicateKind;
use trace_causal::EventVisitor;
use trace_format::text::shared_function;
use trace_format::{
    BlockInfo, Dest, EventRef, LogReader, MsgId, NondetKind, ProcId, SignalKindRef,
};
use trace_term::{Pid, Ref, Term};

/// What a hit is keyed by, and whose it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Keyed {
    /// The event's index in its process's log.
    Event,
    /// The signal index of a message, with its sender.
    Sent,
    /// The message ([`pack`]ed sender and signal index), with its receiver.
    Received,
}

/// A message's identity in one number (signal indices of a log the model
/// takes fit in 32 bits).
pub fn pack(sender: ProcId, index: u64) -> Option<u64> {
    (index <= u32::MAX as u64).then_some((sender.0 as u64) << 32 | index)
}

/// No process: the message's receiver is not recorded (imported logs).
const NOBODY: u32 = u32::MAX;

/// One predicate the scan feeds.
pub struct Task {
    pub prop: usize,
    pub pred: usize,
    pub keyed: Keyed,
}

/// Which predicates need the scan, and how their hits are keyed.
pub fn tasks(props: &[&CompiledProperty]) -> Vec<Task> {
    let mut tasks = Vec::new();
    for (i, p) in props.iter().enumerate() {
        for (k, pred) in p.preds.iter().enumerate() {
            let keyed = match pred.kind {
                PredicateKind::Timeout | PredicateKind::Nondet | PredicateKind::Ets => {
                    Some(Keyed::Event)
                }
                PredicateKind::Send
                | PredicateKind::Exit
                | PredicateKind::ExitSignal
                | PredicateKind::Down
                    if pred.reads_terms() =>
                {
                    Some(Keyed::Event)
                }
                PredicateKind::Receive | PredicateKind::Deliver | PredicateKind::Killed
                    if pred.reads_terms() =>
                {
                    Some(Keyed::Received)
                }
                PredicateKind::Unreceived if pred.reads_terms() => Some(Keyed::Sent),
                _ => None,
            };
            if let Some(keyed) = keyed {
                tasks.push(Task {
                    prop: i,
                    pred: k,
                    keyed,
                });
            }
        }
    }
    tasks
}

/// The tasks, sorted by the kind of event they look at.
pub struct Scanner<'a> {
    props: &'a [&'a CompiledProperty],
    tasks: &'a [Task],
    reader: &'a LogReader,
    /// Per property: every variable unbound.
    blank: Vec<Env>,
    /// Per task: the cheap path, when the predicate has one.
    plans: Vec<Option<Plan>>,
    /// Per task: its predicate's kind.
    kinds: Vec<PredicateKind>,
    on_send: Vec<usize>,
    on_signal: Vec<usize>,
    on_timeout: Vec<usize>,
    on_exit: Vec<usize>,
    on_nondet: Vec<usize>,
    on_shared: Vec<usize>,
    /// Read when some predicate is `ets`.
    tables: TableNames,
    /// With `on_shared`: each shared-state function of the header as the
    /// atom an `ets` predicate matches, made once rather than per event.
    shared_ops: Vec<Term>,
}

impl<'a> Scanner<'a> {
    pub fn new(
        props: &'a [&'a CompiledProperty],
        tasks: &'a [Task],
        reader: &'a LogReader,
    ) -> Self {
        let mut s = Scanner {
            props,
            tasks,
            reader,
            blank: props.iter().map(|p| vec![None; p.vars.len()]).collect(),
            plans: Vec::new(),
            kinds: tasks
                .iter()
                .map(|t| props[t.prop].preds[t.pred].kind)
                .collect(),
            on_send: Vec::new(),
            on_signal: Vec::new(),
            on_timeout: Vec::new(),
            on_exit: Vec::new(),
            on_nondet: Vec::new(),
            on_shared: Vec::new(),
            tables: TableNames::default(),
            shared_ops: Vec::new(),
        };
        s.plans = tasks
            .iter()
            .map(|t| Plan::of(&props[t.prop].preds[t.pred], &s.blank[t.prop]))
            .collect();
        for (i, t) in tasks.iter().enumerate() {
            let list = match props[t.prop].preds[t.pred].kind {
                PredicateKind::Send | PredicateKind::Unreceived => &mut s.on_send,
                PredicateKind::Receive | PredicateKind::Deliver => {
                    s.on_signal.push(i);
                    &mut s.on_send
                }
                PredicateKind::ExitSignal | PredicateKind::Down | PredicateKind::Killed => {
                    &mut s.on_signal
                }
                PredicateKind::Timeout => &mut s.on_timeout,
                PredicateKind::Exit => &mut s.on_exit,
                PredicateKind::Nondet => &mut s.on_nondet,
                PredicateKind::Ets => &mut s.on_shared,
                _ => continue,
            };
            list.push(i);
        }
        if !s.on_shared.is_empty() {
            s.tables = TableNames::read(reader);
            let functions = 0..reader.header().shared_functions.len();
            s.shared_ops = functions
                .map(|f| Term::atom(&shared_function(reader.header(), f as u16)))
                .collect();
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The tables the log created, as `ets` predicates name them (read
    /// only when some predicate is `ets`).
    pub fn tables(&self) -> &TableNames {
        &self.tables
    }

    /// The visitor for one block.
    pub fn block(&self, info: &BlockInfo) -> BlockScan<'_> {
        BlockScan {
            s: self,
            process: info.process,
            me: info.pid,
            hits: Vec::new(),
            vals: Vec::new(),
            env: Vec::new(),
        }
    }

    #[inline]
    fn pred(&self, t: usize) -> (&CompiledPredicate, &Env) {
        let task = &self.tasks[t];
        (
            &self.props[task.prop].preds[task.pred],
            &self.blank[task.prop],
        )
    }

    #[inline]
    fn kind(&self, t: usize) -> PredicateKind {
        self.kinds[t]
    }

    fn pid(&self, d: Dest) -> Option<u64> {
        match d {
            Dest::Proc(q) => self.reader.process(q).map(|p| p.pid),
            Dest::Foreign(n) => Some(n),
            Dest::Unknown => None,
        }
    }
}

/// Whose a received-message hit is: the destination's slot.
fn receiver(d: Dest) -> u32 {
    match d {
        Dest::Proc(q) => q.0,
        Dest::Foreign(_) | Dest::Unknown => NOBODY,
    }
}

/// One match: its task, the process it is filed under, its key.
#[derive(Copy, Clone, Debug)]
pub struct Hit {
    pub(super) task: u32,
    pub(super) owner: u32,
    pub(super) key: u64,
}

/// One block's scan: its hits, each with its values in `vals`.
pub struct BlockScan<'a> {
    s: &'a Scanner<'a>,
    pub process: ProcId,
    me: u64,
    pub hits: Vec<Hit>,
    pub vals: Vec<Term>,
    env: Env,
}

fn term(bytes: Option<&[u8]>) -> TermIn<'_> {
    bytes.map_or(TermIn::Missing, TermIn::Etf)
}

/// The message an exit or 'DOWN' signal becomes when its receiver turns it
/// into one. A monitor's reference is not in the log: `#Ref<0.0.0.0>` stands
/// for it (match it with `_`).
pub fn converted(sender: u64, kind: &SignalKindRef<'_>) -> Option<Term> {
    let (tag, reason) = match kind {
        SignalKindRef::Exit { reason, .. } => ("EXIT", reason),
        SignalKindRef::Down { reason } => ("DOWN", reason),
        _ => return None,
    };
    let reason = trace_term::etf::decode((*reason)?).ok()?;
    let pid = Term::Pid(Pid(sender));
    Some(if tag == "EXIT" {
        Term::tuple(vec![Term::atom("EXIT"), pid, reason])
    } else {
        Term::tuple(vec![
            Term::atom("DOWN"),
            Term::Ref(Ref(0)),
            Term::atom("process"),
            pid,
            reason,
        ])
    })
}

impl BlockScan<'_> {
    #[inline]
    fn try_task(&mut self, t: usize, owner: u32, key: u64, view: View<'_>) {
        self.try_checked(t, owner, key, view, false)
    }

    /// `checked`: the terms passed the plan's quick test already.
    #[inline]
    fn try_checked(&mut self, t: usize, owner: u32, key: u64, view: View<'_>, checked: bool) {
        let (pred, blank) = self.s.pred(t);
        let hit = match &self.s.plans[t] {
            Some(plan) if checked => plan.apply_checked(&view, &mut self.vals),
            Some(plan) => plan.apply(pred, &view, &mut self.vals),
            None => match_view(pred, blank, &mut self.env, &view, &mut self.vals),
        };
        if hit {
            self.hits.push(Hit {
                task: t as u32,
                owner,
                key,
            });
        }
    }
}

impl EventVisitor for BlockScan<'_> {
    /// Most events interest no predicate: tell them apart before anything
    /// else, in the decoder's loop.
    #[inline(always)]
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        let s = self.s;
        let wanted = match e {
            EventRef::Send { .. } => !s.on_send.is_empty(),
            EventRef::Signal { .. } => !s.on_signal.is_empty(),
            EventRef::Timeout => !s.on_timeout.is_empty(),
            EventRef::Exit { .. } => !s.on_exit.is_empty(),
            EventRef::Nondet { .. } => !s.on_nondet.is_empty(),
            EventRef::Shared { object, .. } => !s.on_shared.is_empty() && is_table(*object),
            _ => false,
        };
        if wanted {
            self.visit(index, e);
        }
    }
}

impl BlockScan<'_> {
    #[inline(never)]
    fn visit(&mut self, index: u64, e: &EventRef<'_>) {
        let s = self.s;
        let me = Some(self.me);
        let own = self.process.0;
        match *e {
            EventRef::Send { msg, to, payload } => self.visit_send(index, msg, to, payload),
            EventRef::Signal { signal, to, kind } => self.visit_signal(index, signal, to, kind),
            EventRef::Timeout => {
                for &t in &s.on_timeout {
                    self.try_task(
                        t,
                        own,
                        index,
                        View {
                            procs: [me, None],
                            terms: [TermIn::Missing, TermIn::Missing, TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Exit { reason } => {
                for &t in &s.on_exit {
                    self.try_task(
                        t,
                        own,
                        index,
                        View {
                            procs: [me, None],
                            terms: [term(reason), TermIn::Missing, TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Nondet { kind, value } if !s.on_nondet.is_empty() => {
                let k = Term::atom(&nondet_kind(&s.reader.header().nondet_names, kind));
                for &t in &s.on_nondet {
                    self.try_task(
                        t,
                        own,
                        index,
                        View {
                            procs: [me, None],
                            terms: [TermIn::Built(&k), TermIn::Etf(value), TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Shared {
                object: Some(object),
                function,
                key,
                seq,
                ..
            } => {
                if s.on_shared.is_empty() {
                    return;
                }
                let table = s
                    .tables
                    .term(object, seq, |q| s.reader.process(q).map(|p| p.pid));
                let made;
                let op = match s.shared_ops.get(function as usize) {
                    Some(op) => op,
                    None => {
                        made = Term::atom(&shared_function(s.reader.header(), function));
                        &made
                    }
                };
                for &t in &s.on_shared {
                    let terms = [TermIn::Built(&table), TermIn::Built(op), term(key)];
                    let view = View {
                        procs: [me, None],
                        terms,
                    };
                    self.try_task(t, own, index, view);
                }
            }
            _ => {}
        }
    }

    /// A send, matched by `send`, `unreceived` and the receiving side of
    /// `receive` and `deliver` predicates.
    fn visit_send(&mut self, index: u64, msg: MsgId, to: Dest, payload: Option<&[u8]>) {
        let s = self.s;
        let me = Some(self.me);
        let own = self.process.0;
        let terms = [term(payload), TermIn::Missing, TermIn::Missing];
        let mut dest_pid = None;
        for &t in &s.on_send {
            // Most messages fail a pattern's first bytes: test them
            // before looking anything up.
            let checked = match &s.plans[t] {
                Some(plan) => {
                    if !plan.terms_ok(s.pred(t).0, &terms) {
                        continue;
                    }
                    true
                }
                None => false,
            };
            let dest = *dest_pid.get_or_insert_with(|| s.pid(to));
            let (procs, owner, key) = match s.kind(t) {
                PredicateKind::Send => ([me, dest], own, index),
                PredicateKind::Unreceived => ([me, dest], own, msg.index),
                // receive(P, From, Msg): P is the destination.
                _ => match pack(msg.sender, msg.index) {
                    Some(k) => ([dest, me], receiver(to), k),
                    None => continue,
                },
            };
            self.try_checked(t, owner, key, View { procs, terms }, checked);
        }
    }

    /// A signal, matched by the predicates on exit and 'DOWN' signals, on
    /// kills, and on a signal turned into a message.
    fn visit_signal(&mut self, index: u64, signal: MsgId, to: Dest, kind: SignalKindRef<'_>) {
        let s = self.s;
        let me = Some(self.me);
        let own = self.process.0;
        let dest = s.pid(to);
        let mut message = None;
        for &t in &s.on_signal {
            let received = pack(signal.sender, signal.index);
            let (procs, owner, key, term_in) = match (s.kind(t), &kind) {
                (PredicateKind::ExitSignal, SignalKindRef::Exit { reason, .. })
                | (PredicateKind::Down, SignalKindRef::Down { reason }) => {
                    ([me, dest], own, index, term(*reason))
                }
                (PredicateKind::Killed, SignalKindRef::Exit { reason, .. }) => match received {
                    Some(k) => ([dest, me], receiver(to), k, term(*reason)),
                    None => continue,
                },
                (PredicateKind::Receive | PredicateKind::Deliver, _) => {
                    let Some(k) = received else { continue };
                    if message.is_none() {
                        message = Some(converted(self.me, &kind));
                    }
                    let Some(Some(m)) = message.as_ref() else {
                        continue;
                    };
                    let view = View {
                        procs: [dest, me],
                        terms: [TermIn::Built(m), TermIn::Missing, TermIn::Missing],
                    };
                    let (pred, blank) = s.pred(t);
                    if match_view(pred, blank, &mut self.env, &view, &mut self.vals) {
                        self.hits.push(Hit {
                            task: t as u32,
                            owner: receiver(to),
                            key: k,
                        });
                    }
                    continue;
                }
                _ => continue,
            };
            self.try_task(
                t,
                owner,
                key,
                View {
                    procs,
                    terms: [term_in, TermIn::Missing, TermIn::Missing],
                },
            );
        }
    }
}

/// The atom a `nondet` event's kind is matched as.
pub fn nondet_kind(names: &[String], k: NondetKind) -> String {
    match k {
        NondetKind::Other(n) => names
            .get(n as usize)
            .cloned()
            .unwrap_or_else(|| format!("other#{n}")),
        k => trace_format::text::nondet_name(k).to_string(),
    }
}
