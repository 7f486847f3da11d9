//! Last uses: a backward liveness analysis over a finished function's
//! instructions, so that a value read for the last time is moved out of its
//! slot instead of copied. Every copy of a shared term costs an atomic
//! increment now and an atomic decrement when the slot is overwritten;
//! a move costs neither, and lets an unshared map be updated in place.
//!
//! Rewritten: `Move` of a dead source becomes `Take`; `Cons` moves a dead
//! head or tail; `MapPut` hands over a dead map; a `Rest/binary` match of a
//! dead binary reuses its term. Functions with a `try` or
//! `catch` are left alone: an exception can reach their handler from any
//! instruction, and the handler may read any variable bound before it.

use crate::ir::{Instr, SegSize, Slot, Switch, RAISE, TAKE_HEAD, TAKE_TAIL};

/// A set of slots.
#[derive(Clone, PartialEq, Eq)]
struct Set(Vec<u64>);

impl Set {
    fn new(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64).max(1)])
    }
    fn has(&self, s: Slot) -> bool {
        self.0[s as usize / 64] >> (s % 64) & 1 == 1
    }
    fn add(&mut self, s: Slot) {
        self.0[s as usize / 64] |= 1 << (s % 64);
    }
    fn remove(&mut self, s: Slot) {
        self.0[s as usize / 64] &= !(1 << (s % 64));
    }
    fn union(&mut self, o: &Set) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
}

/// Words of slot sets the analysis may hold (two sets per instruction),
/// 32 MiB each way: it grows with instructions times slots, and a function
/// built from one huge expression (a tuple of 60,000 variables) would need
/// gigabytes. Such a function keeps its copies: the rewrite only saves time.
const MAX_SET_WORDS: usize = 1 << 22;

/// Applies the last-use rewrites to `code` (labels already resolved).
/// `arity` is the function's (a `function_clause` error reads its arguments).
pub fn rewrite_last_uses(code: &mut [Instr], switches: &[Switch], arity: u16, nslots: u16) {
    if code
        .iter()
        .any(|i| matches!(i, Instr::Try { .. } | Instr::Catch { .. }))
    {
        return;
    }
    let n = nslots as usize;
    if code.len().saturating_mul(Set::new(n).0.len()) > MAX_SET_WORDS {
        return;
    }
    let (live_in, live_out) = analyse(code, switches, arity, n);
    let empty = Set::new(n);
    for (pc, ins) in code.iter_mut().enumerate() {
        let out = &live_out[pc];
        // What the success path needs (a failed match restores what it took).
        let next_in = live_in.get(pc + 1).unwrap_or(&empty);
        match ins {
            Instr::Move { dst, src } if dst != src && !out.has(*src) => {
                *ins = Instr::Take {
                    dst: *dst,
                    src: *src,
                };
            }
            Instr::BsGet {
                src,
                dst,
                ty: crate::ir::SegType::Binary,
                size: SegSize::All,
                take,
                ..
            } if !next_in.has(*src) && src != dst => *take = true,
            // The same slot read twice can be moved at most once. An
            // operand in the slot the cell is written to dies here whatever
            // comes after (`[X | Acc]` into `Acc`, a comprehension's loop).
            Instr::Cons {
                dst,
                head,
                tail,
                take,
            } if head != tail => {
                if !out.has(*head) || head == dst {
                    *take |= TAKE_HEAD;
                }
                if !out.has(*tail) || tail == dst {
                    *take |= TAKE_TAIL;
                }
            }
            Instr::MapPut {
                map,
                key,
                val,
                take,
                ..
            } if !out.has(*map) && map != key && map != val => *take = true,
            _ => {}
        }
    }
}

/// The slots live before and after each instruction.
fn analyse(code: &[Instr], switches: &[Switch], arity: u16, n: usize) -> (Vec<Set>, Vec<Set>) {
    let succs: Vec<Vec<usize>> = (0..code.len())
        .map(|pc| successors(&code[pc], pc, switches))
        .collect();
    let mut live_in = vec![Set::new(n); code.len()];
    let mut live_out = vec![Set::new(n); code.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..code.len()).rev() {
            let mut out = Set::new(n);
            for &s in &succs[pc] {
                if s < code.len() {
                    out.union(&live_in[s]);
                }
            }
            let mut inn = out.clone();
            defs(&code[pc], &mut |s| inn.remove(s));
            uses(&code[pc], arity, &mut |s| inn.add(s));
            if inn != live_in[pc] {
                live_in[pc] = inn;
                changed = true;
            }
            live_out[pc] = out;
        }
    }
    (live_in, live_out)
}

