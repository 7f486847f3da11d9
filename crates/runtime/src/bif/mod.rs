//! Built-in functions: the native part of `erlang`, `lists`, `maps`, `io`,
//! `io_lib`, `string`, `math`, `timer`, `rand`, `code`, `ets`, `atomics`,
//! `counters`, `persistent_term` and friends, and the system services the
//! prelude's OTP modules use ([`system`]). (Higher-order library functions
//! such as `lists:map/2`, `proplists` and OTP's behaviours are written in
//! Erlang, in `prelude/`, and compiled like user code.)
//!
//! Every built-in is registered once in [`registry`] under `module:name/arity`
//! with a flag saying whether it may appear in guards and whether it is
//! auto-imported. Pure built-ins see only their arguments; process built-ins
//! get a [`Ctx`] with the calling process and the runtime.

pub mod atomics;
pub mod binaries;
pub mod binary;
pub mod checksums;
pub mod code;
pub mod conversions;
pub mod erlang;
pub mod ets;
pub mod io;
pub mod io_lib;
pub mod lists;
pub mod maps;
pub mod math;
pub mod persistent_term;
pub mod processes;
pub mod strings;
pub mod system;
pub mod terms;
pub mod unicode;

use crate::exception::BifResult;
pub use crate::vm::ctx::Ctx;
use std::collections::HashMap;
use std::sync::LazyLock;
use trace_term::{Atom, Term};

/// Index of a built-in in the registry.
pub type BifId = u16;

pub type PureFn = fn(&[Term]) -> BifResult;
pub type ProcFn = fn(&mut Ctx, &[Term]) -> BifResult;

#[derive(Copy, Clone)]
pub enum BifFn {
    Pure(PureFn),
    Proc(ProcFn),
}

pub struct BifDef {
    pub module: Atom,
    pub name: Atom,
    pub arity: u8,
    pub f: BifFn,
    /// Allowed in guards.
    pub guard: bool,
    /// Callable without `erlang:` (auto-imported).
    pub auto: bool,
}

pub struct Registry {
    defs: Vec<BifDef>,
    index: HashMap<(Atom, Atom, u8), BifId>,
}

/// Flags for [`Builder::add`].
pub const GUARD: u8 = 1;
pub const AUTO: u8 = 2;

/// Collects definitions during registration.
pub struct Builder {
    defs: Vec<BifDef>,
}

impl Builder {
    pub fn pure(&mut self, m: &str, n: &str, arity: u8, f: PureFn, flags: u8) {
        self.add(m, n, arity, BifFn::Pure(f), flags);
    }

    pub fn proc(&mut self, m: &str, n: &str, arity: u8, f: ProcFn, flags: u8) {
        self.add(m, n, arity, BifFn::Proc(f), flags);
    }

    fn add(&mut self, m: &str, n: &str, arity: u8, f: BifFn, flags: u8) {
        self.defs.push(BifDef {
            module: Atom::intern(m),
            name: Atom::intern(n),
            arity,
            f,
            guard: flags & GUARD != 0,
            auto: flags & AUTO != 0,
        });
    }
}

static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
    let mut b = Builder { defs: Vec::new() };
    erlang::register(&mut b);
    terms::register(&mut b);
    conversions::register(&mut b);
    binaries::register(&mut b);
    binary::register(&mut b);
    checksums::register(&mut b);
    processes::register(&mut b);
    code::register(&mut b);
    system::register(&mut b);
    lists::register(&mut b);
    maps::register(&mut b);
    strings::register(&mut b);
    math::register(&mut b);
    unicode::register(&mut b);
    io::register(&mut b);
    io_lib::register(&mut b);
    ets::register(&mut b);
    atomics::register(&mut b);
    persistent_term::register(&mut b);
    let mut index = HashMap::new();
    for (i, d) in b.defs.iter().enumerate() {
        let prev = index.insert((d.module, d.name, d.arity), i as BifId);
        debug_assert!(
            prev.is_none(),
            "built-in registered twice: {:?}:{:?}/{}",
            d.module,
            d.name,
            d.arity
        );
    }
    Registry {
        defs: b.defs,
        index,
    }
});

/// The built-in table.
pub fn registry() -> &'static Registry {
    &REGISTRY
}

impl Registry {
    pub fn lookup(&self, m: &str, f: &str, arity: usize) -> Option<BifId> {
        let (m, f) = (Atom::existing(m)?, Atom::existing(f)?);
        self.lookup_atoms(m, f, arity)
    }

    pub fn lookup_atoms(&self, m: Atom, f: Atom, arity: usize) -> Option<BifId> {
        self.index.get(&(m, f, u8::try_from(arity).ok()?)).copied()
    }

    pub fn def(&self, id: BifId) -> &BifDef {
        &self.defs[id as usize]
    }

    /// True if `name/arity` is an auto-imported `erlang` built-in.
    pub fn autoimported(&self, name: &str, arity: usize) -> bool {
        self.lookup("erlang", name, arity)
            .is_some_and(|id| self.def(id).auto)
    }

    pub fn len(&self) -> usize {
        self.defs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// Every registered `module:name/arity`.
    pub fn all(&self) -> impl Iterator<Item = &BifDef> {
        self.defs.iter()
    }
}
