//! A headless Chromium driven over the DevTools protocol, through the pipe
//! `--remote-debugging-pipe` opens (file descriptors 3 and 4 of the
//! browser: commands in, replies and events out, each a JSON text ended by
//! a NUL byte). No websocket, no library: a request, its reply, and the
//! events that came in between, kept for the caller to read.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one command may take before the browser is deemed stuck.
const REPLY_LIMIT: Duration = Duration::from_secs(90);

/// The flags this machine's Chromium needs to start headless as root in a
/// closed network (docs/view.md).
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
];

pub struct Browser {
    child: Child,
    to: std::fs::File,
    from: Receiver<Value>,
    next_id: u64,
    /// Events received and not yet taken.
    pub events: Vec<Value>,
    session: Option<String>,
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // Close-on-exec: the browser gets only the two ends dup2 gives it.
    // SAFETY: `fds` has room for the two descriptors pipe2(2) writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2(2) just opened both; nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl Browser {
    /// Starts `chromium` with a fresh profile in `profile`, a window of
    /// `width` x `height`, and attaches to a blank page.
    pub fn start(
        chromium: &Path,
        profile: &Path,
        width: u32,
        height: u32,
    ) -> Result<Browser, String> {
        let (cmd_read, cmd_write) = pipe().map_err(|e| format!("pipe: {e}"))?;
        let (out_read, out_write) = pipe().map_err(|e| format!("pipe: {e}"))?;
        let (r3, w4) = (raw(&cmd_read), raw(&out_write));
        let mut c = Command::new(chromium);
        c.args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: between fork and exec only async-signal-safe calls. The
        // ends are first copied above 4, so that placing one cannot
        // overwrite the other; dup2 leaves 3 and 4 open across exec.
        unsafe {
            c.pre_exec(move || {
                let a = libc::fcntl(r3, libc::F_DUPFD_CLOEXEC, 10);
                let b = libc::fcntl(w4, libc::F_DUPFD_CLOEXEC, 10);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = c
            .spawn()
            .map_err(|e| format!("{}: {e}", chromium.display()))?;
        drop(cmd_read);
        drop(out_write);
        let (tx, rx) = channel();
        let reader = std::fs::File::from(out_read);
        std::thread::spawn(move || {
            let mut r = BufReader::new(reader);
            let mut buf = Vec::new();
            while let Ok(n) = r.read_until(0, &mut buf) {
                if n == 0 {
                    break;
                }
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                    if tx.send(v).is_err() {
                        break;
                    }
                }
                buf.clear();
            }
        });
        let mut b = Browser {
            child,
            to: std::fs::File::from(cmd_write),
            from: rx,
            next_id: 0,
            events: Vec::new(),
            session: None,
        };
        b.attach()?;
        Ok(b)
    }

    fn attach(&mut self) -> Result<(), String> {
        let t = self.call("Target.createTarget", json!({ "url": "about:blank" }))?;
        let target = t["targetId"].as_str().ok_or("no target id")?.to_string();
        let s = self.call(
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        )?;
        self.session = Some(s["sessionId"].as_str().ok_or("no session id")?.to_string());
        for domain in ["Page", "Runtime", "Log", "Network"] {
            self.call(&format!("{domain}.enable"), json!({}))?;
        }
        Ok(())
    }

    /// Sends a command (to the page once attached) and waits for its reply.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = &self.session {
            msg["sessionId"] = s.clone().into();
        }
        let mut bytes = serde_json::to_vec(&msg).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .map_err(|e| format!("{method}: {e}"))?;
        let deadline = Instant::now() + REPLY_LIMIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(v) if v["id"].as_u64() == Some(id) => {
                    return match v.get("error") {
                        Some(e) => Err(format!("{method}: {e}")),
                        None => Ok(v["result"].clone()),
                    };
                }
                Ok(v) => self.events.push(v),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("{method}: no reply in {REPLY_LIMIT:?}"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{method}: the browser went away"))
                }
            }
        }
    }

    /// Waits until an event named `method` arrives (or was kept already).
    pub fn wait_event(&mut self, method: &str, limit: Duration) -> Result<Value, String> {
        if let Some(i) = self.events.iter().position(|e| e["method"] == method) {
            return Ok(self.events.remove(i));
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(v) if v["method"] == method => return Ok(v),
                Ok(v) => self.events.push(v),
                Err(_) => return Err(format!("no {method} in {limit:?}")),
            }
        }
    }

    /// The value of a JavaScript expression (promises awaited).
    pub fn eval(&mut self, expr: &str) -> Result<Value, String> {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!(
                "{expr}: {}",
                e["exception"]["description"]
                    .as_str()
                    .unwrap_or("exception")
            ));
        }
        Ok(r["result"]["value"].clone())
    }

    /// A left click at a point of the page, as a mouse makes it.
    pub fn click(&mut self, x: f64, y: f64) -> Result<(), String> {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )?;
        }
        Ok(())
    }

    /// Console errors, uncaught exceptions, error log entries and requests
    /// that left the file the page came from, seen so far.
    pub fn problems(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for e in self.events.drain(..) {
            let p = &e["params"];
            match e["method"].as_str() {
                Some("Runtime.exceptionThrown") => out.push(format!(
                    "uncaught: {}",
                    p["exceptionDetails"]["exception"]["description"]
                        .as_str()
                        .unwrap_or("?")
                )),
                Some("Runtime.consoleAPICalled")
                    if matches!(p["type"].as_str(), Some("error" | "assert" | "warning")) =>
                {
                    out.push(format!(
                        "console.{}: {}",
                        p["type"].as_str().unwrap_or(""),
                        p["args"]
                    ))
                }
                Some("Log.entryAdded") if p["entry"]["level"] == "error" => out.push(format!(
                    "log: {}",
                    p["entry"]["text"].as_str().unwrap_or("?")
                )),
                Some("Network.requestWillBeSent") => {
                    let url = p["request"]["url"].as_str().unwrap_or("");
                    if !(url.starts_with("file:")
                        || url.starts_with("data:")
                        || url.starts_with("about:"))
                    {
                        out.push(format!("network request: {url}"));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

fn raw(fd: &OwnedFd) -> RawFd {
    use std::os::fd::AsRawFd;
    fd.as_raw_fd()
}

impl Drop for Browser {
    fn drop(&mut self) {
        // A browser-wide command: not to the page's session.
        self.session = None;
        let _ = self.call("Browser.close", json!({}));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
