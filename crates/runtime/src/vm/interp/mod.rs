//! The instruction loop. [`run_slice`] fetches each instruction and hands it
//! to its function; each family of instructions is a module of functions
//! over the loop's state (`Vm`): moves, construction and destructuring of
//! terms (`data`), operators (`ops`), tests and jumps (`branch`), calls and
//! returns (`call`, with what a fun or run-time call reaches in `callee` and
//! built-ins and `apply` in `bif_call`), exceptions (`except`), receive
//! (`recv`) and binaries (`bin`).
//!
//! The instructions' functions are `#[inline(always)]` and `exec`'s
//! `match` is the only dispatch of the instructions of ordinary sequential
//! code: after inlining, each instruction's code sits in its arm, as if the
//! loop were written in one piece. (A `match` on the family followed by one
//! in the family costs a second dispatch per instruction: LLVM does not
//! fold the two.) The other instructions (maps, funs, built-ins,
//! exceptions, receive) run out of the loop, in `exec_cold`, on a
//! copy of the state: with them inlined, the loop was too large for LLVM to
//! keep the instruction pointer and the window in registers.
//!
//! The loop's state is the instruction pointer and the window; the
//! window base and the reductions left live in the process. A jump adds the
//! label, a byte distance, to the instruction pointer (the linker makes
//! the arena's labels relative, `ir::relative`); the function and index
//! of the position are found from the pointer only on slow paths
//! (`Program::locate`).
//!
//! The dispatch is 8 instructions, 4 of them the jump through a table of
//! 32-bit offsets a position-independent executable needs (`lea` of the
//! table, load, add, jump). Tried and dropped: building with
//! `-C relocation-model=static`, whose absolute table makes the jump one
//! instruction: naive fib 102.6 -> 93.5 instructions per call (callgrind),
//! but `RUSTFLAGS` also reach the proc-macro crates, which then fail to
//! link (`serde_derive`: relocation R_X86_64_32 ... recompile with
//! -fPIC), and building with `--target` to keep them out moves the binary
//! out of `target/release`.

mod bif_call;
mod bin;
mod branch;
mod call;
mod callee;
mod data;
mod except;
mod ops;
mod recv;

use super::{raise, ExitInfo, SliceEnd};
use crate::code::{FunId, Program};
use crate::exception::Exception;
use crate::ir::{Cmp, Instr, Op2, Slot};
use crate::process::Process;
use crate::sched::Runtime;
use crate::sched::Worker;
use call::{Linked, Ret};
use trace_term::Term;

/// A copy of `t`: a plain 16-byte copy for immediates (the common case in
/// matching: atoms, small integers, pids), a reference-counted clone else.
#[inline(always)]
fn dup(t: &Term) -> Term {
    if t.is_immediate() {
        // SAFETY: an immediate owns no allocation (see `Term::is_immediate`),
        // so a bitwise copy is an independent, equally valid value.
        unsafe { std::ptr::read(t) }
    } else {
        t.clone()
    }
}

/// Moves a value out of a slot, leaving `[]`.
#[inline(always)]
fn take(t: &mut Term) -> Term {
    std::mem::replace(t, Term::Nil)
}

/// Writes small integer `v` into slot `t`. The out-of-line path takes the
/// integer, not a `Term`: a `Term` handed to a function out of line is
/// built in memory, and LLVM then built every result in memory, on the
/// fast path too (a store, a load and a copy more per integer written).
#[inline(always)]
fn put_int(t: &mut Term, v: i64) {
    if t.is_immediate() {
        // SAFETY: an immediate owns nothing to release.
        unsafe { std::ptr::write(t, Term::Int(v)) }
    } else {
        replace_int(t, v)
    }
}

/// [`put_int`] over a value holding a reference.
#[cold]
#[inline(never)]
fn replace_int(t: &mut Term, v: i64) {
    *t = Term::Int(v);
}

/// Writes float `v` into slot `t` (see [`put_int`]).
#[inline(always)]
fn put_float(t: &mut Term, v: f64) {
    if t.is_immediate() {
        // SAFETY: an immediate owns nothing to release.
        unsafe { std::ptr::write(t, Term::Float(v)) }
    } else {
        replace_float(t, v)
    }
}

