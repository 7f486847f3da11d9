//! The Erlang VM's own tracing, beside `trace record`: each message-bound
//! benchmark program runs on erl plain and with dbg tracing its sends,
//! receives and process events (spawn, exit, link) to a file through the
//! file trace port, which is what ttb does and the cheapest way OTP offers
//! to keep such a trace. The table puts that overhead, and the trace file's
//! size, next to what recording costs on the engine in the same session.
//!
//! erl's times are taken inside the VM (`timer:tc`, boot left out; the
//! traced time includes starting the tracer and flushing it), the engine's
//! are whole `trace` processes (load and compile included).

use super::programs::{self, Spec};
use super::table::{secs, Table};
use crate::erl::{self, Scratch};

/// What the engine did for one program in the record table.
pub struct Recorded {
    pub name: String,
    pub run: f64,
    pub record: f64,
    pub events: u64,
    pub log_bytes: u64,
}

/// Prints the comparison for `rows` (erl must be on the PATH). Without
/// dbg (an erl installed without its runtime tools) it says so and skips
/// the table.
pub fn print(rows: &[Recorded], runs: usize) -> Result<(), String> {
    if !dbg_available() {
        eprintln!(
            "bench record: erl has no dbg module, so the VM's tracing is not measured \
             (Debian: apt-get install erlang-runtime-tools, part of erlang-nox)"
        );
        return Ok(());
    }
    let scratch = Scratch::new("bench-vm-tracing");
    let trace_file = scratch.0.join("run.dbg");
    let mut t = Table::new(&[
        "program",
        "erl",
        "erl + dbg trace",
        "VM tracing overhead",
        "trace records",
        "trace file",
        "bytes/record",
        "trace run",
        "trace record",
        "recording overhead",
        "bytes/event",
    ]);
    for r in rows {
        let src = programs::dir().join(format!("{}.erl", r.name));
        erl::compile(std::slice::from_ref(&src), &scratch.0)?;
        let spec = Spec {
            name: &r.name,
            args: "",
            trace_flags: &[],
            erl_flags: programs::erl_flags(&r.name),
        };
        let (mut plain, mut traced) = (f64::MAX, f64::MAX);
        // Alternated, so that a change in the machine's load hits both.
        for _ in 0..runs {
            plain = plain.min(programs::run_erl(spec, &scratch.0, None)?.0);
            traced = traced.min(programs::run_erl(spec, &scratch.0, Some(&trace_file))?.0);
        }
        let bytes = std::fs::metadata(&trace_file)
            .map_err(|e| format!("{}: {e}", trace_file.display()))?
            .len();
        let records = count_records(&std::fs::read(&trace_file).map_err(|e| e.to_string())?)
            .ok_or_else(|| format!("{}: not a dbg trace-port file", trace_file.display()))?;
        let per = |b: u64, n: u64| {
            if n > 0 {
                format!("{:.2}", b as f64 / n as f64)
            } else {
                "-".into()
            }
        };
        t.row(vec![
            r.name.clone(),
            secs(Some(plain)),
            secs(Some(traced)),
            overhead(plain, traced),
            records.to_string(),
            format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64),
            per(bytes, records),
            secs(Some(r.run)),
            secs(Some(r.record)),
            overhead(r.run, r.record),
            per(r.log_bytes, r.events),
        ]);
    }
    t.print();
    Ok(())
}

/// Whether erl finds dbg (Debian ships it apart, in erlang-runtime-tools).
fn dbg_available() -> bool {
    std::process::Command::new("erl")
        .args(["-noshell", "-eval"])
        .arg("erlang:halt(case code:which(dbg) of non_existing -> 1; _ -> 0 end).")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn overhead(base: f64, with: f64) -> String {
    format!("{:+.1}%", (with / base - 1.0) * 100.0)
}

/// Records of a file written by dbg's file trace port: each is a 0 byte, a
/// 32-bit big-endian length and that many bytes of a `term_to_binary`.
fn count_records(file: &[u8]) -> Option<u64> {
    let mut at = 0usize;
    let mut n = 0u64;
    while at < file.len() {
        let head = file.get(at..at + 5)?;
        if head[0] != 0 {
            return None;
        }
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        at = at.checked_add(5 + len)?;
        n += 1;
    }
    (at == file.len()).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::count_records;

    #[test]
    fn counts_trace_port_records_and_rejects_other_bytes() {
        let mut f = vec![0, 0, 0, 0, 2, 131, 106];
        f.extend_from_slice(&[0, 0, 0, 0, 0]);
        assert_eq!(count_records(&f), Some(2));
        assert_eq!(count_records(&[]), Some(0));
        assert_eq!(count_records(&f[..6]), None);
        assert_eq!(count_records(&[1, 0, 0, 0, 0]), None);
    }
}
