use trace_format::{codec::BlockEncoder, LogReader};
fn cpu() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let r = LogReader::open(&path).unwrap();
    let blocks = r
        .par_map_blocks(|ev| {
            let info = *ev.info();
            let mut enc = BlockEncoder::new(info.process, info.pid);
            let mut out = Vec::new();
            for e in ev {
                enc.event(&mut out, &e.to_owned());
            }
            (info.events, out)
        })
        .unwrap();
    let n: u64 = blocks.iter().map(|b| b.0 as u64).sum();
    let raw: usize = blocks.iter().map(|b| b.1.len()).sum();
    println!("{n} events, raw {raw}");
    for level in [1, 2, 3, 5] {
        let mut c = zstd::bulk::Compressor::new(level).unwrap();
        let c0 = cpu();
        let comp: Vec<Vec<u8>> = blocks.iter().map(|(_, b)| c.compress(b).unwrap()).collect();
        let ct = (cpu() - c0) as f64 / 1e9;
        let size: usize = comp
            .iter()
            .zip(&blocks)
            .map(|(c, b)| c.len().min(b.1.len()))
            .sum();
        let mut d = zstd::bulk::Decompressor::new().unwrap();
        let mut buf = Vec::with_capacity(1 << 24);
        let c0 = cpu();
        for (cb, (_, raw)) in comp.iter().zip(&blocks) {
            buf.clear();
            d.decompress_to_buffer(cb, &mut buf).unwrap();
            assert_eq!(buf.len(), raw.len());
        }
        let dt = (cpu() - c0) as f64 / 1e9;
        println!("level {level}: {size} bytes ({:.3}/event), compress {:.1} ns/event, decompress {:.2} ns/event", size as f64 / n as f64, ct * 1e9 / n as f64, dt * 1e9 / n as f64);
    }
}
