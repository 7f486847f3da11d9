//! `--abstract 'Pattern'`: wildcarding parts of payloads before they are
//! compared (Caballero et al. 2019 §4.2: abstract a recorded history to compare looser).
//!
//! A pattern names the parts to forget with its variables: wherever a part
//! of a payload matches the pattern (and its guard, if any), what each
//! variable matched becomes the wildcard `'_'`; what literals and `_`
//! matched is kept and still compared. Patterns are tried on the whole
//! payload first, then on its parts, top-down: tuple elements, list
//! elements (and a list's tail), map values, a closure's captured values.
//! With several patterns, the first that matches a part wins, then the
//! search goes on inside what is left.

use std::fmt;
use std::path::Path;
use trace_pattern::{Guard, Pattern};
use trace_syntax::token::{Keyword, TokenKind};
use trace_syntax::{Parser, SourceMap};
use trace_term::{Fun, Term};

/// One `--abstract` pattern, compiled.
#[derive(Clone, Debug)]
pub struct Abstraction {
    text: String,
    pattern: Pattern,
    guard: Option<Guard>,
}

/// Why an `--abstract` argument is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbstractionError {
    pub text: String,
    /// 1-based column in `text`, 0 when the whole pattern is at fault.
    pub col: u32,
    pub message: String,
}

impl fmt::Display for AbstractionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.col > 0 {
            write!(f, "{:?}, column {}: {}", self.text, self.col, self.message)
        } else {
            write!(f, "{:?}: {}", self.text, self.message)
        }
    }
}

impl std::error::Error for AbstractionError {}

/// The wildcard abstracted parts become.
pub fn hole() -> Term {
    Term::atom("_")
}

impl Abstraction {
    /// Parses `Pattern` or `Pattern when Guard`.
    pub fn parse(text: &str) -> Result<Abstraction, AbstractionError> {
        let fail = |col: u32, message: String| AbstractionError {
            text: text.to_string(),
            col,
            message,
        };
        let path = Path::new("<argument>");
        let tokens =
            trace_syntax::lexer::tokenize(text, 0, path).map_err(|d| fail(d.col, d.message))?;
        let sources = SourceMap {
            files: vec![path.to_path_buf()],
        };
        let mut p = Parser::new(&tokens, &sources);
        let expr = p.parse_expr().map_err(|d| fail(d.col, d.message))?;
        let guards = match p.peek() {
            Some(t) if t.kind == TokenKind::Keyword(Keyword::When) => {
                p.advance();
                Some(p.parse_guard().map_err(|d| fail(d.col, d.message))?)
            }
            _ => None,
        };
        if p.peek().is_some_and(|t| t.kind == TokenKind::Dot) {
            p.advance();
        }
        if !p.at_end() {
            let d = p.error_expected("`when` and a guard, or the end of the pattern");
            return Err(fail(d.col, d.message));
        }
        let pattern = trace_pattern::compile(&expr).map_err(|e| fail(e.col, e.message))?;
        if pattern.variables().is_empty() {
            return Err(fail(
                0,
                "the pattern has no variable, so it abstracts nothing: write a variable where \
                 payloads may differ, e.g. '{tick, T}' or 'R when is_reference(R)'"
                    .into(),
            ));
        }
        let guard = match guards {
            None => None,
            Some(g) => Some(Guard::for_pattern(&g, &pattern).map_err(|e| fail(e.col, e.message))?),
        };
        Ok(Abstraction {
            text: text.to_string(),
            pattern,
            guard,
        })
    }

    /// The pattern as the user wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// `t` with its matched variables wildcarded, if `t` matches.
    fn apply(&self, t: &Term) -> Option<Term> {
        let b = self.pattern.matches(t)?;
        if let Some(g) = &self.guard {
            if !g.holds(&b) {
                return None;
            }
        }
        Some(self.pattern.replace_bound(t, &hole()))
    }
}

