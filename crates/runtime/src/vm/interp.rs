//! The instruction loop.

use super::ctx::Ctx;
use super::{arith, bits, raise, receive, ExitInfo, SliceEnd};
use crate::bif::{self, BifFn};
use crate::code::{ExtTarget, FunId, Program};
use crate::exception::{badarg, error_tagged, Apply, Class, Exception, Fault, Trace};
use crate::ir::{Cmp, ErrKind, Instr, Op1, Op2, SwitchKind, TypeTest, RAISE, TAKE_HEAD, TAKE_TAIL};
use crate::process::{Frame, Process};
use crate::sched::Runtime;
use crate::sched::Worker;
use std::cmp::Ordering;
use trace_term::order::{compare, exact_eq};
use trace_term::{atom, Arc, Atom, Fun, MapRepr, Term};

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

/// What to do after an instruction that can fail or call.
enum Next {
    Continue,
    /// An exception to raise.
    Raise(Exception),
    /// End the slice.
    End(SliceEnd),
}

/// Runs `p` for at most `budget` reductions.
pub fn run_slice(p: &mut Process, rt: &Runtime, wk: &Worker, budget: u32) -> SliceEnd {
    let prog: &Program = &rt.program;
    let mut reds = budget.max(1);
    let mut fun: FunId = p.fun;
    let mut pc = p.pc as usize;
    let mut base = p.base as usize;
    let mut code: &[Instr] = &prog.funs[fun as usize].code;
    // The current window, as a raw pointer: slot accesses are the hottest
    // operation of the loop. Invariant: `w == p.regs.as_mut_ptr() + base` and
    // `p.regs.len() >= base + nslots(fun)`; every place that moves `base` or
    // may reallocate `p.regs` re-establishes it with `refresh!()`. The
    // compiler only emits slot numbers below the function's `nslots`.
    let mut w: *mut Term = p.regs.as_mut_ptr().wrapping_add(base);

    // A kill requested while the process was not running (or by itself).
    if let Some(reason) = p.kill.take() {
        return SliceEnd::Exit(ExitInfo::plain(reason));
    }

    macro_rules! r {
        ($s:expr) => {
            (*{
                let s = $s as usize;
                debug_assert!(
                    base + s < p.regs.len() && w == p.regs.as_mut_ptr().wrapping_add(base)
                );
                // SAFETY: see the invariant on `w` above.
                unsafe { &mut *w.add(s) }
            })
        };
    }
    macro_rules! refresh {
        () => {
            w = p.regs.as_mut_ptr().wrapping_add(base)
        };
    }
    macro_rules! save {
        () => {{
            p.fun = fun;
            p.pc = pc as u32;
            p.base = base as u32;
        }};
    }
    // Enter function `f` with its window at `nb`, counting a reduction.
    macro_rules! enter {
        ($f:expr, $nb:expr) => {{
            let f = $f;
            let callee = &prog.funs[f as usize];
            let need = $nb + callee.nslots as usize;
            if p.regs.len() < need {
                p.regs.resize(need, Term::Nil);
            }
            fun = f;
            base = $nb;
            pc = 0;
            code = &callee.code;
            refresh!();
            reds -= 1;
            if reds == 0 {
                save!();
                return SliceEnd::Yield;
            }
        }};
    }
    // Unwind to the innermost handler and go on there, or end the process.
    macro_rules! throw {
        ($e:expr) => {
            match raise::throw(p, prog, $e) {
                Ok((f, npc, nb)) => {
                    fun = f;
                    pc = npc;
                    base = nb;
                    code = &prog.funs[fun as usize].code;
                    refresh!();
                }
                Err(end) => return end,
            }
        };
    }
    // Call code `f` with its `n` arguments at `base+args` (see
    // `callee_base`; `ret` is a constant at each use, so its match folds away).
    macro_rules! call_code {
        ($f:expr, $args:expr, $n:expr, $ret:expr) => {{
            let nb = callee_base(p, $ret, fun, pc, base, $args as usize, $n);
            enter!($f, nb);
            continue;
        }};
    }
    // Call a built-in with the `arity` arguments at `base+args`.
    macro_rules! call_bif {
        ($id:expr, $args:expr, $arity:expr, $ret:expr, $fail:expr) => {
            call_bif(
                p,
                rt,
                wk,
                prog,
                fun,
                pc,
                base,
                $id,
                base + $args as usize,
                $arity as usize,
                $ret,
                $fail,
            )
        };
    }
    // Call what a fun value or a run-time module and name resolved to.
    macro_rules! call_callee {
        ($callee:expr, $args:expr, $arity:expr, $n:expr, $ret:expr) => {
            match $callee {
                Ok(Callee::Code(f)) => call_code!(f, $args, $n, $ret),
                Ok(Callee::Bif(id)) => call_bif!(id, $args, $arity, $ret, RAISE),
                Ok(Callee::Unsupported(msg)) => stop_unsupported(rt, msg),
                Err(e) => Next::Raise(e),
            }
        };
    }
    // Call an external function, body or tail (`Ret` says which).
    macro_rules! call_ext {
        ($ext:expr, $args:expr, $arity:expr, $ret:expr) => {
            match &prog.exts[$ext as usize] {
                ExtTarget::Fun(f) => call_code!(*f, $args, $arity as usize, $ret),
                ExtTarget::Bif(id) => call_bif!(*id, $args, $arity, $ret, RAISE),
                ExtTarget::Undef {
                    module,
                    function,
                    arity: a,
                } => {
                    let s = base + $args as usize;
                    let argv = p.regs[s..s + *a as usize].to_vec();
                    Next::Raise(raise::undef(p, prog, fun, pc, *module, *function, argv))
                }
            }
        };
    }
    // Call the fun value in slot `fs`, body or tail.
    macro_rules! call_fun {
        ($fs:expr, $args:expr, $arity:expr, $ret:expr) => {{
            // Borrow the fun by moving it out and back: no reference count.
            let fv = take(&mut r!($fs));
            let callee =
                prepare_fun_call(p, prog, fun, pc, base, &fv, $args as usize, $arity as usize);
            // A tail call moves the captured values down with the arguments.
            let n = match $ret {
                Ret::Tail => $arity as usize + closure_extra(&fv, prog),
                Ret::Slot(_) => 0,
            };
            p.regs[base + $fs as usize] = fv;
            call_callee!(callee, $args, $arity, n, $ret)
        }};
    }
    // Call `module:function(...)` named by slots at run time, body or tail.
    macro_rules! call_dyn {
        ($module:expr, $function:expr, $args:expr, $arity:expr, $ret:expr) => {{
            let (m, f) = (r!($module).clone(), r!($function).clone());
            let callee = resolve_dyn(
                p,
                prog,
                fun,
                pc,
                base,
                &m,
                &f,
                $args as usize,
                $arity as usize,
            );
            call_callee!(callee, $args, $arity, $arity as usize, $ret)
        }};
    }
    // A test instruction: go on when `ok`, else jump to `fail`.
    macro_rules! test {
        ($ok:expr, $fail:expr) => {{
            if !$ok {
                pc = *$fail as usize;
            }
            continue;
        }};
    }
    macro_rules! fail_or {
        ($fail:expr, $fault:expr) => {{
            if *$fail != RAISE {
                pc = *$fail as usize;
                continue;
            }
            $fault
        }};
    }

    loop {
        let ins = &code[pc];
        pc += 1;
        let next = match ins {
            Instr::Move { dst, src } => {
                let v = dup(&r!(*src));
                r!(*dst).set(v);
                continue;
            }
            Instr::Take { dst, src } => {
                let v = take(&mut r!(*src));
                r!(*dst).set(v);
                continue;
            }
            Instr::Lit { dst, lit } => {
                r!(*dst).set(prog.literals[*lit as usize].clone());
                continue;
            }
            Instr::Int { dst, val } => {
                r!(*dst).set(Term::Int(*val as i64));
                continue;
            }
            Instr::Atom { dst, atom } => {
                r!(*dst).set(Term::Atom(*atom));
                continue;
            }
            Instr::Nil { dst } => {
                r!(*dst).set(Term::Nil);
                continue;
            }
            Instr::Cons {
                dst,
                head,
                tail,
                take: t,
            } => {
                let h = if t & TAKE_HEAD != 0 {
                    take(&mut r!(*head))
                } else {
                    r!(*head).clone()
                };
                let tl = if t & TAKE_TAIL != 0 {
                    take(&mut r!(*tail))
                } else {
                    r!(*tail).clone()
                };
                r!(*dst).set(Term::cons(h, tl));
                continue;
            }
            // The operands of Tuple, MapNew and MakeFun are temporaries the
            // compiler filled for this instruction alone: take them rather
            // than clone them (a clone and a drop of each saved).
            Instr::Tuple { dst, start, arity } => {
                let s = base + *start as usize;
                let v = Term::Tuple(trace_term::Tuple::from_iter(
                    p.regs[s..s + *arity as usize].iter_mut().map(take),
                ));
                r!(*dst).set(v);
                continue;
            }
            Instr::MapNew { dst, start, n } => {
                let s = base + *start as usize;
                let mut m = MapRepr::new();
                for i in 0..*n as usize {
                    let k = take(&mut p.regs[s + 2 * i]);
                    m.insert(k, take(&mut p.regs[s + 2 * i + 1]));
                }
                r!(*dst).set(Term::Map(Arc::new(m)));
                continue;
            }
            Instr::MapPut {
                dst,
                map,
                key,
                val,
                exact,
                fail,
                take: take_map,
            } => {
                // A dead map slot gives its reference away, so that an
                // unshared map is updated in place below.
                let m = if *take_map {
                    take(&mut r!(*map))
                } else {
                    r!(*map).clone()
                };
                let k = r!(*key).clone();
                let bad = match &m {
                    Term::Map(mm) if *exact && !mm.contains_key(&k) => {
                        Some(error_tagged(atom::BADKEY, k.clone()))
                    }
                    Term::Map(_) => None,
                    other => Some(error_tagged(atom::BADMAP, other.clone())),
                };
                if let Some(f) = bad {
                    if *take_map {
                        r!(*map).set(m);
                    }
                    if *fail != RAISE {
                        pc = *fail as usize;
                        continue;
                    }
                    Next::Raise(raise::error(p, prog, fun, pc, f))
                } else {
                    let Term::Map(mut m) = m else { unreachable!() };
                    let v = r!(*val).clone();
                    // Drop the slot's reference first so an unshared map updates in place.
                    if *dst == *map {
                        r!(*dst).set(Term::Nil);
                    }
                    Arc::make_mut(&mut m).insert(k, v);
                    r!(*dst).set(Term::Map(m));
                    continue;
                }
            }
            Instr::MakeFun {
                dst,
                fun: tmpl,
                start,
                nfree,
            } => {
                let info = &prog.closures[*tmpl as usize];
                let s = base + *start as usize;
                let env: Box<[Term]> = p.regs[s..s + *nfree as usize]
                    .iter_mut()
                    .map(take)
                    .collect();
                r!(*dst).set(Term::Fun(Arc::new(Fun::Closure {
                    module: info.module,
                    index: info.index,
                    uniq: info.uniq,
                    arity: info.arity,
                    code: *tmpl,
                    env,
                })));
                continue;
            }
            Instr::AddImm { dst, a, imm, fail } => {
                if let Term::Int(x) = r!(*a) {
                    if let Some(v) = x.checked_add(*imm as i64) {
                        r!(*dst).set(Term::Int(v));
                        continue;
                    }
                }
                match arith::add(&r!(*a), &Term::Int(*imm as i64)) {
                    Ok(v) => {
                        r!(*dst).set(v);
                        continue;
                    }
                    Err(f) => {
                        let f = match f {
                            // BEAM reports badarith with the original operands.
                            Fault::Error(_) if *imm >= 0 => f,
                            other => other,
                        };
                        fail_or!(fail, Next::Raise(raise::op_error(p, prog, fun, pc, f)))
                    }
                }
            }
            Instr::Op2 {
                op,
                dst,
                a,
                b,
                fail,
            } => {
                if let (Term::Int(x), Term::Int(y)) = (&r!(*a), &r!(*b)) {
                    let fast = match op {
                        Op2::Add => x.checked_add(*y),
                        Op2::Sub => x.checked_sub(*y),
                        Op2::Mul => x.checked_mul(*y),
                        _ => None,
                    };
                    if let Some(v) = fast {
                        r!(*dst).set(Term::Int(v));
                        continue;
                    }
                }
                if let Some(v) = arith::fast_float(*op, &r!(*a), &r!(*b)) {
                    r!(*dst).set(Term::Float(v));
                    continue;
                }
                let (x, y) = (&r!(*a), &r!(*b));
                let res = match op {
                    Op2::Add => arith::add(x, y),
                    Op2::Sub => arith::sub(x, y),
                    Op2::Mul => arith::mul(x, y),
                    Op2::FDiv => arith::fdiv(x, y),
                    Op2::IDiv => arith::idiv(x, y),
                    Op2::Rem => arith::rem(x, y),
                    Op2::Band => arith::band(x, y),
                    Op2::Bor => arith::bor(x, y),
                    Op2::Bxor => arith::bxor(x, y),
                    Op2::Bsl => arith::bsl(x, y),
                    Op2::Bsr => arith::bsr(x, y),
                    Op2::Eq => Ok(Term::bool(compare(x, y).is_eq())),
                    Op2::Neq => Ok(Term::bool(!compare(x, y).is_eq())),
                    Op2::ExactEq => Ok(Term::bool(exact_eq(x, y))),
                    Op2::ExactNeq => Ok(Term::bool(!exact_eq(x, y))),
                    Op2::Lt => Ok(Term::bool(compare(x, y).is_lt())),
                    Op2::Le => Ok(Term::bool(compare(x, y).is_le())),
                    Op2::Gt => Ok(Term::bool(compare(x, y).is_gt())),
                    Op2::Ge => Ok(Term::bool(compare(x, y).is_ge())),
                    Op2::And => arith::and(x, y),
                    Op2::Or => arith::or(x, y),
                    Op2::Xor => arith::xor(x, y),
                    Op2::Append => arith::append(x, y),
                    Op2::Subtract => arith::subtract(x, y),
                };
                match res {
                    Ok(v) => {
                        r!(*dst).set(v);
                        continue;
                    }
                    Err(f) => {
                        let (x, y) = (r!(*a).clone(), r!(*b).clone());
                        fail_or!(
                            fail,
                            Next::Raise(raise::op2_error(p, prog, fun, pc, *op, x, y, f))
                        )
                    }
                }
            }
            Instr::Op1 { op, dst, a, fail } => {
                let x = &r!(*a);
                let res = match op {
                    Op1::Neg => arith::neg(x),
                    Op1::Plus => arith::plus(x),
                    Op1::Bnot => arith::bnot(x),
                    Op1::Not => arith::not(x),
                };
                match res {
                    Ok(v) => {
                        r!(*dst).set(v);
                        continue;
                    }
                    Err(f) => fail_or!(fail, Next::Raise(raise::op_error(p, prog, fun, pc, f))),
                }
            }
            Instr::Compare { cmp, a, b, fail } => {
                let (x, y) = (&r!(*a), &r!(*b));
                let ok = match cmp {
                    Cmp::ExactEq => match (x, y) {
                        (Term::Int(i), Term::Int(j)) => i == j,
                        (Term::Atom(i), Term::Atom(j)) => i == j,
                        _ => exact_eq(x, y),
                    },
                    Cmp::ExactNeq => !exact_eq(x, y),
                    Cmp::Eq => compare(x, y).is_eq(),
                    Cmp::Neq => !compare(x, y).is_eq(),
                    Cmp::Lt => in_order(x, y, Ordering::is_lt),
                    Cmp::Le => in_order(x, y, Ordering::is_le),
                    Cmp::Gt => in_order(x, y, Ordering::is_gt),
                    Cmp::Ge => in_order(x, y, Ordering::is_ge),
                };
                test!(ok, fail)
            }
            Instr::TestType { test, a, fail } => test!(type_test(*test, &r!(*a)), fail),
            Instr::TestAtom { a, atom, fail } => {
                test!(matches!(r!(*a), Term::Atom(x) if x == *atom), fail)
            }
            Instr::TestInt { a, val, fail } => {
                test!(matches!(r!(*a), Term::Int(x) if x == *val), fail)
            }
            Instr::TestLit { a, lit, fail } => {
                test!(exact_eq(&r!(*a), &prog.literals[*lit as usize]), fail)
            }
            Instr::TestTuple { a, arity, fail } => test!(
                matches!(&r!(*a), Term::Tuple(t) if t.arity() == *arity as usize),
                fail
            ),
            Instr::TestRecord {
                a,
                tag,
                arity,
                fail,
            } => {
                let ok = match &r!(*a) {
                    Term::Tuple(t) => {
                        t.arity() == *arity as usize
                            && matches!(t.elements().first(), Some(Term::Atom(x)) if x == tag)
                    }
                    _ => false,
                };
                test!(ok, fail)
            }
            Instr::TestCons { a, fail } => test!(matches!(r!(*a), Term::Cons(_)), fail),
            Instr::TestNil { a, fail } => test!(matches!(r!(*a), Term::Nil), fail),
            Instr::TestMap { a, fail } => test!(matches!(r!(*a), Term::Map(_)), fail),
            Instr::TestFunArity { a, arity, fail } => {
                let ok = match (&r!(*a), &r!(*arity)) {
                    (Term::Fun(f), Term::Int(n)) => f.arity() as i64 == *n,
                    _ => false,
                };
                test!(ok, fail)
            }
            Instr::Jump { to } => {
                pc = *to as usize;
                continue;
            }
            Instr::Switch { a, table } => {
                let sw = &prog.switches[*table as usize];
                let key = match (sw.kind, &r!(*a)) {
                    (SwitchKind::Atom, Term::Atom(x)) => Some(x.index() as i64),
                    (SwitchKind::Int, Term::Int(i)) => Some(*i),
                    (SwitchKind::TupleArity, Term::Tuple(t)) => Some(t.arity() as i64),
                    _ => None,
                };
                pc = key
                    .and_then(|k| sw.cases.binary_search_by_key(&k, |c| c.0).ok())
                    .map(|i| sw.cases[i].1)
                    .unwrap_or(sw.default) as usize;
                continue;
            }
            Instr::GetElem { dst, src, idx } => {
                let v = match &r!(*src) {
                    Term::Tuple(t) => dup(&t.elements()[*idx as usize]),
                    _ => unreachable!("GetElem on a non-tuple"),
                };
                r!(*dst).set(v);
                continue;
            }
            Instr::GetHd { dst, src } => {
                let v = match &r!(*src) {
                    Term::Cons(c) => dup(&c.head),
                    _ => unreachable!("GetHd on a non-cons"),
                };
                r!(*dst).set(v);
                continue;
            }
            Instr::GetTl { dst, src } => {
                let v = match &r!(*src) {
                    Term::Cons(c) => dup(&c.tail),
                    _ => unreachable!("GetTl on a non-cons"),
                };
                r!(*dst).set(v);
                continue;
            }
            Instr::SplitCons { src, hd, tl, fail } => {
                let (h, t) = match &r!(*src) {
                    Term::Cons(c) => (dup(&c.head), dup(&c.tail)),
                    _ => {
                        pc = *fail as usize;
                        continue;
                    }
                };
                r!(*hd).set(h);
                r!(*tl).set(t);
                continue;
            }
            Instr::GetMapValue {
                dst,
                map,
                key,
                fail,
            } => {
                let v = match &r!(*map) {
                    Term::Map(m) => m.get(&r!(*key)).cloned(),
                    _ => None,
                };
                match v {
                    Some(v) => r!(*dst).set(v),
                    None => pc = *fail as usize,
                }
                continue;
            }

            // --- calls
            Instr::Call {
                fun: f, args, dst, ..
            } => call_code!(*f, *args, 0, Ret::Slot(*dst)),
            Instr::TailCall {
                fun: f,
                args,
                arity,
            } => call_code!(*f, *args, *arity as usize, Ret::Tail),
            Instr::CallExt {
                ext,
                args,
                arity,
                dst,
            } => call_ext!(*ext, *args, *arity, Ret::Slot(*dst)),
            Instr::TailCallExt { ext, args, arity } => call_ext!(*ext, *args, *arity, Ret::Tail),
            Instr::CallBif {
                bif,
                args,
                arity,
                dst,
                fail,
            } => call_bif!(*bif, *args, *arity, Ret::Slot(*dst), *fail),
            Instr::CallFun {
                fun: fs,
                args,
                arity,
                dst,
            } => call_fun!(*fs, *args, *arity, Ret::Slot(*dst)),
            Instr::TailCallFun {
                fun: fs,
                args,
                arity,
            } => call_fun!(*fs, *args, *arity, Ret::Tail),
            Instr::CallDyn {
                module,
                function,
                args,
                arity,
                dst,
            } => call_dyn!(*module, *function, *args, *arity, Ret::Slot(*dst)),
            Instr::TailCallDyn {
                module,
                function,
                args,
                arity,
            } => call_dyn!(*module, *function, *args, *arity, Ret::Tail),
            Instr::Return { src } => {
                let v = std::mem::replace(&mut r!(*src), Term::Nil);
                match do_return(p, prog, &mut fun, &mut pc, &mut base, v) {
                    Some(end) => return end,
                    None => {
                        code = &prog.funs[fun as usize].code;
                        refresh!();
                        continue;
                    }
                }
            }

            // --- exceptions
            Instr::Try { handler, reg } => {
                push_handler(p, fun, *handler, base, *reg, false);
                continue;
            }
            Instr::Catch { handler, dst } => {
                push_handler(p, fun, *handler, base, *dst, true);
                continue;
            }
            Instr::TryEnd | Instr::CatchEnd => {
                p.handlers.pop();
                continue;
            }
            Instr::Raise { reg } => {
                let class = match &r!(*reg) {
                    Term::Atom(a) => Class::from_atom(*a).unwrap_or(Class::Error),
                    _ => Class::Error,
                };
                Next::Raise(Exception {
                    class,
                    reason: r!(*reg + 1).clone(),
                    trace: Trace::Term(r!(*reg + 2).clone()),
                })
            }
            Instr::Error { kind, val } => {
                let v = r!(*val).clone();
                let reason = match kind {
                    ErrKind::Badmatch => Term::tuple(vec![Term::Atom(atom::BADMATCH), v]),
                    ErrKind::CaseClause => Term::tuple(vec![Term::Atom(atom::CASE_CLAUSE), v]),
                    ErrKind::TryClause => Term::tuple(vec![Term::Atom(atom::TRY_CLAUSE), v]),
                    ErrKind::IfClause => Term::Atom(atom::IF_CLAUSE),
                    ErrKind::FunctionClause => Term::Atom(atom::FUNCTION_CLAUSE),
                    ErrKind::Badrecord => Term::tuple(vec![Term::Atom(atom::BADRECORD), v]),
                    ErrKind::BadGenerator => Term::tuple(vec![Term::atom("bad_generator"), v]),
                    ErrKind::BadFilter => Term::tuple(vec![Term::atom("bad_filter"), v]),
                    ErrKind::Badmap => Term::tuple(vec![Term::Atom(atom::BADMAP), v]),
                    ErrKind::BadBool => Term::tuple(vec![Term::Atom(atom::BADARG), v]),
                };
                let args = if *kind == ErrKind::FunctionClause {
                    let n = prog.funs[fun as usize].arity as usize;
                    Some(p.regs[base..base + n].to_vec())
                } else {
                    None
                };
                Next::Raise(raise::compiled_error(p, fun, pc, reason, args))
            }

            // --- receive
            Instr::RecvStart { after } => match receive::start(p, rt, wk, *after) {
                receive::Step::Continue => continue,
                receive::Step::Jump(to) => {
                    pc = to as usize;
                    continue;
                }
                receive::Step::End(e) => {
                    pc -= 1;
                    save!();
                    return e;
                }
            },
            Instr::RecvRef { src } => {
                let v = match &r!(*src) {
                    Term::Ref(x) => Some(*x),
                    _ => None,
                };
                receive::use_mark(p, v);
                continue;
            }
            Instr::RecvPeek { dst, wait, .. } => {
                // The first message a receive sees (or the one that woke
                // it) goes to the clauses unfiltered: it usually matches,
                // and the filter pays only once the scan passes messages
                // over (in RecvNext).
                if receive::lend_current(p, base, *dst, None)
                    || receive::peek(p, rt, wk, base, *dst)
                {
                    continue;
                }
                if let Some(reason) = p.kill.take() {
                    return SliceEnd::Exit(ExitInfo::plain(reason));
                }
                pc = *wait as usize;
                continue;
            }
            Instr::RecvNext { lp } => {
                pc = *lp as usize;
                if receive::skip_current(p) {
                    // Do the RecvPeek at `lp` here when the next message is
                    // in the mailbox: one dispatch less per scanned message.
                    if let Instr::RecvPeek { dst, filter, .. } = &code[pc] {
                        if receive::lend_current(p, base, *dst, filter.as_deref()) {
                            pc += 1;
                        }
                    }
                } else if let Err(e) = receive::next(p, rt) {
                    return e;
                }
                continue;
            }
            Instr::RecvAccept => {
                if let Err(end) = receive::accept(p, rt) {
                    return end;
                }
                continue;
            }
            Instr::RecvWait { lp } => match receive::wait(p, rt, wk, None) {
                receive::Step::Continue | receive::Step::Jump(_) => {
                    pc = *lp as usize;
                    continue;
                }
                receive::Step::End(e) => {
                    pc = *lp as usize;
                    save!();
                    return e;
                }
            },
            Instr::RecvWaitTimeout { timeout, lp, after } => {
                let t = r!(*timeout).clone();
                let ms = match &t {
                    Term::Atom(atom::INFINITY) => None,
                    // As BEAM: a timeout is at most 2^32 - 1 ms.
                    Term::Int(i) if (0..=u32::MAX as i64).contains(i) => Some(*i as u64),
                    _ => {
                        let e = raise::compiled_error(
                            p,
                            fun,
                            pc,
                            Term::Atom(atom::TIMEOUT_VALUE),
                            None,
                        );
                        throw!(e);
                        continue;
                    }
                };
                match receive::wait(p, rt, wk, ms) {
                    receive::Step::Continue => {
                        pc = *lp as usize;
                        continue;
                    }
                    receive::Step::Jump(_) => {
                        pc = *after as usize;
                        continue;
                    }
                    receive::Step::End(e) => {
                        pc = *lp as usize;
                        save!();
                        return e;
                    }
                }
            }

            // --- binaries
            Instr::BsInit => {
                p.bs = Some(trace_term::BitWriter::new());
                continue;
            }
            Instr::BsPut {
                val,
                ty,
                size,
                unit,
                flags,
            } => {
                let v = r!(*val).clone();
                let sz = bits::size_value(&p.regs, base, *size);
                let w = p.bs.as_mut().expect("BsPut outside a binary");
                match bits::put(w, &v, *ty, sz, *unit, *flags) {
                    Ok(()) => continue,
                    Err(f) => {
                        p.bs = None;
                        Next::Raise(raise::error(p, prog, fun, pc, f))
                    }
                }
            }
            Instr::BsFinish { dst } => {
                let w = p.bs.take().expect("BsFinish outside a binary");
                r!(*dst).set(Term::Binary(Arc::new(w.finish())));
                continue;
            }
            Instr::BsStart { src, pos, fail } => {
                if matches!(r!(*src), Term::Binary(_)) {
                    r!(*pos).set(Term::Int(0));
                } else {
                    pc = *fail as usize;
                }
                continue;
            }
            Instr::BsGet {
                src,
                pos,
                dst,
                ty,
                size,
                unit,
                flags,
                fail,
                take: take_src,
            } => {
                let sz = bits::size_value(&p.regs, base, *size);
                let at = r!(*pos).as_int().unwrap_or(0) as usize;
                // The rest of a dead binary nobody else holds: narrow the
                // term in place rather than allocate a new one.
                if *take_src && (*unit == 1 || *unit == 8) {
                    let mut t = take(&mut r!(*src));
                    let end = match &mut t {
                        Term::Binary(b)
                            if at <= b.bit_len()
                                && (*unit == 1 || (b.bit_len() - at).is_multiple_of(8)) =>
                        {
                            let end = b.bit_len();
                            Arc::get_mut(b).and_then(|bs| bs.advance(at).then_some(end))
                        }
                        _ => None,
                    };
                    if let Some(end) = end {
                        r!(*dst).set(t);
                        r!(*pos).set(Term::Int(end as i64));
                        continue;
                    }
                    r!(*src).set(t);
                }
                let got = match &r!(*src) {
                    Term::Binary(b) => bits::get(b, at, *ty, sz, *unit, *flags),
                    _ => None,
                };
                match got {
                    Some((v, new_pos)) => {
                        r!(*dst).set(v);
                        r!(*pos).set(Term::Int(new_pos as i64));
                    }
                    None => pc = *fail as usize,
                }
                continue;
            }
            Instr::BsSkip {
                src,
                pos,
                size,
                unit,
                fail,
            } => {
                let sz = bits::size_value(&p.regs, base, *size);
                let at = r!(*pos).as_int().unwrap_or(0) as usize;
                let total = match &r!(*src) {
                    Term::Binary(b) => b.bit_len(),
                    _ => 0,
                };
                match bits::skip(at, total, sz, *unit) {
                    Some(np) => r!(*pos).set(Term::Int(np as i64)),
                    None => pc = *fail as usize,
                }
                continue;
            }
            Instr::BsEnd { src, pos, fail } => {
                let at = r!(*pos).as_int().unwrap_or(-1);
                let ok = matches!(&r!(*src), Term::Binary(b) if b.bit_len() as i64 == at);
                test!(ok, fail)
            }
        };
        match next {
            Next::Continue => {
                // A built-in may have moved us into another function (apply).
                fun = p.fun;
                pc = p.pc as usize;
                base = p.base as usize;
                code = &prog.funs[fun as usize].code;
                refresh!();
                if let Some(reason) = p.kill.take() {
                    return SliceEnd::Exit(ExitInfo::plain(reason));
                }
            }
            Next::End(e) => return e,
            Next::Raise(e) => throw!(e),
        }
        // Slow paths come back here; count a reduction so long BIF loops yield.
        if reds <= 1 {
            save!();
            return SliceEnd::Yield;
        }
        reds -= 1;
    }
}