/// [`put_float`] over a value holding a reference.
#[cold]
#[inline(never)]
fn replace_float(t: &mut Term, v: f64) {
    *t = Term::Float(v);
}

/// How an instruction hands control back to the loop.
///
/// The fast paths say only `Go`, a value that stays in a register: were
/// it an enum with the slow paths' payloads, it would live in memory
/// (built-ins write it through a pointer) and cost a store, a load and a
/// second dispatch on every instruction.
#[derive(Clone, Copy)]
enum Flow {
    /// Go on with the instruction at `pc`.
    Go,
    /// Leave the fast path: do what [`Vm::next`] says.
    Next,
}

/// What to do after an instruction that left the fast path.
enum Next {
    /// Go on from where `p.fun`, `p.pc` and `p.base` say (a built-in may
    /// have moved there), counting a reduction.
    Continue,
    /// Raise an exception, counting a reduction.
    Raise(Exception),
    /// Raise an exception counting no reduction (a bad receive timeout).
    Throw(Exception),
    /// End the slice.
    End(SliceEnd),
}

/// The loop's state: the process, what it runs in, and where it is.
struct Vm<'a> {
    p: &'a mut Process,
    /// What the slow paths need, behind one pointer: each value the loop
    /// keeps beyond the process, position and window had
    /// pushed one of those out of the registers.
    env: &'a Env<'a>,
    /// The next instruction to run. Invariant: it points into the current
    /// function's code in the program's arena (except between a return to
    /// the bottom frame and the `EndProcess` it returns to, where nothing
    /// asks [`Vm::place`]): every label is inside its function (the
    /// arena's labels are relative to `ip`, see [`Vm::goto`]) and no
    /// function's last instruction falls through (`code_check::check`
    /// verifies both for every program), so the loop fetches without a
    /// bounds check.
    ip: *const Instr,
    /// The current window, as a raw pointer: slot accesses are the hottest
    /// operation of the loop. Invariant: `w == p.regs.as_mut_ptr() + p.base`
    /// and `p.regs.len() >= base + nslots(fun)`; every place that moves
    /// `base` or may reallocate `p.regs` re-establishes it with
    /// [`Vm::refresh`]. The compiler only emits slot numbers below the
    /// function's `nslots`.
    w: *mut Term,
}

/// What the process runs in, and what an instruction that left the fast
/// path asks for (see [`Flow`]): kept out of [`Vm`], whose fields must stay
/// in registers.
struct Env<'a> {
    rt: &'a Runtime,
    wk: &'a Worker,
    prog: &'a Program,
    next: std::cell::Cell<Option<Next>>,
}

impl<'a> Vm<'a> {
    /// The current function and the index of the next instruction in its
    /// code, found from `ip`: calls and returns keep only that address,
    /// and the slow paths that ask are few.
    #[inline(always)]
    fn place(&self) -> (FunId, usize) {
        // SAFETY: `ip` is in the running function's code or one past it
        // (see the invariant on `ip`).
        unsafe { self.env.prog.locate_unchecked(self.ip) }
    }

    /// The current function (see [`Vm::place`]).
    #[inline(always)]
    fn fun(&self) -> FunId {
        self.place().0
    }

    /// Writes the current function into the process (`p.fun`), for the
    /// code out of the loop that reads it there.
    #[inline(always)]
    fn keep_fun(&mut self) {
        self.p.fun = self.fun();
    }

    /// Where the current window starts in the value stack (`p.base`).
    #[inline(always)]
    fn base(&self) -> usize {
        self.p.base as usize
    }

    /// Slot `s` of the current window.
    #[inline(always)]
    fn reg(&self, s: Slot) -> &Term {
        let s = s as usize;
        debug_assert!(
            self.base() + s < self.p.regs.len()
                && std::ptr::eq(self.w, self.p.regs.as_ptr().wrapping_add(self.base()))
        );
        // SAFETY: see the invariant on `w`.
        unsafe { &*self.w.add(s) }
    }

    /// Slot `s` of the current window, to write.
    #[inline(always)]
    fn reg_mut(&mut self, s: Slot) -> &mut Term {
        let s = s as usize;
        debug_assert!(
            self.base() + s < self.p.regs.len()
                && self.w == self.p.regs.as_mut_ptr().wrapping_add(self.base())
        );
        // SAFETY: see the invariant on `w`.
        unsafe { &mut *self.w.add(s) }
    }

