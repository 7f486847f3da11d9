//! Running programs on the real Erlang VM and on the engine, with a time
//! limit, for conformance, fixture generation and benchmarks (which also
//! read the peak memory and CPU time the kernel reports).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one run printed and how it ended.
#[derive(Debug)]
pub struct RunResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// `None` when it was killed at the time limit (or by a signal).
    pub status: Option<i32>,
    pub elapsed: Duration,
}

/// Runs `cmd` to completion or until `limit`, capturing both streams.
pub fn run_limited(cmd: Command, limit: Duration) -> std::io::Result<RunResult> {
    run_measured(cmd, limit).map(|(r, _)| r)
}

/// What a finished process used.
#[derive(Copy, Clone, Debug, Default)]
pub struct Usage {
    /// Peak resident set, kilobytes.
    pub peak_kb: Option<u64>,
    /// User plus system CPU seconds, all threads.
    pub cpu: f64,
}

/// Runs `cmd` to completion or until `limit` (then kills it), capturing both
/// streams; returns the result and what the kernel says the process used when
/// it was reaped (peak memory, CPU time).
pub fn run_measured(mut cmd: Command, limit: Duration) -> std::io::Result<(RunResult, Usage)> {
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
    let hwm = Arc::new(AtomicU64::new(0));
    let watchdog = {
        let done = done.clone();
        let hwm = hwm.clone();
        std::thread::spawn(move || {
            while start.elapsed() < limit {
                if done.load(Ordering::Acquire) {
                    return;
                }
                // The kernel's peak-RSS figure at reaping counts what a child
                // inherited from this process at fork; VmHWM, sampled while
                // the program runs, is the program's own (a fresh address
                // space starts at exec).
                if let Some(kb) = vm_hwm_kb(pid) {
                    hwm.fetch_max(kb, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
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
            peak_kb: match hwm.load(Ordering::Relaxed) {
                0 => u64::try_from(usage.ru_maxrss).ok(),
                kb => Some(kb),
            },
            cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        },
    ))
}

/// The peak resident set of a running process, from `/proc`.
fn vm_hwm_kb(pid: libc::pid_t) -> Option<u64> {
    // Until the child has exec'd it may still be a copy of this process.
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    if std::env::current_exe().is_ok_and(|me| me == exe) {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `erl` and `erlc` are on the PATH.
pub fn available() -> bool {
    ["erl", "erlc"].iter().all(|c| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {c}"))
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    })
}

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("trace-xtask-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The runner module's source, beside this crate.
fn runner_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("erl/trace_fixture_runner.erl")
}

/// Compiles `files` (and the fixture runner) into `out`.
pub fn compile(files: &[PathBuf], out: &Path) -> Result<(), String> {
    compile_with(files, &[], out)
}

/// [`compile`] with more include directories.
fn compile_with(files: &[PathBuf], includes: &[PathBuf], out: &Path) -> Result<(), String> {
    let mut cmd = Command::new("erlc");
    cmd.arg("-o").arg(out);
    for f in files {
        if let Some(dir) = f.parent() {
            cmd.arg("-I").arg(dir);
        }
    }
    for dir in includes {
        cmd.arg("-I").arg(dir);
    }
    cmd.args(files).arg(runner_source());
    let r = run_limited(cmd, Duration::from_secs(120)).map_err(|e| format!("erlc: {e}"))?;
    if r.status != Some(0) {
        return Err(format!(
            "erlc failed:\n{}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    Ok(())
}

/// Compiles a fixture for erl into `out`: its modules (a project's from
/// every application, with `-I` for its include directories and for
/// `-include_lib` of its own applications), and its application resource
/// files (`.app.src`) as the `.app` files erl's application controller reads.
pub fn compile_fixture(f: &trace_fixtures::Fixture, out: &Path) -> Result<(), String> {
    let files = if f.is_project() {
        trace_fixtures::project_sources(&f.files[0])
    } else {
        f.files.clone()
    };
    let mut includes = Vec::new();
    if f.is_project() {
        let apps = f.files[0].join("apps");
        includes.push(apps.clone());
        includes.push(f.files[0].join("include"));
        for app in std::fs::read_dir(&apps).into_iter().flatten().flatten() {
            includes.push(app.path().join("include"));
        }
    }
    compile_with(&files, &includes, out)?;
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(app) = name.strip_suffix(".app.src") {
                std::fs::copy(e.path(), out.join(format!("{app}.app")))
                    .map_err(|err| format!("{}: {err}", e.path().display()))?;
            }
        }
    }
    Ok(())
}

/// Runs `module:main()` under the fixture runner on the real VM.
pub fn run_fixture(module: &str, beams: &Path, limit: Duration) -> std::io::Result<RunResult> {
    let mut cmd = Command::new("erl");
    cmd.arg("-noshell")
        .arg("-pa")
        .arg(beams)
        .arg("-eval")
        .arg(format!("trace_fixture_runner:run('{module}')."));
    run_limited(cmd, limit)
}

/// The release `trace` binary, built first; `TRACE_BIN=/path/to/trace`
/// uses that binary as it is (to bench a build made elsewhere, or two builds
/// one after the other on a machine with no toolchain).
pub fn trace_binary() -> Result<PathBuf, String> {
    if let Some(bin) = std::env::var_os("TRACE_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let st = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args(["build", "--release", "--quiet", "-p", "trace-cli"])
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !st.success() {
        return Err("cargo build --release -p trace-cli failed".into());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release/trace"))
}
