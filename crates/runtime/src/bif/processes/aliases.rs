//! Process aliases (OTP 24): `alias/0,1`, `unalias/1` and `monitor/3` with
//! an `{alias, ...}` option. An alias is a reference that messages can be
//! sent to (`Alias ! Msg`); the process that made it keeps such a message
//! only while the alias is active, so a reply that comes after the caller
//! gave up is dropped instead of landing in its mailbox (`gen_server:call`
//! relies on it).

use super::monitor;
use crate::bif::{Builder, Ctx, AUTO};
use crate::exception::{badarg, BifResult, Fault};
use crate::process::AliasMode;
use trace_term::{Atom, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(e, "alias", 0, |cx, _| alias(cx, &Term::Nil), AUTO);
    b.proc(e, "alias", 1, |cx, a| alias(cx, &a[0]), AUTO);
    b.proc(e, "unalias", 1, unalias, AUTO);
    b.proc(e, "monitor", 3, monitor3, AUTO);
}

fn alias(cx: &mut Ctx, opts: &Term) -> BifResult {
    let mut mode = AliasMode::Explicit;
    for o in opts.to_vec().ok_or_else(badarg)? {
        match o.as_atom().map(Atom::name) {
            Some("explicit_unalias") => mode = AliasMode::Explicit,
            Some("reply") => mode = AliasMode::Reply,
            _ => return Err(badarg()),
        }
    }
    let r = cx.proc.make_ref();
    cx.proc.aliases.push((r, mode));
    Ok(Term::Ref(r))
}

fn unalias(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Ref(r) = &a[0] else {
        return Err(badarg());
    };
    let before = cx.proc.aliases.len();
    cx.proc.aliases.retain(|(x, _)| x != r);
    Ok(Term::bool(cx.proc.aliases.len() != before))
}

/// `monitor(process, Target, Options)`: `monitor/2` whose reference may also
/// be an alias.
fn monitor3(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let mut mode = None;
    for o in a[2].to_vec().ok_or_else(badarg)? {
        match o.as_tuple() {
            Some([k, v]) if k.as_atom().map(Atom::name) == Some("alias") => {
                mode = Some(match v.as_atom().map(Atom::name) {
                    Some("explicit_unalias") => AliasMode::Explicit,
                    Some("demonitor") => AliasMode::Demonitor,
                    Some("reply_demonitor") => AliasMode::ReplyDemonitor,
                    _ => return Err(badarg()),
                })
            }
            Some([k, _]) if k.as_atom().map(Atom::name) == Some("tag") => {
                return Err(Fault::Unsupported(
                    "erlang:monitor/3 with the {tag, Tag} option is not implemented by trace"
                        .into(),
                ))
            }
            _ => return Err(badarg()),
        }
    }
    let r = monitor(cx, &a[..2])?;
    // As on BEAM: monitoring oneself makes no alias either.
    let on_self = matches!(&a[1], Term::Pid(p) if *p == cx.proc.pid);
    if let (Some(mode), Term::Ref(x), false) = (mode, &r, on_self) {
        // The monitor may already have fired ('DOWN' with noproc, taken at
        // once): a demonitor alias then never becomes active.
        let down = matches!(mode, AliasMode::Demonitor | AliasMode::ReplyDemonitor)
            && !cx.proc.monitors.iter().any(|(m, _)| m == x);
        if !down {
            cx.proc.aliases.push((*x, mode));
            if mode == AliasMode::ReplyDemonitor {
                cx.proc.reply_demonitors.push(*x);
            }
        }
    }
    Ok(r)
}
