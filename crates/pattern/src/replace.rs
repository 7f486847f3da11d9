//! Rewriting what a pattern's variables matched: `trace diff --abstract`
//! turns the parts of a payload bound to variables into a wildcard, keeping
//! the parts matched by literals and `_`.

use crate::node::Node;
use trace_term::{MapRepr, Term};

/// Parts of `t` outside the pattern's shape (possible only once an alias has
/// replaced them) are kept.
pub(crate) fn rebuild(n: &Node, t: &Term, with: &Term) -> Term {
    match (n, t) {
        (Node::Var(_), _) => with.clone(),
        (Node::Any | Node::Lit(_), _) => t.clone(),
        (Node::Tuple(ps), Term::Tuple(tu)) if tu.arity() == ps.len() => Term::tuple(
            ps.iter()
                .zip(tu.elements())
                .map(|(p, x)| rebuild(p, x, with))
                .collect(),
        ),
        (Node::Cons(..), Term::Cons(_)) => {
            // Along the spine without recursing: string prefixes can be long.
            let mut heads = Vec::new();
            let (mut pn, mut cur) = (n, t);
            while let (Node::Cons(ph, pt), Term::Cons(c)) = (pn, cur) {
                heads.push(rebuild(ph, &c.head, with));
                pn = pt;
                cur = &c.tail;
            }
            Term::list_with_tail(heads, rebuild(pn, cur, with))
        }
        (Node::Map(items), Term::Map(m)) => {
            let mut out: MapRepr = (**m).clone();
            for (k, p) in items {
                if let Some(v) = m.get(k) {
                    out.insert(k.clone(), rebuild(p, v, with));
                }
            }
            Term::Map(trace_term::Arc::new(out))
        }
        (Node::Both(x, y), _) => rebuild(y, &rebuild(x, t, with), with),
        _ => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::compile_str;
    use trace_term::Term;

    fn t(s: &str) -> Term {
        let e = trace_syntax::parse_expr(s).unwrap();
        crate::compile::literal(&e).unwrap()
    }

    fn replaced(p: &str, term: &str) -> String {
        let p = compile_str(p).unwrap();
        let x = t(term);
        assert!(p.matches(&x).is_some());
        trace_term::write_term(&p.replace_bound(&x, &Term::atom("_")))
    }

    #[test]
    fn variables_become_the_wildcard_and_the_rest_stays() {
        assert_eq!(
            replaced("{reply, R, _}", "{reply, 7, {x, 1}}"),
            "{reply,'_',{x,1}}"
        );
        assert_eq!(replaced("{tick, T}", "{tick, tick}"), "{tick,'_'}");
        assert_eq!(replaced("X", "{a, b}"), "'_'");
        assert_eq!(replaced("[H | _]", "[1, 2, 3]"), "['_',2,3]");
        assert_eq!(replaced("\"ab\" ++ Rest", "\"abcd\""), "[97,98|'_']");
        assert_eq!(replaced("{a, _} = W", "{a, 1}"), "'_'");
        assert_eq!(replaced("{X, X}", "{1, 1}"), "{'_','_'}");
    }
}
