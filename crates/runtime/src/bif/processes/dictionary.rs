//! The process dictionary: put/get/erase and friends (private to the process,
//! so deterministic).

use crate::bif::{Builder, Ctx, AUTO};
use crate::exception::BifResult;
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(e, "put", 2, put, AUTO);
    b.proc(e, "get", 1, get, AUTO);
    b.proc(e, "get", 0, get_all, AUTO);
    b.proc(e, "get_keys", 0, get_keys0, AUTO);
    b.proc(e, "get_keys", 1, get_keys1, AUTO);
    b.proc(e, "erase", 1, erase1, AUTO);
    b.proc(e, "erase", 0, erase0, AUTO);
}

fn put(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let d = &mut cx.proc.dict;
    match d
        .iter_mut()
        .find(|(k, _)| trace_term::order::exact_eq(k, &a[0]))
    {
        Some((_, v)) => Ok(std::mem::replace(v, a[1].clone())),
        None => {
            d.push((a[0].clone(), a[1].clone()));
            Ok(Term::Atom(atom::UNDEFINED))
        }
    }
}

fn get(cx: &mut Ctx, a: &[Term]) -> BifResult {
    Ok(cx
        .proc
        .dict
        .iter()
        .find(|(k, _)| trace_term::order::exact_eq(k, &a[0]))
        .map(|(_, v)| v.clone())
        .unwrap_or(Term::Atom(atom::UNDEFINED)))
}

fn get_all(cx: &mut Ctx, _: &[Term]) -> BifResult {
    Ok(Term::list(
        cx.proc
            .dict
            .iter()
            .rev()
            .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
            .collect(),
    ))
}

fn get_keys0(cx: &mut Ctx, _: &[Term]) -> BifResult {
    Ok(Term::list(
        cx.proc.dict.iter().rev().map(|(k, _)| k.clone()).collect(),
    ))
}

fn get_keys1(cx: &mut Ctx, a: &[Term]) -> BifResult {
    Ok(Term::list(
        cx.proc
            .dict
            .iter()
            .rev()
            .filter(|(_, v)| trace_term::order::exact_eq(v, &a[0]))
            .map(|(k, _)| k.clone())
            .collect(),
    ))
}

fn erase1(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let d = &mut cx.proc.dict;
    match d
        .iter()
        .position(|(k, _)| trace_term::order::exact_eq(k, &a[0]))
    {
        Some(i) => Ok(d.remove(i).1),
        None => Ok(Term::Atom(atom::UNDEFINED)),
    }
}

fn erase0(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let all = get_all(cx, &[])?;
    cx.proc.dict.clear();
    Ok(all)
}
