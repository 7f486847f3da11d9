//! The questions, one per kind of node (Caballero et al. 2016, §4.3): is this evaluation
//! correct, is this transition correct in this state, is this process's
//! computation correct, did you expect it to wait here forever. Terms are
//! printed as `~p` prints them; messages, spawns and receipts carry the
//! EVENT names `trace replay --until` takes.

use crate::tree::{Consumed, Kind, Msg, Node, NodeId, Reached, Tree};
use serde_json::{json, Value};
use std::fmt::Write;
use trace_runtime::inspect::{FrameState, Place};
use trace_term::{PrettyOptions, Term};

/// A term as `~p` prints it, continuation lines indented by `indent`.
pub fn pretty(t: &Term, indent: usize) -> String {
    let s = trace_term::pretty(t, &PrettyOptions::default());
    s.replace('\n', &format!("\n{}", " ".repeat(indent)))
}

/// `m:f(A1, A2)` with the arguments as `~p` prints them.
pub fn call_text(place: &Place, args: &[Term]) -> String {
    let a: Vec<String> = args.iter().map(|t| pretty(t, 4)).collect();
    format!(
        "{}:{}({})",
        place.module.name(),
        place.function.name(),
        a.join(", ")
    )
}

/// `file:line` without a leading `./`.
pub fn at(file: &str, line: u32) -> String {
    format!("{}:{line}", file.strip_prefix("./").unwrap_or(file))
}

fn fun_name(p: &Place) -> String {
    format!("{}:{}/{}", p.module.name(), p.function.name(), p.arity)
}

fn receive_place(f: &FrameState) -> String {
    format!(
        "the receive at {} ({})",
        at(&f.place.file, f.place.line),
        fun_name(&f.place)
    )
}

/// What a node reached, in words.
fn reached(r: &Reached) -> String {
    match r {
        Reached::Receive(f) => receive_place(f),
        Reached::Value(v) => format!("the end of the process, with the value {}", pretty(v, 14)),
        Reached::Crashed(r) => format!("a crash, with the reason {}", pretty(r, 14)),
        Reached::Blocked(f) => format!("{}, where it waits for good", receive_place(f)),
        Reached::Unfinished => "nothing yet (the log stops here)".into(),
    }
}

/// The name of process `k`, with its raw pid.
fn who(tree: &Tree, k: usize) -> String {
    format!(
        "{} {}",
        tree.proc_name(k),
        trace_format::text::pid_text(tree.procs[k].0.number())
    )
}

/// The EVENT name of the send of `m` by process `k`.
fn send_event(tree: &Tree, k: usize, m: &Msg) -> String {
    format!("send({}:{})", tree.proc_name(k), m.signal)
}

fn sent_lines(out: &mut String, tree: &Tree, k: usize, sent: &[Msg]) {
    if sent.is_empty() {
        let _ = writeln!(out, "  sent:     none");
        return;
    }
    let _ = writeln!(out, "  sent:");
    for (i, m) in sent.iter().enumerate() {
        let _ = writeln!(
            out,
            "    {}. {} ! {}    {}",
            i + 1,
            tree.name_of(m.peer),
            pretty(&m.payload, 8),
            send_event(tree, k, m)
        );
    }
}

fn spawned_lines(out: &mut String, tree: &Tree, spawned: &[trace_term::Pid]) {
    if spawned.is_empty() {
        let _ = writeln!(out, "  spawned:  none");
        return;
    }
    let names: Vec<String> = spawned
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{}. {}", i + 1, tree.name_of(*p)))
        .collect();
    let _ = writeln!(out, "  spawned:  {}", names.join(", "));
}

fn printed_line(out: &mut String, printed: &str) {
    if !printed.is_empty() {
        let _ = writeln!(out, "  printed:  {printed:?}");
    }
}

fn bindings_line(out: &mut String, f: &FrameState) {
    if f.bindings.is_empty() {
        let _ = writeln!(out, "  bindings: none");
        return;
    }
    let b: Vec<String> = f
        .bindings
        .iter()
        .map(|(n, v)| format!("{n} = {}", pretty(v, 4)))
        .collect();
    let _ = writeln!(out, "  bindings: {}", b.join(", "));
}

