use std::time::Instant;
use trace_format::{EventRef, LogReader};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let r = LogReader::open(&path).unwrap();
        let v = r
            .par_map_blocks(|ev| {
                let mut n = 0u64;
                let mut k = [0u64; 10];
                let mut digest = 0u64;
                let mut pl = 0u64;
                for e in ev {
                    n += 1;
                    pl += e.payload_len() as u64;
                    let (i, x) = match e {
                        EventRef::Spawn { child, pid, .. } => (0, child.0 as u64 ^ pid),
                        EventRef::Send { msg, .. } => (1, msg.index),
                        EventRef::Deliver { msg } => (2, msg.index ^ msg.sender.0 as u64),
                        EventRef::Receive { msg } => (3, msg.index ^ msg.sender.0 as u64),
                        EventRef::Timeout => (4, 0),
                        EventRef::Signal { signal, .. } => (5, signal.index),
                        EventRef::SignalTaken { signal, .. } => {
                            (6, signal.index ^ signal.sender.0 as u64)
                        }
                        EventRef::Nondet { value, .. } => (7, value.len() as u64),
                        EventRef::Output { seq, .. } => (8, seq),
                        EventRef::Exit { .. } => (9, 0),
                    };
                    k[i] += 1;
                    digest = digest.rotate_left(5) ^ x;
                }
                (n, digest, pl, k)
            })
            .unwrap();
        let n: u64 = v.iter().map(|x| x.0).sum();
        let el = t.elapsed();
        eprintln!(
            "bench-like consumer: {:.1} M/s",
            n as f64 / el.as_secs_f64() / 1e6
        );
    }
}
