//! Concurrent-event histories (Caballero et al. 2019 §4.1) checked; the
//! compiled forms are in [`crate::compiled`], written by [`crate::compile`].
//!
//! A run's *steps* ([`steps`]) form a graph: a step's successors are the
//! next step of its process, the steps that begin by consuming a message it
//! sent, and the first steps of the processes it spawned. A history is a
//! path pattern through that graph ([`path`]):
//! - of one process (`history <P.1>: [...]`, or a variable: each process in
//!   turn): the path is the process's steps in order, from its first to its
//!   last;
//! - global (`history global: [...]`): a causal path from the entry
//!   process's first step; two step patterns side by side are a step and one
//!   of its successors; `*` and `+` stand for any number (at least one) of
//!   steps along the path.
//!
//! A leading `*` lets the path start anywhere, a trailing one end anywhere;
//! otherwise it starts at the first step and ends at a step with no
//! successor. The three verdicts of the paper: a step that no continuation
//! of the history accepts (a violation), steps exhausted while the history
//! expects more, and steps left when the history is complete.

mod path;
mod steps;

use crate::compiled::{CompiledHistory, CompiledProperty, CompiledSubject};
use crate::eval::matcher::pid_term;
use crate::eval::resolve::Resolved;
use crate::eval::verdict::{GaveUp, Violation};

/// Checks a history on the log.
pub(crate) fn check(
    h: &CompiledHistory,
    prop: &CompiledProperty,
    resolved: &Resolved,
    reader: &trace_format::LogReader,
    model: &trace_causal::Model,
) -> Result<Vec<Violation>, GaveUp> {
    let procs: Vec<trace_format::ProcId> = match &h.subject {
        CompiledSubject::Process(v) => resolved.proc_of(*v).into_iter().collect(),
        CompiledSubject::Each(_) | CompiledSubject::Global => {
            model.processes().iter().map(|f| f.id).collect()
        }
    };
    let graph = steps::Graph::build(
        reader,
        model,
        &procs,
        matches!(h.subject, CompiledSubject::Global),
    )
    .map_err(|e| GaveUp(format!("the log could not be read: {e}")))?;
    let mut out = Vec::new();
    match &h.subject {
        CompiledSubject::Global => {
            let roots = graph.roots(model);
            if let Some(v) = path::check(h, prop, &resolved.consts, &graph, roots, false)? {
                out.push(v);
            }
        }
        CompiledSubject::Process(_) | CompiledSubject::Each(_) => {
            for &p in &procs {
                let mut env = resolved.consts.clone();
                if let CompiledSubject::Each(v) = h.subject {
                    let pid = model.process(p).map(|f| f.pid);
                    env[v] = Some(pid_term(pid));
                }
                let roots: Vec<usize> = graph.first_step(p).into_iter().collect();
                if let Some(v) = path::check(h, prop, &env, &graph, roots, true)? {
                    out.push(v);
                }
            }
        }
    }
    Ok(out)
}
