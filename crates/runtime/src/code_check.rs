//! What the interpreter assumes of linked code, checked once per program:
//! every label names an instruction of its own function, no function is
//! longer than the arena's relative labels reach (`ir::MAX_FUN_LEN`),
//! every function id
//! a function of the program, no function's last instruction falls through
//! its end, and each fused instruction is followed by the one it runs
//! without a dispatch (see `link::fuse`). The instruction loop fetches
//! through a raw pointer, and reads a fused pair's second instruction
//! unchecked, on the strength of this (see `vm::interp`), so a compiler bug
//! that broke it is reported here instead of running off the end of an
//! array.

use crate::code::Program;
use crate::ir::{Instr, Label, RAISE};

/// Checks `prog`; the error names the function and what is wrong.
pub fn check(prog: &Program) -> Result<(), String> {
    for (id, f) in prog.funs.iter().enumerate() {
        let len = f.code.len();
        let name = || format!("{}:{}/{}", f.module.name(), f.name.name(), f.arity);
        match f.code.last() {
            Some(last) if !last.falls_through() => {}
            _ => return Err(format!("function {id} ({}) may run off its end", name())),
        }
        if len > crate::ir::MAX_FUN_LEN {
            return Err(format!("{} has {len} instructions, too many", name()));
        }
        for (pc, ins) in f.code.iter().enumerate() {
            let mut bad = None;
            each_label(prog, ins, |l, may_raise| {
                if !(may_raise && l == RAISE) && l as usize >= len {
                    bad = Some(l);
                }
            });
            if let Some(l) = bad {
                return Err(format!("{} at {pc}: label {l} is outside it", name()));
            }
            if let Instr::Call { fun, .. } | Instr::TailCall { fun, .. } = ins {
                if *fun as usize >= prog.funs.len() {
                    return Err(format!("{} at {pc}: no function {fun}", name()));
                }
            }
            if !pair_follows(ins, f.code.get(pc + 1)) {
                return Err(format!(
                    "{} at {pc}: a fused pair without its second",
                    name()
                ));
            }
        }
    }
    for c in &prog.closures {
        if c.code as usize >= prog.funs.len() {
            return Err(format!("a closure names no function {}", c.code));
        }
    }
    Ok(())
}

/// Whether `next` is what fused instruction `ins` runs after itself
/// without a dispatch; true of an instruction that is not fused.
fn pair_follows(ins: &Instr, next: Option<&Instr>) -> bool {
    match (ins, next) {
        (Instr::AddImmCall { .. }, next) => matches!(next, Some(Instr::Call { .. })),
        (Instr::AddImmTailCall { .. }, next) => matches!(next, Some(Instr::TailCall { .. })),
        (Instr::AddReturn { dst, .. } | Instr::IntReturn { dst, .. }, next) => {
            matches!(next, Some(Instr::Return { src }) if src == dst)
        }
        _ => true,
    }
}

/// Calls `f` with every label `ins` may jump to, and whether the label
/// may be `RAISE` ("none": the instruction raises, or has no such branch).
fn each_label(prog: &Program, ins: &Instr, mut f: impl FnMut(Label, bool)) {
    if let Instr::Switch { table, .. } = ins {
        match prog.switches.get(*table as usize) {
            Some(sw) => {
                f(sw.default, false);
                sw.cases.iter().for_each(|c| f(c.1, false));
            }
            // A switch without a table: no label it could take is valid.
            None => f(RAISE, false),
        }
        return;
    }
    let (labels, may_raise) = ins.labels();
    for l in labels.into_iter().flatten() {
        f(*l, may_raise);
    }
}
