//! The search for a buggy node: a node judged wrong all of whose children
//! are correct. The session keeps a *suspect*, a node known (or, for the
//! run at the root, assumed) to be wrong, and asks about nodes below it in
//! the order the strategy says: top-down (its children in order, moving
//! down into the first wrong one) or divide & query (the node whose
//! subtree holds nearest half of what is still to be judged). Oracles are
//! asked first; the user only where none decides.
//!
//! A wrong *consumed* message (or an earlier one from the same sender, or
//! one left in a waiting process's mailbox) moves the suspect to the
//! sender's transition that sent it, wrong *bindings* to the transition
//! that made the state: the step before, or the spawn that gave a process
//! its arguments. Trusting a function judges all its evaluations correct;
//! trusting a process, all its nodes. Undo goes back one user answer.

use crate::answer::{Answer, BadAnswer, Item};
use crate::oracle::Oracle;
use crate::tree::{Consumed, Kind, NodeId, Reached, Tree};
use std::collections::{HashMap, HashSet};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    TopDown,
    DivideAndQuery,
}

/// Where answers the oracles cannot give come from.
pub trait User {
    /// The answer to `question` about `node`; `Ok(None)` when there are
    /// no more answers (the end of a file, of standard input).
    fn answer(&mut self, tree: &Tree, node: NodeId) -> Result<Option<Answer>, BadAnswer>;
}

/// A question asked, and who answered it.
#[derive(Clone, Debug)]
pub struct Asked {
    pub node: NodeId,
    pub answer: Answer,
    /// `user`, or the oracle's name.
    pub by: String,
}

/// How a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The buggy node; `item` is what was wrong in it; `unknown` counts
    /// its children answered "don't know" (assumed correct).
    Buggy {
        node: NodeId,
        item: Item,
        unknown: usize,
    },
    /// Nothing is wrong below the start: why, in words.
    NoBug(String),
    Aborted,
    /// The answers ran out at this question.
    NoMoreAnswers(NodeId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Correct,
    Wrong(Item),
    DontKnow,
}

/// What an answer changes (kept for undo).
#[derive(Clone, Default)]
struct State {
    judged: HashMap<NodeId, Status>,
    trusted_funs: HashSet<(trace_term::Atom, trace_term::Atom, u32)>,
    trusted_procs: HashSet<usize>,
    suspect: Option<NodeId>,
    /// The start node, not yet judged.
    start: Option<NodeId>,
    /// A transition the suspect moved to because of another node's answer
    /// (a message it sent, or a state it made, was wrong): before it is
    /// called buggy it is asked about, since what it was given — its
    /// bindings, the message it consumed — may be what made it go wrong.
    unconfirmed: Option<NodeId>,
}

pub struct Session<'t> {
    tree: &'t Tree,
    strategy: Strategy,
    state: State,
    history: Vec<State>,
    pub asked: Vec<Asked>,
}