/// The question about `node`, as the user reads it.
pub fn text(tree: &Tree, id: NodeId) -> String {
    let n = &tree.nodes[id];
    let mut out = String::new();
    let k = n.proc.unwrap_or(0);
    match &n.kind {
        Kind::Run => out.push_str("The whole run.\nIs it correct?\n"),
        Kind::Process(p) => {
            let start = match &p.call {
                Some((place, args)) => format!(
                    "{}    [{}]",
                    call_text(place, args),
                    at(&place.file, place.line)
                ),
                None => format!("{}:{}/{}", p.initial.0, p.initial.1, p.initial.2),
            };
            let _ = writeln!(out, "Process {} was started as {start}", who(tree, k));
            let _ = writeln!(out, "  ended:    at {}", reached(&p.end));
            sent_lines(&mut out, tree, k, &p.sent);
            spawned_lines(&mut out, tree, &p.spawned);
            printed_line(&mut out, &p.printed);
            out.push_str("Is this process's computation correct?\n");
        }
        Kind::Transition(t) => {
            transition_text(&mut out, tree, n, t);
            out.push_str("Is this transition correct?\n");
        }
        Kind::Evaluation(e) => {
            let result = match &e.result {
                Some(v) => format!("= {}", pretty(v, 4)),
                None => "left by an exception".into(),
            };
            let _ = writeln!(
                out,
                "{} {result}    [{}, in {}]",
                call_text(&e.place, &e.args),
                at(&e.place.file, e.line),
                tree.proc_name(k)
            );
            sent_lines(&mut out, tree, k, &e.sent);
            spawned_lines(&mut out, tree, &e.spawned);
            out.push_str("Is this evaluation correct?\n");
        }
        Kind::Deadlock(d) => {
            let _ = writeln!(
                out,
                "Process {} is left waiting in {}",
                who(tree, k),
                receive_place(&d.at)
            );
            bindings_line(&mut out, &d.at);
            if d.mailbox.is_empty() {
                let _ = writeln!(out, "  messages sent to it and not consumed: none");
            } else {
                let _ = writeln!(out, "  messages sent to it and not consumed:");
                for (i, m) in d.mailbox.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "    {}. {} from {}",
                        i + 1,
                        pretty(&m.payload, 8),
                        tree.name_of(m.peer)
                    );
                }
            }
            out.push_str("Did you expect it to wait there forever?\n");
        }
    }
    out
}

fn transition_text(out: &mut String, tree: &Tree, n: &Node, t: &crate::tree::TransitionNode) {
    let k = n.proc.unwrap_or(0);
    match (&t.from, &t.consumed) {
        (_, Consumed::Start) | (None, _) => {
            let _ = writeln!(out, "Process {}, from its start", who(tree, k));
        }
        (Some(f), _) => {
            let _ = writeln!(out, "Process {}, in {}", who(tree, k), receive_place(f));
            bindings_line(out, f);
        }
    }
    match &t.consumed {
        Consumed::Start => {}
        Consumed::Timeout => {
            let _ = writeln!(out, "  consumed: nothing: the receive timed out (after)");
        }
        Consumed::Message(m) => {
            let from = tree.name_of(m.peer);
            if t.earlier.is_empty() {
                let _ = writeln!(out, "  received earlier from {from}: none");
            } else {
                let _ = writeln!(out, "  received earlier from {from}:");
                for (i, e) in t.earlier.iter().enumerate() {
                    let _ = writeln!(out, "    {}. {}", i + 1, pretty(&e.payload, 8));
                }
            }
            let _ = writeln!(
                out,
                "  consumed: {} from {from}    receive({from}:{})",
                pretty(&m.payload, 12),
                m.signal
            );
        }
    }
    let _ = writeln!(out, "  reached:  {}", reached(&t.reached));
    sent_lines(out, tree, k, &t.sent);
    spawned_lines(out, tree, &t.spawned);
    printed_line(out, &t.printed);
}

/// The kind of a node, as JSON and the answer name it.
pub fn kind_name(n: &Node) -> &'static str {
    match n.kind {
        Kind::Run => "run",
        Kind::Process(_) => "process",
        Kind::Transition(_) => "transition",
        Kind::Evaluation(_) => "evaluation",
        Kind::Deadlock(_) => "deadlock",
    }
}

/// The EVENT that `trace replay --until` stops at for this node: the
/// receipt that starts a transition, else the node's first event.
pub fn until(tree: &Tree, id: NodeId) -> Option<String> {
    let n = &tree.nodes[id];
    let k = n.proc?;
    if let Kind::Transition(t) = &n.kind {
        if let Consumed::Message(m) = &t.consumed {
            return Some(format!("receive({}:{})", tree.name_of(m.peer), m.signal));
        }
    }
    let index = match n.kind {
        Kind::Deadlock(_) => n.events.end.checked_sub(1)?,
        _ => n.events.start,
    };
    Some(format!("{}#{index}", tree.proc_name(k)))
}

/// The question as JSON.
pub fn json(tree: &Tree, id: NodeId) -> Value {
    let n = &tree.nodes[id];
    json!({
        "node": id,
        "kind": kind_name(n),
        "process": n.proc.map(|k| tree.proc_name(k).to_string()),
        "until": until(tree, id),
        "text": text(tree, id),
    })
}