/// Enters a `try` (`is_catch` false: class, reason and trace go to `reg`
/// and the two slots after it) or a `catch` (its value goes to `reg`), whose
/// handler starts at `handler` in the current function.
#[inline(always)]
fn push_handler(p: &mut Process, fun: FunId, handler: u32, base: usize, reg: u16, is_catch: bool) {
    p.handlers.push(crate::process::Handler {
        depth: p.frames.len() as u32,
        fun,
        pc: handler,
        base: base as u32,
        reg,
        is_catch,
    });
}

/// Moves a value out of a slot, leaving `[]`.
#[inline(always)]
fn take(t: &mut Term) -> Term {
    std::mem::replace(t, Term::Nil)
}

/// Drops the values left above the current frame's window (returned
/// callees' slots), so a suspended process keeps nothing dead alive.
pub fn trim_stack(p: &mut Process, prog: &Program) {
    let end = p.base as usize + prog.funs[p.fun as usize].nslots as usize;
    if p.regs.len() > end {
        p.regs.truncate(end);
    }
}

/// Where a called function's window starts, its `n` arguments being at
/// `base+args`: a body call pushes a frame that returns into `Ret::Slot`'s
/// slot and the window starts at the arguments; a tail call moves them down
/// to `base` and reuses the frame.
#[inline(always)]
fn callee_base(
    p: &mut Process,
    ret: Ret,
    fun: FunId,
    pc: usize,
    base: usize,
    args: usize,
    n: usize,
) -> usize {
    match ret {
        Ret::Slot(dst) => {
            p.frames.push(Frame {
                fun,
                pc: pc as u32,
                base: base as u32,
                ret: dst,
            });
            base + args
        }
        Ret::Tail => {
            tail_args(p, base, args, n);
            base
        }
    }
}