/// Where control can go after `ins` at `pc` (returning calls continue at
/// `pc + 1`; raising paths leave the function, as there is no handler).
fn successors(ins: &Instr, pc: usize, switches: &[Switch]) -> Vec<usize> {
    let mut v = Vec::new();
    if let Instr::Switch { table, .. } = ins {
        let t = &switches[*table as usize];
        v.extend(t.cases.iter().map(|c| c.1 as usize));
        v.push(t.default as usize);
    }
    if ins.falls_through() {
        v.push(pc + 1);
    }
    let (labels, _) = ins.labels();
    v.extend(
        labels
            .into_iter()
            .flatten()
            .filter(|l| **l != RAISE)
            .map(|l| *l as usize),
    );
    v
}

fn range(start: Slot, len: usize, f: &mut impl FnMut(Slot)) {
    for i in 0..len {
        f(start + i as Slot);
    }
}

fn size_use(size: &SegSize, f: &mut impl FnMut(Slot)) {
    if let SegSize::Slot(s) = size {
        f(*s);
    }
}

/// Every slot `ins` reads. Missing one would move a value still needed,
/// so every instruction is listed.
fn uses(ins: &Instr, arity: u16, f: &mut impl FnMut(Slot)) {
    use Instr::*;
    match ins {
        Move { src, .. } | Take { src, .. } => f(*src),
        Lit { .. } | Int { .. } | IntReturn { .. } | Atom { .. } | Nil { .. } => {}
        Cons { head, tail, .. } => {
            f(*head);
            f(*tail);
        }
        Tuple { start, arity, .. } => range(*start, *arity as usize, f),
        MapNew { start, n, .. } => range(*start, 2 * *n as usize, f),
        MapPut { map, key, val, .. } => {
            f(*map);
            f(*key);
            f(*val);
        }
        MakeFun { start, nfree, .. } => range(*start, *nfree as usize, f),
        Op2 { a, b, .. }
        | Add { a, b, .. }
        | AddReturn { a, b, .. }
        | Sub { a, b, .. }
        | Mul { a, b, .. }
        | Compare { a, b, .. } => {
            f(*a);
            f(*b);
        }
        AddImm { a, .. }
        | AddImmCall { a, .. }
        | AddImmTailCall { a, .. }
        | CompareInt { a, .. }
        | LtInt { a, .. }
        | LeInt { a, .. }
        | GtInt { a, .. }
        | GeInt { a, .. }
        | Op1 { a, .. }
        | TestType { a, .. }
        | TestAtom { a, .. }
        | TestInt { a, .. }
        | TestInt2 { a, .. }
        | TestLit { a, .. }
        | TestTuple { a, .. }
        | TestRecord { a, .. }
        | TestCons { a, .. }
        | TestNil { a, .. }
        | TestMap { a, .. }
        | Switch { a, .. } => f(*a),
        TestFunArity { a, arity, .. } => {
            f(*a);
            f(*arity);
        }
        Jump { .. } | FunStart { .. } | EndProcess => {}
        GetElem { src, .. } | GetHd { src, .. } | GetTl { src, .. } | SplitCons { src, .. } => {
            f(*src)
        }
        GetMapValue { map, key, .. } => {
            f(*map);
            f(*key);
        }
        Call { args, arity, .. }
        | TailCall { args, arity, .. }
        | CallExt { args, arity, .. }
        | TailCallExt { args, arity, .. }
        | CallBif { args, arity, .. } => range(*args, *arity as usize, f),
        CallFun {
            fun, args, arity, ..
        }
        | TailCallFun { fun, args, arity } => {
            f(*fun);
            range(*args, *arity as usize, f);
        }
        CallDyn {
            module,
            function,
            args,
            arity,
            ..
        }
        | TailCallDyn {
            module,
            function,
            args,
            arity,
        } => {
            f(*module);
            f(*function);
            range(*args, *arity as usize, f);
        }
        Return { src } => f(*src),
        Try { .. } | TryEnd | Catch { .. } | CatchEnd => {}
        Raise { reg } => range(*reg, 3, f),
        // function_clause reports the arguments.
        Error { val, kind } => {
            f(*val);
            if *kind == crate::ir::ErrKind::FunctionClause {
                range(0, arity as usize, f);
            }
        }
        RecvStart { .. } | RecvNext { .. } | RecvAccept | RecvWait { .. } => {}
        RecvPeek { filter, .. } => {
            if let Some(flt) = filter {
                flt.alts.iter().for_each(|a| bound_slots(a, f));
            }
        }
        RecvWaitTimeout { timeout, .. } => f(*timeout),
        RecvRef { src } => f(*src),
        BsInit => {}
        BsPut { val, size, .. } => {
            f(*val);
            size_use(size, f);
        }
        BsFinish { .. } => {}
        BsStart { src, .. } => f(*src),
        BsGet { src, pos, size, .. } | BsSkip { src, pos, size, .. } => {
            f(*src);
            f(*pos);
            size_use(size, f);
        }
        BsEnd { src, pos, .. } => {
            f(*src);
            f(*pos);
        }
    }
}

