//! The compiled pattern and what can be done with one: match a term, test
//! a term still in the External Term Format, rewrite what the variables
//! matched. The work is done by the modules over the compiled tree.

use crate::etf::{self, EtfMatch, EtfTest, Quick};
use crate::matching::{self, Bindings};
use crate::node::Node;
use crate::replace;
use trace_term::Term;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub(crate) node: Node,
    /// Variable names, indexed by their number.
    pub(crate) vars: Vec<String>,
    /// The quick test on ETF bytes (see `etf.rs`).
    pub(crate) quick: Quick,
}

impl Pattern {
    /// The pattern's variable names, in order of first appearance.
    pub fn variables(&self) -> &[String] {
        &self.vars
    }

    /// The number of a variable, if the pattern has it.
    pub fn var_index(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v == name)
    }

    /// Matches `t`; variables repeated in the pattern must be equal (`=:=`).
    pub fn matches(&self, t: &Term) -> Option<Bindings> {
        let b = Bindings::new(self.vars.len());
        matching::match_node(&self.node, self.vars.len(), t, b)
    }

    /// Matches with some variables already bound.
    pub fn matches_with(&self, t: &Term, b: Bindings) -> Option<Bindings> {
        matching::match_node(&self.node, self.vars.len(), t, b)
    }

    /// `t` with every part a variable of the pattern matched replaced by
    /// `with`; call it on a term that [`Pattern::matches`]. Parts matched by
    /// literals and `_` are kept as they are.
    pub fn replace_bound(&self, t: &Term, with: &Term) -> Term {
        replace::rebuild(&self.node, t, with)
    }

    /// False when the term encoded in `etf` (with its version byte) surely
    /// does not match; true when it may (decode it and [`Pattern::matches`]).
    /// Repeated variables are not compared here.
    pub fn may_match_etf(&self, etf: &[u8]) -> bool {
        self.test_etf(etf) != EtfTest::No
    }

    /// The quick test, telling a sure match from a possible one.
    #[inline]
    pub fn test_etf(&self, etf: &[u8]) -> EtfTest {
        etf::test(&self.quick, etf)
    }

    /// Matches the term encoded in `etf` (with its version byte) without
    /// decoding more than its variables bind, when the bytes can tell (see
    /// [`EtfMatch`]); as [`Pattern::matches_with`] otherwise.
    pub fn match_etf_with(&self, etf: &[u8], b: Bindings) -> EtfMatch {
        etf::match_with(&self.quick, etf, b)
    }

    /// True when the pattern binds no variable and [`test_etf`](Self::test_etf)
    /// answers `Yes` or `No` for every well-formed term.
    pub fn decided_by_etf_test(&self) -> bool {
        self.quick.decides
    }
}
