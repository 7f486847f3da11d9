//! Records: compile-time sugar for tagged tuples `{Name, Field1, ..., FieldN}`.

use super::{CResult, ModuleCtx};
use trace_syntax::ast::{Expr, ExprKind, Pos, RecordDef, RecordFieldInit};
use trace_term::Term;

/// Checks a definition: distinct field names.
pub fn check_definition(cx: &ModuleCtx, r: &RecordDef) -> CResult<()> {
    let mut seen = std::collections::HashSet::new();
    for f in &r.fields {
        if !seen.insert(&f.name) {
            return cx.err(
                f.pos,
                format!("field {} already defined in record {}", f.name, r.name),
            );
        }
    }
    Ok(())
}

/// The definition of record `name`.
pub fn def<'c>(cx: &'c ModuleCtx, name: &str, pos: Pos) -> CResult<&'c RecordDef> {
    match cx.records.get(name) {
        Some(d) => Ok(d),
        None => cx.err(pos, format!("record {name} undefined")),
    }
}

/// 0-based index of `field` among the record's fields (tuple element index - 1).
pub fn field_index(cx: &ModuleCtx, name: &str, field: &str, pos: Pos) -> CResult<usize> {
    let d = def(cx, name, pos)?;
    match d.fields.iter().position(|f| f.name == field) {
        Some(i) => Ok(i),
        None => cx.err(pos, format!("field {field} undefined in record {name}")),
    }
}

/// For each field of the record, the expression given for it in `inits`
/// (explicitly, or through `_ = Expr`), or `None`.
pub fn field_inits<'e>(
    cx: &ModuleCtx,
    name: &str,
    inits: &'e [RecordFieldInit],
    pos: Pos,
) -> CResult<Vec<Option<&'e Expr>>> {
    let d = def(cx, name, pos)?;
    let mut out: Vec<Option<&Expr>> = vec![None; d.fields.len()];
    let mut wildcard = None;
    let mut seen = std::collections::HashSet::new();
    for init in inits {
        if init.name == "_" {
            wildcard = Some(&init.value);
            continue;
        }
        if !seen.insert(&init.name) {
            return cx.err(
                init.pos,
                format!("field {} already defined in record {}", init.name, name),
            );
        }
        let i = field_index(cx, name, &init.name, init.pos)?;
        out[i] = Some(&init.value);
    }
    if let Some(w) = wildcard {
        for o in out.iter_mut() {
            if o.is_none() {
                *o = Some(w);
            }
        }
    }
    Ok(out)
}

/// `record_info(fields, R)` and `record_info(size, R)`: constants known at
/// compile time (erlc rejects anything else).
pub fn record_info(cx: &ModuleCtx, what: &Expr, rec: &Expr, pos: Pos) -> CResult<Term> {
    let (ExprKind::Atom(what), ExprKind::Atom(name)) = (&what.kind, &rec.kind) else {
        return cx.err(pos, "illegal record info");
    };
    let d = def(cx, name, rec.pos)?;
    match what.as_str() {
        "fields" => Ok(Term::list(
            d.fields.iter().map(|f| Term::atom(&f.name)).collect(),
        )),
        "size" => Ok(Term::Int(d.fields.len() as i64 + 1)),
        _ => cx.err(pos, "illegal record info"),
    }
}
