//! Opens a log and decodes every event, timing each step: for profiling
//! the reader (`cargo run --release --example decode_log -- LOG`). As
//! `cargo xtask bench log` decodes, it asks for nothing by process (which a
//! reader builds on first use).

use std::time::Instant;
use trace_format::LogReader;

fn main() {
    let path = std::env::args().nth(1).expect("usage: decode_log LOG");
    let t = Instant::now();
    let r = LogReader::open(&path).expect("open");
    let opened = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let n: usize = r
        .par_fold_blocks(|| 0, |n, ev| *n += ev.count())
        .expect("decode")
        .into_iter()
        .sum();
    let decoded = t.elapsed().as_secs_f64();
    println!(
        "{n} events; open {opened:.3} s, decode {decoded:.3} s: {:.1} M events/s",
        n as f64 / (opened + decoded) / 1e6
    );
}
