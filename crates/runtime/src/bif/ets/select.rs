//! Searching with match specifications and patterns: select, match,
//! match_object (each with a limit and a continuation), select_reverse,
//! select_count, select_delete, select_replace, match_delete, and the
//! match-spec functions (match_spec_compile, match_spec_run, is_compiled_ms).
//!
//! A continuation is a tuple `{'$trace_ets_cont', Tab, Mode, Reverse, Spec,
//! Limit, Position}` (opaque to programs, as BEAM's is).

use super::walk::{end_of_table, non_negative};
use super::{on_table, Op};
use crate::bif::{Builder, Ctx};
use crate::ets::ms::scan::{Chunk, Position, Search};
use crate::ets::ms::{self, Expr, MatchSpec, Pat};
use crate::ets::store::{element, Store};
use crate::ets::table::Kind;
use crate::exception::{badarg, BifResult, Fault};
use crate::shared::Access;
use trace_term::order::exact_eq;
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let m = "ets";
    b.proc(m, "select", 2, |cx, a| whole(cx, a, Mode::Select, false), 0);
    b.proc(
        m,
        "select",
        3,
        |cx, a| limited(cx, a, Mode::Select, false),
        0,
    );
    b.proc(m, "select", 1, resume, 0);
    b.proc(
        m,
        "select_reverse",
        2,
        |cx, a| whole(cx, a, Mode::Select, true),
        0,
    );
    b.proc(
        m,
        "select_reverse",
        3,
        |cx, a| limited(cx, a, Mode::Select, true),
        0,
    );
    b.proc(m, "select_reverse", 1, resume, 0);
    b.proc(m, "match", 2, |cx, a| whole(cx, a, Mode::Match, false), 0);
    b.proc(m, "match", 3, |cx, a| limited(cx, a, Mode::Match, false), 0);
    b.proc(m, "match", 1, resume, 0);
    b.proc(
        m,
        "match_object",
        2,
        |cx, a| whole(cx, a, Mode::Object, false),
        0,
    );
    b.proc(
        m,
        "match_object",
        3,
        |cx, a| limited(cx, a, Mode::Object, false),
        0,
    );
    b.proc(m, "match_object", 1, resume, 0);
    b.proc(m, "select_count", 2, select_count, 0);
    b.proc(
        m,
        "select_delete",
        2,
        |cx, a| delete(cx, a, "select_delete", Mode::Select),
        0,
    );
    b.proc(
        m,
        "match_delete",
        2,
        |cx, a| delete(cx, a, "match_delete", Mode::Match),
        0,
    );
    b.proc(m, "select_replace", 2, select_replace, 0);
    b.proc(m, "match_spec_compile", 1, match_spec_compile, 0);
    b.proc(m, "match_spec_run", 2, match_spec_run, 0);
    b.pure(
        m,
        "is_compiled_ms",
        1,
        |a| Ok(Term::bool(compiled(&a[0]).is_some())),
        0,
    );
    b.pure(m, "repair_continuation", 2, |a| Ok(a[0].clone()), 0);
    b.pure(
        m,
        "fun2ms",
        1,
        |_| {
            Err(Fault::Unsupported(
                "ets:fun2ms/1 is a parse transform (ms_transform), which trace does not support; \
             write the match specification as a term"
                    .into(),
            ))
        },
        0,
    );
}

/// How the call's term becomes a specification, and what it returns.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    /// A match specification.
    Select,
    /// A pattern; results are the variables' values (`'$$'`).
    Match,
    /// A pattern; results are the objects (`'$_'`).
    Object,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Select => "select",
            Mode::Match => "match",
            Mode::Object => "match_object",
        }
    }

    fn from_name(a: &Term) -> Option<Mode> {
        match a.as_atom()?.name() {
            "select" => Some(Mode::Select),
            "match" => Some(Mode::Match),
            "match_object" => Some(Mode::Object),
            _ => None,
        }
    }

    fn compile(self, spec: &Term) -> Result<MatchSpec, Fault> {
        match self {
            Mode::Select => ms::compile(spec),
            Mode::Match => ms::from_pattern(spec, Term::atom("$$")),
            Mode::Object => ms::from_pattern(spec, Term::atom("$_")),
        }
    }

    fn function(self, reverse: bool) -> &'static str {
        if reverse {
            "select_reverse"
        } else {
            self.name()
        }
    }
}

