//! Building one function's code: instructions with their source lines, labels
//! patched at the end, slot allocation, and the static binding state of
//! variables (which names are bound, and which are unsafe to use).
//!
//! Slot layout of a function window: `[arguments | variables | temporaries]`.
//! Every variable name gets one slot for the whole function (so a name bound
//! in several branches lands in the same place); temporaries are allocated in
//! stack order above the variables. Because a call's callee window starts at
//! its first argument, which is always a temporary at the top of the stack,
//! a callee can never overwrite a live variable or an earlier temporary.

use crate::ir::{Instr, Label, Slot, RAISE};
use std::collections::HashMap;
use trace_syntax::ast::Pos;

/// Why a variable cannot be used here.
#[derive(Clone, Debug)]
pub struct Unsafe {
    /// The construct it was bound in: `case`, `if`, `receive`, `try`, `catch`...
    pub construct: &'static str,
    pub pos: Pos,
}

/// The static binding state at one point of the code.
#[derive(Clone, Debug, Default)]
pub struct BindState {
    bound: Vec<u64>,
    unsafe_: HashMap<Slot, Unsafe>,
}

impl BindState {
    pub fn is_bound(&self, s: Slot) -> bool {
        let (w, b) = (s as usize / 64, s as usize % 64);
        self.bound.get(w).is_some_and(|x| x >> b & 1 == 1)
    }

    pub fn bind(&mut self, s: Slot) {
        let (w, b) = (s as usize / 64, s as usize % 64);
        if self.bound.len() <= w {
            self.bound.resize(w + 1, 0);
        }
        self.bound[w] |= 1 << b;
        self.unsafe_.remove(&s);
    }

    /// Forgets that `s` is bound (a slot reused for a fresh variable).
    pub fn unbind(&mut self, s: Slot) {
        let (w, b) = (s as usize / 64, s as usize % 64);
        if let Some(x) = self.bound.get_mut(w) {
            *x &= !(1 << b);
        }
        self.unsafe_.remove(&s);
    }

    pub fn unsafe_info(&self, s: Slot) -> Option<&Unsafe> {
        self.unsafe_.get(&s)
    }

    /// Slots bound in `self` but not in `before`.
    pub fn newly_bound(&self, before: &BindState) -> Vec<Slot> {
        let mut out = Vec::new();
        for (w, &bits) in self.bound.iter().enumerate() {
            let old = before.bound.get(w).copied().unwrap_or(0);
            let mut new = bits & !old;
            while new != 0 {
                let b = new.trailing_zeros();
                out.push((w * 64 + b as usize) as Slot);
                new &= new - 1;
            }
        }
        out
    }

    /// The state after a branching construct: variables bound in every branch
    /// stay bound; those bound in only some become unsafe.
    pub fn merge(
        before: &BindState,
        branches: &[BindState],
        construct: &'static str,
        pos: Pos,
    ) -> BindState {
        let mut out = before.clone();
        if branches.is_empty() {
            return out;
        }
        let mut all: HashMap<Slot, usize> = HashMap::new();
        for b in branches {
            for s in b.newly_bound(before) {
                *all.entry(s).or_default() += 1;
            }
            for (s, u) in &b.unsafe_ {
                out.unsafe_.entry(*s).or_insert_with(|| u.clone());
            }
        }
        for (s, n) in all {
            if n == branches.len() {
                out.bind(s);
            } else {
                out.unsafe_.insert(s, Unsafe { construct, pos });
            }
        }
        out
    }

    /// Marks every variable newly bound since `before` as unsafe (e.g. after `catch`).
    pub fn make_new_unsafe(&mut self, before: &BindState, construct: &'static str, pos: Pos) {
        for s in self.newly_bound(before) {
            let (w, b) = (s as usize / 64, s as usize % 64);
            self.bound[w] &= !(1 << b);
            self.unsafe_.insert(s, Unsafe { construct, pos });
        }
    }
}

/// A label under construction (an index into the builder's label table).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct L(pub u32);

/// Builds one function.
pub struct FnBuilder {
    pub code: Vec<Instr>,
    pub lines: Vec<u32>,
    labels: Vec<Option<u32>>,
    pub line: u32,
    /// Variable name → slot.
    vars: HashMap<String, Slot>,
    /// Names shadowed in an inner scope (comprehension generators): name → stack of slots.
    shadows: HashMap<String, Vec<Slot>>,
    /// First temporary slot (everything below is an argument or a variable).
    var_end: Slot,
    /// Next free temporary.
    top: Slot,
    /// High-water mark of slots used.
    pub max: Slot,
    pub state: BindState,
    /// Depth of enclosing `try`/`catch` bodies (no tail calls inside them).
    pub protected: u32,
    /// Jump tables of this function; `Switch { table }` indexes this list until
    /// [`crate::compiler::finish_fun`] moves them into the module.
    pub switches: Vec<crate::ir::Switch>,
    /// The number of arguments.
    arity: u16,
    /// Where the function first needed more than [`MAX_SLOTS`] slots: the
    /// function is refused by [`FnBuilder::finish`]. (The slots handed out
    /// after that are placeholders: this code is never run.)
    overflow: Option<Pos>,
    /// The position of the construct being compiled.
    at: Pos,
    /// With debug information: the bound variables at each stopping point.
    debug: Option<DebugBuild>,
}

