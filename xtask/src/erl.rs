//! Running programs on the real Erlang VM and on the engine, with a time
//! limit, for conformance and fixture generation.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run printed and how it ended.
#[derive(Debug)]
pub struct RunResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// `None` when it was killed at the time limit (or by a signal).
    pub status: Option<i32>,
    pub elapsed: Duration,
    /// Peak resident memory of the process, in bytes.
    pub peak_rss: u64,
}

/// Runs `cmd` to completion or until `limit`, capturing both streams.
pub fn run_limited(mut cmd: Command, limit: Duration) -> std::io::Result<RunResult> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
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
    let pid = child.id() as libc::pid_t;
    let mut killed = false;
    // wait4 rather than Child::try_wait: it also reports the peak memory.
    let (status, peak_rss) = loop {
        let mut raw = 0;
        // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut raw, libc::WNOHANG, &mut usage) };
        if r == pid {
            let code = libc::WIFEXITED(raw).then(|| libc::WEXITSTATUS(raw));
            break (code.filter(|_| !killed), usage.ru_maxrss as u64 * 1024);
        }
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if !killed && start.elapsed() > limit {
            let _ = child.kill();
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let elapsed = start.elapsed();
    Ok(RunResult {
        stdout: reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        status,
        elapsed,
        peak_rss,
    })
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
    let mut cmd = Command::new("erlc");
    cmd.arg("-o").arg(out);
    for f in files {
        if let Some(dir) = f.parent() {
            cmd.arg("-I").arg(dir);
        }
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

/// The release `trace` binary, built first.
pub fn trace_binary() -> Result<PathBuf, String> {
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
