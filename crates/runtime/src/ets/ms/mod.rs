//! Match specifications: `[{Head, Guards, Body}]` as `ets:select/2`,
//! `ets:match/2` (a pattern is `[{Pattern, [], ['$$']}]`) and
//! `ets:match_spec_run/2` take them, compiled once per call into
//! [`MatchSpec`] and run by [`eval`].
//!
//! Heads are patterns with `'_'` and variables `'$N'`; guards and bodies
//! are expressions: `'$N'`, `'$_'` (the whole object), `'$$'` (every
//! variable, by number), constants, `{const, X}`, tuples written `{{...}}`,
//! lists and maps built element by element, and calls `{F, Args...}` of
//! the guard functions. A malformed specification is `badarg`, as on BEAM.

pub mod eval;
pub mod scan;

use crate::bif::{registry, BifFn, PureFn};
use crate::exception::{badarg, Fault};
use trace_term::{atom, Atom, Term};

/// A compiled match specification.
#[derive(Debug)]
pub struct MatchSpec {
    pub clauses: Vec<Clause>,
}

#[derive(Debug)]
pub struct Clause {
    pub head: Pat,
    pub guards: Vec<Expr>,
    pub body: Vec<Expr>,
    /// Variables bound by the head (slots `0..vars`).
    pub vars: usize,
    /// Slots in the order of their `'$N'` numbers (what `'$$'` lists).
    pub numbered: Vec<usize>,
}

/// A head pattern.
#[derive(Debug)]
pub enum Pat {
    /// `'_'`.
    Any,
    /// A variable's first occurrence: binds the slot.
    Bind(usize),
    /// A later occurrence: must equal (`=:=`) what the slot holds.
    Same(usize),
    /// A term without variables, matched exactly.
    Const(Term),
    Tuple(Vec<Pat>),
    Cons(Box<Pat>, Box<Pat>),
    /// Keys are constants; the map may hold more keys.
    Map(Vec<(Term, Pat)>),
}

/// A guard or body expression.
#[derive(Debug)]
pub enum Expr {
    Const(Term),
    Var(usize),
    /// `'$_'`.
    Object,
    /// `'$$'`.
    AllVars,
    Tuple(Vec<Expr>),
    List(Vec<Expr>, Box<Expr>),
    Map(Vec<(Expr, Expr)>),
    Call(PureFn, Vec<Expr>),
    /// `{self}`.
    SelfPid,
    AndAlso(Vec<Expr>),
    OrElse(Vec<Expr>),
}

/// `'$N'` → `N`.
fn variable(a: Atom) -> Option<u32> {
    let digits = a.name().strip_prefix('$')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 9 {
        return None;
    }
    digits.parse().ok()
}

/// Compiles a match specification; `badarg` if it is not one.
pub fn compile(ms: &Term) -> Result<MatchSpec, Fault> {
    let clauses = ms.to_vec().ok_or_else(badarg)?;
    let clauses = clauses.iter().map(clause).collect::<Result<Vec<_>, _>>()?;
    Ok(MatchSpec { clauses })
}

/// `ets:match/2`'s pattern as a specification returning `result`
/// (`'$$'` for `match`, `'$_'` for `match_object`, `true` for `match_delete`).
pub fn from_pattern(pattern: &Term, result: Term) -> Result<MatchSpec, Fault> {
    let ms = Term::list(vec![Term::tuple(vec![
        pattern.clone(),
        Term::Nil,
        Term::list(vec![result]),
    ])]);
    compile(&ms)
}

struct Vars {
    /// `'$N'` numbers, by slot.
    numbers: Vec<u32>,
}

impl Vars {
    fn slot(&self, n: u32) -> Option<usize> {
        self.numbers.iter().position(|&x| x == n)
    }
}

