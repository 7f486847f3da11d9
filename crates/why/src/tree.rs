//! The debugging tree of a run (Caballero et al. 2016, §5-§6): the run at
//! the root; under it a
//! node per process (the call it was started with and how it ended); under
//! each process its transitions, from its start or one `receive` to the
//! next `receive`, its end, or where it blocked, each consuming exactly one
//! message; under each transition the evaluations of the user's functions
//! that started and returned within it, nested as they called each other;
//! and for a process left waiting, a deadlock node.
//!
//! The tree is built from what the replay observed ([`crate::observe`]),
//! process by process, without recursion; its size is bounded by a node
//! budget, and a run that needs more is refused with a message saying so.

use crate::error::TooBig;
use crate::observe::{Item, Observed, ProcRun, What};
use std::collections::HashSet;
use std::ops::Range;
use trace_runtime::inspect::{FrameState, Place};
use trace_term::{Pid, Term};

pub type NodeId = usize;

/// A message a node sent (or a process received), with its identity.
#[derive(Clone, Debug)]
pub struct Msg {
    /// The receiver (of a message sent) or the sender (of one received).
    pub peer: Pid,
    pub payload: Term,
    /// The sender's signal index (`P.1:3`).
    pub signal: u64,
    /// The event's index in the log of the process the node is about (the
    /// send in the sender's, the receipt in the receiver's).
    pub index: u64,
}

/// How a transition or a process ended.
#[derive(Clone, Debug)]
pub enum Reached {
    /// It waits in this `receive` for its next message.
    Receive(FrameState),
    /// The process's code ended with this value.
    Value(Term),
    /// The process crashed (or was killed) with this reason.
    Crashed(Term),
    /// The run ended with it waiting in this `receive`.
    Blocked(FrameState),
    /// The log stops before it got anywhere (a cut run).
    Unfinished,
}

/// What a transition consumed.
#[derive(Clone, Debug)]
pub enum Consumed {
    /// Nothing: the process's first steps.
    Start,
    Message(Msg),
    /// The `receive` took its `after` branch.
    Timeout,
}

#[derive(Clone, Debug)]
pub struct ProcessNode {
    /// The user function it started in, with its arguments; `None` when it
    /// started in the library (then `initial` names it).
    pub call: Option<(Place, Vec<Term>)>,
    pub initial: (String, String, u32),
    pub end: Reached,
    pub sent: Vec<Msg>,
    pub spawned: Vec<Pid>,
    /// What it wrote to standard output.
    pub printed: String,
}

#[derive(Clone, Debug)]
pub struct TransitionNode {
    /// Its position among the process's transitions (0: from the start).
    pub step: usize,
    /// The `receive` it starts at, with the bindings in scope there.
    pub from: Option<FrameState>,
    pub consumed: Consumed,
    /// Messages the process consumed earlier from the same sender.
    pub earlier: Vec<Msg>,
    pub reached: Reached,
    pub sent: Vec<Msg>,
    pub spawned: Vec<Pid>,
    /// What it wrote to standard output.
    pub printed: String,
    /// The last source line it ran (where it returned, or the `receive` it
    /// reached).
    pub last_line: u32,
}

#[derive(Clone, Debug)]
pub struct EvalNode {
    pub place: Place,
    pub args: Vec<Term>,
    /// `None`: an exception left it.
    pub result: Option<Term>,
    /// The line it returned from (in the clause that ran).
    pub line: u32,
    pub sent: Vec<Msg>,
    pub spawned: Vec<Pid>,
}

#[derive(Clone, Debug)]
pub struct DeadlockNode {
    pub at: FrameState,
    /// Every message sent to the process that it did not consume.
    pub mailbox: Vec<Msg>,
}