/// Debug information being gathered (see [`crate::code::DebugInfo`]).
#[derive(Default)]
struct DebugBuild {
    info: crate::code::DebugInfo,
    name_index: HashMap<String, u32>,
    env_index: HashMap<Vec<(u32, u16)>, u32>,
}

/// Whether a process can stop at `ins`: a call (a built-in may wait for its
/// turn, a callee's frame returns here) or a receive.
fn stops_at(ins: &Instr) -> bool {
    use Instr::*;
    matches!(
        ins,
        Call { .. }
            | TailCall { .. }
            | CallExt { .. }
            | TailCallExt { .. }
            | CallBif { .. }
            | CallFun { .. }
            | TailCallFun { .. }
            | CallDyn { .. }
            | TailCallDyn { .. }
            | RecvStart { .. }
            | RecvPeek { .. }
            | RecvWait { .. }
            | RecvWaitTimeout { .. }
    )
}

/// A finished function: code, lines, slots, debug information.
pub type Finished = (
    Vec<Instr>,
    Vec<u32>,
    u16,
    Option<Box<crate::code::DebugInfo>>,
);

/// Too many slots in one function.
#[derive(Debug)]
pub struct TooManySlots;

/// Slots one function's window holds at most: arguments, variables and
/// intermediate values together. Slot operands are 16 bits wide to keep
/// instructions small for the interpreter's loop.
pub const MAX_SLOTS: usize = u16::MAX as usize;

/// Variables one function may have, leaving room below [`MAX_SLOTS`] for
/// the intermediate values of its expressions.
pub const MAX_VARIABLES: usize = 60_000;

/// `n` consecutive temporaries for the parts of one construct (`what`,
/// at `pos`: a tuple's elements, a call's arguments), or a diagnostic
/// saying what the limit is. Checked before the parts are compiled, so that
/// no slot arithmetic on them can overflow.
pub fn elements(
    cx: &super::ModuleCtx,
    b: &mut FnBuilder,
    n: usize,
    what: (&str, &str),
    pos: Pos,
) -> super::CResult<Slot> {
    if b.top as usize + n > MAX_SLOTS {
        let (noun, parts) = what;
        return Err(cx.diag(
            trace_syntax::DiagKind::Unsupported,
            pos,
            too_many_slots(&format!("where it builds {noun} of {n} {parts}")),
        ));
    }
    Ok(b.temps(n))
}

/// A tuple or record pattern of `n` elements, or a diagnostic: a tuple's
/// arity is a 16-bit operand.
pub fn pattern_arity(cx: &super::ModuleCtx, n: usize, what: &str, pos: Pos) -> super::CResult<u16> {
    u16::try_from(n).map_err(|_| {
        cx.diag(
            trace_syntax::DiagKind::Unsupported,
            pos,
            format!(
                "unsupported: a {what} pattern of {n} elements (trace matches tuples of at most {MAX_SLOTS} elements in patterns)"
            ),
        )
    })
}

/// The message for a function that needs more than [`MAX_SLOTS`] slots;
/// `context` says where (or is empty).
pub fn too_many_slots(context: &str) -> String {
    format!(
        "unsupported: this function needs more than {MAX_SLOTS} slots at once (its arguments, \
         variables and intermediate values) {context}: that is trace's limit; build such terms \
         in parts (list_to_tuple/1, maps:from_list/1) or split the function"
    )
}

impl FnBuilder {
    /// A builder for a function of `arity` arguments whose variables are `names`
    /// (every variable name the function's own code mentions).
    pub fn new(arity: usize, names: &[String]) -> Result<FnBuilder, TooManySlots> {
        let mut vars = HashMap::new();
        let mut next = arity;
        for n in names {
            if !vars.contains_key(n) {
                vars.insert(n.clone(), next as Slot);
                next += 1;
            }
        }
        if next > MAX_VARIABLES {
            return Err(TooManySlots);
        }
        Ok(FnBuilder {
            code: Vec::new(),
            lines: Vec::new(),
            labels: Vec::new(),
            line: 0,
            vars,
            shadows: HashMap::new(),
            var_end: next as Slot,
            top: next as Slot,
            max: next as Slot,
            state: BindState::default(),
            protected: 0,
            switches: Vec::new(),
            arity: arity as u16,
            overflow: None,
            at: Pos::default(),
            debug: None,
        })
    }

    /// Keeps the bound variables of every stopping point, for a debugger.
    pub fn keep_debug_info(&mut self) {
        self.debug = Some(DebugBuild::default());
    }

    pub fn emit(&mut self, i: Instr) {
        if self.debug.is_some() && stops_at(&i) {
            self.note_environment();
        }
        self.code.push(i);
        self.lines.push(self.line);
    }

