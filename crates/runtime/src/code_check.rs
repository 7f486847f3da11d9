//! What the interpreter assumes of linked code, checked once per program:
//! every label names an instruction of its own function, every function id
//! a function of the program, and no function's last instruction falls
//! through its end. The instruction loop fetches through a raw pointer on
//! the strength of this (see `vm::interp`), so a compiler bug that broke it
//! is reported here instead of running off the end of an array.

use crate::code::Program;
use crate::ir::{Instr, Label, RAISE};

/// Checks `prog`; the error names the function and what is wrong.
pub fn check(prog: &Program) -> Result<(), String> {
    for (id, f) in prog.funs.iter().enumerate() {
        let len = f.code.len();
        let name = || format!("{}:{}/{}", f.module.name(), f.name.name(), f.arity);
        match f.code.last() {
            Some(last) if !falls_through(last) => {}
            _ => return Err(format!("function {id} ({}) may run off its end", name())),
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
        }
    }
    for c in &prog.closures {
        if c.code as usize >= prog.funs.len() {
            return Err(format!("a closure names no function {}", c.code));
        }
    }
    Ok(())
}

/// Whether control may go on to the next instruction after `ins`.
fn falls_through(ins: &Instr) -> bool {
    !matches!(
        ins,
        Instr::Return { .. }
            | Instr::TailCall { .. }
            | Instr::TailCallExt { .. }
            | Instr::TailCallFun { .. }
            | Instr::TailCallDyn { .. }
            | Instr::Jump { .. }
            | Instr::Switch { .. }
            | Instr::Error { .. }
            | Instr::Raise { .. }
            | Instr::RecvNext { .. }
            | Instr::RecvWait { .. }
            | Instr::RecvWaitTimeout { .. }
    )
}

/// Calls `f` with every label `ins` may jump to, and whether the label
/// may be `RAISE` ("none": the instruction raises, or has no such branch).
fn each_label(prog: &Program, ins: &Instr, mut f: impl FnMut(Label, bool)) {
    let mut to = |l: Label| f(l, false);
    match ins {
        Instr::Jump { to: l } => to(*l),
        Instr::Switch { table, .. } => match prog.switches.get(*table as usize) {
            Some(sw) => {
                to(sw.default);
                sw.cases.iter().for_each(|c| to(c.1));
            }
            // A switch without a table: no label it could take is valid.
            None => to(RAISE),
        },
        Instr::Try { handler, .. } | Instr::Catch { handler, .. } => to(*handler),
        Instr::RecvPeek { wait, .. } => to(*wait),
        Instr::RecvNext { lp } | Instr::RecvWait { lp } => to(*lp),
        Instr::RecvWaitTimeout { lp, after, .. } => {
            to(*lp);
            to(*after)
        }
        Instr::RecvStart { after } => f(*after, true),
        Instr::MapPut { fail, .. }
        | Instr::Op2 { fail, .. }
        | Instr::AddImm { fail, .. }
        | Instr::Op1 { fail, .. }
        | Instr::Compare { fail, .. }
        | Instr::CompareInt { fail, .. }
        | Instr::TestType { fail, .. }
        | Instr::TestAtom { fail, .. }
        | Instr::TestInt { fail, .. }
        | Instr::TestLit { fail, .. }
        | Instr::TestTuple { fail, .. }
        | Instr::TestRecord { fail, .. }
        | Instr::TestCons { fail, .. }
        | Instr::TestNil { fail, .. }
        | Instr::TestMap { fail, .. }
        | Instr::TestFunArity { fail, .. }
        | Instr::SplitCons { fail, .. }
        | Instr::GetMapValue { fail, .. }
        | Instr::CallBif { fail, .. }
        | Instr::BsStart { fail, .. }
        | Instr::BsGet { fail, .. }
        | Instr::BsEnd { fail, .. }
        | Instr::BsSkip { fail, .. } => f(*fail, true),
        // Listed, not matched with `_`: a new instruction with a label must
        // be added above.
        Instr::Move { .. }
        | Instr::Take { .. }
        | Instr::Lit { .. }
        | Instr::Int { .. }
        | Instr::Atom { .. }
        | Instr::Nil { .. }
        | Instr::Cons { .. }
        | Instr::Tuple { .. }
        | Instr::MapNew { .. }
        | Instr::MakeFun { .. }
        | Instr::GetElem { .. }
        | Instr::GetHd { .. }
        | Instr::GetTl { .. }
        | Instr::Call { .. }
        | Instr::TailCall { .. }
        | Instr::CallExt { .. }
        | Instr::TailCallExt { .. }
        | Instr::CallFun { .. }
        | Instr::TailCallFun { .. }
        | Instr::CallDyn { .. }
        | Instr::TailCallDyn { .. }
        | Instr::Return { .. }
        | Instr::TryEnd
        | Instr::CatchEnd
        | Instr::Raise { .. }
        | Instr::Error { .. }
        | Instr::RecvRef { .. }
        | Instr::RecvAccept
        | Instr::BsInit
        | Instr::BsPut { .. }
        | Instr::BsFinish { .. } => {}
    }
}