/// Moves tail-call arguments from `base+args..` down to `base..`.
fn tail_args(p: &mut Process, base: usize, args: usize, n: usize) {
    for i in 0..n {
        let v = std::mem::replace(&mut p.regs[base + args + i], Term::Nil);
        p.regs[base + i].set(v);
    }
}

/// Returns from the current function; `Some` when the process's initial call returned.
///
/// The callee's slots are not cleared here (that would cost more than the
/// call itself); stale values above the live frames are dropped when the
/// process ends its slice (see [`trim_stack`]) or unwinds to a handler.
#[inline(always)]
fn do_return(
    p: &mut Process,
    prog: &Program,
    fun: &mut FunId,
    pc: &mut usize,
    base: &mut usize,
    v: Term,
) -> Option<SliceEnd> {
    match p.frames.pop() {
        Some(fr) => {
            *fun = fr.fun;
            *pc = fr.pc as usize;
            *base = fr.base as usize;
            // A callee's window starts inside its caller's, so trimming the
            // stack to the callee's window (at a slice end) may have cut the
            // caller's top slots: give them back.
            let need = *base + prog.funs[*fun as usize].nslots as usize;
            if p.regs.len() < need {
                p.regs.resize(need, Term::Nil);
            }
            p.regs[*base + fr.ret as usize].set(v);
            None
        }
        None => Some(SliceEnd::Exit(ExitInfo {
            reason: Term::Atom(atom::NORMAL),
            crash: None,
            result: Some(v),
        })),
    }
}

