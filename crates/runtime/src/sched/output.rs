//! Standard output of the program. Writes from all processes go through one
//! lock, and each gets a position (`seq`): the order of writes across
//! processes is a nondeterministic choice, recorded so that replay prints the
//! same bytes in the same order.

use std::io::Write;
use std::sync::Mutex;
use trace_term::Pid;

struct State {
    w: Box<dyn Write + Send>,
    seq: u64,
    failed: bool,
    /// Processes waiting for their write's turn (replay): woken by the
    /// next write, so a turn that never comes leaves them blocked (and the
    /// run reports them) instead of retrying forever.
    waiting: Vec<Pid>,
}

pub struct Output {
    state: Mutex<State>,
}

impl Output {
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output {
            state: Mutex::new(State {
                w,
                seq: 0,
                failed: false,
                waiting: Vec::new(),
            }),
        }
    }

    /// Writes `bytes` if the write's turn has come (`at` = required position,
    /// `None` = any): the position it got and the processes to wake (their
    /// turn may have come). Otherwise `who` waits for the next write.
    pub fn write(&self, at: Option<u64>, bytes: &[u8], who: Pid) -> Option<(u64, Vec<Pid>)> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(want) = at {
            if want != s.seq {
                if !s.waiting.contains(&who) {
                    s.waiting.push(who);
                }
                return None;
            }
        }
        let seq = s.seq;
        s.seq += 1;
        if !s.failed && s.w.write_all(bytes).is_err() {
            // A closed stdout (e.g. piped into `head`) must not crash the run.
            s.failed = true;
        }
        Some((seq, std::mem::take(&mut s.waiting)))
    }

    /// The number of writes so far.
    pub fn count(&self) -> u64 {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).seq
    }

    pub fn flush(&self) {
        let _ = self
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .w
            .flush();
    }
}
