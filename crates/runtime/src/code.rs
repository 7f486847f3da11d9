//! Loaded code: every compiled function of every module, linked into one
//! immutable [`Program`] shared by all scheduler threads.

use crate::bif::BifId;
use crate::ir::{Instr, Switch};
use std::collections::HashMap;
use std::path::PathBuf;
use trace_term::{Atom, Term};

/// Index of a function in [`Program::funs`].
pub type FunId = u32;

/// One compiled function: a named function of a module, or a lifted `fun`.
#[derive(Debug)]
pub struct FunCode {
    pub module: Atom,
    /// For named functions, the name; for lifted funs, BEAM's style name
    /// (`-main/0-fun-0-`).
    pub name: Atom,
    /// Number of arguments the caller passes (for closures: the fun's arity;
    /// the captured values follow in the next slots).
    pub arity: u32,
    /// Size of the function's window of slots.
    pub nslots: u16,
    pub code: Vec<Instr>,
    /// Source line of each instruction (same length as `code`).
    pub lines: Vec<u32>,
    /// Index into [`Program::files`] of the source file.
    pub file: u32,
    /// Variable names, kept when the program is loaded for a debugger
    /// ([`crate::LoadOptions::debug`]); `None` otherwise.
    pub debug: Option<Box<DebugInfo>>,
}

/// A function's variables by source name, for a debugger: at each
/// instruction where a process can stop (a call, a built-in, a receive),
/// the names bound there and the slot each lives in. The compiler knows
/// which names are bound where; the engine does not need it to run, so it
/// is kept only on request.
#[derive(Debug, Default)]
pub struct DebugInfo {
    /// Every variable name of the function.
    pub names: Vec<Box<str>>,
    /// Distinct environments: `(name index, slot)` of the bound variables.
    pub envs: Vec<Vec<(u32, u16)>>,
    /// `(pc, environment index)`, sorted by pc.
    pub points: Vec<(u32, u32)>,
}

impl DebugInfo {
    /// The variables bound at `pc` (the nearest recorded point at or
    /// before it), as `(name, slot)`.
    pub fn bound_at(&self, pc: u32) -> impl Iterator<Item = (&str, u16)> + '_ {
        let k = self.points.partition_point(|(p, _)| *p <= pc);
        let env = k
            .checked_sub(1)
            .and_then(|i| self.envs.get(self.points[i].1 as usize));
        env.into_iter()
            .flatten()
            .filter_map(|(n, s)| Some((&**self.names.get(*n as usize)?, *s)))
    }
}

impl FunCode {
    pub fn line_at(&self, pc: usize) -> u32 {
        self.lines
            .get(pc)
            .or(self.lines.last())
            .copied()
            .unwrap_or(0)
    }
}

/// What a remote call `m:f/a` resolves to.
#[derive(Clone, Debug)]
pub enum ExtTarget {
    Fun(FunId),
    Bif(BifId),
    /// Not defined anywhere: calling it raises `undef`.
    Undef {
        module: Atom,
        function: Atom,
        arity: u32,
    },
}

/// A `fun` expression's template: which code a closure runs and how BEAM names it.
#[derive(Clone, Debug)]
pub struct ClosureInfo {
    pub code: FunId,
    pub module: Atom,
    /// Index of the fun within its module (`#Fun<m.Index.Uniq>`).
    pub index: u32,
    pub uniq: u32,
    pub arity: u32,
    pub nfree: u32,
    /// Named funs receive themselves in the slot after the captured values.
    pub named: bool,
}

/// A module's exported (and, for `export_all`, all) functions.
#[derive(Clone, Debug, Default)]
pub struct ModuleInfo {
    pub exports: HashMap<(Atom, u32), FunId>,
    /// Every named function, exported or not (used for `fun f/1` and reports).
    pub functions: HashMap<(Atom, u32), FunId>,
    pub file: u32,
    /// 64-bit FNV-1a of the source text (program identity for the log header).
    pub source_hash: u64,
    /// True for the engine's own library modules written in Erlang.
    pub prelude: bool,
}

