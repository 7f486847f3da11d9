//! Funs: closures compiled from `fun ... end` and references `fun m:f/a`.

use crate::atom::Atom;
use crate::term::Term;

/// Sentinel for a closure whose code is not loaded (e.g. one decoded from a log).
pub const NO_CODE: u32 = u32::MAX;

/// A fun value.
#[derive(Clone, Debug)]
pub enum Fun {
    /// A closure: code compiled from a `fun` expression plus its captured values.
    Closure {
        /// The module the fun was defined in.
        module: Atom,
        /// Index of the fun within its module (as BEAM's `#Fun<m.Index.Uniq>`).
        index: u32,
        /// A number identifying the module's code version.
        uniq: u32,
        arity: u32,
        /// The engine's handle to the compiled code ([`NO_CODE`] when unknown).
        code: u32,
        /// Captured free variables, in the order the compiled code expects them.
        env: Box<[Term]>,
    },
    /// `fun Module:Function/Arity`.
    External {
        module: Atom,
        function: Atom,
        arity: u32,
    },
}

impl Fun {
    pub fn arity(&self) -> u32 {
        match self {
            Fun::Closure { arity, .. } | Fun::External { arity, .. } => *arity,
        }
    }
    pub fn module(&self) -> Atom {
        match self {
            Fun::Closure { module, .. } | Fun::External { module, .. } => *module,
        }
    }
}