/// Abstracts `t` with `list` (top-down, first match wins at each part) and
/// maps every pid and reference through `map` on the way (see `pids`).
pub(crate) fn rewrite(t: &Term, list: &[Abstraction], map: &mut dyn FnMut(&Term) -> Term) -> Term {
    let here = list.iter().find_map(|a| a.apply(t));
    let t = here.as_ref().unwrap_or(t);
    match t {
        Term::Pid(_) | Term::Ref(_) => map(t),
        Term::Tuple(tu) => Term::tuple(
            tu.elements()
                .iter()
                .map(|x| rewrite(x, list, map))
                .collect(),
        ),
        Term::Cons(_) => {
            // Along the spine: lists may be long.
            let mut heads = Vec::new();
            let mut cur = t;
            while let Term::Cons(c) = cur {
                heads.push(rewrite(&c.head, list, map));
                cur = &c.tail;
            }
            Term::list_with_tail(heads, rewrite(cur, list, map))
        }
        Term::Map(m) => {
            let mut out = trace_term::MapRepr::new();
            for (k, v) in m.iter() {
                // Keys keep their place: only pids and references in them are mapped.
                out.insert(rewrite(k, &[], map), rewrite(v, list, map));
            }
            Term::Map(trace_term::Arc::new(out))
        }
        Term::Fun(f) => match &**f {
            Fun::Closure {
                module,
                index,
                uniq,
                arity,
                code,
                env,
            } => Term::Fun(trace_term::Arc::new(Fun::Closure {
                module: *module,
                index: *index,
                uniq: *uniq,
                arity: *arity,
                code: *code,
                env: env.iter().map(|x| rewrite(x, list, map)).collect(),
            })),
            Fun::External { .. } => t.clone(),
        },
        _ => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(s: &str) -> Term {
        literal(&trace_syntax::parse_expr(s).unwrap())
    }

    fn literal(e: &trace_syntax::ast::Expr) -> Term {
        use trace_syntax::ast::{ExprKind, IntLit};
        match &e.kind {
            ExprKind::Atom(a) => Term::atom(a),
            ExprKind::Integer(IntLit::Small(i)) => Term::int(*i),
            ExprKind::Nil => Term::Nil,
            ExprKind::Tuple(es) => Term::tuple(es.iter().map(literal).collect()),
            ExprKind::Cons(h, t) => Term::cons(literal(h), literal(t)),
            k => panic!("not a test literal: {k:?}"),
        }
    }

    fn abstracted(patterns: &[&str], t: &str) -> String {
        let list: Vec<Abstraction> = patterns
            .iter()
            .map(|p| Abstraction::parse(p).unwrap())
            .collect();
        trace_term::write_term(&rewrite(&term(t), &list, &mut |x| x.clone()))
    }

    #[test]
    fn parts_bound_to_variables_become_wildcards_anywhere_in_the_term() {
        assert_eq!(abstracted(&["{tick, T}"], "{tick, 5}"), "{tick,'_'}");
        assert_eq!(
            abstracted(&["{tick, T}"], "[{tick, 5}, {tock, 6}, {tick, 7}]"),
            "[{tick,'_'},{tock,6},{tick,'_'}]"
        );
        assert_eq!(
            abstracted(&["{reply, R, _}"], "{reply, 1, {reply, 2, x}}"),
            "{reply,'_',{reply,'_',x}}"
        );
        assert_eq!(
            abstracted(&["T when is_integer(T), T > 100"], "{a, 5, 500}"),
            "{a,5,'_'}"
        );
        assert_eq!(
            abstracted(&["{a, X}", "{a, _, Y}"], "{{a, 1}, {a, 2, 3}}"),
            "{{a,'_'},{a,2,'_'}}"
        );
    }

    #[test]
    fn bad_patterns_say_where_and_why() {
        let e = Abstraction::parse("{tick, _}").unwrap_err();
        assert!(e.message.contains("no variable"), "{e}");
        let e = Abstraction::parse("{tick, T").unwrap_err();
        assert!(e.col > 0, "{e}");
        let e = Abstraction::parse("f(X)").unwrap_err();
        assert!(e.message.contains("illegal pattern"), "{e}");
        let e = Abstraction::parse("X when").unwrap_err();
        assert!(e.col > 0, "{e}");
        let e = Abstraction::parse("X foo").unwrap_err();
        assert!(e.message.contains("expected"), "{e}");
    }
}