/// One search over table `tab`: its chunk of results.
fn search(
    cx: &mut Ctx,
    tab: &Term,
    mode: Mode,
    reverse: bool,
    spec: &Term,
    limit: Option<usize>,
    from: &Position,
) -> Result<Chunk, Fault> {
    let ms = mode.compile(spec)?;
    on_table(
        cx,
        tab,
        Op::new(mode.function(reverse), Access::Read),
        |cx, t, st| {
            st.check_read(cx.proc.pid)?;
            let s = Search {
                ms: &ms,
                keypos: t.keypos,
                me: cx.proc.pid,
                reverse,
                limit,
            };
            Ok(s.run(&st.store, from))
        },
    )
}

fn whole(cx: &mut Ctx, a: &[Term], mode: Mode, reverse: bool) -> BifResult {
    let chunk = search(cx, &a[0], mode, reverse, &a[1], None, &Position::Start)?;
    Ok(Term::list(chunk.results))
}

fn limited(cx: &mut Ctx, a: &[Term], mode: Mode, reverse: bool) -> BifResult {
    let limit = non_negative(&a[2])?;
    if limit == 0 {
        return Err(badarg());
    }
    let chunk = search(
        cx,
        &a[0],
        mode,
        reverse,
        &a[1],
        Some(limit),
        &Position::Start,
    )?;
    Ok(answer(&a[0], mode, reverse, &a[1], limit, chunk))
}

/// `{Results, Continuation}`, `{Results, '$end_of_table'}` when the table
/// ended before the limit, `'$end_of_table'` when nothing matched.
fn answer(tab: &Term, mode: Mode, reverse: bool, spec: &Term, limit: usize, c: Chunk) -> Term {
    let cont = match c.next {
        Some(pos) => Term::tuple(vec![
            Term::atom("$trace_ets_cont"),
            tab.clone(),
            Term::atom(mode.name()),
            Term::bool(reverse),
            spec.clone(),
            Term::Int(limit as i64),
            position_term(&pos),
        ]),
        None if c.results.is_empty() => return end_of_table(),
        None => end_of_table(),
    };
    Term::tuple(vec![Term::list(c.results), cont])
}

fn position_term(p: &Position) -> Term {
    match p {
        Position::Start => Term::atom("start"),
        Position::Key(k) => Term::tuple(vec![Term::atom("key"), k.clone()]),
        Position::Slot { epoch, index, key } => Term::tuple(vec![
            Term::atom("slot"),
            Term::Int(*epoch as i64),
            Term::Int(*index as i64),
            key.clone(),
        ]),
    }
}

