use std::time::Instant;
use trace_format::{EventRef, LogReader};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    sizes();
    let runs: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(3);
    for _ in 0..runs {
        let t = Instant::now();
        let r = LogReader::open(&path).unwrap();
        let t_open = t.elapsed();
        let v = r
            .par_map_blocks(|ev| {
                let mut n = 0u64;
                let mut d = 0u64;
                for e in ev {
                    n += 1;
                    if let EventRef::Receive { msg } = e {
                        d ^= msg.index;
                    }
                }
                (n, d)
            })
            .unwrap();
        let n: u64 = v.iter().map(|x| x.0).sum();
        let el = t.elapsed();
        eprintln!(
            "open {:?} total {:?} events {} blocks {} -> {:.1} M/s",
            t_open,
            el,
            n,
            v.len(),
            n as f64 / el.as_secs_f64() / 1e6
        );
    }
}
#[allow(dead_code)]
fn sizes() {
    eprintln!(
        "EventRef {} Result {}",
        std::mem::size_of::<EventRef>(),
        std::mem::size_of::<Result<Option<EventRef>, trace_format::codec::CodecError>>()
    );
}
