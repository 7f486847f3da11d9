//! The session's answer: the buggy node with its kind (Caballero et al.
//! 2016, Definition 6:
//! an erroneous transition, a receive wrongly succeeding or wrongly
//! failing, a wrong function result), the function clause or `receive`
//! at `file:line` with its source lines, and the EVENT a `trace replay
//! --until` stops at.

use crate::answer::Item;
use crate::question::{self, at};
use crate::tree::{Kind, NodeId, Tree};
use serde_json::{json, Value};
use std::fmt::Write;

/// Lines shown of a clause or a receive at most.
const MAX_LINES: u32 = 15;

/// The buggy node, ready to print.
#[derive(Clone, Debug)]
pub struct Buggy {
    pub node: NodeId,
    /// `erroneous transition`, `receive wrongly succeeding`, ...
    pub kind: &'static str,
    /// What in the code: `the receive at tcp.erl:11 (tcp:server_fun/3)`.
    pub code: String,
    pub file: String,
    /// The source lines shown, `(line, text)`.
    pub lines: Vec<(u32, String)>,
    pub until: Option<String>,
}

/// Describes buggy node `node`, judged wrong for `item`.
pub fn buggy(tree: &Tree, node: NodeId, item: Item) -> Buggy {
    let n = &tree.nodes[node];
    let (kind, code, file, from, to) = match &n.kind {
        Kind::Transition(t) => {
            let kind = match (t.step, item) {
                (0, _) => "erroneous first steps of a process",
                (_, Item::Taken) => "receive wrongly succeeding",
                _ => "erroneous transition",
            };
            match &t.from {
                Some(f) => (
                    kind,
                    format!(
                        "the receive at {} ({}:{}/{})",
                        at(&f.place.file, f.place.line),
                        f.place.module.name(),
                        f.place.function.name(),
                        f.place.arity
                    ),
                    f.place.file.clone(),
                    f.place.line,
                    within_receive(&f.place.file, f.place.line, t.last_line),
                ),
                None => start_code(tree, node, kind, t.last_line),
            }
        }
        Kind::Evaluation(e) => {
            let head = clause_head(&e.place.file, e.place.function.name(), e.line);
            (
                "wrong function result",
                format!(
                    "the clause of {}:{}/{} at {}",
                    e.place.module.name(),
                    e.place.function.name(),
                    e.place.arity,
                    at(&e.place.file, head)
                ),
                e.place.file.clone(),
                head,
                e.line,
            )
        }
        Kind::Deadlock(d) => (
            "receive wrongly failing",
            format!(
                "the receive at {} ({}:{}/{})",
                at(&d.at.place.file, d.at.place.line),
                d.at.place.module.name(),
                d.at.place.function.name(),
                d.at.place.arity
            ),
            d.at.place.file.clone(),
            d.at.place.line,
            receive_end(&d.at.place.file, d.at.place.line),
        ),
        Kind::Process(_) | Kind::Run => start_code(tree, node, "erroneous process", 0),
    };
    Buggy {
        node,
        kind,
        code,
        lines: source_lines(&file, from, to),
        file,
        until: question::until(tree, node),
    }
}

/// The function a process started in, as the code to blame.
fn start_code(
    tree: &Tree,
    node: NodeId,
    kind: &'static str,
    last: u32,
) -> (&'static str, String, String, u32, u32) {
    let k = tree.nodes[node].proc.unwrap_or(0);
    let call = tree
        .process_node(k)
        .and_then(|p| match &tree.nodes[p].kind {
            Kind::Process(pn) => pn.call.clone(),
            _ => None,
        });
    match call {
        Some((place, _)) => {
            let head = clause_head(&place.file, place.function.name(), place.line);
            (
                kind,
                format!(
                    "{}:{}/{} at {}",
                    place.module.name(),
                    place.function.name(),
                    place.arity,
                    at(&place.file, head)
                ),
                place.file.clone(),
                head,
                last.max(head),
            )
        }
        None => (kind, "a library function".into(), String::new(), 0, 0),
    }
}

/// Lines `from..=to` of `file` (at most [`MAX_LINES`]; only `from` when
/// `to` is before it or too far).
fn source_lines(file: &str, from: u32, to: u32) -> Vec<(u32, String)> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Vec::new();
    };
    if from == 0 {
        return Vec::new();
    }
    let to = if to < from || to - from >= MAX_LINES {
        from
    } else {
        to
    };
    text.lines()
        .enumerate()
        .skip(from as usize - 1)
        .take((to - from + 1) as usize)
        .map(|(i, l)| (i as u32 + 1, l.trim_end().to_string()))
        .collect()
}

/// The head of the clause of `function` that line `line` is in: the
/// nearest line at or above it that starts, unindented, with the name.
fn clause_head(file: &str, function: &str, line: u32) -> u32 {
    let Ok(text) = std::fs::read_to_string(file) else {
        return line;
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut k = (line as usize).min(lines.len());
    let floor = k.saturating_sub(MAX_LINES as usize * 4);
    while k > floor {
        let l = lines[k - 1];
        if l.starts_with(function) && l[function.len()..].trim_start().starts_with('(') {
            return k as u32;
        }
        k -= 1;
    }
    line
}

/// The last line to show of a transition from the receive at `line`: the
/// last line it ran when that is near below it, else the receive's `end`.
fn within_receive(file: &str, line: u32, last: u32) -> u32 {
    if last > line && last - line < MAX_LINES {
        last
    } else {
        receive_end(file, line)
    }
}

/// The line of the `end` that closes the receive at `line` (the first
/// line below it that starts with `end`), or `line`.
fn receive_end(file: &str, line: u32) -> u32 {
    let Ok(text) = std::fs::read_to_string(file) else {
        return line;
    };
    text.lines()
        .enumerate()
        .skip(line as usize)
        .take(MAX_LINES as usize)
        .find(|(_, l)| l.trim_start().starts_with("end"))
        .map_or(line, |(i, _)| i as u32 + 1)
}

impl Buggy {
    /// The answer as the user reads it; `replay` is the `trace replay`
    /// command line up to `--until`.
    pub fn text(&self, tree: &Tree, replay: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Buggy node: {} — {}", self.kind, self.code);
        for l in question::text(tree, self.node).lines() {
            if !l.ends_with('?') {
                let _ = writeln!(out, "  {l}");
            }
        }
        if !self.lines.is_empty() {
            let short = self.file.strip_prefix("./").unwrap_or(&self.file);
            let _ = writeln!(out, "  {short}:");
            for (n, l) in &self.lines {
                let _ = writeln!(out, "    {n:>4} | {l}");
            }
        }
        if let Some(u) = &self.until {
            let _ = writeln!(out, "  replay to it: {replay} --until '{u}'");
        }
        out
    }

    pub fn json(&self, tree: &Tree) -> Value {
        let n = &tree.nodes[self.node];
        json!({
            "node": self.node,
            "node_kind": question::kind_name(n),
            "kind": self.kind,
            "code": self.code,
            "file": self.file,
            "lines": self.lines.iter().map(|(n, l)| json!({"line": n, "text": l})).collect::<Vec<_>>(),
            "process": n.proc.map(|k| tree.proc_name(k).to_string()),
            "until": self.until,
            "question": question::text(tree, self.node),
        })
    }
}