/// Whether `x` and `y` stand in an order `holds` accepts, with the number
/// cases decided inline: the loop's comparisons are mostly of those.
/// (`holds` is generic, not a function pointer, so each use is compiled
/// with its own test: no indirect call.)
#[inline(always)]
fn in_order(x: &Term, y: &Term, holds: impl Fn(Ordering) -> bool) -> bool {
    match (x, y) {
        (Term::Int(i), Term::Int(j)) => holds(i.cmp(j)),
        // No NaN in Erlang; were there one, no order holds, as with `<`.
        (Term::Float(i), Term::Float(j)) => i.partial_cmp(j).is_some_and(&holds),
        _ => holds(compare(x, y)),
    }
}

fn type_test(t: TypeTest, v: &Term) -> bool {
    match t {
        TypeTest::Integer => v.is_integer(),
        TypeTest::Float => matches!(v, Term::Float(_)),
        TypeTest::Number => v.is_number(),
        TypeTest::Atom => matches!(v, Term::Atom(_)),
        TypeTest::Boolean => matches!(v, Term::Atom(atom::TRUE | atom::FALSE)),
        TypeTest::Tuple => matches!(v, Term::Tuple(_)),
        TypeTest::List => v.is_list(),
        TypeTest::Map => matches!(v, Term::Map(_)),
        TypeTest::Binary => matches!(v, Term::Binary(b) if b.is_binary()),
        TypeTest::Bitstring => matches!(v, Term::Binary(_)),
        TypeTest::Function => matches!(v, Term::Fun(_)),
        TypeTest::Pid => matches!(v, Term::Pid(_)),
        TypeTest::Reference => matches!(v, Term::Ref(_)),
        TypeTest::Port => false,
        TypeTest::Record => {
            matches!(v, Term::Tuple(t) if matches!(t.elements().first(), Some(Term::Atom(_))))
        }
    }
}

