//! Concurrent-event histories (Caballero et al. 2019 §4.1), compiled and checked.
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

use crate::compile::{compile_pattern, Vars};
use crate::eval::engine::GaveUp;
use crate::eval::Violation;
use crate::spec::history::{Consumed, HistItem, ListItem, ListPattern, StepPattern};
use crate::spec::{procname, SpecError, Subject};
use std::collections::HashMap;
use std::path::Path;
use trace_capture::ProcRef;
use trace_pattern::Pattern;
use trace_syntax::ast::{Expr, ExprKind, Pos};

/// A compiled term pattern with its variables mapped to the property's.
#[derive(Clone, Debug)]
pub struct Pat {
    pub pattern: Pattern,
    pub map: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum CompiledConsumed {
    Any,
    Nothing,
    Timeout,
    /// Matched against `{From, Msg}`.
    Message(Pat),
}

#[derive(Clone, Debug)]
pub enum CompiledList {
    Any,
    Items(Vec<CompiledListItem>),
}

#[derive(Clone, Debug)]
pub enum CompiledListItem {
    One(Pat),
    Star,
    Group(Vec<Pat>),
}

#[derive(Clone, Debug)]
pub struct CompiledStep {
    pub pos: Pos,
    /// As written.
    pub text: String,
    /// Matched against the step's process's pid.
    pub process: Pat,
    pub consumed: CompiledConsumed,
    /// Items matched against `{To, Msg}`.
    pub sent: CompiledList,
    /// Items matched against the children's pids.
    pub spawned: CompiledList,
}

#[derive(Clone, Debug)]
pub enum CompiledItem {
    Step(Box<CompiledStep>),
    Star,
    Group(Vec<CompiledStep>),
}

#[derive(Clone, Debug)]
pub enum CompiledSubject {
    Global,
    /// The process a constant variable (`<P.1>`, a registered name) names.
    Process(usize),
    /// Every process, bound to this variable in turn.
    Each(usize),
}

/// A compiled history.
#[derive(Clone, Debug)]
pub struct CompiledHistory {
    pub subject: CompiledSubject,
    pub items: Vec<CompiledItem>,
}

impl CompiledHistory {
    /// Whether matching reads message terms (every history does, unless all
    /// its messages are `_`); conservatively: any step pattern with a
    /// consumed message or sent items.
    pub fn needs_payloads(&self) -> bool {
        fn step(s: &CompiledStep) -> bool {
            matches!(s.consumed, CompiledConsumed::Message(_))
                || matches!(&s.sent, CompiledList::Items(v) if v.iter().any(|i| !matches!(i, CompiledListItem::Star)))
        }
        self.items.iter().any(|i| match i {
            CompiledItem::Step(s) => step(s),
            CompiledItem::Group(g) => g.iter().any(step),
            CompiledItem::Star => false,
        })
    }
}

type R<T> = Result<T, SpecError>;

/// The most steps an unordered group may hold (it is matched by trying orders).
const MAX_GROUP: usize = 8;

pub(crate) fn compile(
    path: &Path,
    registered: &HashMap<String, ProcRef>,
    vars: &mut Vars,
    subject: &Subject,
    items: &[HistItem],
) -> R<CompiledHistory> {
    let subject = match subject {
        Subject::Global => CompiledSubject::Global,
        // The subject's name is a constant like any other, to be resolved.
        Subject::Process(e) => match &e.kind {
            ExprKind::Var(v) if v == "_" => {
                return Err(crate::spec::error::at(
                    path,
                    e.pos,
                    "a history is of a process: <P.1>, a registered name, a variable \
                     (each process) or global",
                ))
            }
            ExprKind::Var(v) => match procname::from_placeholder(v) {
                Some(r) => CompiledSubject::Process(vars.constant(v, r)),
                None => CompiledSubject::Each(vars_index(vars, v)),
            },
            ExprKind::Atom(a) => CompiledSubject::Process(vars.registered(registered, a)),
            _ => {
                return Err(crate::spec::error::at(
                    path,
                    e.pos,
                    "a history is of a process: <P.1>, a registered name, a variable \
                     (each process) or global",
                ))
            }
        },
    };
    let mut out = Vec::new();
    for it in items {
        match it {
            HistItem::Star => out.push(CompiledItem::Star),
            // `+` is one step of any pattern, then any number.
            HistItem::Plus => {
                out.push(CompiledItem::Step(Box::new(any_step(path, vars)?)));
                out.push(CompiledItem::Star);
            }
            HistItem::Step(s) => out.push(CompiledItem::Step(Box::new(step(path, vars, s)?))),
            HistItem::Group(g) => {
                if g.len() > MAX_GROUP {
                    return Err(crate::spec::error::at(
                        path,
                        g[MAX_GROUP].pos,
                        format!("an unordered group holds at most {MAX_GROUP} steps"),
                    ));
                }
                out.push(CompiledItem::Group(
                    g.iter().map(|s| step(path, vars, s)).collect::<R<_>>()?,
                ))
            }
        }
    }
    Ok(CompiledHistory {
        subject,
        items: out,
    })
}

fn vars_index(vars: &mut Vars, name: &str) -> usize {
    vars.index(name)
}

fn any_expr(pos: Pos) -> Expr {
    Expr::new(pos, ExprKind::Var("_".into()))
}

fn any_step(path: &Path, vars: &mut Vars) -> R<CompiledStep> {
    let pos = Pos {
        file: 0,
        line: 0,
        col: 0,
    };
    Ok(CompiledStep {
        pos,
        text: "_".into(),
        process: pat(path, vars, &any_expr(pos))?,
        consumed: CompiledConsumed::Any,
        sent: CompiledList::Any,
        spawned: CompiledList::Any,
    })
}

fn pat(path: &Path, vars: &mut Vars, e: &Expr) -> R<Pat> {
    let (pattern, map) = compile_pattern(path, e, vars)?;
    Ok(Pat { pattern, map })
}

fn step(path: &Path, vars: &mut Vars, s: &StepPattern) -> R<CompiledStep> {
    let consumed = match &s.consumed {
        Consumed::Any => CompiledConsumed::Any,
        Consumed::Nothing => CompiledConsumed::Nothing,
        Consumed::Timeout => CompiledConsumed::Timeout,
        Consumed::Message { from, msg } => {
            let pos = from.pos;
            let tuple = Expr::new(
                pos,
                ExprKind::Tuple(vec![(**from).clone(), (**msg).clone()]),
            );
            CompiledConsumed::Message(pat(path, vars, &tuple)?)
        }
    };
    Ok(CompiledStep {
        pos: s.pos,
        text: s.text.clone(),
        process: pat(path, vars, &s.process)?,
        consumed,
        sent: list(path, vars, &s.sent, true)?,
        spawned: list(path, vars, &s.spawned, false)?,
    })
}

fn list(path: &Path, vars: &mut Vars, l: &ListPattern, sent: bool) -> R<CompiledList> {
    let ListPattern::Items(items) = l else {
        return Ok(CompiledList::Any);
    };
    let one = |vars: &mut Vars, e: &Expr| -> R<Pat> {
        if sent
            && !matches!(&e.kind, ExprKind::Tuple(es) if es.len() == 2)
            && !matches!(&e.kind, ExprKind::Var(v) if v == "_")
        {
            return Err(crate::spec::error::at(
                path,
                e.pos,
                "a message a step sent is written {To, Msg}",
            ));
        }
        pat(path, vars, e)
    };
    let mut out = Vec::new();
    for it in items {
        match it {
            ListItem::Star => out.push(CompiledListItem::Star),
            ListItem::Plus => {
                out.push(CompiledListItem::One(pat(
                    path,
                    vars,
                    &any_expr(Pos {
                        file: 0,
                        line: 0,
                        col: 0,
                    }),
                )?));
                out.push(CompiledListItem::Star);
            }
            ListItem::One(e) => out.push(CompiledListItem::One(one(vars, e)?)),
            ListItem::Group(g) => {
                if g.len() > MAX_GROUP {
                    return Err(crate::spec::error::at(
                        path,
                        g[MAX_GROUP].pos,
                        format!("an unordered group holds at most {MAX_GROUP} items"),
                    ));
                }
                out.push(CompiledListItem::Group(
                    g.iter().map(|e| one(vars, e)).collect::<R<_>>()?,
                ))
            }
        }
    }
    Ok(CompiledList::Items(out))
}

/// Checks a history on the log.
pub(crate) fn check(
    h: &CompiledHistory,
    prop: &crate::compile::CompiledProperty,
    resolved: &crate::eval::resolve::Resolved,
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
                    env[v] = Some(crate::eval::matcher::pid_term(pid));
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