    /// Re-establishes the invariant on `w`.
    #[inline(always)]
    fn refresh(&mut self) {
        self.w = self.p.regs.as_mut_ptr().wrapping_add(self.base());
    }

    /// The index of the next instruction in the current function.
    #[inline(always)]
    fn pc(&self) -> usize {
        self.place().1
    }

    /// Continues at `label` of the instruction just fetched (`ip` is just
    /// past it): the arena's labels are relative to that position (see
    /// [`crate::ir::relative`]), so a jump reads nothing but `ip`.
    #[inline(always)]
    fn goto(&mut self, label: u32) {
        debug_assert!(self.label_pc(label) < self.env.prog.funs[self.fun() as usize].code.len());
        // SAFETY: labels are inside their function (see the invariant on
        // `ip`); the label is a distance in bytes.
        self.ip = unsafe { self.ip.byte_offset(label as i32 as isize) };
    }

    /// Where `label` of the instruction just fetched goes, as an index into
    /// the current function's code (what handlers and the process keep).
    #[inline(always)]
    fn label_pc(&self, label: u32) -> usize {
        crate::ir::target(self.pc(), label)
    }

    /// Switches to the code of function `fun`, at `pc`.
    #[inline(always)]
    fn enter_code(&mut self, fun: FunId, pc: usize) {
        // SAFETY: every function id the loop holds (a call's, a frame's,
        // a handler's, the process's) is one the linker checked.
        let code = unsafe { self.env.prog.code_start_unchecked(fun).0 };
        debug_assert!(pc < self.env.prog.funs[fun as usize].code.len());
        // SAFETY: `pc` is a label or a saved position inside the function.
        self.ip = unsafe { code.add(pc) };
    }

    /// Whether `ip` is at a function's first instruction (the slot before
    /// it a `FunStart`), for the reports of a traced process.
    #[inline(always)]
    fn at_start(&self) -> bool {
        // SAFETY: every address `ip` takes has a slot before it: in the
        // arena a `FunStart` starts each function, and the bottom frame's
        // address is just after a call (`frames::Frames`).
        matches!(unsafe { &*self.ip.sub(1) }, Instr::FunStart { .. })
    }

    /// The instruction at `ip` (the next one to run).
    #[inline(always)]
    fn current(&self) -> &'a Instr {
        // SAFETY: see the invariant on `ip`.
        unsafe { &*self.ip }
    }

    /// Passes over the next instruction (it was done here).
    #[inline(always)]
    fn step(&mut self) {
        // SAFETY: the instruction at `ip` does not end its function.
        self.ip = unsafe { self.ip.add(1) };
    }

    /// Steps back onto the instruction just fetched (to run it again).
    #[inline(always)]
    fn back(&mut self) {
        // SAFETY: `ip` is past the instruction just fetched.
        self.ip = unsafe { self.ip.sub(1) };
    }

    /// Runs the instruction just fetched again, after a stack grew under it.
    #[inline(always)]
    fn retry(&mut self) -> Flow {
        self.refresh();
        self.back();
        Flow::Go
    }

    /// Keeps the position in the process, for the next slice or a built-in.
    #[inline(always)]
    fn save(&mut self) {
        let (fun, pc) = self.place();
        self.p.fun = fun;
        self.p.pc = pc as u32;
    }

    /// Goes to the start of function `f`, its window at `nb`, counting a
    /// reduction.
    #[inline(always)]
    fn enter(&mut self, f: FunId, nb: usize) -> Flow {
        // SAFETY: the linker checked every function id the code names.
        let callee = unsafe { self.env.prog.funs.get_unchecked(f as usize) };
        let need = nb + callee.nslots as usize;
        if self.p.regs.len() < need {
            grow_stack(self.p, need);
        }
        self.p.base = nb as u32;
        self.enter_code(f, 0);
        self.refresh();
        self.count_call()
    }

    /// Counts the reduction of a call that entered its callee; the slice
    /// ends, at the callee's start, when it was the last.
    #[inline(always)]
    fn count_call(&mut self) -> Flow {
        self.p.reds -= 1;
        if self.p.reds == 0 {
            self.save();
            return self.slow(Next::End(SliceEnd::Yield));
        }
        Flow::Go
    }

    /// Goes on from where the process says it is, after a built-in.
    #[inline(always)]
    fn resume(&mut self) {
        self.enter_code(self.p.fun, self.p.pc as usize);
        self.refresh();
    }

    /// Unwinds to the innermost handler and goes on there; the slice's end
    /// when there is none.
    #[inline(always)]
    fn throw(&mut self, e: Exception) -> Result<(), SliceEnd> {
        self.keep_fun();
        let (f, pc, base) = raise::throw(self.p, self.env.prog, e)?;
        self.p.fun = f;
        self.p.base = base as u32;
        self.enter_code(f, pc);
        self.refresh();
        Ok(())
    }

    /// A test instruction: go on when `ok`, else jump to `fail`.
    #[inline(always)]
    fn test(&mut self, ok: bool, fail: u32) -> Flow {
        if !ok {
            self.goto(fail);
        }
        Flow::Go
    }

    /// Leaves the fast path: the loop does what `next` says.
    #[inline(always)]
    fn slow(&mut self, next: Next) -> Flow {
        self.env.next.set(Some(next));
        Flow::Next
    }

    /// Inside a guard (`fail` is a label, not `RAISE`) a failure jumps to
    /// `fail`; says whether it did.
    #[inline(always)]
    fn fail_to(&mut self, fail: u32) -> bool {
        if fail != crate::ir::RAISE {
            self.goto(fail);
            return true;
        }
        false
    }
}

