//! Linking: compiled modules (module-local references) become one
//! [`Program`] with global ids. Remote calls are resolved here: to a loaded
//! function, to a built-in, to `undef` at run time (as BEAM does for a module
//! nobody loaded), or to a compile-time "unsupported" error when the target is
//! an OTP function the engine does not implement.

use crate::bif;
use crate::code::{ExtTarget, FunCode, FunId, ModuleInfo, Program};
use crate::compiler::ModuleCode;
use crate::ir::{relative, Cmp, CodePtr, Entry, Instr, Op2, Switch, RAISE};
use crate::otp;
use trace_syntax::ast::Pos;
use trace_syntax::{DiagKind, Diagnostic};
use trace_term::Atom;

/// Links modules (user modules and the prelude) into a program.
pub fn link(mods: Vec<ModuleCode>) -> Result<Program, Vec<Diagnostic>> {
    let mut prog = Program::default();
    let mut diags = Vec::new();

    // Pass 1: global ids for every module's functions and exports.
    let mut fun_base = Vec::with_capacity(mods.len());
    let mut next = 0u32;
    for m in &mods {
        fun_base.push(next);
        let file = prog.files.len() as u32;
        prog.files.push(m.path.clone());
        let info = prog
            .modules
            .entry(m.name)
            .or_insert_with(ModuleInfo::default);
        info.file = file;
        info.source_hash = m.source_hash;
        info.prelude = m.prelude;
        for (&(f, a), &local) in &m.named {
            info.functions.insert((f, a), next + local);
        }
        for &(f, a) in &m.exports {
            if let Some(&local) = m.named.get(&(f, a)) {
                info.exports.insert((f, a), next + local);
            }
        }
        next += m.funs.len() as u32;
    }

    // Pass 2: copy code, rebasing references.
    for (mi, m) in mods.into_iter().enumerate() {
        let fb = fun_base[mi];
        let lb = prog.literals.len() as u32;
        let sb = prog.switches.len() as u32;
        let cb = prog.closures.len() as u32;
        let eb = prog.exts.len() as u32;
        let file = prog.modules[&m.name].file;
        prog.literals.extend(m.literals);
        prog.switches.extend(m.switches);
        for mut c in m.closures {
            c.code += fb;
            prog.closures.push(c);
        }
        for e in &m.exts {
            let target = resolve(&prog, e.module, e.function, e.arity);
            if let Err(msg) = check_supported(&prog, e.module, e.function, e.arity) {
                diags.push(Diagnostic::new(DiagKind::Unsupported, &e.path, e.pos, msg));
            }
            prog.exts.push(target);
        }
        for f in m.funs {
            let FunCode {
                module,
                name,
                arity,
                nslots,
                mut code,
                lines,
                debug,
                ..
            } = f;
            for ins in &mut code {
                rebase(ins, fb, lb, sb, cb, eb);
            }
            prog.funs.push(FunCode {
                module,
                name,
                arity,
                nslots,
                code,
                lines,
                file,
                debug,
            });
        }
    }

    // Pass 3: calls whose external target is known become direct, and the
    // commonest operators and comparisons instructions of their own.
    let exts = prog.exts.clone();
    for f in &mut prog.funs {
        for ins in &mut f.code {
            direct(ins, &exts);
        }
        fuse(&mut f.code);
    }
    // A compiler bug, never the program's fault; the interpreter relies on it.
    if let Err(what) = crate::code_check::check(&prog) {
        let path = prog.files.first().cloned().unwrap_or_default();
        let msg = format!("internal error in trace's compiler (a bug in trace): {what}");
        diags.push(Diagnostic::new(
            DiagKind::Semantic,
            &path,
            Pos::default(),
            msg,
        ));
    }
    if diags.is_empty() {
        link_calls(&mut prog);
        Ok(prog)
    } else {
        Err(diags)
    }
}

fn resolve(prog: &Program, m: Atom, f: Atom, a: u32) -> ExtTarget {
    if let Some(id) = prog.exported(m, f, a) {
        return ExtTarget::Fun(id);
    }
    if let Some(id) = bif::registry().lookup_atoms(m, f, a as usize) {
        return ExtTarget::Bif(id);
    }
    ExtTarget::Undef {
        module: m,
        function: f,
        arity: a,
    }
}

