//! Automatic oracles: a specification and a known-good run answer the
//! questions they can decide, so the user is asked only the rest.
//!
//! Both reduce a run to the events of each process that are wrong: for a
//! specification, the events its properties' violations point at
//! (trace-check); for a good run, each process's first event that differs
//! from its counterpart's, processes matched by symbolic name up to causal
//! equivalence (trace-diff, with its `--abstract` patterns). A node whose
//! events hold a wrong one is wrong; a node before it is correct; after
//! it, the state has already gone astray and the oracle cannot say. An
//! evaluation inside a wrong transition is wrong when its result is part of
//! the wrong event (the message it built, the reason it crashed with), so
//! the search can descend to the function that computed it.

use crate::answer::{Answer, Item};
use crate::tree::{Consumed, Kind, Msg, NodeId, Reached, Tree};
use std::collections::HashMap;
use trace_format::LogReader;
use trace_term::{Pid, Term};

/// Something that answers some questions.
pub trait Oracle {
    /// Its answer about `node`, or `None` when it cannot decide.
    fn judge(&self, tree: &Tree, node: NodeId) -> Option<Answer>;
    /// What it is, for the transcript (`spec props.tspec`, `good run`).
    fn name(&self) -> &str;
}

/// Per process (by raw pid): the indices of its wrong events, and whether
/// the oracle knows everything after the first one (a specification does;
/// a good run does not).
pub struct WrongEvents {
    pub name: String,
    wrong: HashMap<Pid, Vec<u64>>,
    /// Only the first wrong event of each process is known; what follows
    /// it cannot be judged.
    first_only: bool,
}

impl WrongEvents {
    /// From a specification checked on the run's log.
    pub fn of_spec(
        name: String,
        spec: &trace_check::Compiled,
        log: &LogReader,
    ) -> Result<WrongEvents, String> {
        let opts = trace_check::eval::Options {
            detail: usize::MAX,
            fast: true,
        };
        let (_, verdicts) =
            trace_check::eval::check_with(spec, log, opts).map_err(|e| e.to_string())?;
        let pid_of: HashMap<_, _> = log.processes().iter().map(|p| (p.id, p.pid)).collect();
        let mut wrong: HashMap<Pid, Vec<u64>> = HashMap::new();
        for v in &verdicts {
            for x in &v.violations {
                let Some(e) = x.event else { continue };
                if let Some(pid) = pid_of.get(&e.proc) {
                    wrong.entry(Pid(*pid)).or_default().push(e.index);
                }
            }
        }
        Ok(WrongEvents {
            name,
            wrong,
            first_only: false,
        })
    }

    /// From a comparison of the run (`bad`) with a good run of the fixed
    /// program; `tree` names the bad run's processes.
    pub fn of_good_run(
        name: String,
        bad: &LogReader,
        good: &LogReader,
        opts: &trace_diff::Options,
        tree: &Tree,
    ) -> Result<WrongEvents, String> {
        let d = trace_diff::diff(bad, good, opts).map_err(|e| e.to_string())?;
        let mut wrong: HashMap<Pid, Vec<u64>> = HashMap::new();
        for p in &d.differences {
            let name = p.name.to_string();
            let Some((pid, _)) = tree.procs.iter().find(|(_, n)| *n == name) else {
                continue;
            };
            let mut first = p.first[0].as_ref().map_or(p.events[0], |s| s.index);
            if let Some(x) = p.exit.as_ref().and_then(|e| e.a.as_ref()) {
                first = first.min(x.index);
            }
            wrong.entry(*pid).or_default().push(first);
        }
        // A process only the bad run has is judged by its parent's spawn.
        Ok(WrongEvents {
            name,
            wrong,
            first_only: true,
        })
    }

    fn of(&self, pid: Pid) -> &[u64] {
        self.wrong.get(&pid).map_or(&[], |v| &v[..])
    }
}

impl Oracle for WrongEvents {
    fn name(&self) -> &str {
        &self.name
    }

    fn judge(&self, tree: &Tree, id: NodeId) -> Option<Answer> {
        let n = &tree.nodes[id];
        let Some(k) = n.proc else {
            let any = tree.procs.iter().any(|(p, _)| !self.of(*p).is_empty());
            return Some(if any {
                Answer::Wrong(Item::Result)
            } else {
                Answer::Correct
            });
        };
        let pid = tree.procs[k].0;
        let wrong = self.of(pid);
        let first = wrong.iter().copied().min();
        if let Kind::Evaluation(_) = n.kind {
            return self.evaluation(tree, id, wrong);
        }
        if let Kind::Transition(t) = &n.kind {
            if let Consumed::Message(m) = &t.consumed {
                if self.wrong_send(tree, m) {
                    return Some(Answer::Wrong(Item::Consumed));
                }
            }
        }
        if let Some(&w) = wrong.iter().find(|w| n.events.contains(w)) {
            if self.first_only && first.is_some_and(|f| f < w) {
                return None;
            }
            // A process whose first difference is what it was given (a
            // message it consumed, or none to consume: it blocked) did
            // what it was given until then; the difference is elsewhere.
            if self.first_only && is_input(tree, k, w) {
                return matches!(n.kind, Kind::Process(_)).then_some(Answer::Correct);
            }
            return Some(Answer::Wrong(item_at(tree, id, w)));
        }
        match first {
            Some(f) if self.first_only && f < n.events.start => None,
            _ => Some(Answer::Correct),
        }
    }
}

