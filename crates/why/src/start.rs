//! `--start P` or `--start EVENT`: the node a session starts at, for a
//! process-directed search (Caballero et al. 2016, §4.4) or from an event another
//! command printed (a `trace check` violation, a `replay --until`).

use crate::tree::{Consumed, Kind, NodeId, Reached, Tree};
use trace_capture::{EventSpec, MsgRef, ProcRef};

/// The node `text` names: a process's node, or the transition that holds
/// the event.
pub fn resolve_start(tree: &Tree, text: &str) -> Result<NodeId, String> {
    if let Ok(p) = text.parse::<ProcRef>() {
        let k = process(tree, &p)?;
        return tree
            .process_node(k)
            .ok_or_else(|| format!("--start {text}: no node for {p}"));
    }
    let spec: EventSpec = text
        .parse()
        .map_err(|e| format!("--start {text}: not a process or an event: {e}"))?;
    let node = match &spec {
        EventSpec::Nth { proc, index } => {
            let k = process(tree, proc)?;
            tree.transition_at(k, *index).ok_or_else(|| {
                let n = tree.process_node(k).map_or(0, |p| tree.nodes[p].events.end);
                format!(
                    "{proc} has {n} events, {proc}#0 to {proc}#{}",
                    n.saturating_sub(1)
                )
            })?
        }
        EventSpec::Send(m) => {
            let k = process(tree, &m.sender)?;
            tree.sender_transition(tree.procs[k].0, m.index)
                .ok_or_else(|| format!("{m} was never sent as a message"))?
        }
        EventSpec::Receive(m) => receipt(tree, m)?,
        EventSpec::Spawn(p) => {
            let k = process(tree, p)?;
            tree.spawner_transition(k)
                .ok_or_else(|| format!("no spawn of {p} in this run"))?
        }
        EventSpec::Exit(p) => {
            let k = process(tree, p)?;
            last_transition(tree, k).ok_or_else(|| format!("{p} never ended"))?
        }
        EventSpec::Deliver(_) | EventSpec::Taken(_) => {
            return Err(format!(
                "--start {text}: a delivery or a signal taken is in no transition; \
                 name the receive, the send, or the process"
            ))
        }
    };
    Ok(node)
}

fn process(tree: &Tree, p: &ProcRef) -> Result<usize, String> {
    let found = match p {
        ProcRef::Name(n) => {
            let s = n.to_string();
            tree.procs.iter().position(|(_, x)| *x == s)
        }
        ProcRef::Pid(n) => tree.procs.iter().position(|(pid, _)| pid.number() == *n),
    };
    found.ok_or_else(|| format!("no process {p} in this run"))
}

fn receipt(tree: &Tree, m: &MsgRef) -> Result<NodeId, String> {
    let k = process(tree, &m.sender)?;
    let sender = tree.procs[k].0;
    tree.nodes
        .iter()
        .position(|n| {
            matches!(&n.kind, Kind::Transition(t)
                if matches!(&t.consumed, Consumed::Message(x) if x.peer == sender && x.signal == m.index))
        })
        .ok_or_else(|| format!("{m} was never received"))
}

fn last_transition(tree: &Tree, k: usize) -> Option<NodeId> {
    tree.nodes.iter().position(|n| {
        n.proc == Some(k)
            && matches!(&n.kind, Kind::Transition(t)
                if matches!(t.reached, Reached::Value(_) | Reached::Crashed(_)))
    })
}