/// A call the engine cannot honour although OTP can is reported at compile time.
fn check_supported(prog: &Program, m: Atom, f: Atom, a: u32) -> Result<(), String> {
    if prog.modules.get(&m).is_some_and(|i| !i.prelude) {
        // A user module: undefined functions are `undef` at run time, as on BEAM.
        return Ok(());
    }
    if prog.exported(m, f, a).is_some() || bif::registry().lookup_atoms(m, f, a as usize).is_some()
    {
        return Ok(());
    }
    let (ms, fs) = (m.name(), f.name());
    if otp::has_function(ms, fs, a) {
        if prog.modules.contains_key(&m) || bif::registry().all().any(|d| d.module == m) {
            return Err(format!(
                "unsupported: {ms}:{fs}/{a} is not implemented by trace"
            ));
        }
        return Err(format!(
            "unsupported: module '{ms}' is not supported by trace (called as {ms}:{fs}/{a})"
        ));
    }
    Ok(())
}

/// Fills in each direct call's [`Entry`] (its callee's code and window
/// size), once every function's code is in
/// place and checked, then lays the code out in the arena the loop runs
/// (see [`Program::arena`]): the code is not moved or changed after this.
fn link_calls(prog: &mut Program) {
    prog.max_nslots = prog.funs.iter().map(|f| f.nslots).max().unwrap_or(0);
    // The arena's size is known before anything is copied into it, so the
    // entries can point into it before it is filled.
    let mut starts = Vec::with_capacity(prog.funs.len());
    let mut len = 0usize;
    for f in &prog.funs {
        len += 1;
        starts.push(len as u32);
        len += f.code.len();
    }
    let mut arena: Vec<Instr> = Vec::with_capacity(len);
    let base = arena.as_ptr();
    let entries: Vec<Entry> = prog
        .funs
        .iter()
        .zip(&starts)
        .map(|(f, &at)| Entry {
            code: CodePtr(base.wrapping_add(at as usize)),
            nslots: f.nslots,
        })
        .collect();
    let mut tables = Vec::new();
    let mut owners = Vec::with_capacity(len);
    for (id, f) in prog.funs.iter_mut().enumerate() {
        for ins in &mut f.code {
            match ins {
                Instr::Call { fun, entry, .. } | Instr::TailCall { fun, entry, .. } => {
                    *entry = entries[*fun as usize]
                }
                _ => {}
            }
        }
        arena.push(Instr::FunStart { fun: id as u32 });
        owners.extend(std::iter::repeat_n(id as FunId, f.code.len() + 1));
        for (pc, ins) in f.code.iter().enumerate() {
            arena.push(arena_form(ins, pc, &prog.switches, &mut tables));
        }
    }
    debug_assert!(std::ptr::eq(arena.as_ptr(), base) && arena.len() == len);
    prog.arena = arena;
    prog.arena_switches = tables;
    prog.owners = owners;
    prog.starts = starts;
}

/// Instruction `ins`, at `pc` of its function, as the arena holds it: its
/// labels relative to the instruction after it ([`crate::ir::relative`]);
/// a `Switch` gets a table of its own in `tables`, relative in the same
/// way, since the same labels are at different distances from two
/// `Switch`es.
fn arena_form(ins: &Instr, pc: usize, switches: &[Switch], tables: &mut Vec<Switch>) -> Instr {
    let mut ins = ins.clone();
    for l in ins.labels_mut().into_iter().flatten() {
        *l = relative(*l, pc);
    }
    if let Instr::Switch { table, .. } = &mut ins {
        let mut sw = switches[*table as usize].clone();
        sw.default = relative(sw.default, pc);
        for c in &mut sw.cases {
            c.1 = relative(c.1, pc);
        }
        *table = tables.len() as u32;
        tables.push(sw);
    }
    ins
}

fn rebase(ins: &mut Instr, fb: u32, lb: u32, sb: u32, cb: u32, eb: u32) {
    match ins {
        Instr::Call { fun, .. } | Instr::TailCall { fun, .. } => *fun += fb,
        Instr::Lit { lit, .. } | Instr::TestLit { lit, .. } => *lit += lb,
        Instr::Switch { table, .. } => *table += sb,
        Instr::MakeFun { fun, .. } => *fun += cb,
        Instr::CallExt { ext, .. } | Instr::TailCallExt { ext, .. } => *ext += eb,
        _ => {}
    }
}

