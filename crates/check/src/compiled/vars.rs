//! The variables of a compiled property: their names, and which of them
//! stand for a process the specification names.

use crate::spec::procname;
use std::collections::HashMap;
use trace_capture::ProcRef;

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
