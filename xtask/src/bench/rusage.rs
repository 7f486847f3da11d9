//! Running a command to completion and reading what the kernel reports when
//! the process is reaped: its peak memory (maximum resident set) and the CPU
//! time it used.

use crate::erl::RunResult;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a finished process used.
#[derive(Copy, Clone, Debug, Default)]
pub struct Usage {
    /// Peak resident set, kilobytes.
    pub peak_kb: Option<u64>,
    /// User plus system CPU seconds, all threads.
    pub cpu: f64,
}

/// Runs `cmd` (killed after `limit`), capturing both streams; returns the
/// result and what the process used.
pub fn run_peak(mut cmd: Command, limit: Duration) -> std::io::Result<(RunResult, Usage)> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            while start.elapsed() < limit {
                if done.load(Ordering::Acquire) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !done.load(Ordering::Acquire) {
                // SAFETY: plain syscall; the child is not reaped yet (only
                // wait4 below reaps it, and it sets `done` first thing after).
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        })
    };
    let mut status: libc::c_int = 0;
    // SAFETY: zeroed rusage is a valid value for the kernel to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    done.store(true, Ordering::Release);
    let elapsed = start.elapsed();
    let _ = watchdog.join();
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let code = if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    drop(child);
    let result = RunResult {
        stdout: reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        status: code,
        elapsed,
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok((
        result,
        Usage {
            peak_kb: u64::try_from(usage.ru_maxrss).ok(),
            cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        },
    ))
}