/// All loaded code.
#[derive(Debug, Default)]
pub struct Program {
    pub funs: Vec<FunCode>,
    pub literals: Vec<Term>,
    pub exts: Vec<ExtTarget>,
    pub switches: Vec<Switch>,
    pub closures: Vec<ClosureInfo>,
    pub modules: HashMap<Atom, ModuleInfo>,
    pub files: Vec<PathBuf>,
    /// The program's own applications: `{application, Name, Properties}`
    /// from their `.app` or `.app.src` files.
    pub apps: Vec<Term>,
    /// The most slots any function's window takes (the linker sets it):
    /// how far above its start a frame's window may reach (see
    /// `vm::raise::kept_len`).
    pub max_nslots: u16,
    /// The code the instruction loop runs: every function's code, as in
    /// `funs` but with labels relative to the instruction after their own
    /// ([`crate::ir::relative`]), one after another in one allocation,
    /// each preceded by an [`Instr::FunStart`] naming it (the linker
    /// builds it, last; see `link::link_calls`). A running process and
    /// its frames keep only addresses into it, and
    /// [`Program::locate`] finds the function and index of one when a
    /// slow path asks. Nothing changes it once built.
    pub arena: Vec<Instr>,
    /// Where each function's code starts in `arena`.
    pub starts: Vec<u32>,
    /// The function each slot of `arena` belongs to; a `FunStart` belongs
    /// to the function it starts (see [`Program::locate`]).
    pub owners: Vec<FunId>,
    /// The tables of the arena's `Switch`es, one per `Switch`, with
    /// labels relative to it as the arena's labels are (`switches` keeps
    /// them as `funs`' code has them).
    pub arena_switches: Vec<Switch>,
}

impl Program {
    /// Where function `id`'s code starts in the arena (what calls and
    /// frames hold).
    #[inline]
    pub fn code_start(&self, id: FunId) -> crate::ir::CodePtr {
        // A linked program has a start for every function id its code
        // names (`code_check` verified them).
        let at = self.starts[id as usize] as usize;
        crate::ir::CodePtr(self.arena[at..].as_ptr())
    }

    /// [`Program::code_start`] without the bounds checks, for the
    /// instruction loop.
    ///
    /// # Safety
    /// `id` must be a function of this program.
    #[inline(always)]
    pub unsafe fn code_start_unchecked(&self, id: FunId) -> crate::ir::CodePtr {
        debug_assert!((id as usize) < self.starts.len());
        // SAFETY: the caller's promise; every function's start is inside
        // the arena (`link::link_calls`).
        unsafe {
            let at = *self.starts.get_unchecked(id as usize) as usize;
            crate::ir::CodePtr(self.arena.as_ptr().add(at))
        }
    }

    /// The function whose code the loop is in when its next instruction is
    /// `ip`, and that instruction's index in the function's code. The
    /// function is the owner of the slot before `ip` (the instruction just
    /// run, or the `FunStart` of a function `ip` starts): `ip` may be one
    /// past its function's last instruction (after an `Error`), never
    /// before its first. `None` for an address outside the arena (the
    /// bottom frame's, `frames::Frames`).
    pub fn locate(&self, ip: *const Instr) -> Option<(FunId, usize)> {
        let at = (ip as usize).wrapping_sub(self.arena.as_ptr() as usize);
        let slot = at / std::mem::size_of::<Instr>();
        if !at.is_multiple_of(std::mem::size_of::<Instr>()) || slot == 0 || slot > self.arena.len()
        {
            return None;
        }
        let fun = self.owners[slot - 1];
        Some((fun, slot - self.starts[fun as usize] as usize))
    }

    /// [`Program::locate`] of an address of the running code, without the
    /// checks, for the instruction loop's slow paths.
    ///
    /// # Safety
    /// `ip` must be an instruction pointer of a process running this
    /// program: in a function's code or one past its end.
    #[inline(always)]
    pub unsafe fn locate_unchecked(&self, ip: *const Instr) -> (FunId, usize) {
        // SAFETY: the caller's promise: `ip` is in the arena, after its
        // first slot (a `FunStart`), at most one past its end.
        unsafe {
            // Computed on addresses (as `locate` does), so the assertion
            // below checks the promise instead of following it.
            let at = (ip as usize).wrapping_sub(self.arena.as_ptr() as usize);
            let slot = at / std::mem::size_of::<Instr>();
            debug_assert!(slot >= 1 && slot <= self.arena.len());
            let fun = *self.owners.get_unchecked(slot - 1);
            (
                fun,
                slot - *self.starts.get_unchecked(fun as usize) as usize,
            )
        }
    }

    /// Looks up an exported function `m:f/a`.
    pub fn exported(&self, m: Atom, f: Atom, a: u32) -> Option<FunId> {
        self.modules.get(&m)?.exports.get(&(f, a)).copied()
    }

    /// `Module:function/arity` of a function, for reports.
    pub fn mfa(&self, id: FunId) -> (Atom, Atom, u32) {
        let f = &self.funs[id as usize];
        (f.module, f.name, f.arity)
    }

    pub fn file_of(&self, id: FunId) -> &std::path::Path {
        &self.files[self.funs[id as usize].file as usize]
    }

    /// The file function `id` is in, as text (empty if unknown): what
    /// stack traces, reports and places print.
    pub fn file_text(&self, id: FunId) -> String {
        self.funs
            .get(id as usize)
            .and_then(|f| self.files.get(f.file as usize))
            .map(|f| f.display().to_string())
            .unwrap_or_default()
    }
}

/// 64-bit FNV-1a, used as a module's content hash in the log header.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