/// Slots `ins` certainly overwrites on its way to its next instruction.
/// Leaving one out only keeps a value alive longer, so only the plain
/// single-destination writes are listed.
fn defs(ins: &Instr, f: &mut impl FnMut(Slot)) {
    use Instr::*;
    match ins {
        Move { dst, .. }
        | Take { dst, .. }
        | Lit { dst, .. }
        | Int { dst, .. }
        | Atom { dst, .. }
        | Nil { dst }
        | Tuple { dst, .. }
        | MapNew { dst, .. }
        | MakeFun { dst, .. }
        | GetElem { dst, .. }
        | GetHd { dst, .. }
        | GetTl { dst, .. } => f(*dst),
        // A Cons may read what it writes ([H | Acc] into Acc).
        Cons {
            dst, head, tail, ..
        } if dst != head && dst != tail => f(*dst),
        _ => {}
    }
}

/// The slots a receive filter reads (variables bound before the receive).
fn bound_slots(s: &crate::ir::Shape, f: &mut impl FnMut(Slot)) {
    match s {
        crate::ir::Shape::Bound(v) => f(*v),
        crate::ir::Shape::Tuple(ps) => ps.iter().for_each(|p| bound_slots(p, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ErrKind;

    fn rewritten(mut code: Vec<Instr>, arity: u16) -> Vec<Instr> {
        rewrite_last_uses(&mut code, &[], arity, 16);
        code
    }

    #[test]
    fn only_the_last_read_of_a_slot_moves() {
        // f(X) -> {X, X} built as: t1 = X, t2 = X, tuple, return.
        let code = rewritten(
            vec![
                Instr::Move { dst: 1, src: 0 },
                Instr::Move { dst: 2, src: 0 },
                Instr::Tuple {
                    dst: 3,
                    start: 1,
                    arity: 2,
                },
                Instr::Return { src: 3 },
            ],
            1,
        );
        assert!(matches!(code[0], Instr::Move { dst: 1, src: 0 }));
        assert!(matches!(code[1], Instr::Take { dst: 2, src: 0 }));
    }

    #[test]
    fn a_value_read_on_another_path_stays() {
        // 0: test X is nil else goto 3; 1: t = X (X dead on this path); 2: return t;
        // 3: t = X; 4: return X (X still live after 3).
        let code = rewritten(
            vec![
                Instr::TestNil { a: 0, fail: 3 },
                Instr::Move { dst: 1, src: 0 },
                Instr::Return { src: 1 },
                Instr::Move { dst: 1, src: 0 },
                Instr::Return { src: 0 },
            ],
            1,
        );
        assert!(matches!(code[1], Instr::Take { .. }));
        assert!(matches!(code[3], Instr::Move { .. }));
    }

    #[test]
    fn loops_keep_what_the_next_iteration_reads() {
        // 0: t = X; 1: cons acc = [t | acc]; 2: jump 0 — X is read again.
        let code = rewritten(
            vec![
                Instr::Move { dst: 1, src: 0 },
                Instr::Cons {
                    dst: 2,
                    head: 1,
                    tail: 2,
                    take: 0,
                },
                Instr::Jump { to: 0 },
            ],
            1,
        );
        assert!(matches!(code[0], Instr::Move { .. }));
        // The head temp is dead after the cons; the accumulator's old list
        // is overwritten by it, so it moves into the new cell too.
        assert!(matches!(code[1], Instr::Cons { take, .. } if take == TAKE_HEAD | TAKE_TAIL));
    }

    #[test]
    fn function_clause_keeps_the_arguments() {
        let code = rewritten(
            vec![
                Instr::TestNil { a: 0, fail: 3 },
                Instr::Move { dst: 1, src: 0 },
                Instr::Return { src: 1 },
                Instr::Move { dst: 1, src: 0 },
                Instr::Error {
                    kind: ErrKind::FunctionClause,
                    val: 0,
                },
            ],
            1,
        );
        assert!(matches!(code[3], Instr::Move { .. }));
    }

    #[test]
    fn functions_with_handlers_are_left_alone() {
        let code = rewritten(
            vec![
                Instr::Try { handler: 3, reg: 4 },
                Instr::Move { dst: 1, src: 0 },
                Instr::TryEnd,
                Instr::Return { src: 1 },
            ],
            1,
        );
        assert!(matches!(code[1], Instr::Move { .. }));
    }
}