fn clause(t: &Term) -> Result<Clause, Fault> {
    let Some([head, guards, body]) = t.as_tuple() else {
        return Err(badarg());
    };
    let mut vars = Vars {
        numbers: Vec::new(),
    };
    let head = pattern(head, &mut vars)?;
    let guards = guards.to_vec().ok_or_else(badarg)?;
    let body = body.to_vec().ok_or_else(badarg)?;
    if body.is_empty() {
        return Err(badarg());
    }
    let guards = guards
        .iter()
        .map(|g| expr(g, &vars))
        .collect::<Result<Vec<_>, _>>()?;
    let body = body
        .iter()
        .map(|b| expr(b, &vars))
        .collect::<Result<Vec<_>, _>>()?;
    let mut numbered: Vec<usize> = (0..vars.numbers.len()).collect();
    numbered.sort_by_key(|&s| vars.numbers[s]);
    Ok(Clause {
        head,
        guards,
        body,
        vars: vars.numbers.len(),
        numbered,
    })
}

fn pattern(t: &Term, vars: &mut Vars) -> Result<Pat, Fault> {
    Ok(match t {
        Term::Atom(a) if a.name() == "_" => Pat::Any,
        Term::Atom(a) => match variable(*a) {
            Some(n) => match vars.slot(n) {
                Some(s) => Pat::Same(s),
                None => {
                    vars.numbers.push(n);
                    Pat::Bind(vars.numbers.len() - 1)
                }
            },
            None => Pat::Const(t.clone()),
        },
        Term::Tuple(tp) => Pat::Tuple(
            tp.elements()
                .iter()
                .map(|e| pattern(e, vars))
                .collect::<Result<_, _>>()?,
        ),
        Term::Cons(c) => Pat::Cons(
            Box::new(pattern(&c.head, vars)?),
            Box::new(pattern(&c.tail, vars)?),
        ),
        Term::Map(m) => {
            let mut pairs = Vec::with_capacity(m.len());
            for (k, v) in m.iter() {
                if !ground(k) {
                    return Err(badarg());
                }
                pairs.push((k.clone(), pattern(v, vars)?));
            }
            Pat::Map(pairs)
        }
        _ => Pat::Const(t.clone()),
    })
}

/// True if `t` holds no `'_'` and no variable.
pub fn ground(t: &Term) -> bool {
    match t {
        Term::Atom(a) => a.name() != "_" && variable(*a).is_none(),
        Term::Tuple(tp) => tp.elements().iter().all(ground),
        Term::Cons(_) => {
            let mut it = t.list_iter();
            it.by_ref().all(ground) && ground(it.rest())
        }
        Term::Map(m) => m.iter().all(|(k, v)| ground(k) && ground(v)),
        _ => true,
    }
}

/// The guard functions a specification may call, by name and arity.
const FUNCTIONS: &[(&str, u8)] = &[
    ("is_atom", 1),
    ("is_float", 1),
    ("is_integer", 1),
    ("is_list", 1),
    ("is_number", 1),
    ("is_pid", 1),
    ("is_port", 1),
    ("is_reference", 1),
    ("is_tuple", 1),
    ("is_map", 1),
    ("is_binary", 1),
    ("is_function", 1),
    ("is_record", 3),
    ("is_map_key", 2),
    ("map_get", 2),
    ("map_size", 1),
    ("abs", 1),
    ("element", 2),
    ("hd", 1),
    ("tl", 1),
    ("length", 1),
    ("node", 0),
    ("node", 1),
    ("round", 1),
    ("trunc", 1),
    ("float", 1),
    ("size", 1),
    ("bit_size", 1),
    ("byte_size", 1),
    ("binary_part", 2),
    ("binary_part", 3),
    ("+", 1),
    ("+", 2),
    ("-", 1),
    ("-", 2),
    ("*", 2),
    ("/", 2),
    ("div", 2),
    ("rem", 2),
    ("band", 2),
    ("bor", 2),
    ("bxor", 2),
    ("bnot", 1),
    ("bsl", 2),
    ("bsr", 2),
    (">", 2),
    (">=", 2),
    ("<", 2),
    ("=<", 2),
    ("=:=", 2),
    ("==", 2),
    ("=/=", 2),
    ("/=", 2),
    ("not", 1),
    ("xor", 2),
];

