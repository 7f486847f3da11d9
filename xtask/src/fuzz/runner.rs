//! Runs the `trace` binary on one case with a time limit and a memory cap,
//! and says how it ended: its status, or a signal (a crash), or killed at the
//! limit (a hang) or over the cap (unbounded memory); with its peak RSS.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum End {
    Exit(i32),
    Signal(i32),
    /// Killed at the time limit.
    Hang,
    /// Killed when its resident set passed the cap.
    OverMemory,
}

impl End {
    /// A defect: a panic (status 101), a crash, a hang or unbounded memory.
    pub fn is_defect(self) -> bool {
        !matches!(self, End::Exit(c) if c != 101)
    }
}

pub struct Run {
    pub end: End,
    /// Peak resident set, kilobytes.
    pub peak_kb: u64,
}

/// Runs `bin ARGS` in `dir`, stdout discarded (a dump may be large), stderr
/// into `dir/stderr`.
pub fn run(bin: &Path, args: &[String], dir: &Path, limit: Duration, cap_kb: u64) -> Run {
    let stderr = std::fs::File::create(dir.join("stderr")).expect("stderr file");
    // Reaped by wait4 below, which also gives its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("start trace");
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut peak_kb = 0;
    let mut killed = None;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: zeroed rusage is a valid value for the kernel to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: polls our own child; the pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            // The kernel's peak counts what the child had before exec (a copy
            // of this process): trust it only when sampling saw nothing.
            if peak_kb == 0 {
                peak_kb = usage.ru_maxrss.max(0) as u64;
            }
            let end = match killed {
                Some(k) => k,
                None if libc::WIFEXITED(status) => End::Exit(libc::WEXITSTATUS(status)),
                None => End::Signal(libc::WTERMSIG(status)),
            };
            return Run { end, peak_kb };
        }
        if killed.is_none() {
            if let Some(kb) = hwm_kb(pid) {
                peak_kb = peak_kb.max(kb);
            }
            let over = if start.elapsed() > limit {
                Some(End::Hang)
            } else if peak_kb > cap_kb {
                Some(End::OverMemory)
            } else {
                None
            };
            if let Some(k) = over {
                // SAFETY: plain syscall on our own child, not yet reaped.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                killed = Some(k);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The peak resident set of a running process, from `/proc` (once it has
/// exec'd: before, it is a copy of this one).
fn hwm_kb(pid: libc::pid_t) -> Option<u64> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    if std::env::current_exe().is_ok_and(|me| me == exe) {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
