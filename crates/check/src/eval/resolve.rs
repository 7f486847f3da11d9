//! Process names of a property resolved against one log: each `<P.2>`,
//! `<0.83.0>` or declared registered name — a constant variable of the
//! property — becomes a raw pid, or nothing, with a warning, when the log
//! has no such process (the property then speaks of no event of it, which
//! is what it means for that run).

use super::matcher::Env;
use crate::compile::CProp;
use trace_causal::{Model, ProcRef};
use trace_format::ProcId;
use trace_term::{Pid, Term};

/// A property's names, resolved.
pub struct Resolved {
    /// The property's variables with the named processes bound.
    pub consts: Env,
    /// Per variable: the process a constant names, if the log has it.
    procs: Vec<Option<ProcId>>,
    /// Names that name no process here.
    pub warnings: Vec<String>,
}

impl Resolved {
    /// The process constant variable `v` names, if the log has it.
    pub fn proc_of(&self, v: usize) -> Option<ProcId> {
        self.procs.get(v).copied().flatten()
    }

    /// The process `r` names, if it is one of the property's names and the
    /// log has it.
    pub fn proc_named(&self, prop: &CProp, r: &ProcRef) -> Option<ProcId> {
        let (v, _) = prop.vars.constants.iter().find(|(_, x)| x == r)?;
        self.proc_of(*v)
    }
}

pub fn resolve(prop: &CProp, model: &Model) -> Resolved {
    let mut consts: Env = vec![None; prop.vars.len()];
    let mut procs = vec![None; prop.vars.len()];
    let mut warnings = Vec::new();
    for (v, r) in &prop.vars.constants {
        let id = match model.resolve_proc(r) {
            Ok(id) => Some(id),
            Err(e) => {
                let w = format!("{}: {e}; it matches no event", show(r));
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
                None
            }
        };
        procs[*v] = id;
        consts[*v] = Some(match id.and_then(|p| model.process(p)) {
            Some(f) => Term::Pid(Pid(f.pid)),
            // Equal to no pid: a pattern naming a missing process fails.
            None => Term::atom("no such process"),
        });
    }
    Resolved {
        consts,
        procs,
        warnings,
    }
}

/// A process name as a specification writes it.
pub fn show(r: &ProcRef) -> String {
    match r {
        ProcRef::Name(n) => format!("<{n}>"),
        ProcRef::Pid(_) => r.to_string(),
    }
}