#[derive(Clone, Debug)]
pub enum Kind {
    Run,
    Process(ProcessNode),
    Transition(TransitionNode),
    Evaluation(EvalNode),
    Deadlock(DeadlockNode),
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: Kind,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    /// The process (index into [`Tree::procs`]); the root has none.
    pub proc: Option<usize>,
    /// The events of the process's log it covers.
    pub events: Range<u64>,
}

/// The tree, and the processes its nodes name.
#[derive(Debug)]
pub struct Tree {
    pub nodes: Vec<Node>,
    /// Per process: pid, symbolic name.
    pub procs: Vec<(Pid, String)>,
}

impl Tree {
    pub fn root(&self) -> NodeId {
        0
    }

    /// The symbolic name of process `k`.
    pub fn proc_name(&self, k: usize) -> &str {
        &self.procs[k].1
    }

    /// A pid as the tree names it: `P.1`, or the raw pid.
    pub fn name_of(&self, pid: Pid) -> String {
        self.procs
            .iter()
            .find(|(p, _)| *p == pid)
            .map(|(_, n)| n.clone())
            .unwrap_or_else(|| trace_format::text::pid_text(pid.number()))
    }

    /// The process node of process `k`.
    pub fn process_node(&self, k: usize) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| matches!(n.kind, Kind::Process(_)) && n.proc == Some(k))
    }

    /// Transition `step` of process `k`.
    pub fn transition(&self, k: usize, step: usize) -> Option<NodeId> {
        self.nodes.iter().position(|n| {
            n.proc == Some(k) && matches!(&n.kind, Kind::Transition(t) if t.step == step)
        })
    }

    /// The transition of process `k` that holds its event `index`.
    pub fn transition_at(&self, k: usize, index: u64) -> Option<NodeId> {
        self.nodes.iter().position(|n| {
            n.proc == Some(k) && matches!(n.kind, Kind::Transition(_)) && n.events.contains(&index)
        })
    }

    /// The transition of the sender that sent message `signal` of `sender`.
    pub fn sender_transition(&self, sender: Pid, signal: u64) -> Option<NodeId> {
        let k = self.procs.iter().position(|(p, _)| *p == sender)?;
        self.nodes.iter().position(|n| {
            n.proc == Some(k)
                && matches!(&n.kind, Kind::Transition(t) if t.sent.iter().any(|m| m.signal == signal))
        })
    }

    /// The transition in which process `k`'s parent spawned it.
    pub fn spawner_transition(&self, k: usize) -> Option<NodeId> {
        let child = self.procs[k].0;
        self.nodes
            .iter()
            .position(|n| matches!(&n.kind, Kind::Transition(t) if t.spawned.contains(&child)))
    }

    /// Whether `a` is `b` or one of its ancestors.
    pub fn is_ancestor(&self, a: NodeId, b: NodeId) -> bool {
        let mut x = Some(b);
        while let Some(n) = x {
            if n == a {
                return true;
            }
            x = self.nodes[n].parent;
        }
        false
    }

    /// Every node of the subtree at `n`, `n` first (preorder).
    pub fn subtree(&self, n: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            out.push(x);
            stack.extend(self.nodes[x].children.iter().rev());
        }
        out
    }
}

/// Builds the tree of an observed run, with at most `budget` nodes.
pub fn build(o: &Observed, budget: usize) -> Result<Tree, TooBig> {
    let mut b = Builder {
        nodes: vec![Node {
            kind: Kind::Run,
            parent: None,
            children: Vec::new(),
            proc: None,
            events: 0..0,
        }],
        budget,
    };
    for (k, p) in o.procs.iter().enumerate() {
        let id = b.process(k, p)?;
        b.attach(0, id);
    }
    b.deadlocks(o)?;
    Ok(Tree {
        nodes: b.nodes,
        procs: o
            .procs
            .iter()
            .map(|p| (p.pid, p.name.to_string()))
            .collect(),
    })
}

