//! `io`: formatted output to standard output (through the run's ordered
//! output, see [`crate::sched::output`]) or standard error. The text itself
//! is built as `io_lib` builds it (see [`super::io_lib`]). `erlang:display/1`
//! writes through the same ordered output, in BEAM's own format
//! ([`trace_term::display`]).

use super::{Builder, Ctx};
use crate::exception::{badarg, BifResult, Fault};
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    b.proc("erlang", "display", 1, display, 0);
    {
        let m = "io";
        b.proc(
            m,
            "format",
            1,
            |cx, a| fmt_out(cx, None, &a[0], &Term::Nil),
            0,
        );
        b.proc(m, "format", 2, |cx, a| fmt_out(cx, None, &a[0], &a[1]), 0);
        b.proc(
            m,
            "format",
            3,
            |cx, a| fmt_out(cx, Some(&a[0]), &a[1], &a[2]),
            0,
        );
        b.proc(
            m,
            "fwrite",
            1,
            |cx, a| fmt_out(cx, None, &a[0], &Term::Nil),
            0,
        );
        b.proc(m, "fwrite", 2, |cx, a| fmt_out(cx, None, &a[0], &a[1]), 0);
        b.proc(
            m,
            "fwrite",
            3,
            |cx, a| fmt_out(cx, Some(&a[0]), &a[1], &a[2]),
            0,
        );
        b.proc(m, "put_chars", 1, |cx, a| put_chars(cx, None, &a[0]), 0);
        b.proc(
            m,
            "put_chars",
            2,
            |cx, a| put_chars(cx, Some(&a[0]), &a[1]),
            0,
        );
        b.proc(m, "nl", 0, |cx, _| write_dev(cx, None, "\n"), 0);
        b.proc(m, "nl", 1, |cx, a| write_dev(cx, Some(&a[0]), "\n"), 0);
        b.proc(
            m,
            "write",
            1,
            |cx, a| write_dev(cx, None, &trace_term::print::write_term(&a[0])),
            0,
        );
        b.proc(
            m,
            "write",
            2,
            |cx, a| write_dev(cx, Some(&a[0]), &trace_term::print::write_term(&a[1])),
            0,
        );
        // Standard output is not a terminal here, as under `erl -noshell`
        // with its output piped.
        b.pure(m, "columns", 0, |_| Ok(enotsup()), 0);
        b.pure(m, "columns", 1, |_| Ok(enotsup()), 0);
        b.pure(m, "rows", 0, |_| Ok(enotsup()), 0);
        b.pure(m, "rows", 1, |_| Ok(enotsup()), 0);
        b.pure(m, "printable_range", 0, |_| Ok(Term::Atom(atom::LATIN1)), 0);
    }
}

fn enotsup() -> Term {
    Term::tuple(vec![Term::Atom(atom::ERROR), Term::atom("enotsup")])
}

/// Formats `fmt` (a string, binary or atom) with `args` (a list) as io_lib:format does.
pub fn format(fmt: &Term, args: &Term) -> Result<String, Fault> {
    let args = args.to_vec().ok_or_else(badarg)?;
    crate::bif::terms::io_format(fmt, &args)
}

/// The characters of `s` as a latin1 device writes them: one byte per
/// character below 256, `\x{H}` for the others.
pub fn latin1_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let u = c as u32;
        if u < 256 {
            out.push(u as u8);
        } else {
            out.extend_from_slice(format!("\\x{{{u:X}}}").as_bytes());
        }
    }
    out
}

enum Device {
    Stdout,
    Stderr,
}

fn device(d: Option<&Term>) -> Result<Device, Fault> {
    match d {
        None => Ok(Device::Stdout),
        Some(Term::Atom(a)) if a.name() == "standard_io" || a.name() == "user" => {
            Ok(Device::Stdout)
        }
        Some(Term::Atom(a)) if a.name() == "standard_error" => Ok(Device::Stderr),
        Some(Term::Pid(p)) if p.number() == 0 => Ok(Device::Stdout),
        _ => Err(badarg()),
    }
}

fn write_dev(cx: &mut Ctx, d: Option<&Term>, text: &str) -> BifResult {
    let bytes = latin1_bytes(text);
    // The group leader stands for standard output (an application master
    // is the group leader of its application's processes, as in OTP).
    let d = match d {
        Some(Term::Pid(p)) if *p == cx.proc.group_leader => None,
        other => other,
    };
    match device(d)? {
        Device::Stdout => {
            cx.output(&bytes)?;
            // On BEAM a write is a request to the group leader's io server
            // and a wait for its reply: the writer stops and the processes
            // queued behind it run. Ending the slice here keeps the default
            // schedule close to BEAM's for the programs that print (their
            // output interleaves across processes as erl's does).
            Err(Fault::Yield(Term::Atom(atom::OK)))
        }
        Device::Stderr => {
            use std::io::Write;
            let _ = std::io::stderr().write_all(&bytes);
            Ok(Term::Atom(atom::OK))
        }
    }
}

/// `erlang:display/1`: BEAM's own printer, and the `\r\n` it ends the line with.
fn display(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let mut bytes = trace_term::display::display(&a[0]);
    bytes.extend_from_slice(b"\r\n");
    cx.output(&bytes)?;
    Ok(Term::TRUE)
}

fn fmt_out(cx: &mut Ctx, d: Option<&Term>, fmt: &Term, args: &Term) -> BifResult {
    let s = format(fmt, args)?;
    write_dev(cx, d, &s)
}

fn put_chars(cx: &mut Ctx, d: Option<&Term>, chars: &Term) -> BifResult {
    let s = crate::bif::terms::chardata_to_string(chars).ok_or_else(badarg)?;
    write_dev(cx, d, &s)
}
