//! Binary construction `<<...>>` and binary patterns.
//!
//! Construction evaluates every segment's value and size first, then emits an
//! uninterrupted `BsInit`/`BsPut`.../`BsFinish` run, so the VM's single
//! in-progress builder is never nested. Matching keeps the bit position in a
//! slot and reads segment by segment.

use super::builder::{FnBuilder, L};
use super::expr::{expr_into, load_const};
use super::{constant, guard, pattern, CResult, ModuleCtx};
use crate::ir::{Instr, SegFlags, SegSize, SegType, Slot, RAISE};
use trace_syntax::ast::{BinElement, Expr, ExprKind, TypeSpec};
use trace_term::Term;

/// A segment's type, unit and flags after applying defaults.
struct Spec {
    ty: SegType,
    unit: u8,
    flags: SegFlags,
    /// `binary`/`bitstring` without a size means "the rest".
    default_all: bool,
}

fn spec(cx: &ModuleCtx, e: &BinElement) -> CResult<Spec> {
    let mut ty = SegType::Integer;
    let mut unit: Option<u32> = None;
    let mut flags = SegFlags::default();
    let mut bits_type = false;
    for s in &e.specs {
        match s {
            TypeSpec::Unit(u) => unit = Some(*u),
            TypeSpec::Name(n) => match n.as_str() {
                "integer" => ty = SegType::Integer,
                "float" => ty = SegType::Float,
                "binary" | "bytes" => {
                    ty = SegType::Binary;
                    bits_type = false;
                }
                "bitstring" | "bits" => {
                    ty = SegType::Binary;
                    bits_type = true;
                }
                "utf8" => ty = SegType::Utf8,
                "utf16" => ty = SegType::Utf16,
                "utf32" => ty = SegType::Utf32,
                "signed" => flags.signed = true,
                "unsigned" => flags.signed = false,
                "big" => flags.little = false,
                "little" => flags.little = true,
                "native" => flags.little = cfg!(target_endian = "little"),
                other => return cx.err(e.pos, format!("undefined bit type '{other}'")),
            },
        }
    }
    let default_unit = match ty {
        SegType::Binary if !bits_type => 8,
        _ => 1,
    };
    let unit = unit.unwrap_or(default_unit);
    if !(1..=256).contains(&unit) {
        return cx.err(e.pos, "bad unit");
    }
    if matches!(ty, SegType::Utf8 | SegType::Utf16 | SegType::Utf32) && e.size.is_some() {
        return cx.err(e.pos, "size must not be given for utf8/utf16/utf32");
    }
    Ok(Spec {
        ty,
        unit: (unit.min(255)) as u8,
        flags,
        default_all: ty == SegType::Binary,
    })
}

/// Expands string-literal segments (`<<"ab", X>>`) into one segment per character.
fn expand(segs: &[BinElement]) -> Vec<BinElement> {
    let mut out = Vec::with_capacity(segs.len());
    for s in segs {
        if let ExprKind::String(cs) = &s.value.kind {
            for &c in cs {
                out.push(BinElement {
                    pos: s.pos,
                    value: Expr::new(
                        s.value.pos,
                        ExprKind::Integer(trace_syntax::ast::IntLit::Small(c as i64)),
                    ),
                    size: s.size.clone(),
                    specs: s.specs.clone(),
                });
            }
        } else {
            out.push(s.clone());
        }
    }
    out
}

fn size_operand(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    e: &BinElement,
    sp: &Spec,
    guard_fail: Option<L>,
) -> CResult<SegSize> {
    match &e.size {
        None => Ok(if sp.default_all {
            SegSize::All
        } else {
            SegSize::Default
        }),
        Some(sz) => {
            if let ExprKind::Atom(a) = &sz.kind {
                if a == "all" {
                    return Ok(SegSize::All);
                }
            }
            match constant::constant(sz) {
                Some(Term::Int(n)) if (0..=u32::MAX as i64).contains(&n) => {
                    Ok(SegSize::Const(n as u32))
                }
                // erlc only warns: building the binary fails with badarg.
                Some(bad) => {
                    let t = b.temp();
                    load_const(cx, b, bad, t);
                    Ok(SegSize::Slot(t))
                }
                None => {
                    let s = match guard_fail {
                        Some(f) => guard::guard_value(cx, b, sz, f)?,
                        None => {
                            let t = b.temp();
                            expr_into(cx, b, sz, t)?;
                            t
                        }
                    };
                    Ok(SegSize::Slot(s))
                }
            }
        }
    }
}

/// `<<Segs>>` into `dst`.
pub fn construct(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    segs: &[BinElement],
    dst: Slot,
) -> CResult<()> {
    build(cx, b, segs, dst, None)
}

/// A binary built inside a guard: failures branch to `fail`.
pub fn construct_guard(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    e: &Expr,
    dst: Slot,
    fail: L,
) -> CResult<()> {
    let ExprKind::Binary(segs) = &e.kind else {
        return cx.err(e.pos, "illegal guard expression");
    };
    build(cx, b, segs, dst, Some(fail))
}