/// A call not yet returned.
struct Open {
    place: Place,
    args: Vec<Term>,
    depth: usize,
    /// The transition it started in.
    step: usize,
    /// The process's first call: its process node says what it did.
    initial: bool,
    first_event: u64,
    sent: Vec<Msg>,
    spawned: Vec<Pid>,
    children: Vec<NodeId>,
}

struct Builder {
    nodes: Vec<Node>,
    budget: usize,
}

impl Builder {
    fn add(&mut self, node: Node) -> Result<NodeId, TooBig> {
        if self.nodes.len() >= self.budget {
            return Err(TooBig {
                budget: self.budget,
            });
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn attach(&mut self, parent: NodeId, child: NodeId) {
        self.nodes[child].parent = Some(parent);
        self.nodes[parent].children.push(child);
    }

    fn transition_mut(&mut self, id: NodeId) -> &mut TransitionNode {
        match &mut self.nodes[id].kind {
            Kind::Transition(t) => t,
            _ => unreachable!("a transition's id"),
        }
    }

    fn new_transition(
        &mut self,
        k: usize,
        step: usize,
        from: Option<FrameState>,
        consumed: Consumed,
        earlier: Vec<Msg>,
        at: u64,
    ) -> Result<NodeId, TooBig> {
        self.add(Node {
            kind: Kind::Transition(TransitionNode {
                step,
                from,
                consumed,
                earlier,
                reached: Reached::Unfinished,
                sent: Vec::new(),
                spawned: Vec::new(),
                printed: String::new(),
                last_line: 0,
            }),
            parent: None,
            children: Vec::new(),
            proc: Some(k),
            events: at..at,
        })
    }

    /// The node of process `k` and everything under it.
    fn process(&mut self, k: usize, p: &ProcRun) -> Result<NodeId, TooBig> {
        let node = self.add(Node {
            kind: Kind::Process(ProcessNode {
                call: None,
                initial: p.initial.clone(),
                end: Reached::Unfinished,
                sent: Vec::new(),
                spawned: Vec::new(),
                printed: String::new(),
            }),
            parent: None,
            children: Vec::new(),
            proc: Some(k),
            events: 0..0,
        })?;
        let mut w = Walk {
            k,
            node,
            current: self.new_transition(k, 0, None, Consumed::Start, Vec::new(), 0)?,
            step: 0,
            open: Vec::new(),
            pending: None,
            consumed: Vec::new(),
            result: None,
            last: 0,
        };
        self.attach(node, w.current);
        for item in &p.items {
            self.item(&mut w, item)?;
        }
        self.close_transition(&mut w, None);
        self.nodes[node].events = 0..w.last;
        Ok(node)
    }

    fn item(&mut self, w: &mut Walk, item: &Item) -> Result<(), TooBig> {
        match item {
            Item::Call { place, args, depth } => {
                self.unwind(w, depth + 1)?;
                let initial = w.open.is_empty() && w.result.is_none() && *depth == 0;
                if initial {
                    if let Kind::Process(pn) = &mut self.nodes[w.node].kind {
                        if pn.call.is_none() {
                            pn.call = Some((place.clone(), args.clone()));
                        }
                    }
                }
                let first_event = self.nodes[w.current].events.end;
                w.open.push(Open {
                    place: place.clone(),
                    args: args.clone(),
                    depth: *depth,
                    step: w.step,
                    initial,
                    first_event,
                    sent: Vec::new(),
                    spawned: Vec::new(),
                    children: Vec::new(),
                });
            }
            Item::Return { value, depth, line } => {
                self.unwind(w, depth + 1)?;
                while w.open.last().is_some_and(|o| o.depth == *depth) {
                    let o = w.open.pop().expect("checked");
                    self.returned(w, o, Some(value.clone()), *line)?;
                }
                self.transition_mut(w.current).last_line = *line;
            }
            Item::ReceiveAt(f) => {
                self.transition_mut(w.current).last_line = f.place.line;
                w.pending = Some(f.clone());
            }
            Item::Event { index, what } => self.event(w, *index, what)?,
        }
        Ok(())
    }

    /// Calls at `depth` or deeper that never returned: an exception
    /// unwound them.
    fn unwind(&mut self, w: &mut Walk, depth: usize) -> Result<(), TooBig> {
        while w.open.last().is_some_and(|o| o.depth >= depth) {
            let o = w.open.pop().expect("checked");
            self.returned(w, o, None, 0)?;
        }
        Ok(())
    }

    /// A call returned (`value`) or was unwound (`None`): within the
    /// transition it started in, it becomes an evaluation node.
    fn returned(
        &mut self,
        w: &mut Walk,
        o: Open,
        value: Option<Term>,
        line: u32,
    ) -> Result<(), TooBig> {
        if o.initial {
            w.result = value;
            return Ok(());
        }
        if o.step != w.step {
            // It spanned a receive: its children stay in their transitions.
            return Ok(());
        }
        let end = self.nodes[w.current].events.end;
        let id = self.add(Node {
            kind: Kind::Evaluation(EvalNode {
                place: o.place,
                args: o.args,
                result: value,
                line,
                sent: o.sent,
                spawned: o.spawned,
            }),
            parent: None,
            children: Vec::new(),
            proc: Some(w.k),
            events: o.first_event..end,
        })?;
        for c in o.children {
            self.attach(id, c);
        }
        match w
            .open
            .iter_mut()
            .rev()
            .find(|x| x.step == w.step && !x.initial)
        {
            Some(parent) => parent.children.push(id),
            None => self.attach(w.current, id),
        }
        Ok(())
    }

    fn event(&mut self, w: &mut Walk, index: u64, what: &What) -> Result<(), TooBig> {
        w.last = index + 1;
        match what {
            What::Receive {
                from,
                signal,
                payload,
            } => {
                let earlier: Vec<Msg> = w
                    .consumed
                    .iter()
                    .filter(|m| m.peer == *from)
                    .cloned()
                    .collect();
                let msg = Msg {
                    peer: *from,
                    payload: payload.clone(),
                    signal: *signal,
                    index,
                };
                w.consumed.push(msg.clone());
                self.next_transition(w, index, Consumed::Message(msg), earlier)?;
            }
            What::Timeout => self.next_transition(w, index, Consumed::Timeout, Vec::new())?,
            What::Send {
                to,
                payload,
                signal,
                ..
            } => {
                let m = Msg {
                    peer: *to,
                    payload: payload.clone(),
                    signal: *signal,
                    index,
                };
                for o in w.open.iter_mut().filter(|o| o.step == w.step) {
                    o.sent.push(m.clone());
                }
                self.transition_mut(w.current).sent.push(m.clone());
                if let Kind::Process(p) = &mut self.nodes[w.node].kind {
                    p.sent.push(m);
                }
            }
            What::Spawn { child } => {
                for o in w.open.iter_mut().filter(|o| o.step == w.step) {
                    o.spawned.push(*child);
                }
                self.transition_mut(w.current).spawned.push(*child);
                if let Kind::Process(p) = &mut self.nodes[w.node].kind {
                    p.spawned.push(*child);
                }
            }
            What::Output(bytes) => {
                let text = String::from_utf8_lossy(bytes);
                self.transition_mut(w.current).printed.push_str(&text);
                if let Kind::Process(p) = &mut self.nodes[w.node].kind {
                    p.printed.push_str(&text);
                }
            }
            What::Exit { reason } => {
                let normal = matches!(reason, Term::Atom(a) if a.name() == "normal");
                let end = match (&w.result, normal) {
                    (Some(v), true) => Reached::Value(v.clone()),
                    (None, true) => Reached::Value(Term::atom("normal")),
                    _ => Reached::Crashed(reason.clone()),
                };
                self.close_transition(w, Some(end));
            }
            What::Blocked => {
                let end = match w.pending.clone() {
                    Some(f) => Reached::Blocked(f),
                    None => Reached::Unfinished,
                };
                self.close_transition(w, Some(end));
            }
            _ => {}
        }
        let t = &mut self.nodes[w.current].events;
        t.end = t.end.max(index + 1);
        Ok(())
    }

    /// The transition so far ends at the receive the process stands in;
    /// the next one starts with this receipt.
    fn next_transition(
        &mut self,
        w: &mut Walk,
        index: u64,
        consumed: Consumed,
        earlier: Vec<Msg>,
    ) -> Result<(), TooBig> {
        let from = w.pending.take();
        let reached = from.clone().map_or(Reached::Unfinished, Reached::Receive);
        self.close_transition(w, Some(reached));
        // Calls of the finished transition that span the receive: what
        // they already hold belongs to it.
        for o in w.open.iter_mut().filter(|o| o.step == w.step) {
            for c in std::mem::take(&mut o.children) {
                self.nodes[c].parent = Some(w.current);
                self.nodes[w.current].children.push(c);
            }
        }
        w.step += 1;
        w.current = self.new_transition(w.k, w.step, from, consumed, earlier, index)?;
        self.attach(w.node, w.current);
        Ok(())
    }

    /// Ends the current transition (once) with `reached`.
    fn close_transition(&mut self, w: &mut Walk, reached: Option<Reached>) {
        let t = self.transition_mut(w.current);
        if let Some(r) = reached {
            if matches!(t.reached, Reached::Unfinished) {
                t.reached = r.clone();
            }
            if !matches!(r, Reached::Receive(_)) {
                if let Kind::Process(p) = &mut self.nodes[w.node].kind {
                    p.end = r;
                }
            }
        }
    }

    /// A deadlock node under each process left waiting, with the messages
    /// sent to it that it never consumed.
    fn deadlocks(&mut self, o: &Observed) -> Result<(), TooBig> {
        let mut received: HashSet<(Pid, u64)> = HashSet::new();
        for p in &o.procs {
            for i in &p.items {
                if let Item::Event {
                    what: What::Receive { from, signal, .. },
                    ..
                } = i
                {
                    received.insert((*from, *signal));
                }
            }
        }
        for k in 0..o.procs.len() {
            let Some(pn) = self
                .nodes
                .iter()
                .position(|n| matches!(n.kind, Kind::Process(_)) && n.proc == Some(k))
            else {
                continue;
            };
            let Kind::Process(p) = &self.nodes[pn].kind else {
                continue;
            };
            let Reached::Blocked(at) = p.end.clone() else {
                continue;
            };
            let me = o.procs[k].pid;
            let mut mailbox = Vec::new();
            for q in &o.procs {
                for i in &q.items {
                    let Item::Event {
                        index,
                        what:
                            What::Send {
                                to,
                                payload,
                                signal,
                            },
                    } = i
                    else {
                        continue;
                    };
                    if *to == me && !received.contains(&(q.pid, *signal)) {
                        mailbox.push(Msg {
                            peer: q.pid,
                            payload: payload.clone(),
                            signal: *signal,
                            index: *index,
                        });
                    }
                }
            }
            let end = self.nodes[pn].events.end;
            let id = self.add(Node {
                kind: Kind::Deadlock(DeadlockNode { at, mailbox }),
                parent: None,
                children: Vec::new(),
                proc: Some(k),
                events: end.saturating_sub(1)..end,
            })?;
            self.attach(pn, id);
        }
        Ok(())
    }
}

/// Walking one process's items.
struct Walk {
    k: usize,
    node: NodeId,
    current: NodeId,
    step: usize,
    open: Vec<Open>,
    /// The receive the process stands in (the latest reported).
    pending: Option<FrameState>,
    /// Every message consumed so far.
    consumed: Vec<Msg>,
    /// The value its first call returned.
    result: Option<Term>,
    last: u64,
}