/// Runs `p` for at most `budget` reductions.
pub fn run_slice(p: &mut Process, rt: &Runtime, wk: &Worker, budget: u32) -> SliceEnd {
    // A kill requested while the process was not running (or by itself).
    if let Some(reason) = p.kill.take() {
        return SliceEnd::Exit(ExitInfo::plain(reason));
    }
    let prog: &Program = &rt.program;
    let (fun, pc, base) = (p.fun, p.pc as usize, p.base as usize);
    let w = p.regs.as_mut_ptr().wrapping_add(base);
    let code = prog.code_start(fun).0;
    let env = Env {
        rt,
        wk,
        prog,
        next: std::cell::Cell::new(None),
    };
    p.reds = budget.max(1);
    let mut vm = Vm {
        p,
        env: &env,
        ip: code,
        w,
    };
    vm.enter_code(fun, pc);
    if vm.p.trace_calls {
        return traced_loop(vm);
    }
    instruction_loop::<false>(&mut vm)
}

/// The loop of a process whose calls and returns are reported
/// (`RunOptions::trace_calls`): an instantiation of its own, so the
/// ordinary loop has not one instruction more. It takes the state by
/// value: were the ordinary loop's `Vm` lent here, its address would escape
/// and LLVM would keep its fields in memory rather than in registers.
#[inline(never)]
fn traced_loop(mut vm: Vm<'_>) -> SliceEnd {
    instruction_loop::<true>(&mut vm)
}

/// A return of a traced process, before it runs: reported.
#[cold]
fn report_return(vm: &mut Vm<'_>, src: Slot) {
    let v = vm.reg(src).clone();
    crate::vm::calls::returned(vm.p, vm.env.prog, vm.fun(), vm.pc(), &v);
}

/// After instruction `ins` of a traced process, which left it at the start
/// of a function: a call (`apply` too) entered that function; a built-in
/// that stays put or returns past the call does not leave it there.
#[cold]
fn report_call(vm: &mut Vm<'_>, ins: &Instr) {
    if ins.is_call() {
        crate::vm::calls::called(vm.p, vm.env.prog, vm.fun(), vm.base());
    }
}

