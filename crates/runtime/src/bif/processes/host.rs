//! What a program asks of the system it runs on: `erlang:system_info/1`
//! and the environment (`os:getenv/0,1,2`). The engine answers as an OTP 25
//! node would where the answer is fixed (release, word size, limits). What
//! depends on the host or on the moment (processors, schedulers, how many
//! processes and tables there are, environment variables) is a
//! nondeterministic result: a recording logs it and a replay forces it.

use crate::bif::{Builder, Ctx};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::NondetBif;
use trace_term::{atom, Term};

/// BEAM's default limits, which the engine does not enforce but reports.
const PROCESS_LIMIT: i64 = 262_144;
const ATOM_LIMIT: i64 = 1_048_576;
const PORT_LIMIT: i64 = 65_536;
const ETS_LIMIT: i64 = 8_192;

pub fn register(b: &mut Builder) {
    b.proc("erlang", "system_info", 1, system_info, 0);
    b.proc("os", "getenv", 0, |cx, _| environment(cx), 0);
    b.proc(
        "os",
        "getenv",
        1,
        |cx, a| getenv(cx, &a[0], Term::Atom(atom::FALSE)),
        0,
    );
    b.proc(
        "os",
        "getenv",
        2,
        |cx, a| getenv(cx, &a[0], a[1].clone()),
        0,
    );
}

/// `os:getenv/0`: every variable as `"NAME=VALUE"`.
fn environment(cx: &mut Ctx) -> BifResult {
    let vars = std::env::vars_os()
        .map(|(k, v)| {
            let mut kv = k.to_string_lossy().into_owned();
            kv.push('=');
            kv.push_str(&v.to_string_lossy());
            Term::string(&kv)
        })
        .collect();
    cx.nondet(NondetBif::Other("getenv"), Term::list(vars))
}

/// `os:getenv(Name)`: the value, or `default` when it is not set.
fn getenv(cx: &mut Ctx, name: &Term, default: Term) -> BifResult {
    let name = crate::bif::terms::list_to_string(name).ok_or_else(badarg)?;
    if name.contains(['=', '\0']) {
        return Err(badarg());
    }
    let v = std::env::var_os(&name).map_or(default, |v| Term::string(&v.to_string_lossy()));
    cx.nondet(NondetBif::Other("getenv"), v)
}

fn system_info(cx: &mut Ctx, a: &[Term]) -> BifResult {
    if let Some(v) = fixed(&a[0]) {
        return Ok(v);
    }
    let item = match &a[0] {
        Term::Atom(item) => item.name(),
        _ => return Err(badarg()),
    };
    let v = match item {
        "schedulers"
        | "schedulers_online"
        | "dirty_cpu_schedulers"
        | "dirty_cpu_schedulers_online" => Term::Int(cx.rt.opts.schedulers as i64),
        "logical_processors" | "logical_processors_available" | "logical_processors_online" => {
            Term::Int(crate::sched::processors() as i64)
        }
        "process_count" => Term::Int(cx.rt.table.live_pids().len() as i64),
        "ets_count" => Term::Int(cx.rt.ets.all().len() as i64),
        "system_architecture" => Term::string(&architecture()),
        other => {
            return Err(Fault::Unsupported(format!(
                "erlang:system_info({other}) is not supported by trace"
            )))
        }
    };
    cx.nondet(NondetBif::Other("system_info"), v)
}

/// The host's triple as OTP names it (`x86_64-pc-linux-gnu`,
/// `aarch64-unknown-linux-gnu`).
fn architecture() -> String {
    let arch = std::env::consts::ARCH;
    let vendor = if arch == "x86_64" { "pc" } else { "unknown" };
    format!("{arch}-{vendor}-{}-gnu", std::env::consts::OS)
}

/// The answers that are the same on every host and at every moment.
fn fixed(item: &Term) -> Option<Term> {
    let s = |text: &str| Term::string(text);
    Some(match item {
        Term::Atom(a) => match a.name() {
            "otp_release" => s("25"),
            "version" => s("13.1"),
            "system_version" => s("Erlang/OTP 25 [erts-13.1] [trace] [64-bit] [smp]\n"),
            "machine" => s("BEAM"),
            "wordsize" => Term::Int(8),
            "process_limit" => Term::Int(PROCESS_LIMIT),
            "atom_limit" => Term::Int(ATOM_LIMIT),
            "port_limit" => Term::Int(PORT_LIMIT),
            "ets_limit" => Term::Int(ETS_LIMIT),
            "port_count" => Term::Int(0),
            "thread_pool_size" => Term::Int(1),
            "smp_support" | "threads" => Term::Atom(atom::TRUE),
            _ => return None,
        },
        Term::Tuple(t) => match t.elements() {
            [Term::Atom(w), Term::Atom(k)]
                if w.name() == "wordsize" && matches!(k.name(), "internal" | "external") =>
            {
                Term::Int(8)
            }
            _ => return None,
        },
        _ => return None,
    })
}