enum Callee {
    Code(FunId),
    Bif(crate::bif::BifId),
    /// An OTP function the engine does not implement (the message names it).
    Unsupported(String),
}

/// Stops the run at a call the engine cannot honour (see [`Runtime::unsupported`]).
fn stop_unsupported(rt: &Runtime, msg: String) -> Next {
    rt.unsupported(msg);
    Next::End(SliceEnd::Yield)
}

/// Extra slots a closure call fills after the arguments (captured values, itself).
fn closure_extra(fv: &Term, prog: &Program) -> usize {
    match fv {
        Term::Fun(f) => match &**f {
            Fun::Closure { code, env, .. } if *code != trace_term::fun::NO_CODE => {
                env.len() + prog.closures[*code as usize].named as usize
            }
            _ => 0,
        },
        _ => 0,
    }
}

/// Prepares a call of fun value `fv` with `arity` arguments at `base+args`:
/// places captured values after the arguments, resolves the target.
#[allow(clippy::too_many_arguments)]
fn prepare_fun_call(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    fv: &Term,
    args: usize,
    arity: usize,
) -> Result<Callee, Exception> {
    let badfun = |p: &mut Process| {
        raise::compiled_error(
            p,
            fun,
            pc,
            Term::tuple(vec![Term::Atom(atom::BADFUN), fv.clone()]),
            None,
        )
    };
    let Term::Fun(f) = fv else {
        return Err(badfun(p));
    };
    let s = base + args;
    if f.arity() as usize != arity {
        let argv = Term::list(p.regs[s..s + arity].to_vec());
        return Err(raise::compiled_error(
            p,
            fun,
            pc,
            Term::tuple(vec![
                Term::Atom(atom::BADARITY),
                Term::tuple(vec![fv.clone(), argv]),
            ]),
            None,
        ));
    }
    match &**f {
        Fun::Closure { code, env, .. } => {
            if *code == trace_term::fun::NO_CODE {
                return Err(badfun(p));
            }
            let info = &prog.closures[*code as usize];
            let target = info.code;
            let need = s + prog.funs[target as usize].nslots as usize + env.len() + 1;
            if p.regs.len() < need {
                p.regs.resize(need, Term::Nil);
            }
            for (i, v) in env.iter().enumerate() {
                p.regs[s + arity + i] = v.clone();
            }
            if info.named {
                p.regs[s + arity + env.len()] = fv.clone();
            }
            Ok(Callee::Code(target))
        }
        Fun::External {
            module, function, ..
        } => resolve_mfa(p, prog, fun, pc, base, *module, *function, args, arity),
    }
}