/// Marks the common pairs the loop runs without a dispatch between them:
/// an `AddImm` right before a local call (`f(N - 1)`) becomes
/// `AddImmCall` or `AddImmTailCall`, an `Add` or `Int` whose value the next
/// instruction returns becomes `AddReturn` or `IntReturn`. The second
/// instruction stays where it was, for the labels that reach it;
/// `code_check` verifies each pair, which the loop relies on.
fn fuse(code: &mut [Instr]) {
    for i in 1..code.len() {
        let fused = match (&code[i - 1], &code[i]) {
            (&Instr::AddImm { dst, a, imm, fail }, Instr::Call { .. }) => {
                Instr::AddImmCall { dst, a, imm, fail }
            }
            (&Instr::AddImm { dst, a, imm, fail }, Instr::TailCall { .. }) => {
                Instr::AddImmTailCall { dst, a, imm, fail }
            }
            (&Instr::Add { dst, a, b, fail }, &Instr::Return { src }) if src == dst => {
                Instr::AddReturn { dst, a, b, fail }
            }
            (&Instr::Int { dst, val }, &Instr::Return { src }) if src == dst => {
                Instr::IntReturn { dst, val }
            }
            _ => continue,
        };
        code[i - 1] = fused;
    }
    for i in 0..code.len() {
        if let Some(pair) = int_tests(code, i) {
            code[i] = pair;
        }
    }
}

/// The `TestInt2` that runs `code[i]`, a `TestInt`, and the `TestInt` of
/// the same slot its failure goes to; `None` where they are not that.
fn int_tests(code: &[Instr], i: usize) -> Option<Instr> {
    let Instr::TestInt { a, val, fail } = code[i] else {
        return None;
    };
    let &Instr::TestInt {
        a: a2,
        val: val2,
        fail: fail2,
    } = code.get(fail as usize)?
    else {
        return None;
    };
    let then = fail + 1;
    let (first, second) = (i32::try_from(val).ok()?, i32::try_from(val2).ok()?);
    (a == a2 && fail2 != RAISE && (then as usize) < code.len()).then_some(Instr::TestInt2 {
        a,
        first,
        second,
        then,
        fail: fail2,
    })
}

fn direct(ins: &mut Instr, exts: &[ExtTarget]) {
    match *ins {
        Instr::Op2 {
            op,
            dst,
            a,
            b,
            fail,
        } => match op {
            Op2::Add => *ins = Instr::Add { dst, a, b, fail },
            Op2::Sub => *ins = Instr::Sub { dst, a, b, fail },
            Op2::Mul => *ins = Instr::Mul { dst, a, b, fail },
            _ => {}
        },
        Instr::CompareInt { cmp, a, imm, fail } => match cmp {
            Cmp::Lt => *ins = Instr::LtInt { a, imm, fail },
            Cmp::Le => *ins = Instr::LeInt { a, imm, fail },
            Cmp::Gt => *ins = Instr::GtInt { a, imm, fail },
            Cmp::Ge => *ins = Instr::GeInt { a, imm, fail },
            _ => {}
        },
        Instr::CallExt {
            ext,
            args,
            arity,
            dst,
        } => match exts[ext as usize] {
            ExtTarget::Fun(fun) => {
                *ins = Instr::Call {
                    fun,
                    args,
                    arity,
                    dst,
                    entry: Entry::UNLINKED,
                }
            }
            ExtTarget::Bif(bif) => {
                *ins = Instr::CallBif {
                    bif,
                    args,
                    arity,
                    dst,
                    fail: RAISE,
                }
            }
            ExtTarget::Undef { .. } => {}
        },
        Instr::TailCallExt { ext, args, arity } => {
            if let ExtTarget::Fun(fun) = exts[ext as usize] {
                *ins = Instr::TailCall {
                    fun,
                    args,
                    arity,
                    entry: Entry::UNLINKED,
                };
            }
        }
        _ => {}
    }
}

#[allow(dead_code)]
fn _pos(_: Pos) {}