/// Runs instructions until the slice ends; `TRACE` reports calls and
/// returns (a constant: the ordinary instantiation has no test for it).
#[inline(always)]
fn instruction_loop<const TRACE: bool>(vm: &mut Vm<'_>) -> SliceEnd {
    loop {
        let ins = vm.current();
        if let (true, Instr::Return { src }) = (TRACE, ins) {
            report_return(vm, *src);
        }
        vm.step();
        let flow = exec::<TRACE>(vm, ins);
        let next = match flow {
            Flow::Go => {
                // A call that grew a stack runs again (`Vm::retry`): it has
                // not entered its callee yet, even at its function's start.
                if TRACE && vm.at_start() && !std::ptr::eq(vm.current(), ins) {
                    report_call(vm, ins);
                }
                continue;
            }
            Flow::Next => vm.env.next.take().expect("a slow path says what to do"),
        };
        match next {
            Next::Continue => {
                vm.resume();
                if TRACE && vm.at_start() {
                    report_call(vm, ins);
                }
                if let Some(reason) = vm.p.kill.take() {
                    return SliceEnd::Exit(ExitInfo::plain(reason));
                }
            }
            Next::End(e) => {
                // A call that used the slice's last reduction yields at
                // the callee's start.
                if TRACE && matches!(e, SliceEnd::Yield) && vm.p.pc == 0 {
                    report_call(vm, ins);
                }
                return e;
            }
            Next::Raise(e) => {
                if let Err(end) = vm.throw(e) {
                    return end;
                }
            }
            Next::Throw(e) => match vm.throw(e) {
                Ok(()) => continue,
                Err(end) => return end,
            },
        }
        // Slow paths come back here; count a reduction so long BIF loops yield.
        if vm.p.reds <= 1 {
            vm.save();
            return SliceEnd::Yield;
        }
        vm.p.reds -= 1;
    }
}