#[allow(clippy::too_many_arguments)]
fn resolve_mfa(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    m: Atom,
    f: Atom,
    args: usize,
    arity: usize,
) -> Result<Callee, Exception> {
    if let Some(id) = prog.exported(m, f, arity as u32) {
        return Ok(Callee::Code(id));
    }
    if let Some(id) = bif::registry().lookup_atoms(m, f, arity) {
        return Ok(Callee::Bif(id));
    }
    let user_module = prog.modules.get(&m).is_some_and(|i| !i.prelude);
    if !user_module && crate::otp::has_function(m.name(), f.name(), arity as u32) {
        let code = &prog.funs[fun as usize];
        return Ok(Callee::Unsupported(format!(
            "{}:{}: unsupported: {}:{}/{} is not implemented by trace (called at run time)",
            prog.files[code.file as usize].display(),
            code.line_at(pc.saturating_sub(1)),
            m.name(),
            f.name(),
            arity
        )));
    }
    let s = base + args;
    let argv = p.regs[s..s + arity].to_vec();
    Err(raise::undef(p, prog, fun, pc, m, f, argv))
}

#[allow(clippy::too_many_arguments)]
fn resolve_dyn(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    m: &Term,
    f: &Term,
    args: usize,
    arity: usize,
) -> Result<Callee, Exception> {
    match (m, f) {
        (Term::Atom(m), Term::Atom(f)) => resolve_mfa(p, prog, fun, pc, base, *m, *f, args, arity),
        _ => {
            let fault = badarg();
            Err(raise::error(p, prog, fun, pc, fault))
        }
    }
}

