use std::time::Instant;
use trace_format::{
    codec::{BlockDecoder, BlockEncoder},
    EventRef, LogReader,
};
fn main() {
    if std::env::var("FLOOR").is_ok() {
        floor();
        return;
    }
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
            (info, out)
        })
        .unwrap();
    if std::env::var("DEXP").is_ok() {
        dexp(&blocks);
        return;
    }
    let n_events: u64 = blocks.iter().map(|b| b.0.events as u64).sum();
    let raw: usize = blocks.iter().map(|b| b.1.len()).sum();
    for _ in 0..5 {
        let t = Instant::now();
        let c0 = cpu();
        let mut n = 0u64;
        let mut d = 0u64;
        for (info, raw) in &blocks {
            let mut dec = BlockDecoder::new(raw, info.process, info.pid, info.first_signal, false);
            while let Ok(Some(e)) = dec.next() {
                n += 1;
                if let EventRef::Receive { msg } = e {
                    d ^= msg.index;
                }
            }
        }
        let el = t.elapsed();
        let c = (cpu() - c0) as f64 / 1e9;
        eprintln!("cpu {:.1} M/s", n as f64 / c / 1e6);
        eprintln!(
            "codec only: {n} events ({n_events}), {raw} raw bytes, {:?} -> {:.1} M/s  ({d})",
            el,
            n as f64 / el.as_secs_f64() / 1e6
        );
    }
}

fn cpu() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}
#[allow(dead_code)]
pub fn floor() {
    use trace_format::{Dest, ProcId};
    let mut enc = BlockEncoder::new(ProcId(0), 80);
    let mut out = Vec::new();
    let mut x = 12345u64;
    let random = std::env::var("RANDOM").is_ok();
    let mut idx = 0u64;
    for i in 0..1_000_000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let recv = if random { x & 1 == 1 } else { i & 1 == 1 };
        if recv {
            enc.receive(
                &mut out,
                trace_format::MsgId {
                    sender: ProcId(5),
                    index: idx,
                },
            );
            idx += 1;
        } else {
            enc.send(&mut out, Dest::Proc(ProcId(3)), None);
        }
    }
    for _ in 0..3 {
        let c0 = cpu();
        let mut n = 0u64;
        for _ in 0..20 {
            let mut dec = BlockDecoder::new(&out, ProcId(0), 80, 0, false);
            while let Ok(Some(e)) = dec.next() {
                n += 1;
                if let EventRef::Send {
                    to: Dest::Proc(p), ..
                } = e
                {
                    n += p.0 as u64 & 1;
                }
            }
        }
        let c = (cpu() - c0) as f64 / 1e9;
        eprintln!("floor: sends only {:.1} M/s", 20e6 / c / 1e6);
    }
}
#[allow(dead_code)]
pub fn dexp(blocks: &[(trace_format::BlockInfo, Vec<u8>)]) {
    let samples: Vec<&[u8]> = blocks.iter().take(200).map(|b| &b.1[..]).collect();
    for dsize in [4096usize, 16384, 65536] {
        let t = std::time::Instant::now();
        let dict = zstd::dict::from_samples(&samples, dsize).unwrap();
        let train = t.elapsed();
        for level in [1, 3] {
            let mut c = zstd::bulk::Compressor::with_dictionary(level, &dict).unwrap();
            let comp: Vec<Vec<u8>> = blocks.iter().map(|(_, b)| c.compress(b).unwrap()).collect();
            let size: usize = comp.iter().map(|c| c.len()).sum();
            let mut d = zstd::bulk::Decompressor::with_dictionary(&dict).unwrap();
            let mut buf = Vec::with_capacity(1 << 20);
            let c0 = cpu();
            for _ in 0..3 {
                for (cb, (_, raw)) in comp.iter().zip(blocks) {
                    buf.clear();
                    d.decompress_to_buffer(cb, &mut buf).unwrap();
                    assert_eq!(buf.len(), raw.len());
                }
            }
            let t = (cpu() - c0) as f64 / 3e9;
            let n: u64 = blocks.iter().map(|b| b.0.events as u64).sum();
            eprintln!("dict {dsize} (trained in {train:?}, {} bytes) level {level}: {size} bytes, decompress {:.2} ns/event", dict.len(), t * 1e9 / n as f64);
        }
    }
}