/// Runs one instruction: the loop's only dispatch for the instructions of
/// ordinary sequential code; the rest go to [`cold`] in one branch. A
/// traced process (`TRACE`) runs a fused pair as its two instructions, so
/// that the call is reported as any other.
#[inline(always)]
fn exec<const TRACE: bool>(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    match *ins {
        // Moves and constants, construction, destructuring.
        Instr::Move { dst, src } => data::copy(vm, dst, src),
        Instr::Take { dst, src } => data::take_slot(vm, dst, src),
        Instr::Lit { dst, lit } => data::literal(vm, dst, lit),
        Instr::Int { dst, val } => {
            put_int(vm.reg_mut(dst), val as i64);
            Flow::Go
        }
        Instr::IntReturn { dst, val } => {
            if TRACE {
                put_int(vm.reg_mut(dst), val as i64);
                Flow::Go
            } else {
                call::return_int(vm, dst, val as i64)
            }
        }
        Instr::Atom { dst, atom } => data::constant(vm, dst, Term::Atom(atom)),
        Instr::Nil { dst } => data::constant(vm, dst, Term::Nil),
        Instr::Cons {
            dst,
            head,
            tail,
            take,
        } => data::cons(vm, dst, head, tail, take),
        Instr::Tuple { dst, start, arity } => data::tuple(vm, dst, start, arity),
        Instr::GetElem { dst, src, idx } => data::get_elem(vm, dst, src, idx),
        Instr::GetHd { dst, src } => data::get_hd(vm, dst, src),
        Instr::GetTl { dst, src } => data::get_tl(vm, dst, src),
        Instr::SplitCons { src, hd, tl, fail } => data::split_cons(vm, src, hd, tl, fail),
        // Operators.
        Instr::Add { dst, a, b, .. } => ops::arith(vm, Op2::Add, dst, a, b, ins),
        Instr::Sub { dst, a, b, .. } => ops::arith(vm, Op2::Sub, dst, a, b, ins),
        Instr::Mul { dst, a, b, .. } => ops::arith(vm, Op2::Mul, dst, a, b, ins),
        Instr::AddImm { dst, a, imm, fail } => ops::add_imm(vm, dst, a, imm, fail),
        Instr::AddImmCall { dst, a, imm, fail } => {
            if TRACE {
                ops::add_imm(vm, dst, a, imm, fail)
            } else {
                ops::add_imm_call(vm, dst, a, imm, ins, fused_call_next::<false>)
            }
        }
        Instr::AddImmTailCall { dst, a, imm, fail } => {
            if TRACE {
                ops::add_imm(vm, dst, a, imm, fail)
            } else {
                ops::add_imm_call(vm, dst, a, imm, ins, fused_call_next::<true>)
            }
        }
        Instr::AddReturn { dst, a, b, .. } => {
            if TRACE {
                ops::arith(vm, Op2::Add, dst, a, b, ins)
            } else {
                ops::add_return(vm, dst, a, b, ins)
            }
        }
        Instr::Op2 {
            op,
            dst,
            a,
            b,
            fail,
        } => ops::op2(vm, op, dst, a, b, fail),
        // Tests and jumps.
        Instr::Compare { cmp, a, b, fail } => branch::test_compare(vm, cmp, a, b, fail),
        Instr::CompareInt { cmp, a, imm, fail } => branch::test_compare_int(vm, cmp, a, imm, fail),
        Instr::LtInt { a, imm, fail } => branch::test_order_int(vm, Cmp::Lt, a, imm, fail, ins),
        Instr::LeInt { a, imm, fail } => branch::test_order_int(vm, Cmp::Le, a, imm, fail, ins),
        Instr::GtInt { a, imm, fail } => branch::test_order_int(vm, Cmp::Gt, a, imm, fail, ins),
        Instr::GeInt { a, imm, fail } => branch::test_order_int(vm, Cmp::Ge, a, imm, fail, ins),
        Instr::TestType { test, a, fail } => branch::test_type(vm, test, a, fail),
        Instr::TestAtom { a, atom, fail } => branch::test_atom(vm, a, atom, fail),
        Instr::TestInt { a, val, fail } => branch::test_int(vm, a, val, fail),
        Instr::TestInt2 {
            a,
            first,
            second,
            then,
            fail,
        } => branch::test_int2(vm, a, [first, second], then, fail),
        Instr::TestLit { a, lit, fail } => branch::test_lit(vm, a, lit, fail),
        Instr::TestTuple { a, arity, fail } => branch::test_tuple(vm, a, arity, fail),
        Instr::TestRecord {
            a,
            tag,
            arity,
            fail,
        } => branch::test_record(vm, a, tag, arity, fail),
        Instr::TestCons { a, fail } => branch::test_cons(vm, a, fail),
        Instr::TestNil { a, fail } => branch::test_nil(vm, a, fail),
        Instr::TestMap { a, fail } => branch::test_map(vm, a, fail),
        Instr::TestFunArity { a, arity, fail } => branch::test_fun_arity(vm, a, arity, fail),
        Instr::Jump { to } => branch::jump(vm, to),
        Instr::Switch { a, table } => branch::switch(vm, a, table),
        // Calls and returns.
        Instr::Call { .. } | Instr::TailCall { .. } => local_call(vm, ins),
        Instr::CallExt {
            ext,
            args,
            arity,
            dst,
        } => call::external(vm, ext, args, arity, Ret::Slot(dst)),
        Instr::TailCallExt { ext, args, arity } => call::external(vm, ext, args, arity, Ret::Tail),
        Instr::Return { src } => call::return_value(vm, src),
        // Binaries: in the loop, where a segment costs no copy of the state.
        Instr::BsInit => bin::init(vm),
        Instr::BsPut { .. } => bin::put(vm, ins),
        Instr::BsFinish { dst } => bin::finish(vm, dst),
        Instr::BsStart { src, pos, fail } => bin::start(vm, src, pos, fail),
        Instr::BsGet { .. } => bin::get(vm, ins),
        Instr::BsSkip { .. } => bin::skip(vm, ins),
        Instr::BsEnd { src, pos, fail } => bin::end(vm, src, pos, fail),
        // Named, not `_`: a wildcard costs the dispatch a range check.
        Instr::MapNew { .. }
        | Instr::MapPut { .. }
        | Instr::MakeFun { .. }
        | Instr::GetMapValue { .. }
        | Instr::Op1 { .. }
        | Instr::CallBif { .. }
        | Instr::CallFun { .. }
        | Instr::TailCallFun { .. }
        | Instr::CallDyn { .. }
        | Instr::TailCallDyn { .. }
        | Instr::Try { .. }
        | Instr::Catch { .. }
        | Instr::TryEnd
        | Instr::CatchEnd
        | Instr::Raise { .. }
        | Instr::Error { .. }
        | Instr::RecvStart { .. }
        | Instr::RecvRef { .. }
        | Instr::RecvPeek { .. }
        | Instr::RecvNext { .. }
        | Instr::RecvAccept
        | Instr::RecvWait { .. }
        | Instr::RecvWaitTimeout { .. }
        | Instr::EndProcess
        | Instr::FunStart { .. } => cold(vm, ins),
    }
}