fn function(name: Atom, arity: usize) -> Option<PureFn> {
    let n = name.name();
    if !FUNCTIONS
        .iter()
        .any(|(f, a)| *f == n && *a as usize == arity)
    {
        return None;
    }
    let id = registry().lookup_atoms(atom::ERLANG, name, arity)?;
    match registry().def(id).f {
        BifFn::Pure(f) => Some(f),
        BifFn::Proc(_) => None,
    }
}

fn exprs(ts: &[Term], vars: &Vars) -> Result<Vec<Expr>, Fault> {
    ts.iter().map(|t| expr(t, vars)).collect()
}

fn expr(t: &Term, vars: &Vars) -> Result<Expr, Fault> {
    Ok(match t {
        Term::Atom(a) if a.name() == "$_" => Expr::Object,
        Term::Atom(a) if a.name() == "$$" => Expr::AllVars,
        Term::Atom(a) => match variable(*a) {
            Some(n) => Expr::Var(vars.slot(n).ok_or_else(badarg)?),
            None => Expr::Const(t.clone()),
        },
        Term::Cons(_) => {
            let mut items = Vec::new();
            let mut it = t.list_iter();
            for e in &mut it {
                items.push(expr(e, vars)?);
            }
            Expr::List(items, Box::new(expr(it.rest(), vars)?))
        }
        Term::Map(m) => Expr::Map(
            m.iter()
                .map(|(k, v)| Ok((expr(k, vars)?, expr(v, vars)?)))
                .collect::<Result<_, Fault>>()?,
        ),
        Term::Tuple(tp) => tuple_expr(tp.elements(), vars)?,
        _ => Expr::Const(t.clone()),
    })
}

fn tuple_expr(es: &[Term], vars: &Vars) -> Result<Expr, Fault> {
    match es {
        [Term::Tuple(inner)] => Ok(Expr::Tuple(exprs(inner.elements(), vars)?)),
        [Term::Atom(c), x] if c.name() == "const" => Ok(Expr::Const(x.clone())),
        [Term::Atom(f)] if f.name() == "self" => Ok(Expr::SelfPid),
        [Term::Atom(f), args @ ..]
            if !args.is_empty() && matches!(f.name(), "andalso" | "orelse") =>
        {
            let args = exprs(args, vars)?;
            Ok(if f.name() == "andalso" {
                Expr::AndAlso(args)
            } else {
                Expr::OrElse(args)
            })
        }
        [Term::Atom(f), args @ ..] if !args.is_empty() && matches!(f.name(), "and" | "or") => {
            // Variadic in specifications; both sides are evaluated.
            let g = function(*f, 2).ok_or_else(badarg)?;
            let mut args = exprs(args, vars)?.into_iter();
            let first = args.next().ok_or_else(badarg)?;
            Ok(args.fold(first, |acc, e| Expr::Call(g, vec![acc, e])))
        }
        [Term::Atom(f), args @ ..] => {
            let g = function(*f, args.len()).ok_or_else(badarg)?;
            Ok(Expr::Call(g, exprs(args, vars)?))
        }
        _ => Err(badarg()),
    }
}

impl MatchSpec {
    /// For a table search: the key every clause's head requires, when they
    /// all require the same one (the search is then one lookup).
    pub fn bound_key(&self, keypos: usize) -> Option<&Term> {
        let mut key: Option<&Term> = None;
        for c in &self.clauses {
            let Pat::Tuple(elems) = &c.head else {
                return None;
            };
            let Some(Pat::Const(k)) = elems.get(keypos.checked_sub(1)?) else {
                return None;
            };
            match key {
                Some(prev) if !trace_term::order::exact_eq(prev, k) => return None,
                _ => key = Some(k),
            }
        }
        key
    }
}