    /// Records which names are bound at the next instruction, and where.
    fn note_environment(&mut self) {
        let mut env: Vec<(&str, Slot)> = self
            .vars
            .keys()
            .chain(self.shadows.keys())
            .filter_map(|n| Some((n.as_str(), self.var_slot(n)?)))
            .filter(|(_, s)| self.state.is_bound(*s))
            .collect();
        env.sort_unstable();
        env.dedup();
        let pc = self.code.len() as u32;
        let Some(d) = self.debug.as_mut() else { return };
        let mut ids = Vec::with_capacity(env.len());
        for (n, s) in env {
            let next = d.info.names.len() as u32;
            let i = *d.name_index.entry(n.to_string()).or_insert(next);
            if i == next {
                d.info.names.push(n.into());
            }
            ids.push((i, s));
        }
        let next = d.info.envs.len() as u32;
        let e = *d.env_index.entry(ids.clone()).or_insert(next);
        if e == next {
            d.info.envs.push(ids);
        }
        if d.info.points.last().map(|p| p.1) != Some(e) {
            d.info.points.push((pc, e));
        }
    }

    pub fn set_pos(&mut self, pos: Pos) {
        if pos.line != 0 {
            self.line = pos.line;
            self.at = pos;
        }
    }

    pub fn new_label(&mut self) -> L {
        self.labels.push(None);
        L(self.labels.len() as u32 - 1)
    }

    /// Places `l` at the next instruction.
    pub fn bind_label(&mut self, l: L) {
        self.labels[l.0 as usize] = Some(self.code.len() as u32);
    }

    /// A label operand (resolved by [`FnBuilder::finish`]).
    pub fn lab(&self, l: L) -> Label {
        l.0
    }

    pub fn pc(&self) -> usize {
        self.code.len()
    }

    /// Allocates a temporary slot.
    pub fn temp(&mut self) -> Slot {
        self.temps(1)
    }

    /// Allocates `n` consecutive temporaries, returns the first. Past
    /// [`MAX_SLOTS`] the function is marked as refused and slot 0 stands in.
    pub fn temps(&mut self, n: usize) -> Slot {
        let s = self.top;
        match u16::try_from(s as usize + n) {
            Ok(top) => {
                self.top = top;
                self.max = self.max.max(top);
                s
            }
            _ => {
                self.overflow.get_or_insert(self.at);
                0
            }
        }
    }

    /// The current top of the temporary stack (to restore with [`FnBuilder::release`]).
    pub fn mark(&self) -> Slot {
        self.top
    }

    /// Frees every temporary allocated since `mark`.
    pub fn release(&mut self, mark: Slot) {
        debug_assert!(mark >= self.var_end);
        self.top = mark;
    }

    /// The slot of variable `name` (shadowing taken into account).
    pub fn var_slot(&self, name: &str) -> Option<Slot> {
        if let Some(s) = self.shadows.get(name).and_then(|v| v.last()) {
            return Some(*s);
        }
        self.vars.get(name).copied()
    }

    /// Starts a scope in which `name` is a fresh variable in a new temporary slot.
    pub fn shadow(&mut self, name: &str) -> Slot {
        let s = self.temp();
        self.state.unbind(s);
        self.shadows.entry(name.to_string()).or_default().push(s);
        s
    }

    /// Makes `name` a bound variable living in `slot` (a clause head variable
    /// that is simply an argument) until [`FnBuilder::unshadow`].
    pub fn alias(&mut self, name: &str, slot: Slot) {
        self.shadows.entry(name.to_string()).or_default().push(slot);
        self.state.bind(slot);
    }

    pub fn unshadow(&mut self, name: &str) {
        if let Some(v) = self.shadows.get_mut(name) {
            v.pop();
        }
    }

    /// Resolves labels (in code and jump tables), moves the jump tables to
    /// `switches` (renumbering `Switch` operands) and returns `(code,
    /// lines, nslots, debug information)`; or where the function needed
    /// more than [`MAX_SLOTS`] slots.
    pub fn finish(mut self, switches: &mut Vec<crate::ir::Switch>) -> Result<Finished, Pos> {
        if let Some(pos) = self.overflow {
            return Err(pos);
        }
        let labels = std::mem::take(&mut self.labels);
        let resolve = |l: u32| labels[l as usize].expect("unbound label");
        let base = switches.len() as u32;
        for ins in &mut self.code {
            if let Instr::Switch { table, .. } = ins {
                *table += base;
            }
            for l in ins.labels_mut().into_iter().flatten() {
                if *l != RAISE {
                    *l = resolve(*l);
                }
            }
        }
        for mut s in std::mem::take(&mut self.switches) {
            for (_, l) in &mut s.cases {
                *l = resolve(*l);
            }
            s.default = resolve(s.default);
            switches.push(s);
        }
        let nslots = self.max.max(1);
        // A debugger shows every variable's value: none is moved out.
        if self.debug.is_none() {
            super::liveness::rewrite_last_uses(&mut self.code, switches, self.arity, nslots);
        }
        let debug = self.debug.map(|d| Box::new(d.info));
        Ok((self.code, self.lines, nslots, debug))
    }
}
