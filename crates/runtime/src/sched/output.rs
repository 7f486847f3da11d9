//! Standard output of the program. Writes from all processes go through one
//! lock, and each gets a position (`seq`): the order of writes across
//! processes is a nondeterministic choice, recorded so that replay prints the
//! same bytes in the same order.

use std::io::Write;
use std::sync::Mutex;

struct State {
    w: Box<dyn Write + Send>,
    seq: u64,
    failed: bool,
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
            }),
        }
    }

    /// Writes `bytes` if the write's turn has come (`at` = required position,
    /// `None` = any); returns the position it got, or `None` to retry later.
    pub fn write(&self, at: Option<u64>, bytes: &[u8]) -> Option<u64> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(want) = at {
            if want != s.seq {
                return None;
            }
        }
        let seq = s.seq;
        s.seq += 1;
        if !s.failed && s.w.write_all(bytes).is_err() {
            // A closed stdout (e.g. piped into `head`) must not crash the run.
            s.failed = true;
        }
        Some(seq)
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
