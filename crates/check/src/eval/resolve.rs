//! Process names of a property resolved against one log: each `<P.2>`,
//! `<0.83.0>` or registered name — a constant variable of the property —
//! becomes a raw pid, or nothing, with a warning, when the log has no such
//! process (the property then speaks of no event of it, which is what it
//! means for that run).

use super::matcher::Env;
use super::registry::{Holder, Registry};
use crate::compiled::{CompiledProperty, Named};
use trace_capture::ProcRef;
use trace_causal::Model;
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
    /// Why the property cannot be checked on this log: a registered name
    /// that several processes held in turn.
    pub ambiguous: Option<String>,
}

impl Resolved {
    /// The process constant variable `v` names, if the log has it.
    pub fn proc_of(&self, v: usize) -> Option<ProcId> {
        self.procs.get(v).copied().flatten()
    }
}

pub fn resolve(prop: &CompiledProperty, model: &Model, registry: &Registry) -> Resolved {
    let mut consts: Env = vec![None; prop.vars.len()];
    let mut procs = vec![None; prop.vars.len()];
    let mut warnings = Vec::new();
    let mut ambiguous = None;
    let mut warn = |w: String| {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    };
    for (v, named) in &prop.vars.constants {
        let id = match named {
            Named::Proc(r) => match trace_causal::resolve_proc(model, r) {
                Ok(id) => Some(id),
                Err(e) => {
                    warn(format!("{}: {e}; it matches no event", show(r)));
                    None
                }
            },
            Named::Registered(name) => match registry.holder(name) {
                Holder::One(pid) => model.process_by_pid(pid).map(|f| f.id),
                Holder::None => {
                    warn(format!(
                        "{}: no process of this log registered it; it matches no event",
                        trace_syntax::text::atom(name)
                    ));
                    None
                }
                Holder::Several(pids) => {
                    let who: Vec<String> = pids.iter().map(|p| show_pid(model, *p)).collect();
                    ambiguous = Some(format!(
                        "{}: held in turn by {} in this run; say which process the property \
                         means: -registered({}, {}).",
                        trace_syntax::text::atom(name),
                        who.join(", "),
                        trace_syntax::text::atom(name),
                        who[0]
                    ));
                    None
                }
            },
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
        ambiguous,
    }
}

/// A process of the log by its symbolic name when it has one.
fn show_pid(model: &Model, pid: u64) -> String {
    match model.process_by_pid(pid) {
        Some(f) => match model.names().name(f.id) {
            Some(n) => show(&ProcRef::Name(n)),
            None => show(&ProcRef::Pid(pid)),
        },
        None => show(&ProcRef::Pid(pid)),
    }
}

/// A process name as a specification writes it.
pub fn show(r: &ProcRef) -> String {
    match r {
        ProcRef::Name(n) => format!("<{n}>"),
        ProcRef::Pid(_) => r.to_string(),
    }
}
