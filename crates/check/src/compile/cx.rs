//! What compiling one property carries from predicate to predicate: the
//! specification's path and declared names, the property's variables, the
//! predicates compiled so far and how often each variable name occurs.

use crate::compiled::{CompiledPredicate, Vars};
use crate::spec::SpecError;
use std::collections::HashMap;
use std::path::Path;
use trace_capture::ProcRef;
use trace_syntax::ast::Pos;

pub(super) struct Cx<'a> {
    pub path: &'a Path,
    pub registered: &'a HashMap<String, ProcRef>,
    pub vars: Vars,
    pub preds: Vec<CompiledPredicate>,
    pub uses: HashMap<String, usize>,
}

impl Cx<'_> {
    pub fn err<T>(&self, pos: Pos, msg: impl Into<String>) -> Result<T, SpecError> {
        Err(crate::spec::error::at(self.path, pos, msg))
    }
}