/// `Call` and `TailCall`, the only instructions sent here: by the loop's
/// dispatch, or as the second of a fused pair (the linker fuses an
/// instruction only with a call after it, `link::fuse`, and linked code is
/// never changed).
#[inline(always)]
fn local_call(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    match *ins {
        Instr::Call {
            fun,
            args,
            dst,
            entry,
            ..
        } => {
            let l = Linked {
                callee: entry,
                arity: 0,
            };
            call::linked(vm, fun, l, args, Ret::Slot(dst))
        }
        Instr::TailCall {
            fun,
            args,
            arity,
            entry,
        } => {
            let l = Linked {
                callee: entry,
                arity: arity as usize,
            };
            call::linked(vm, fun, l, args, Ret::Tail)
        }
        _ => unreachable!("a local call that is neither Call nor TailCall"),
    }
}

/// The `Call` after an `AddImmCall` (`TAIL` false), or the `TailCall`
/// after an `AddImmTailCall` (`TAIL` true), run without a dispatch.
#[inline(always)]
fn fused_call_next<const TAIL: bool>(vm: &mut Vm<'_>) -> Flow {
    let ins = vm.current();
    vm.step();
    let expected = if TAIL {
        matches!(ins, Instr::TailCall { .. })
    } else {
        matches!(ins, Instr::Call { .. })
    };
    if !expected {
        // SAFETY: `code_check` verified that a `Call` follows every
        // `AddImmCall` and a `TailCall` every `AddImmTailCall`
        // (`link::fuse` made them so), and linked code is never changed.
        unsafe { std::hint::unreachable_unchecked() }
    }
    local_call(vm, ins)
}

/// The instructions [`exec`] leaves out of the loop (maps, funs, built-ins,
/// exceptions, receive), on a copy of the loop's state: lending
/// the loop's own `Vm` would keep its fields in memory on every path, not
/// in registers.
#[inline(always)]
fn cold(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    let mut c = Vm {
        p: &mut *vm.p,
        env: vm.env,
        ip: vm.ip,
        w: vm.w,
    };
    let flow = exec_cold(&mut c, ins);
    let (ip, w) = (c.ip, c.w);
    vm.ip = ip;
    vm.w = w;
    flow
}

