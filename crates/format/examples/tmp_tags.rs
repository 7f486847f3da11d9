use trace_format::{codec::BlockEncoder, LogReader};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let r = LogReader::open(&path).unwrap();
    let v = r
        .par_map_blocks(|ev| {
            let info = *ev.info();
            let mut enc = BlockEncoder::new(info.process, info.pid);
            let mut hist = vec![0u64; 256];
            let mut lens = vec![0u64; 16];
            let mut out = Vec::new();
            for e in ev {
                let start = out.len();
                enc.event(&mut out, &e.to_owned());
                hist[out[start] as usize] += 1;
                lens[(out.len() - start).min(15)] += 1;
            }
            (hist, lens)
        })
        .unwrap();
    let mut hist = vec![0u64; 256];
    let mut lens = vec![0u64; 16];
    for (h, l) in v {
        for i in 0..256 {
            hist[i] += h[i];
        }
        for i in 0..16 {
            lens[i] += l[i];
        }
    }
    let total: u64 = hist.iter().sum();
    let names = [
        "SEND", "SENDP", "RECV", "RECVD", "DELIV", "DELIVD", "OTHER", "RES",
    ];
    for op in 0..8 {
        let n: u64 = (0..32).map(|o| hist[op * 32 + o]).sum();
        if n == 0 {
            continue;
        }
        let slots: Vec<String> = (0..32)
            .filter(|o| hist[op * 32 + o] > 0)
            .map(|o| format!("{o}:{:.1}", 100.0 * hist[op * 32 + o] as f64 / total as f64))
            .collect();
        println!(
            "{} {:.2}%  {}",
            names[op],
            100.0 * n as f64 / total as f64,
            slots.join(" ")
        );
    }
    println!(
        "lens {:?}",
        lens.iter()
            .map(|&l| format!("{:.2}", 100.0 * l as f64 / total as f64))
            .collect::<Vec<_>>()
    );
}
