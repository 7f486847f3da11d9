//! Matching a compiled pattern against a term.

use crate::node::Node;
use trace_term::order::exact_eq;
use trace_term::Term;

/// Values bound to a pattern's variables by a successful match.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    values: Vec<Option<Term>>,
}

impl Bindings {
    pub fn new(n: usize) -> Bindings {
        Bindings {
            values: vec![None; n],
        }
    }

    /// Binds variable `i` to `t`, or, bound already, tells whether it is
    /// `t` (`=:=`).
    pub(crate) fn bind(&mut self, i: usize, t: Term) -> bool {
        if self.values.len() <= i {
            self.values.resize(i + 1, None);
        }
        match &self.values[i] {
            Some(v) => exact_eq(v, &t),
            None => {
                self.values[i] = Some(t);
                true
            }
        }
    }

    pub fn get(&self, i: usize) -> Option<&Term> {
        self.values.get(i).and_then(|v| v.as_ref())
    }

    /// Pre-binds variable `i` (e.g. a variable bound elsewhere in a property).
    pub fn set(&mut self, i: usize, t: Term) {
        if i >= self.values.len() {
            self.values.resize(i + 1, None);
        }
        self.values[i] = Some(t);
    }
}

/// Matches `t` against the compiled tree `n` of a pattern with `nvars`
/// variables, some maybe bound in `b` already.
pub(crate) fn match_node(n: &Node, nvars: usize, t: &Term, mut b: Bindings) -> Option<Bindings> {
    if b.values.len() < nvars {
        b.values.resize(nvars, None);
    }
    m(n, t, &mut b).then_some(b)
}

fn m(n: &Node, t: &Term, b: &mut Bindings) -> bool {
    match n {
        Node::Any => true,
        Node::Var(i) => match &b.values[*i] {
            Some(v) => exact_eq(v, t),
            None => {
                b.values[*i] = Some(t.clone());
                true
            }
        },
        Node::Lit(l) => exact_eq(l, t),
        Node::Tuple(ps) => match t {
            Term::Tuple(tu) if tu.arity() == ps.len() => {
                ps.iter().zip(tu.elements()).all(|(p, x)| m(p, x, b))
            }
            _ => false,
        },
        Node::Cons(..) => {
            // Walk the list spine iteratively for long string prefixes.
            let (mut pn, mut cur): (&Node, &Term) = (n, t);
            loop {
                match (pn, cur) {
                    (Node::Cons(ph, pt), Term::Cons(c)) => {
                        if !m(ph, &c.head, b) {
                            return false;
                        }
                        pn = pt;
                        cur = &c.tail;
                    }
                    (Node::Cons(..), _) => return false,
                    _ => return m(pn, cur, b),
                }
            }
        }
        Node::Map(items) => match t {
            Term::Map(mp) => items.iter().all(|(k, p)| match mp.get(k) {
                Some(v) => m(p, v, b),
                None => false,
            }),
            _ => false,
        },
        Node::Both(x, y) => m(x, t, b) && m(y, t, b),
    }
}

#[cfg(test)]
mod tests {
    use crate::compile_str;
    use trace_term::Term;

    fn t(s: &str) -> Term {
        // Build terms from constant Erlang text through the same front end.
        let e = trace_syntax::parse_expr(s).unwrap();
        crate::compile::literal(&e).unwrap()
    }

    #[test]
    fn literals_tuples_lists_and_repeated_variables() {
        let p = compile_str("{ok, X, [X | _]}").unwrap();
        assert!(p.matches(&t("{ok, 1, [1, 2]}")).is_some());
        assert!(p.matches(&t("{ok, 1, [2, 2]}")).is_none());
        let b = p.matches(&t("{ok, a, [a]}")).unwrap();
        assert!(matches!(b.get(0), Some(Term::Atom(_))));
        assert!(compile_str("\"ab\" ++ Rest")
            .unwrap()
            .matches(&t("\"abc\""))
            .is_some());
        assert!(compile_str("-3").unwrap().matches(&Term::Int(-3)).is_some());
        assert!(
            compile_str("1")
                .unwrap()
                .matches(&Term::Float(1.0))
                .is_none(),
            "patterns match exactly"
        );
    }

    #[test]
    fn maps_and_aliases() {
        let p = compile_str("#{a := V} = M").unwrap();
        let m = Term::Map(trace_term::Arc::new(trace_term::MapRepr::from_pairs([
            (Term::atom("a"), Term::Int(1)),
            (Term::atom("b"), Term::Int(2)),
        ])));
        let b = p.matches(&m).unwrap();
        assert!(matches!(
            b.get(p.var_index("V").unwrap()),
            Some(Term::Int(1))
        ));
        assert!(p.matches(&Term::Nil).is_none());
    }

    #[test]
    fn non_patterns_are_refused_with_a_column() {
        let e = compile_str("f(X)").unwrap_err();
        assert!(e.message.contains("illegal pattern"), "{e}");
        assert!(compile_str("{a,").is_err());
        // Valid Erlang, but not taken: said so, not called illegal.
        let e = compile_str("{data, <<\"ab\">>}").unwrap_err();
        assert!(
            e.message.contains("binary patterns are not supported"),
            "{e}"
        );
    }
}
