//! Process names of a property resolved against one log: each `<P.2>`,
//! `<0.83.0>` or declared registered name becomes a raw pid — or nothing,
//! with a warning, when the log has no such process (the property then
//! speaks of no event of it, which is what it means for that run).

use super::matcher::{Env, Fixed};
use crate::compile::{CProp, ProcArg};
use trace_causal::{Model, ProcRef};
use trace_term::{Pid, Term};

/// A property's names, resolved.
pub struct Resolved {
    /// The property's variables with the named processes bound.
    pub consts: Env,
    fixed: Vec<(ProcRef, Option<u64>)>,
    /// Names that name no process here.
    pub warnings: Vec<String>,
}

impl Fixed for Resolved {
    fn pid(&self, r: &ProcRef) -> Option<u64> {
        self.fixed
            .iter()
            .find(|(x, _)| x == r)
            .and_then(|(_, p)| *p)
    }
}

impl Resolved {
    /// The process a fixed argument names, if it is in the log.
    pub fn proc(&self, model: &Model, r: &ProcRef) -> Option<trace_format::ProcId> {
        let pid = self.pid(r)?;
        model.names().lookup_pid(pid).ok()
    }
}

pub fn resolve(prop: &CProp, model: &Model) -> Resolved {
    let mut refs: Vec<ProcRef> = prop.vars.constants.iter().map(|(_, r)| r.clone()).collect();
    for p in &prop.preds {
        for a in &p.procs {
            if let ProcArg::Fixed(r) = a {
                refs.push(r.clone());
            }
        }
    }
    if let crate::compile::Shape::History(h) = &prop.shape {
        refs.extend(h.names());
    }
    let mut fixed: Vec<(ProcRef, Option<u64>)> = Vec::new();
    let mut warnings = Vec::new();
    for r in refs {
        if fixed.iter().any(|(x, _)| *x == r) {
            continue;
        }
        let pid = match model.resolve_proc(&r) {
            Ok(id) => model.process(id).map(|f| f.pid),
            Err(e) => {
                warnings.push(format!("{}: {e}; it matches no event", show(&r)));
                None
            }
        };
        fixed.push((r, pid));
    }
    let mut consts: Env = vec![None; prop.vars.len()];
    for (v, r) in &prop.vars.constants {
        let pid = fixed.iter().find(|(x, _)| x == r).and_then(|(_, p)| *p);
        consts[*v] = Some(match pid {
            Some(n) => Term::Pid(Pid(n)),
            // Equal to no pid: a pattern naming a missing process fails.
            None => Term::atom("no such process"),
        });
    }
    Resolved {
        consts,
        fixed,
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