/// Runs one of the instructions out of the loop (see [`cold`]).
#[inline(never)]
fn exec_cold(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    match *ins {
        // Maps and funs.
        Instr::MapNew { dst, start, n } => data::map_new(vm, dst, start, n),
        Instr::MapPut { .. } => data::map_put(vm, ins),
        Instr::MakeFun {
            dst,
            fun,
            start,
            nfree,
        } => data::make_fun(vm, dst, fun, start, nfree),
        Instr::GetMapValue {
            dst,
            map,
            key,
            fail,
        } => data::get_map_value(vm, dst, map, key, fail),
        // Operators: `Add`, `Sub` and `Mul` beyond their inline cases.
        Instr::Op1 { op, dst, a, fail } => ops::op1(vm, op, dst, a, fail),
        // A fused sum beyond its inline case: the call is dispatched next.
        Instr::AddImmCall { dst, a, imm, fail } | Instr::AddImmTailCall { dst, a, imm, fail } => {
            ops::add_imm(vm, dst, a, imm, fail)
        }
        Instr::Add { dst, a, b, fail } | Instr::AddReturn { dst, a, b, fail } => {
            ops::op2(vm, Op2::Add, dst, a, b, fail)
        }
        Instr::Sub { dst, a, b, fail } => ops::op2(vm, Op2::Sub, dst, a, b, fail),
        Instr::Mul { dst, a, b, fail } => ops::op2(vm, Op2::Mul, dst, a, b, fail),
        // Comparisons with a constant beyond their inline case.
        Instr::LtInt { a, imm, fail } => branch::test_compare_int(vm, Cmp::Lt, a, imm, fail),
        Instr::LeInt { a, imm, fail } => branch::test_compare_int(vm, Cmp::Le, a, imm, fail),
        Instr::GtInt { a, imm, fail } => branch::test_compare_int(vm, Cmp::Gt, a, imm, fail),
        Instr::GeInt { a, imm, fail } => branch::test_compare_int(vm, Cmp::Ge, a, imm, fail),
        // Calls and returns: the end of the process's initial call.
        Instr::EndProcess => call::end_process(vm),
        Instr::CallBif {
            bif,
            args,
            arity,
            dst,
            fail,
        } => call::built_in(vm, bif, args, arity, Ret::Slot(dst), fail),
        Instr::CallFun {
            fun,
            args,
            arity,
            dst,
        } => call::fun_value(vm, fun, args, arity, Ret::Slot(dst)),
        Instr::TailCallFun { fun, args, arity } => call::fun_value(vm, fun, args, arity, Ret::Tail),
        Instr::CallDyn {
            module,
            function,
            args,
            arity,
            dst,
        } => call::dynamic(vm, module, function, args, arity, Ret::Slot(dst)),
        Instr::TailCallDyn {
            module,
            function,
            args,
            arity,
        } => call::dynamic(vm, module, function, args, arity, Ret::Tail),
        // Exceptions.
        Instr::Try { handler, reg } => except::enter_try(vm, handler, reg),
        Instr::Catch { handler, dst } => except::enter_catch(vm, handler, dst),
        Instr::TryEnd | Instr::CatchEnd => except::leave(vm),
        Instr::Raise { reg } => except::reraise(vm, reg),
        Instr::Error { kind, val } => except::error(vm, kind, val),
        // Receive: its reports and events read the place from the process.
        Instr::RecvStart { .. }
        | Instr::RecvRef { .. }
        | Instr::RecvPeek { .. }
        | Instr::RecvNext { .. }
        | Instr::RecvAccept
        | Instr::RecvWait { .. }
        | Instr::RecvWaitTimeout { .. } => {
            vm.keep_fun();
            receive(vm, ins)
        }
        _ => unreachable!("exec runs {ins:?} itself"),
    }
}

/// Runs a receive instruction (out of the loop, see [`exec_cold`]).
#[inline(always)]
fn receive(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    match *ins {
        Instr::RecvStart { after } => recv::start(vm, after),
        Instr::RecvRef { src } => recv::use_ref(vm, src),
        Instr::RecvPeek { dst, wait, .. } => recv::peek(vm, dst, wait),
        Instr::RecvNext { lp } => recv::next(vm, lp),
        Instr::RecvAccept => recv::accept(vm),
        Instr::RecvWait { lp } => recv::wait(vm, lp),
        Instr::RecvWaitTimeout { timeout, lp, after } => recv::wait_timeout(vm, timeout, lp, after),
        _ => unreachable!("{ins:?} is not a receive"),
    }
}

/// Makes the value stack at least `need` slots long (a call deeper than
/// any before), and longer by as much again as it was, up to
/// [`STACK_STEP`] slots more: a body recursion goes a slot or two deeper
/// at each call, and growing by just that had each of its calls resize
/// the stack (a fifth of `body_recursion`'s instructions). A small
/// process's stack stays small.
#[cold]
#[inline(never)]
pub(super) fn grow_stack(p: &mut Process, need: usize) {
    let len = p.regs.len();
    let more = need.max(len + len.min(STACK_STEP)) - len;
    // Filled by plain stores: `resize` cloned `[]` into each slot, at
    // about 20 instructions a slot.
    p.regs.reserve(more);
    for s in &mut p.regs.spare_capacity_mut()[..more] {
        s.write(Term::Nil);
    }
    // SAFETY: the `more` slots after the length were just written.
    unsafe { p.regs.set_len(len + more) };
}

/// The most slots [`grow_stack`] adds beyond what a call needs (16 KiB).
const STACK_STEP: usize = 1024;

/// Drops the values left above the current frame's window and its
/// callers' (returned callees' slots), so a suspended process keeps
/// nothing dead alive.
pub fn trim_stack(p: &mut Process, prog: &Program) {
    let end = p.base as usize + prog.funs[p.fun as usize].nslots as usize;
    let keep = raise::kept_len(p, prog, end);
    if p.regs.len() > keep {
        p.regs.truncate(keep);
    }
}