/// Where a built-in's result goes.
#[derive(Copy, Clone)]
enum Ret {
    /// Into this slot of the current window.
    Slot(u16),
    /// The current function returns it (the built-in was in tail position).
    Tail,
}

/// Calls built-in `id` with the `arity` arguments at absolute stack index `s`.
/// Leaves the position to continue from in `p.fun/p.pc/p.base`.
#[allow(clippy::too_many_arguments)]
fn call_bif(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    id: crate::bif::BifId,
    s: usize,
    arity: usize,
    ret: Ret,
    fail: u32,
) -> Next {
    let def = bif::registry().def(id);
    p.fun = fun;
    p.pc = pc as u32;
    p.base = base as u32;
    let res = match def.f {
        BifFn::Pure(f) => f(&p.regs[s..s + arity]),
        BifFn::Proc(f) => {
            // The arguments move out of their slots for the call and back
            // after it: no reference counting per argument.
            let argv = smallvec_args::Args::take(&mut p.regs[s..s + arity]);
            let mut cx = Ctx { proc: p, rt, wk };
            let r = f(&mut cx, argv.as_slice());
            argv.restore(&mut p.regs[s..s + arity]);
            r
        }
    };
    match res {
        Ok(v) => deliver(p, prog, fun, pc, base, v, ret),
        Err(Fault::Error(reason)) => {
            if fail != RAISE {
                p.pc = fail;
                return Next::Continue;
            }
            let argv = p.regs[s..s + arity].to_vec();
            Next::Raise(raise::bif_error(
                p, fun, pc, def.module, def.name, argv, reason,
            ))
        }
        Err(Fault::Raise {
            class,
            reason,
            trace,
        }) => {
            if fail != RAISE {
                p.pc = fail;
                return Next::Continue;
            }
            Next::Raise(raise::explicit(p, fun, pc, class, reason, trace))
        }
        Err(Fault::Apply(target, argv)) => apply(p, rt, wk, prog, fun, pc, base, target, argv, ret),
        Err(Fault::Hibernate(m, f, argv)) => {
            // Nothing is returned to and nothing catches: the continuation
            // runs in place of the whole stack (a tail call from its bottom).
            p.frames.clear();
            p.handlers.clear();
            let wake = Apply::Mfa(
                Atom::intern("trace_prelude"),
                Atom::intern("hibernate_wake"),
            );
            let args = vec![Term::Atom(m), Term::Atom(f), Term::list(argv)];
            apply(p, rt, wk, prog, fun, pc, base, wake, args, Ret::Tail)
        }
        Err(Fault::Retry) => {
            // Run this instruction again later.
            p.pc = pc as u32 - 1;
            Next::End(SliceEnd::Yield)
        }
        Err(Fault::Block) => {
            p.pc = pc as u32 - 1;
            Next::End(SliceEnd::Wait { deadline: None })
        }
        Err(Fault::Unsupported(what)) => {
            let code = &prog.funs[fun as usize];
            stop_unsupported(
                rt,
                format!(
                    "{}:{}: unsupported: {what}",
                    prog.files[code.file as usize].display(),
                    code.line_at(pc.saturating_sub(1)),
                ),
            )
        }
        Err(Fault::Yield(v)) => match deliver(p, prog, fun, pc, base, v, ret) {
            Next::Continue => Next::End(SliceEnd::Yield),
            other => other,
        },
    }
}

