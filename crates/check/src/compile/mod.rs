//! From a parsed [`Spec`] to properties ready to check (the forms of
//! [`crate::compiled`], which this module writes): predicates in their
//! canonical form (`receive(P, Msg)` becomes `receive(P, _, Msg)`), process
//! arguments classified, Erlang patterns and guards compiled, variables
//! numbered per property, and what each predicate may see of the others'
//! bindings worked out.
//!
//! Variables flow in one direction through a property: from the scope's
//! opening event `Q` to its closing event `R` and to the pattern's events,
//! and from left to right along the pattern (`every A then B is followed by
//! C`: A → B → C). A variable shared by two events that no flow connects
//! (the closing event and the pattern's events) is an error, because neither
//! could constrain the other.
//!
//! Nothing here needs a log; process names are resolved against one in
//! [`crate::eval`].

mod cx;
mod history;
mod pred;

use cx::Cx;

use crate::compiled::{
    Compiled, CompiledPredicate, CompiledProperty, CompiledScope, ProcArg, PropertyPattern, Vars,
};
use crate::spec::{procname, Body, Builtin, Occurrence, Pred, Scope, Spec, SpecError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use trace_syntax::ast::{ExprKind, Pos};

type R<T> = Result<T, SpecError>;

/// Compiles every property; all errors are returned, each located.
pub fn compile(spec: &Spec) -> Result<Compiled, Vec<SpecError>> {
    let mut registered = HashMap::new();
    let mut errors = Vec::new();
    for r in &spec.registered {
        match &r.process.kind {
            ExprKind::Var(v) => match procname::from_placeholder(v) {
                Some(p) => {
                    registered.insert(r.name.clone(), p);
                }
                None => errors.push(crate::spec::error::at(
                    &spec.path,
                    r.process.pos,
                    "expected a process: a symbolic name like <P.2> or a pid like <0.83.0>",
                )),
            },
            _ => errors.push(crate::spec::error::at(
                &spec.path,
                r.process.pos,
                "expected a process: a symbolic name like <P.2> or a pid like <0.83.0>",
            )),
        }
    }
    let mut properties = Vec::new();
    for p in &spec.properties {
        let mut cx = Cx {
            path: &spec.path,
            registered: &registered,
            vars: Vars::default(),
            preds: Vec::new(),
            uses: count_uses(&p.body),
        };
        match cx.property(&p.body) {
            Ok(pattern) => {
                let local = local_owner(&cx.preds, &pattern);
                properties.push(CompiledProperty {
                    name: p.name.clone(),
                    pos: p.pos,
                    text: p.text.clone(),
                    vars: cx.vars,
                    preds: cx.preds,
                    pattern,
                    local,
                })
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(Compiled {
            path: spec.path.clone(),
            properties,
        })
    } else {
        Err(errors)
    }
}

/// The built-in checks, as a specification of their own.
pub fn builtins(which: &[Builtin]) -> Compiled {
    let spec = Spec {
        path: PathBuf::from("<built-in>"),
        properties: which
            .iter()
            .map(|&b| crate::spec::Property {
                name: b.name().to_string(),
                pos: Pos {
                    file: 0,
                    line: 0,
                    col: 0,
                },
                text: b.meaning().to_string(),
                body: Body::Builtin(b),
            })
            .collect(),
        registered: Vec::new(),
    };
    compile(&spec).expect("the built-ins compile")
}

/// How many times each variable name occurs in a property (a variable that
/// occurs once constrains nothing).
fn count_uses(body: &Body) -> HashMap<String, usize> {
    let mut uses = HashMap::new();
    let mut pred = |p: &Pred| {
        for a in &p.args {
            pred::vars_of(a, &mut |v| *uses.entry(v.to_string()).or_insert(0) += 1);
        }
        for alt in &p.guard {
            for g in alt {
                pred::vars_of(g, &mut |v| *uses.entry(v.to_string()).or_insert(0) += 1);
            }
        }
    };
    match body {
        Body::Occurrence { event, scope, .. } => {
            pred(event);
            scope.preds().into_iter().for_each(&mut pred);
        }
        Body::Order {
            trigger,
            other,
            scope,
            ..
        } => {
            trigger.iter().chain(other).for_each(&mut pred);
            scope.preds().into_iter().for_each(&mut pred);
        }
        Body::History { .. } | Body::Builtin(_) => {}
    }
    uses
}

impl Cx<'_> {
    /// Compiles `p`, seeing the variables of `sees` (indices of earlier predicates).
    fn pred(&mut self, p: &Pred, sees: &[usize]) -> R<usize> {
        let visible: Vec<usize> = sees
            .iter()
            .flat_map(|&k| self.preds[k].binds.clone())
            .collect();
        let c = pred::compile(p, self, &visible)?;
        self.preds.push(c);
        Ok(self.preds.len() - 1)
    }

    fn scope(&mut self, s: &Scope) -> R<(CompiledScope, Vec<usize>)> {
        Ok(match s {
            Scope::Global => (CompiledScope::Global, vec![]),
            Scope::Before(r) => {
                let r = self.pred(r, &[])?;
                (CompiledScope::Before(r), vec![])
            }
            Scope::After(q) => {
                let q = self.pred(q, &[])?;
                (CompiledScope::After(q), vec![q])
            }
            Scope::Between(q, r) => {
                let q = self.pred(q, &[])?;
                let r = self.pred(r, &[q])?;
                (CompiledScope::Between(q, r), vec![q])
            }
            Scope::AfterUntil(q, r) => {
                let q = self.pred(q, &[])?;
                let r = self.pred(r, &[q])?;
                (CompiledScope::AfterUntil(q, r), vec![q])
            }
        })
    }

    fn property(&mut self, body: &Body) -> R<PropertyPattern> {
        let pattern = match body {
            Body::Occurrence { kind, event, scope } => {
                let (scope, seen) = self.scope(scope)?;
                let pred = self.pred(event, &seen)?;
                let select = (*kind == Occurrence::Universality).then(|| {
                    let s = self.preds[pred].selection(&self.vars);
                    self.preds.push(s);
                    self.preds.len() - 1
                });
                PropertyPattern::Occurrence {
                    kind: *kind,
                    pred,
                    select,
                    scope,
                }
            }
            Body::Order {
                kind,
                trigger,
                other,
                scope,
            } => {
                let (scope, mut seen) = self.scope(scope)?;
                let mut t = Vec::new();
                for p in trigger {
                    let k = self.pred(p, &seen)?;
                    seen.push(k);
                    t.push(k);
                }
                let mut o = Vec::new();
                for p in other {
                    let k = self.pred(p, &seen)?;
                    seen.push(k);
                    o.push(k);
                }
                PropertyPattern::Order {
                    kind: *kind,
                    trigger: t,
                    other: o,
                    scope,
                }
            }
            Body::Builtin(b) => return self.builtin(*b),
            Body::History { subject, items } => {
                return history::compile(self.path, self.registered, &mut self.vars, subject, items)
                    .map(PropertyPattern::History)
            }
        };
        self.check_flows(&pattern)?;
        Ok(pattern)
    }

    fn builtin(&mut self, b: Builtin) -> R<PropertyPattern> {
        let text = match b {
            Builtin::AllReceived => "unreceived(_, _, _)",
            Builtin::NoDeadlock => "blocked(_)",
            Builtin::NoAbnormalExit => {
                "exit(_, R) when R =/= normal, R =/= shutdown, \
                 not (is_tuple(R) andalso element(1, R) =:= shutdown)"
            }
        };
        let spec = crate::spec::parse(
            Path::new("<built-in>"),
            &format!("{}: never {text}.", b.name()),
        )
        .expect("built-ins parse");
        let body = &spec.properties[0].body;
        let Body::Occurrence { event, .. } = body else {
            unreachable!("a built-in is an absence")
        };
        self.uses = count_uses(body);
        let pred = self.pred(event, &[])?;
        Ok(PropertyPattern::Occurrence {
            kind: Occurrence::Absence,
            pred,
            select: None,
            scope: CompiledScope::Global,
        })
    }

    /// A variable shared by two predicates must flow from one to the other.
    fn check_flows(&self, pattern: &PropertyPattern) -> R<()> {
        let closer = match pattern {
            PropertyPattern::Occurrence { scope, .. } | PropertyPattern::Order { scope, .. } => {
                scope.closer()
            }
            PropertyPattern::History(_) => None,
        };
        let Some(r) = closer else { return Ok(()) };
        let opener = match pattern {
            PropertyPattern::Occurrence { scope, .. } | PropertyPattern::Order { scope, .. } => {
                scope.opener()
            }
            PropertyPattern::History(_) => None,
        };
        let from_q: Vec<usize> = opener
            .map(|q| self.preds[q].binds.clone())
            .unwrap_or_default();
        for (k, p) in self.preds.iter().enumerate() {
            if k == r || Some(k) == opener {
                continue;
            }
            for v in &self.preds[r].binds {
                if p.binds.contains(v) && !from_q.contains(v) && !self.vars.is_constant(*v) {
                    let name = &self.vars.names[*v];
                    return self.err(
                        self.preds[r].pos,
                        format!(
                            "variable '{name}' is bound both by the event closing the scope \
                             and by {}, which does not see it: variables flow from the \
                             scope's opening event to the others; rename one of them",
                            p.text
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

/// The process variable every predicate is about, when it is the same one.
fn local_owner(preds: &[CompiledPredicate], pattern: &PropertyPattern) -> Option<usize> {
    if matches!(pattern, PropertyPattern::History(_)) {
        return None;
    }
    let mut owner = None;
    for p in preds {
        match (&p.procs[0], owner) {
            (ProcArg::Any, _) => return None,
            (ProcArg::Var(v), None) => owner = Some(*v),
            (ProcArg::Var(v), Some(o)) if *v == o => {}
            _ => return None,
        }
    }
    owner
}