fn position_of(t: &Term) -> Option<Position> {
    match t {
        Term::Atom(a) if a.name() == "start" => Some(Position::Start),
        Term::Tuple(tp) => match tp.elements() {
            [Term::Atom(a), k] if a.name() == "key" => Some(Position::Key(k.clone())),
            [Term::Atom(a), Term::Int(e), Term::Int(i), k] if a.name() == "slot" && *i >= 0 => {
                Some(Position::Slot {
                    epoch: u64::try_from(*e).ok()?,
                    index: *i as usize,
                    key: k.clone(),
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// `select/1`, `match/1`, `match_object/1`, `select_reverse/1`.
fn resume(cx: &mut Ctx, a: &[Term]) -> BifResult {
    if matches!(&a[0], Term::Atom(x) if x.name() == "$end_of_table") {
        return Ok(end_of_table());
    }
    let Some([tag, tab, mode, Term::Atom(rev), spec, Term::Int(limit), pos]) = a[0].as_tuple()
    else {
        return Err(badarg());
    };
    if tag.as_atom().map(|t| t.name()) != Some("$trace_ets_cont") || *limit < 1 {
        return Err(badarg());
    }
    let mode = Mode::from_name(mode).ok_or_else(badarg)?;
    let reverse = *rev == atom::TRUE;
    let from = position_of(pos).ok_or_else(badarg)?;
    let limit = *limit as usize;
    let chunk = search(cx, tab, mode, reverse, spec, Some(limit), &from)?;
    Ok(answer(tab, mode, reverse, spec, limit, chunk))
}

fn select_count(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let ms = ms::compile(&a[1])?;
    on_table(
        cx,
        &a[0],
        Op::new("select_count", Access::Read),
        |cx, _, st| {
            st.check_read(cx.proc.pid)?;
            let me = cx.proc.pid;
            let mut binds = Vec::new();
            let mut n: i64 = 0;
            st.store.for_each(|o| {
                if ms
                    .run(o, me, &mut binds)
                    .is_some_and(|r| r.is_atom(atom::TRUE))
                {
                    n += 1;
                }
            });
            Ok(Term::Int(n))
        },
    )
}

/// `select_delete/2` (returns the count) and `match_delete/2` (`true`).
fn delete(cx: &mut Ctx, a: &[Term], function: &'static str, mode: Mode) -> BifResult {
    let ms = match mode {
        Mode::Match => ms::from_pattern(&a[1], Term::TRUE)?,
        _ => ms::compile(&a[1])?,
    };
    on_table(
        cx,
        &a[0],
        Op::new(function, Access::ReadWrite),
        |cx, _, st| {
            st.check_write(cx.proc.pid)?;
            let me = cx.proc.pid;
            let mut binds = Vec::new();
            let gone = st.store.retain(|o| {
                !ms.run(o, me, &mut binds)
                    .is_some_and(|r| r.is_atom(atom::TRUE))
            });
            Ok(match mode {
                Mode::Match => Term::TRUE,
                _ => Term::Int(gone as i64),
            })
        },
    )
}

fn select_replace(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let ms = ms::compile(&a[1])?;
    on_table(
        cx,
        &a[0],
        Op::new("select_replace", Access::ReadWrite),
        |cx, t, st| {
            st.check_write(cx.proc.pid)?;
            // BEAM replaces in sets and duplicate bags only (cause `table_type`).
            if t.kind == Kind::Bag || !keeps_key(&ms, t.keypos) {
                return Err(badarg());
            }
            let me = cx.proc.pid;
            let mut binds = Vec::new();
            let mut changes = Vec::new();
            st.store.for_each(|o| {
                if let Some(new) = ms.run(o, me, &mut binds) {
                    let (Some(k), Some(nk)) = (element(o, t.keypos), element(&new, t.keypos))
                    else {
                        return;
                    };
                    if exact_eq(k, nk) {
                        changes.push((k.clone(), o.clone(), new));
                    }
                }
            });
            let n = changes.len();
            for (k, old, new) in changes {
                match &mut st.store {
                    s @ Store::Ordered(_) => s.replace(&k, new),
                    s if t.kind.is_set() => s.replace(&k, new),
                    s => {
                        s.remove_object(&k, &old);
                        s.insert(t.kind, t.keypos, std::slice::from_ref(&new));
                    }
                }
            }
            Ok(Term::Int(n as i64))
        },
    )
}

/// Whether every clause's result provably has the key of the object it
/// matched (`select_replace` refuses a specification that might not).
fn keeps_key(ms: &MatchSpec, keypos: usize) -> bool {
    ms.clauses.iter().all(|c| {
        let Some(result) = c.body.last() else {
            return false;
        };
        match (result, &c.head) {
            (Expr::Object, _) => true,
            (Expr::Var(s), Pat::Bind(h)) => s == h,
            (Expr::Tuple(es), Pat::Tuple(ps)) => match (es.get(keypos - 1), ps.get(keypos - 1)) {
                (Some(e), Some(p)) => same_key(e, p),
                _ => false,
            },
            (Expr::Const(obj), Pat::Tuple(ps)) => {
                match (element(obj, keypos), ps.get(keypos - 1)) {
                    (Some(k), Some(Pat::Const(hk))) => exact_eq(k, hk),
                    _ => false,
                }
            }
            _ => false,
        }
    })
}

fn same_key(e: &Expr, p: &Pat) -> bool {
    match (e, p) {
        (Expr::Var(s), Pat::Bind(h)) => s == h,
        (Expr::Const(c), Pat::Const(h)) => exact_eq(c, h),
        (Expr::Tuple(es), Pat::Tuple(ps)) => {
            es.len() == ps.len() && es.iter().zip(ps).all(|(e, p)| same_key(e, p))
        }
        _ => false,
    }
}

/// A compiled specification is `{'$trace_ms', Spec}` (BEAM: an opaque reference).
fn compiled(t: &Term) -> Option<&Term> {
    match t.as_tuple() {
        Some([Term::Atom(tag), spec]) if tag.name() == "$trace_ms" => Some(spec),
        _ => None,
    }
}

fn match_spec_compile(_: &mut Ctx, a: &[Term]) -> BifResult {
    ms::compile(&a[0])?;
    Ok(Term::tuple(vec![Term::atom("$trace_ms"), a[0].clone()]))
}

fn match_spec_run(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let spec = compiled(&a[1]).ok_or_else(badarg)?;
    let ms = ms::compile(spec)?;
    let items = a[0].to_vec().ok_or_else(badarg)?;
    let mut binds = Vec::new();
    let me = cx.proc.pid;
    Ok(Term::list(
        items
            .iter()
            .filter_map(|t| ms.run(t, me, &mut binds))
            .collect(),
    ))
}
