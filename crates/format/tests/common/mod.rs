//! Shared by the integration tests: temporary files, tiny ETF terms, and
//! sample logs that are causally consistent (every receive names a real send).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use trace_format::{
    Dest, Event, Header, LogWriter, MsgId, Outcome, Payload, ProcId, ProcessLog, WriterOptions,
};
use trace_term::Term;

/// A fresh path in the system temp dir, removed when dropped.
pub struct TempPath(pub PathBuf);

impl TempPath {
    pub fn new(name: &str) -> TempPath {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "trace-format-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempPath(dir.join(name))
    }

    pub fn dir(&self) -> PathBuf {
        self.0.parent().unwrap().to_path_buf()
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.dir());
    }
}

/// ETF of an atom.
pub fn atom(name: &str) -> Vec<u8> {
    trace_term::etf::to_vec(&Term::atom(name))
}

/// ETF of `{Tag, N}`.
pub fn tagged(tag: &str, n: u8) -> Vec<u8> {
    trace_term::etf::to_vec(&Term::tuple(vec![Term::atom(tag), Term::int(n as i64)]))
}

pub fn header() -> Header {
    Header {
        recorder: "trace-format tests".into(),
        engine: "none".into(),
        entry: "ring:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: 80,
        ..Default::default()
    }
}

/// A ring of `n` processes: process 0 spawns the others, then a token goes
/// round `laps` times; everyone exits. Deterministic and consistent.
pub fn ring(n: u32, laps: u32, payloads: bool) -> Vec<ProcessLog> {
    let mut logs: Vec<ProcessLog> = (0..n)
        .map(|i| ProcessLog {
            id: ProcId(i),
            pid: 80 + i as u64,
            parent: (i > 0).then_some(ProcId(0)),
            events: Vec::new(),
        })
        .collect();
    for i in 1..n {
        logs[0].events.push(Event::Spawn {
            child: ProcId(i),
            pid: 80 + i as u64,
            link: i % 3 == 0,
            monitor: i % 5 == 0,
        });
    }
    let mut sent = vec![0u64; n as usize];
    let mut holder = 0u32;
    for k in 0..laps * n {
        let next = (holder + 1) % n;
        let payload = payloads.then(|| Payload(tagged("token", (k % 200) as u8)));
        logs[holder as usize].events.push(Event::Send {
            to: Dest::Proc(ProcId(next)),
            payload,
        });
        let msg = MsgId {
            sender: ProcId(holder),
            index: sent[holder as usize],
        };
        sent[holder as usize] += 1;
        logs[next as usize].events.push(Event::Receive { msg });
        holder = next;
    }
    for l in &mut logs {
        l.events.push(Event::Exit {
            reason: payloads.then(|| Payload(atom("normal"))),
        });
    }
    logs
}

/// Writes `logs` with the writer, one process after another, and finishes.
pub fn write(
    path: &std::path::Path,
    logs: &[ProcessLog],
    opts: WriterOptions,
) -> trace_format::Summary {
    let w = LogWriter::create(path, header(), opts).unwrap();
    w.write_logs(logs);
    w.finish(Outcome::default()).unwrap()
}