impl WrongEvents {
    /// Whether the send of message `m` (consumed by some transition) is
    /// one of its sender's wrong events: a log names a message by its
    /// sender and index, so a receipt of a wrong message is not itself
    /// a difference, the send is.
    fn wrong_send(&self, tree: &Tree, m: &Msg) -> bool {
        let Some(t) = tree.sender_transition(m.peer, m.signal) else {
            return false;
        };
        let Kind::Transition(tn) = &tree.nodes[t].kind else {
            return false;
        };
        tn.sent
            .iter()
            .find(|s| s.signal == m.signal)
            .is_some_and(|s| self.of(m.peer).contains(&s.index))
    }

    /// An evaluation: correct inside a correct transition; wrong when it
    /// holds a wrong event or its result is part of one.
    fn evaluation(&self, tree: &Tree, id: NodeId, wrong: &[u64]) -> Option<Answer> {
        let n = &tree.nodes[id];
        let Kind::Evaluation(e) = &n.kind else {
            return None;
        };
        if let Some(&w) = wrong.iter().find(|w| n.events.contains(w)) {
            return Some(Answer::Wrong(item_at(tree, id, w)));
        }
        let t = enclosing_transition(tree, id)?;
        let tn = &tree.nodes[t];
        let Some(&w) = wrong.iter().find(|w| tn.events.contains(w)) else {
            let before = wrong.iter().all(|w| *w >= tn.events.end);
            return (before || !self.first_only).then_some(Answer::Correct);
        };
        let result = e.result.as_ref()?;
        let payload = event_term(tree, t, w)?;
        contains(&payload, result).then_some(Answer::Wrong(Item::Result))
    }
}

/// Whether event `w` of process `k` is an input: the receipt (or
/// timeout) a transition starts with, or where the process blocked.
fn is_input(tree: &Tree, k: usize, w: u64) -> bool {
    tree.nodes.iter().any(|n| {
        n.proc == Some(k)
            && n.events.start == w
            && match &n.kind {
                Kind::Transition(t) => !matches!(t.consumed, Consumed::Start),
                Kind::Deadlock(_) => true,
                _ => false,
            }
    })
}

/// The transition an evaluation is in.
fn enclosing_transition(tree: &Tree, id: NodeId) -> Option<NodeId> {
    let mut x = tree.nodes[id].parent;
    while let Some(p) = x {
        if let Kind::Transition(_) = tree.nodes[p].kind {
            return Some(p);
        }
        x = tree.nodes[p].parent;
    }
    None
}

/// Which part of node `id` its event `w` is.
fn item_at(tree: &Tree, id: NodeId, w: u64) -> Item {
    let n = &tree.nodes[id];
    let sent: &[Msg] = match &n.kind {
        Kind::Transition(t) => {
            if let Consumed::Message(m) = &t.consumed {
                if m.index == w {
                    return Item::Consumed;
                }
            }
            &t.sent
        }
        Kind::Process(p) => &p.sent,
        Kind::Evaluation(e) => &e.sent,
        _ => &[],
    };
    match sent.iter().position(|m| m.index == w) {
        Some(i) => Item::Sent(i + 1),
        None => Item::Result,
    }
}

/// The term of transition `t`'s event `w`: a message it sent, or the
/// reason it crashed with.
fn event_term(tree: &Tree, t: NodeId, w: u64) -> Option<Term> {
    let Kind::Transition(tn) = &tree.nodes[t].kind else {
        return None;
    };
    if let Some(m) = tn.sent.iter().find(|m| m.index == w) {
        return Some(m.payload.clone());
    }
    match &tn.reached {
        Reached::Crashed(r) | Reached::Value(r) => Some(r.clone()),
        _ => None,
    }
}

/// Whether `part` is `whole` or one of its subterms (searched without
/// recursion, a bounded number of subterms).
fn contains(whole: &Term, part: &Term) -> bool {
    let mut stack = vec![whole];
    let mut budget = 100_000usize;
    while let Some(t) = stack.pop() {
        if t == part {
            return true;
        }
        budget = budget.saturating_sub(1);
        if budget == 0 {
            return false;
        }
        match t {
            Term::Tuple(items) => stack.extend(items.elements().iter()),
            Term::Cons(c) => {
                stack.push(&c.head);
                stack.push(&c.tail);
            }
            _ => {}
        }
    }
    false
}
