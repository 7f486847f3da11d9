//! The tree a pattern compiles to: literals folded, variables numbered.
//! Matching, the quick test on ETF bytes and the rewriting of what the
//! variables matched all walk it.

use trace_term::Term;

/// One node of a compiled pattern.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    Any,
    Var(usize),
    Lit(Term),
    Tuple(Vec<Node>),
    Cons(Box<Node>, Box<Node>),
    /// `#{K := P}`: keys are literals.
    Map(Vec<(Term, Node)>),
    /// `P1 = P2`
    Both(Box<Node>, Box<Node>),
}
