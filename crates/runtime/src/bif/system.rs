//! The engine's stand-ins for the system services OTP's library modules
//! use, called only from the prelude (`trace_prelude:...`):
//!
//! - a run-wide store of terms (what OTP keeps in the application
//!   controller's and logger's tables: application environments, started
//!   applications, the logger's level, global names). Every read depends on
//!   what other processes wrote meanwhile, so it is a nondeterministic
//!   result the hooks see and a replay forces;
//! - reports written to stderr (`=ERROR REPORT==== time ===` and the like),
//!   beside the engine's own;
//! - the applications the program's `.app`/`.app.src` files describe;
//! - `erlang:hibernate/3` and the wait it ends with.

use super::{Builder, Ctx};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::NondetBif;
use crate::sched::signals;
use std::collections::HashMap;
use std::io::Write;
use trace_term::order::exact_eq;
use trace_term::{etf, Term};

pub fn register(b: &mut Builder) {
    let t = "trace_prelude";
    b.proc(t, "store_get", 1, store_get, 0);
    b.proc(t, "store_put", 2, store_put, 0);
    b.proc(t, "store_erase", 1, store_erase, 0);
    b.proc(t, "store_cas", 3, store_cas, 0);
    b.proc(t, "store_select", 1, store_select, 0);
    b.proc(t, "report", 2, report, 0);
    b.proc(
        t,
        "app_specs",
        0,
        |cx, _| Ok(Term::list(cx.program().apps.clone())),
        0,
    );
    b.proc(t, "await_message", 0, await_message, 0);
    b.pure(t, "unsupported", 1, unsupported, 0);
    b.proc("erlang", "hibernate", 3, hibernate, 0);
}

/// The run-wide store: terms by key (compared exactly, found through the
/// key's external term format), in the order they were first added.
#[derive(Default)]
pub struct Store {
    index: HashMap<Vec<u8>, usize>,
    /// Erased entries leave a hole, filled in when half the slots are holes.
    entries: Vec<Option<(Term, Term)>>,
    live: usize,
}

impl Store {
    fn get(&self, k: &Term) -> Option<&Term> {
        let i = *self.index.get(&etf::to_vec(k))?;
        self.entries[i].as_ref().map(|(_, v)| v)
    }

    fn put(&mut self, k: &Term, v: Term) {
        let key = etf::to_vec(k);
        match self.index.get(&key) {
            Some(&i) => self.entries[i] = Some((k.clone(), v)),
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push(Some((k.clone(), v)));
                self.live += 1;
            }
        }
    }

    fn erase(&mut self, k: &Term) {
        if let Some(i) = self.index.remove(&etf::to_vec(k)) {
            self.entries[i] = None;
            self.live -= 1;
            if self.live * 2 < self.entries.len() {
                self.compact();
            }
        }
    }

    fn compact(&mut self) {
        self.entries.retain(Option::is_some);
        self.index = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|(k, _)| (etf::to_vec(k), i)))
            .collect();
    }

    fn iter(&self) -> impl Iterator<Item = &(Term, Term)> {
        self.entries.iter().flatten()
    }
}

fn with_store<R>(cx: &Ctx, f: impl FnOnce(&mut Store) -> R) -> R {
    f(&mut cx.rt.store.lock().unwrap_or_else(|e| e.into_inner()))
}

/// `{ok, Value}` or `error`.
fn store_get(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let v = with_store(cx, |s| match s.get(&a[0]) {
        Some(v) => Term::tuple(vec![Term::OK, v.clone()]),
        None => Term::atom("error"),
    });
    cx.nondet(NondetBif::Other("store"), v)
}

fn store_put(cx: &mut Ctx, a: &[Term]) -> BifResult {
    cx.before_event()?;
    with_store(cx, |s| s.put(&a[0], a[1].clone()));
    Ok(Term::OK)
}

fn store_erase(cx: &mut Ctx, a: &[Term]) -> BifResult {
    cx.before_event()?;
    with_store(cx, |s| s.erase(&a[0]));
    Ok(Term::OK)
}

/// `store_cas(Key, Old, New)`: sets the key to `New` if its value is now
/// `Old` (`{ok, Value}`, or `error` for no value), in one step, so that of
/// two processes racing for a key one wins; whether it did.
fn store_cas(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let expected = match a[1].as_tuple() {
        Some([ok, v]) if ok.is_atom(trace_term::atom::OK) => Some(v.clone()),
        _ if a[1].is_atom(trace_term::atom::ERROR) => None,
        _ => return Err(badarg()),
    };
    cx.before_event()?;
    let swapped = with_store(cx, |s| {
        let same = match (s.get(&a[0]), &expected) {
            (None, None) => true,
            (Some(x), Some(y)) => exact_eq(x, y),
            _ => false,
        };
        if same {
            s.put(&a[0], a[2].clone());
        }
        same
    });
    cx.decide(NondetBif::Other("store"), Term::bool(swapped))
}

/// Every `{Key, Value}` whose key is a tuple starting with `Tag`, in the
/// order they were first added.
fn store_select(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let v = with_store(cx, |s| {
        Term::list(
            s.iter()
                .filter(|(k, _)| matches!(k.as_tuple(), Some([t, ..]) if exact_eq(t, &a[0])))
                .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
                .collect(),
        )
    });
    cx.nondet(NondetBif::Other("store"), v)
}

/// Writes `=Header==== time ===\nBody` to stderr (the engine's reports go
/// there; program output stays on stdout).
fn report(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let header = chars(&a[0])?;
    let body = chars(&a[1])?;
    if cx.rt.opts.reports {
        let _g = cx.rt.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let now = super::erlang::local_time_string();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "={header}==== {now} ===\n{body}");
        let _ = err.flush();
    }
    // On BEAM, formatting a report and handing it to the logger takes more
    // than a slice of reductions: the reporter (a supervisor about to
    // restart a child, say) is preempted there, and the processes queued
    // behind it run first. Ending the slice keeps that order.
    Err(Fault::Yield(Term::OK))
}

/// The text of a report part: an atom, or characters as `~ts` takes them.
fn chars(t: &Term) -> Result<String, Fault> {
    if let Term::Atom(a) = t {
        return Ok(a.name().to_string());
    }
    super::terms::chardata_to_string(t).ok_or_else(badarg)
}

/// Stops the run: the prelude met something the engine does not support
/// (an option, a callback feature); the text names it.
fn unsupported(a: &[Term]) -> BifResult {
    Err(Fault::Unsupported(format!(
        "{} is not supported by trace",
        chars(&a[0])?
    )))
}

/// `erlang:hibernate(M, F, Args)`: the process keeps its state as it is
/// (the engine has no heap to shrink) but loses its stack, and goes on in
/// `M:F(Args)` once a message is in its mailbox.
fn hibernate(_cx: &mut Ctx, a: &[Term]) -> BifResult {
    let (Term::Atom(m), Term::Atom(f)) = (&a[0], &a[1]) else {
        return Err(badarg());
    };
    let args = a[2].to_vec().ok_or_else(badarg)?;
    Err(Fault::Hibernate(*m, *f, args))
}

/// Returns once the mailbox holds a message (the wake-up of a hibernating
/// process); waits otherwise.
fn await_message(cx: &mut Ctx, _: &[Term]) -> BifResult {
    cx.before_event()?;
    signals::drain(cx.proc, cx.rt, cx.wk);
    if cx.proc.kill.is_some() {
        return Err(Fault::Yield(Term::TRUE));
    }
    if cx.proc.mailbox.is_empty() {
        return Err(Fault::Block);
    }
    Ok(Term::TRUE)
}
