//! Running a compiled match specification on one term: the first clause
//! whose head matches and whose guards all give `true` decides; its body's
//! last expression is the result. A guard that raises makes its clause
//! fail; a body that raises gives `'EXIT'`, as on BEAM.

use super::{Clause, Expr, MatchSpec, Pat};
use trace_term::order::exact_eq;
use trace_term::{atom, MapRepr, Pid, Term};

/// Why an expression gave no value (a raised exception or a bad `andalso`).
struct Raised;

type Value = Result<Term, Raised>;

impl MatchSpec {
    /// The result for `obj`, or `None` if no clause matches. `me` is what
    /// `{self}` gives; `binds` is scratch space reused between calls.
    pub fn run(&self, obj: &Term, me: Pid, binds: &mut Vec<Term>) -> Option<Term> {
        self.clauses.iter().find_map(|c| c.run(obj, me, binds))
    }
}

impl Clause {
    fn run(&self, obj: &Term, me: Pid, binds: &mut Vec<Term>) -> Option<Term> {
        binds.clear();
        binds.resize(self.vars, Term::Nil);
        if !matches(&self.head, obj, binds) {
            return None;
        }
        let cx = Scope {
            obj,
            me,
            binds,
            numbered: &self.numbered,
        };
        for g in &self.guards {
            match cx.eval(g) {
                Ok(Term::Atom(atom::TRUE)) => {}
                _ => return None,
            }
        }
        let mut result = Term::Nil;
        for b in &self.body {
            match cx.eval(b) {
                Ok(v) => result = v,
                Err(Raised) => return Some(Term::Atom(atom::EXIT_UPPER)),
            }
        }
        Some(result)
    }
}

fn matches(p: &Pat, t: &Term, binds: &mut [Term]) -> bool {
    match p {
        Pat::Any => true,
        Pat::Bind(s) => {
            binds[*s] = t.clone();
            true
        }
        Pat::Same(s) => exact_eq(&binds[*s], t),
        Pat::Const(c) => exact_eq(c, t),
        Pat::Tuple(ps) => match t.as_tuple() {
            Some(es) if es.len() == ps.len() => {
                ps.iter().zip(es).all(|(p, e)| matches(p, e, binds))
            }
            _ => false,
        },
        Pat::Cons(h, tl) => match t {
            Term::Cons(c) => matches(h, &c.head, binds) && matches(tl, &c.tail, binds),
            _ => false,
        },
        Pat::Map(pairs) => match t {
            Term::Map(m) => pairs
                .iter()
                .all(|(k, p)| m.get(k).is_some_and(|v| matches(p, v, binds))),
            _ => false,
        },
    }
}

struct Scope<'a> {
    obj: &'a Term,
    me: Pid,
    binds: &'a [Term],
    numbered: &'a [usize],
}

impl Scope<'_> {
    fn eval(&self, e: &Expr) -> Value {
        Ok(match e {
            Expr::Const(t) => t.clone(),
            Expr::Var(s) => self.binds[*s].clone(),
            Expr::Object => self.obj.clone(),
            Expr::AllVars => Term::list(
                self.numbered
                    .iter()
                    .map(|&s| self.binds[s].clone())
                    .collect(),
            ),
            Expr::SelfPid => Term::Pid(self.me),
            Expr::Tuple(es) => Term::tuple(self.all(es)?),
            Expr::List(es, tail) => Term::list_with_tail(self.all(es)?, self.eval(tail)?),
            Expr::Map(pairs) => {
                let mut m = MapRepr::new();
                for (k, v) in pairs {
                    m.insert(self.eval(k)?, self.eval(v)?);
                }
                Term::Map(trace_term::Arc::new(m))
            }
            Expr::Call(f, args) => f(&self.all(args)?).map_err(|_| Raised)?,
            Expr::AndAlso(es) => return self.short_circuit(es, atom::FALSE),
            Expr::OrElse(es) => return self.short_circuit(es, atom::TRUE),
        })
    }

    fn all(&self, es: &[Expr]) -> Result<Vec<Term>, Raised> {
        es.iter().map(|e| self.eval(e)).collect()
    }

    /// `andalso` (stops at `false`) and `orelse` (stops at `true`): every
    /// operand but the last must be a boolean; the last one's value is the
    /// result.
    fn short_circuit(&self, es: &[Expr], stop: trace_term::Atom) -> Value {
        let (last, init) = es.split_last().ok_or(Raised)?;
        for e in init {
            match self.eval(e)? {
                Term::Atom(a) if a == stop => return Ok(Term::Atom(stop)),
                Term::Atom(atom::TRUE | atom::FALSE) => {}
                _ => return Err(Raised),
            }
        }
        self.eval(last)
    }
}
