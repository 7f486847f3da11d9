//! From a parsed [`Spec`] to properties ready to check: predicates in their
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

mod pred;
mod safety;

pub use pred::{CompiledGuard, CompiledPredicate, ProcArg, TermArg};

use crate::spec::procname;
use crate::spec::{Body, Builtin, Occurrence, OrderKind, Pred, Scope, Spec, SpecError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use trace_capture::ProcRef;
use trace_syntax::ast::{Expr, ExprKind, Pos};

/// A specification ready to check.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub path: PathBuf,
    pub properties: Vec<CompiledProperty>,
}

/// One property ready to check.
#[derive(Clone, Debug)]
pub struct CompiledProperty {
    pub name: String,
    pub pos: Pos,
    pub text: String,
    pub vars: Vars,
    /// Every event predicate of the property; `pattern` refers to them by index.
    pub preds: Vec<CompiledPredicate>,
    pub pattern: PropertyPattern,
    /// When every event the property involves lies in one process — the
    /// same process variable, or the same named process, as every event's
    /// first argument — happened-before among them is that process's order.
    /// The variable is then that first argument.
    pub local: Option<usize>,
}

/// A process a property names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// `<P.2>`, `<0.83.0>`, or a registered name the specification declares.
    Proc(ProcRef),
    /// A registered name the specification does not declare: who held it
    /// is read off the log's register/2 results.
    Registered(String),
}

impl From<ProcRef> for Named {
    fn from(r: ProcRef) -> Named {
        Named::Proc(r)
    }
}

/// The variables of a property.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    pub names: Vec<String>,
    /// Variables that stand for a named process (`<P.2>`, a registered name).
    pub constants: Vec<(usize, Named)>,
}

impl Vars {
    pub(crate) fn index(&mut self, name: &str) -> usize {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        }
    }

    pub(crate) fn constant(&mut self, name: &str, p: impl Into<Named>) -> usize {
        let i = self.index(name);
        if !self.constants.iter().any(|(j, _)| *j == i) {
            self.constants.push((i, p.into()));
        }
        i
    }

    /// The constant for registered name `name`: the declared process, or
    /// the name itself, to be looked up in the log.
    pub(crate) fn registered(&mut self, declared: &HashMap<String, ProcRef>, name: &str) -> usize {
        match declared.get(name) {
            Some(r) => self.constant(&procname::placeholder(r), r.clone()),
            // Not an Erlang variable name, so it cannot clash with one.
            None => self.constant(&format!("@{name}"), Named::Registered(name.to_string())),
        }
    }

    /// Whether some constant is a registered name to look up in the log.
    pub fn uses_log_names(&self) -> bool {
        self.constants
            .iter()
            .any(|(_, n)| matches!(n, Named::Registered(_)))
    }

    pub fn is_constant(&self, i: usize) -> bool {
        self.constants.iter().any(|(j, _)| *j == i)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// What a property checks, over its predicates (indices into `preds`).
#[derive(Clone, Debug)]
pub enum PropertyPattern {
    Occurrence {
        kind: Occurrence,
        pred: usize,
        /// For universality: which events the pattern is about (kind and
        /// fixed processes only); each must match `pred`.
        select: Option<usize>,
        scope: CompiledScope,
    },
    Order {
        kind: OrderKind,
        trigger: Vec<usize>,
        other: Vec<usize>,
        scope: CompiledScope,
    },
    History(crate::history::CompiledHistory),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CompiledScope {
    Global,
    Before(usize),
    After(usize),
    Between(usize, usize),
    AfterUntil(usize, usize),
}

impl CompiledScope {
    pub fn opener(self) -> Option<usize> {
        match self {
            CompiledScope::After(q)
            | CompiledScope::Between(q, _)
            | CompiledScope::AfterUntil(q, _) => Some(q),
            _ => None,
        }
    }

    pub fn closer(self) -> Option<usize> {
        match self {
            CompiledScope::Before(r)
            | CompiledScope::Between(_, r)
            | CompiledScope::AfterUntil(_, r) => Some(r),
            _ => None,
        }
    }
}

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

struct Cx<'a> {
    path: &'a Path,
    registered: &'a HashMap<String, ProcRef>,
    vars: Vars,
    preds: Vec<CompiledPredicate>,
    uses: HashMap<String, usize>,
}

impl Cx<'_> {
    fn err<T>(&self, pos: Pos, msg: impl Into<String>) -> R<T> {
        Err(crate::spec::error::at(self.path, pos, msg))
    }

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
                return crate::history::compile(
                    self.path,
                    self.registered,
                    &mut self.vars,
                    subject,
                    items,
                )
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

/// The history compiler reaches the shared helpers through this.
pub(crate) fn compile_pattern(
    path: &Path,
    e: &Expr,
    vars: &mut Vars,
) -> Result<(trace_pattern::Pattern, Vec<usize>), SpecError> {
    pred::pattern(path, e, vars)
}
