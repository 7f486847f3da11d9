//! A run's steps (Caballero et al. 2019's medium steps, from the log): a process's first
//! step runs from its start to its first `receive`; each `receive` (or
//! `after` taken) begins the next step. A step holds what it consumed, the
//! messages it sent (as `{To, Msg}`) and the processes it spawned (pids).
//! The step graph links each step to its causal successors: the next step
//! of its process, the steps that begin by consuming a signal it sent, and
//! the first steps of the processes it spawned.

use crate::eval::matcher::pid_term;
use std::collections::HashMap;
use trace_capture::SymbolicName;
use trace_causal::{EventId, Model};
use trace_format::{Event, FormatError, LogReader, MsgId, ProcId, SignalKind};
use trace_term::{Pid, Ref, Term};

/// What a step consumed.
#[derive(Clone, Debug)]
pub enum Actual {
    Nothing,
    Timeout,
    /// `{From, Msg}`.
    Message(Term),
}

#[derive(Clone, Debug)]
pub struct Step {
    pub pid: u64,
    /// Number of the step in its process (from 0).
    pub number: usize,
    /// The event that begins it (the `receive` or timeout; the process's
    /// first event for its first step).
    pub start: EventId,
    pub consumed: Actual,
    /// `{To, Msg}` for each message sent.
    pub sent: Vec<Term>,
    /// The pids of the processes spawned.
    pub spawned: Vec<Term>,
    /// The next step of the same process.
    pub next: Option<usize>,
    /// Every causal successor (the next step first).
    pub succ: Vec<usize>,
}

pub struct Graph {
    pub steps: Vec<Step>,
    first: HashMap<ProcId, usize>,
}

fn payload(p: &Option<trace_format::Payload>) -> Term {
    p.as_ref()
        .and_then(|b| trace_term::etf::decode(b.bytes()).ok())
        .unwrap_or_else(|| Term::atom("$no_payload"))
}

/// The message a signal becomes when converted (a monitor's reference is not
/// in the log; `#Ref<0.0.0.0>` stands for it).
fn converted(sender: u64, kind: &SignalKind) -> Option<Term> {
    let pid = Term::Pid(Pid(sender));
    Some(match kind {
        SignalKind::Exit { reason, .. } => {
            Term::tuple(vec![Term::atom("EXIT"), pid, payload(reason)])
        }
        SignalKind::Down { reason } => Term::tuple(vec![
            Term::atom("DOWN"),
            Term::Ref(Ref(0)),
            Term::atom("process"),
            pid,
            payload(reason),
        ]),
        _ => return None,
    })
}