/// Puts a built-in's value where `ret` says.
fn deliver(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    v: Term,
    ret: Ret,
) -> Next {
    match ret {
        Ret::Slot(dst) => {
            p.regs[base + dst as usize] = v;
            p.fun = fun;
            p.pc = pc as u32;
            p.base = base as u32;
            Next::Continue
        }
        Ret::Tail => {
            let (mut f, mut npc, mut nb) = (fun, pc, base);
            match do_return(p, prog, &mut f, &mut npc, &mut nb, v) {
                Some(end) => Next::End(end),
                None => {
                    p.fun = f;
                    p.pc = npc as u32;
                    p.base = nb as u32;
                    Next::Continue
                }
            }
        }
    }
}

/// Performs a call a built-in asked for (`apply/2,3` and friends).
#[allow(clippy::too_many_arguments)]
fn apply(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    target: Apply,
    argv: Vec<Term>,
    ret: Ret,
) -> Next {
    // The arguments go in fresh slots above the current window; a tail call
    // then moves them down to the window's start.
    let nslots = prog.funs[fun as usize].nslots as usize;
    let top = base + nslots;
    let arity = argv.len();
    if p.regs.len() < top + arity + 1 {
        p.regs.resize(top + arity + 1, Term::Nil);
    }
    for (i, a) in argv.into_iter().enumerate() {
        p.regs[top + i] = a;
    }
    let callee = match &target {
        Apply::Fun(fv) => prepare_fun_call(p, prog, fun, pc, base, fv, nslots, arity),
        Apply::Mfa(m, f) => resolve_mfa(p, prog, fun, pc, base, *m, *f, nslots, arity),
    };
    match callee {
        Ok(Callee::Code(f)) => {
            let extra = match &target {
                Apply::Fun(fv) => closure_extra(fv, prog),
                Apply::Mfa(..) => 0,
            };
            let nb = callee_base(p, ret, fun, pc, base, nslots, arity + extra);
            let need = nb + prog.funs[f as usize].nslots as usize;
            if p.regs.len() < need {
                p.regs.resize(need, Term::Nil);
            }
            p.fun = f;
            p.pc = 0;
            p.base = nb as u32;
            Next::Continue
        }
        Ok(Callee::Bif(id)) => call_bif(p, rt, wk, prog, fun, pc, base, id, top, arity, ret, RAISE),
        Ok(Callee::Unsupported(msg)) => stop_unsupported(rt, msg),
        Err(e) => Next::Raise(e),
    }
}

/// A small inline vector for built-in arguments (no allocation up to 4).
mod smallvec_args {
    use trace_term::Term;

    pub enum Args {
        Inline([Term; 4], usize),
        Heap(Vec<Term>),
    }

    impl Args {
        /// Moves the terms out of `s` (leaving `[]`).
        pub fn take(s: &mut [Term]) -> Args {
            if s.len() <= 4 {
                let mut a: [Term; 4] = [Term::Nil, Term::Nil, Term::Nil, Term::Nil];
                a[..s.len()].swap_with_slice(s);
                Args::Inline(a, s.len())
            } else {
                Args::Heap(
                    s.iter_mut()
                        .map(|t| std::mem::replace(t, Term::Nil))
                        .collect(),
                )
            }
        }

        /// Moves the terms back into `s`.
        pub fn restore(mut self, s: &mut [Term]) {
            match &mut self {
                Args::Inline(a, n) => s.swap_with_slice(&mut a[..*n]),
                Args::Heap(v) => s.swap_with_slice(v),
            }
        }

        pub fn as_slice(&self) -> &[Term] {
            match self {
                Args::Inline(a, n) => &a[..*n],
                Args::Heap(v) => v,
            }
        }
    }
}