impl<'t> Session<'t> {
    /// A session over `tree`; `start`: the node to ask about first and
    /// search under (`None`: the whole run, assumed wrong).
    pub fn new(tree: &'t Tree, strategy: Strategy, start: Option<NodeId>) -> Session<'t> {
        let state = State {
            start,
            ..State::default()
        };
        Session {
            tree,
            strategy,
            state,
            history: Vec::new(),
            asked: Vec::new(),
        }
    }

    /// Asks until a buggy node is found, the answers run out or the user aborts.
    pub fn run(
        &mut self,
        oracles: &[&dyn Oracle],
        user: &mut dyn User,
    ) -> Result<Outcome, BadAnswer> {
        loop {
            let node = match self.next_question() {
                Ok(n) => n,
                Err(outcome) => return Ok(outcome),
            };
            let judged = oracles
                .iter()
                .find_map(|o| o.judge(self.tree, node).map(|a| (a, o.name().to_string())));
            let (answer, by) = match judged {
                Some(x) => x,
                None => match user.answer(self.tree, node)? {
                    Some(a) => {
                        fits(self.tree, node, a)?;
                        (a, "user".to_string())
                    }
                    None => return Ok(Outcome::NoMoreAnswers(node)),
                },
            };
            self.asked.push(Asked {
                node,
                answer,
                by: by.clone(),
            });
            match answer {
                Answer::Abort => return Ok(Outcome::Aborted),
                Answer::Undo => self.undo(),
                _ => {
                    if by == "user" {
                        self.history.push(self.state.clone());
                    }
                    if let Some(o) = self.apply(node, answer) {
                        return Ok(o);
                    }
                }
            }
        }
    }

    fn undo(&mut self) {
        if let Some(s) = self.history.pop() {
            self.state = s;
        }
    }

    /// Records an answer about `node`; the outcome when it ends the search.
    fn apply(&mut self, node: NodeId, answer: Answer) -> Option<Outcome> {
        let was_start = self.state.start == Some(node);
        if was_start {
            self.state.start = None;
        }
        if self.state.unconfirmed == Some(node) {
            self.state.unconfirmed = None;
            // It is known to be wrong: only an answer naming what it was
            // given moves the suspect on.
            if !matches!(answer, Answer::Wrong(_)) {
                return None;
            }
        }
        match answer {
            Answer::Correct | Answer::Trust => {
                if answer == Answer::Trust {
                    self.trust(node);
                }
                self.state.judged.insert(node, Status::Correct);
                if was_start {
                    return Some(Outcome::NoBug(
                        "the node the session started at was judged correct".into(),
                    ));
                }
            }
            Answer::DontKnow => {
                self.state.judged.insert(node, Status::DontKnow);
                if was_start {
                    // Search below it all the same.
                    self.state.suspect = Some(node);
                }
            }
            Answer::Wrong(item) => {
                let (target, item) = self.blame(node, item);
                self.state.judged.insert(target, Status::Wrong(item));
                self.state.suspect = Some(target);
                let moved = target != node;
                if moved && matches!(self.tree.nodes[target].kind, Kind::Transition(_)) {
                    self.state.unconfirmed = Some(target);
                }
            }
            Answer::Undo | Answer::Abort => {}
        }
        None
    }

    fn trust(&mut self, node: NodeId) {
        let n = &self.tree.nodes[node];
        match &n.kind {
            Kind::Evaluation(e) => {
                let p = &e.place;
                self.state
                    .trusted_funs
                    .insert((p.module, p.function, p.arity));
            }
            _ => {
                if let Some(k) = n.proc {
                    self.state.trusted_procs.insert(k);
                }
            }
        }
    }

    /// The node a wrong `item` of `node` blames, with what is wrong there.
    fn blame(&self, node: NodeId, item: Item) -> (NodeId, Item) {
        let tree = self.tree;
        let n = &tree.nodes[node];
        let sender = |peer, signal| -> Option<(NodeId, Item)> {
            let t = tree.sender_transition(peer, signal)?;
            let Kind::Transition(tn) = &tree.nodes[t].kind else {
                return None;
            };
            let i = tn.sent.iter().position(|m| m.signal == signal)?;
            Some((t, Item::Sent(i + 1)))
        };
        let target = match (&n.kind, item) {
            (Kind::Transition(t), Item::Consumed) => match &t.consumed {
                Consumed::Message(m) => sender(m.peer, m.signal),
                _ => None,
            },
            (Kind::Transition(t), Item::Earlier(i)) => {
                t.earlier.get(i - 1).and_then(|m| sender(m.peer, m.signal))
            }
            (Kind::Deadlock(d), Item::Mailbox(i)) => {
                d.mailbox.get(i - 1).and_then(|m| sender(m.peer, m.signal))
            }
            (Kind::Transition(t), Item::Bindings) => {
                let k = n.proc.unwrap_or(0);
                match t.step {
                    0 => tree.spawner_transition(k),
                    s => tree.transition(k, s - 1),
                }
                .map(|t| (t, Item::Result))
            }
            (Kind::Deadlock(_), Item::Bindings) => {
                let k = n.proc.unwrap_or(0);
                let last = tree.nodes[n.parent.unwrap_or(0)]
                    .children
                    .iter()
                    .rev()
                    .find(|c| matches!(tree.nodes[**c].kind, Kind::Transition(_)))
                    .copied();
                last.filter(|t| tree.nodes[*t].proc == Some(k))
                    .map(|t| (t, Item::Result))
            }
            _ => None,
        };
        target.unwrap_or((node, item))
    }

    /// Whether `node` is judged correct without asking.
    fn status(&self, node: NodeId) -> Option<Status> {
        if let Some(s) = self.state.judged.get(&node) {
            return Some(*s);
        }
        let n = &self.tree.nodes[node];
        if n.proc
            .is_some_and(|k| self.state.trusted_procs.contains(&k))
        {
            return Some(Status::Correct);
        }
        match &n.kind {
            Kind::Evaluation(e) => {
                let p = &e.place;
                self.state
                    .trusted_funs
                    .contains(&(p.module, p.function, p.arity))
                    .then_some(Status::Correct)
            }
            // A process's first steps that only call into a receive hold
            // nothing to judge but the bindings the next step shows.
            Kind::Transition(t)
                if t.step == 0
                    && t.sent.is_empty()
                    && t.spawned.is_empty()
                    && n.children.is_empty()
                    && matches!(t.reached, Reached::Receive(_)) =>
            {
                Some(Status::Correct)
            }
            _ => None,
        }
    }

    /// The next node to ask about, or how the search ends.
    fn next_question(&self) -> Result<NodeId, Outcome> {
        if let Some(s) = self.state.start {
            return Ok(s);
        }
        let suspect = self.state.suspect.unwrap_or(self.tree.root());
        let pick = match self.strategy {
            Strategy::TopDown => self.tree.nodes[suspect]
                .children
                .iter()
                .copied()
                .find(|c| self.status(*c).is_none()),
            Strategy::DivideAndQuery => self.halfway(suspect),
        };
        match pick {
            Some(p) => Ok(p),
            None if self.state.unconfirmed == Some(suspect) => Ok(suspect),
            None => Err(self.finish(suspect)),
        }
    }

    /// Divide & query: the unjudged node below `suspect` whose subtree
    /// holds nearest half of the unjudged nodes.
    fn halfway(&self, suspect: NodeId) -> Option<NodeId> {
        let order = self.tree.subtree(suspect);
        // Each node's status once (it is looked at three times below).
        let mut status = vec![None; self.tree.nodes.len()];
        for &x in &order {
            status[x] = self.status(x);
        }
        let mut open = vec![false; self.tree.nodes.len()];
        // Preorder: a node is open (still to judge, or above such) unless
        // an ancestor below the suspect is correct.
        for &x in &order {
            if x == suspect {
                open[x] = true;
                continue;
            }
            let parent_open = self.tree.nodes[x].parent.is_some_and(|p| open[p]);
            let correct = matches!(status[x], Some(Status::Correct));
            open[x] = parent_open && !correct;
        }
        let mut weight = vec![0usize; self.tree.nodes.len()];
        for &x in order.iter().rev() {
            if !open[x] {
                continue;
            }
            let own = usize::from(x != suspect && status[x].is_none());
            weight[x] = own
                + self.tree.nodes[x]
                    .children
                    .iter()
                    .map(|c| weight[*c])
                    .sum::<usize>();
        }
        let total = weight[suspect];
        order
            .iter()
            .copied()
            .filter(|&x| x != suspect && open[x] && status[x].is_none())
            .min_by_key(|&x| (2 * weight[x]).abs_diff(total))
    }

    /// No question is left below `suspect`.
    fn finish(&self, suspect: NodeId) -> Outcome {
        if suspect == self.tree.root() && self.state.suspect.is_none() {
            return Outcome::NoBug("every process was judged correct".into());
        }
        let children = &self.tree.nodes[suspect].children;
        let unknown = children
            .iter()
            .filter(|c| matches!(self.status(**c), Some(Status::DontKnow)))
            .count();
        let item = match self.state.judged.get(&suspect) {
            Some(Status::Wrong(i)) => *i,
            _ => Item::Result,
        };
        if matches!(self.state.judged.get(&suspect), Some(Status::DontKnow)) {
            return Outcome::NoBug(
                "the start node was not judged and nothing below it is wrong".into(),
            );
        }
        Outcome::Buggy {
            node: suspect,
            item,
            unknown,
        }
    }
}

/// Whether answer `a` names a part `node` has: `n sent 3` of a node that
/// sent two messages is a mistake, said as one.
pub fn fits(tree: &Tree, node: NodeId, a: Answer) -> Result<(), BadAnswer> {
    let Answer::Wrong(item) = a else {
        return Ok(());
    };
    let n = &tree.nodes[node];
    let (sent, spawned) = match &n.kind {
        Kind::Process(p) => (p.sent.len(), p.spawned.len()),
        Kind::Transition(t) => (t.sent.len(), t.spawned.len()),
        Kind::Evaluation(e) => (e.sent.len(), e.spawned.len()),
        _ => (0, 0),
    };
    let (what, count, k) = match (&n.kind, item) {
        (_, Item::Sent(k)) => ("messages sent", sent, k),
        (_, Item::Spawned(k)) => ("processes spawned", spawned, k),
        (Kind::Transition(t), Item::Earlier(k)) => ("earlier messages", t.earlier.len(), k),
        (Kind::Deadlock(d), Item::Mailbox(k)) => ("messages in the mailbox", d.mailbox.len(), k),
        (Kind::Transition(t), Item::Consumed) if matches!(t.consumed, Consumed::Message(_)) => {
            return Ok(())
        }
        (Kind::Transition(_) | Kind::Deadlock(_), Item::Bindings) => return Ok(()),
        (Kind::Transition(t), Item::Taken) if t.step > 0 => return Ok(()),
        (_, Item::Result) => return Ok(()),
        _ => {
            return Err(BadAnswer(format!(
                "n {item}: this question has no such part"
            )))
        }
    };
    if k > count {
        return Err(BadAnswer(format!(
            "n {item}: this question lists {count} {what}"
        )));
    }
    Ok(())
}
