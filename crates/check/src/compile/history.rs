//! A concurrent-event history (Caballero et al. 2019 §4.1) compiled: its
//! subject resolved to a constant or a variable, each step pattern's terms
//! compiled against the property's variables.

use super::pred::pattern as compile_pattern;
use crate::compiled::{
    CompiledConsumed, CompiledHistory, CompiledItem, CompiledList, CompiledListItem, CompiledStep,
    CompiledSubject, Pat, Vars,
};
use crate::spec::history::{Consumed, HistItem, ListItem, ListPattern, StepPattern};
use crate::spec::{procname, SpecError, Subject};
use std::collections::HashMap;
use std::path::Path;
use trace_capture::ProcRef;
use trace_syntax::ast::{Expr, ExprKind, Pos};

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