/// `Acc = <<Acc/bitstring, Segs>>` for the binary in slot `acc`: a binary
/// comprehension grows its result this way, in place (see
/// `trace_term::bits`), instead of collecting pieces to join at the end.
pub fn append(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    acc: Slot,
    segs: &[BinElement],
) -> CResult<()> {
    build_after(cx, b, Some(acc), segs, acc, None)
}

fn build(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    segs: &[BinElement],
    dst: Slot,
    guard_fail: Option<L>,
) -> CResult<()> {
    build_after(cx, b, None, segs, dst, guard_fail)
}

/// Builds `<<Prefix/bitstring, Segs>>` (no prefix: `<<Segs>>`) into `dst`.
fn build_after(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    prefix: Option<Slot>,
    segs: &[BinElement],
    dst: Slot,
    guard_fail: Option<L>,
) -> CResult<()> {
    let segs = expand(segs);
    let mark = b.mark();
    let mut puts = Vec::with_capacity(segs.len());
    for s in &segs {
        let sp = spec(cx, s)?;
        let v = match guard_fail {
            Some(f) => guard::guard_value(cx, b, &s.value, f)?,
            None => {
                let t = b.temp();
                expr_into(cx, b, &s.value, t)?;
                t
            }
        };
        let size = size_operand(cx, b, s, &sp, guard_fail)?;
        puts.push((s.pos, v, sp, size));
    }
    b.emit(Instr::BsInit);
    if let Some(p) = prefix {
        b.emit(Instr::BsPut {
            val: p,
            ty: SegType::Binary,
            size: SegSize::All,
            unit: 1,
            flags: SegFlags::default(),
        });
    }
    for (pos, v, sp, size) in puts {
        b.set_pos(pos);
        b.emit(Instr::BsPut {
            val: v,
            ty: sp.ty,
            size,
            unit: sp.unit,
            flags: sp.flags,
        });
    }
    b.emit(Instr::BsFinish { dst });
    b.release(mark);
    let _ = RAISE;
    Ok(())
}

/// Matches the bitstring in `src` against `<<Segs>>` entirely.
pub fn pattern(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    segs: &[BinElement],
    src: Slot,
    fail: L,
) -> CResult<()> {
    let pos_slot = b.temp();
    b.emit(Instr::BsStart {
        src,
        pos: pos_slot,
        fail: b.lab(fail),
    });
    // A last segment that takes the rest (`Rest/binary`) always ends at the end.
    if !segments(cx, b, segs, src, pos_slot, fail)? {
        b.emit(Instr::BsEnd {
            src,
            pos: pos_slot,
            fail: b.lab(fail),
        });
    }
    Ok(())
}

/// Matches segments from the position in `pos` (used by patterns and bit
/// generators). Returns whether the last segment took all the rest.
pub fn segments(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    segs: &[BinElement],
    src: Slot,
    pos: Slot,
    fail: L,
) -> CResult<bool> {
    let segs = expand(segs);
    let mut took_rest = false;
    for s in &segs {
        let sp = spec(cx, s)?;
        b.set_pos(s.pos);
        let size = match &s.size {
            None => {
                if sp.default_all {
                    SegSize::All
                } else {
                    SegSize::Default
                }
            }
            Some(sz) => match constant::constant(sz) {
                Some(Term::Int(n)) if (0..=u32::MAX as i64).contains(&n) => {
                    SegSize::Const(n as u32)
                }
                // erlc only warns: the segment can never match.
                Some(_) => {
                    b.emit(Instr::Jump { to: b.lab(fail) });
                    SegSize::Const(0)
                }
                None => match &sz.kind {
                    ExprKind::Var(v) => SegSize::Slot(pattern::var_use(cx, b, v, sz.pos)?),
                    _ => SegSize::Slot(guard::guard_value(cx, b, sz, fail)?),
                },
            },
        };
        took_rest = size == SegSize::All;
        if let ExprKind::Var(v) = &s.value.kind {
            if v == "_" && matches!(sp.ty, SegType::Integer | SegType::Binary | SegType::Float) {
                b.emit(Instr::BsSkip {
                    src,
                    pos,
                    size: match size {
                        SegSize::Default => {
                            SegSize::Const(if sp.ty == SegType::Float { 64 } else { 8 })
                        }
                        other => other,
                    },
                    unit: sp.unit,
                    fail: b.lab(fail),
                });
                continue;
            }
        }
        let (t, bound) = pattern::fresh_slot(b, &s.value);
        b.emit(Instr::BsGet {
            src,
            pos,
            dst: t,
            ty: sp.ty,
            size,
            unit: sp.unit,
            flags: sp.flags,
            fail: b.lab(fail),
            take: false,
        });
        if !bound {
            pattern::pattern(cx, b, &s.value, t, fail)?;
        }
    }
    Ok(took_rest)
}