impl Graph {
    /// The steps of `procs`; with `all_edges`, every causal edge between
    /// them (else only each process's own sequence).
    pub fn build(
        reader: &LogReader,
        model: &Model,
        procs: &[ProcId],
        all_edges: bool,
    ) -> Result<Graph, FormatError> {
        let pid_of = |p: ProcId| model.process(p).map(|f| f.pid);
        // The messages these processes consumed, from their senders' logs.
        let mut wanted: HashMap<ProcId, Vec<u64>> = HashMap::new();
        for &p in procs {
            for r in model.receipts_in(p) {
                if let (trace_causal::ReceiptKind::Receive, Some(m)) = (r.kind, r.msg) {
                    wanted.entry(m.sender).or_default().push(m.index);
                }
            }
        }
        let mut messages: HashMap<MsgId, Term> = HashMap::new();
        for (sender, mut idx) in wanted {
            idx.sort_unstable();
            let me = pid_of(sender).unwrap_or(0);
            let mut sig = 0u64;
            for e in reader.events_of(sender)? {
                if !e.sends_signal() {
                    continue;
                }
                if idx.binary_search(&sig).is_ok() {
                    let m = match &e {
                        Event::Send { payload: p, .. } => Some(payload(p)),
                        Event::Signal { kind, .. } => converted(me, kind),
                        _ => None,
                    };
                    if let Some(m) = m {
                        messages.insert(
                            MsgId { sender, index: sig },
                            Term::tuple(vec![Term::Pid(Pid(me)), m]),
                        );
                    }
                }
                sig += 1;
            }
        }
        let mut steps: Vec<Step> = Vec::new();
        let mut first = HashMap::new();
        // Which step a signal's consumption begins, and who spawned whom.
        let mut begun_by: HashMap<MsgId, usize> = HashMap::new();
        let mut sent_in: Vec<(usize, MsgId)> = Vec::new();
        let mut spawned_in: Vec<(usize, ProcId)> = Vec::new();
        for &p in procs {
            let pid = pid_of(p).unwrap_or(0);
            let new = |number, start, consumed| Step {
                pid,
                number,
                start: EventId::new(p, start),
                consumed,
                sent: Vec::new(),
                spawned: Vec::new(),
                next: None,
                succ: Vec::new(),
            };
            first.insert(p, steps.len());
            steps.push(new(0, 0, Actual::Nothing));
            let mut sig = 0u64;
            for (i, e) in reader.events_of(p)?.into_iter().enumerate() {
                let i = i as u64;
                let cur = steps.len() - 1;
                if e.sends_signal() {
                    let msg = MsgId {
                        sender: p,
                        index: sig,
                    };
                    sent_in.push((cur, msg));
                    sig += 1;
                }
                // A receive, or an `after` taken, begins the next step.
                let begins = match &e {
                    Event::Receive { msg } => {
                        begun_by.insert(*msg, steps.len());
                        let m = messages.get(msg).cloned();
                        Some(Actual::Message(
                            m.unwrap_or_else(|| Term::atom("$no_payload")),
                        ))
                    }
                    Event::Timeout => Some(Actual::Timeout),
                    _ => None,
                };
                if let Some(consumed) = begins {
                    let n = steps[cur].number + 1;
                    steps[cur].next = Some(steps.len());
                    steps.push(new(n, i, consumed));
                    continue;
                }
                match &e {
                    Event::Send { to, payload: pl } => {
                        let dest = match to {
                            trace_format::Dest::Proc(q) => pid_of(*q),
                            trace_format::Dest::Foreign(n) => Some(*n),
                            trace_format::Dest::Unknown => None,
                        };
                        steps[cur]
                            .sent
                            .push(Term::tuple(vec![pid_term(dest), payload(pl)]));
                    }
                    Event::Spawn { child, pid, .. } => {
                        steps[cur].spawned.push(Term::Pid(Pid(*pid)));
                        spawned_in.push((cur, *child));
                    }
                    _ => {}
                }
            }
        }
        for s in &mut steps {
            if let Some(n) = s.next {
                s.succ.push(n);
            }
        }
        if all_edges {
            for (s, m) in sent_in {
                if let Some(&t) = begun_by.get(&m) {
                    steps[s].succ.push(t);
                }
            }
            for (s, c) in spawned_in {
                if let Some(&t) = first.get(&c) {
                    steps[s].succ.push(t);
                }
            }
            for s in &mut steps {
                let next = s.next;
                let mut rest: Vec<usize> = s
                    .succ
                    .iter()
                    .copied()
                    .filter(|&t| Some(t) != next)
                    .collect();
                rest.sort_unstable();
                rest.dedup();
                s.succ = next.into_iter().chain(rest).collect();
            }
        }
        Ok(Graph { steps, first })
    }

    pub fn first_step(&self, p: ProcId) -> Option<usize> {
        self.first.get(&p).copied()
    }

    /// Where a global history starts: the entry process's first step.
    pub fn roots(&self, model: &Model) -> Vec<usize> {
        model
            .names()
            .lookup(&SymbolicName::root())
            .ok()
            .and_then(|p| self.first_step(p))
            .into_iter()
            .collect()
    }
}
