//! The reader against mutated and truncated logs (a fuzzer in the normal test
//! suite): no panic, and no allocation beyond a bound derived from the input's
//! size. Mutations may fix checksums so that damage reaches the decompressor
//! and the codec instead of stopping at a checksum.
//!
//! This file holds a single test: the allocation tracker is process-wide.

mod common;

use common::*;
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use trace_format::{LogReader, WriterOptions};

struct Tracking;

static ARMED: AtomicBool = AtomicBool::new(false);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ARMED.load(Ordering::Relaxed) {
            LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ARMED.load(Ordering::Relaxed) {
            LARGEST.fetch_max(new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking;

/// A valid log to mutate, with its block offsets (to re-fix checksums).
type Seed = (Vec<u8>, Vec<(u64, u32)>);

fn seeds() -> &'static Vec<Seed> {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        // (payloads, timestamps, block size, laps): tiny raw blocks, and
        // blocks large enough to be stored zstd-compressed.
        let variants = [
            (true, false, 40, 25),
            (false, true, 24, 25),
            (true, true, 200, 25),
            (true, false, 600, 100),
        ];
        let seeds: Vec<Seed> = variants
            .iter()
            .map(|&(payloads, timestamps, block_size, laps)| {
                let t = TempPath::new("seed.trace");
                write(
                    &t.0,
                    &ring(4, laps, payloads),
                    WriterOptions {
                        block_size,
                        timestamps,
                        ..Default::default()
                    },
                );
                let bytes = std::fs::read(&t.0).unwrap();
                let r = LogReader::from_bytes(bytes.clone()).unwrap();
                let blocks = r.blocks().map(|b| (b.offset, b.stored_len)).collect();
                (bytes, blocks)
            })
            .collect();
        let compressed = LogReader::from_bytes(seeds[3].0.clone())
            .unwrap()
            .blocks()
            .filter(|b| b.stored_len < b.body_raw_len)
            .count();
        assert!(compressed > 3, "{compressed} zstd blocks to mutate");
        seeds
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        byte: u8,
    },
    /// A little-endian u32 written over 4 bytes: hits length fields.
    SetU32 {
        at: usize,
        value: u32,
    },
    Truncate {
        at: usize,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    /// Copies a stretch over another place (duplicated blocks, shifted records).
    Copy {
        from: usize,
        to: usize,
        len: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<prop::sample::Index>();
    prop_oneof![
        (at.clone(), 0u8..8).prop_map(|(i, bit)| Mutation::Flip {
            at: i.index(1 << 20),
            bit
        }),
        (at.clone(), any::<u8>()).prop_map(|(i, byte)| Mutation::Set {
            at: i.index(1 << 20),
            byte
        }),
        (
            at.clone(),
            prop_oneof![Just(0u32), Just(u32::MAX), Just(1 << 24), any::<u32>()]
        )
            .prop_map(|(i, value)| Mutation::SetU32 {
                at: i.index(1 << 20),
                value
            }),
        at.clone().prop_map(|i| Mutation::Truncate {
            at: i.index(1 << 20)
        }),
        (at.clone(), 1usize..64).prop_map(|(i, len)| Mutation::Delete {
            at: i.index(1 << 20),
            len
        }),
        (at.clone(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, bytes)| {
            Mutation::Insert {
                at: i.index(1 << 20),
                bytes,
            }
        }),
        (at.clone(), at, 1usize..200).prop_map(|(f, t, len)| Mutation::Copy {
            from: f.index(1 << 20),
            to: t.index(1 << 20),
            len
        }),
    ]
}

fn apply(data: &mut Vec<u8>, m: &Mutation) {
    let n = data.len().max(1);
    match m {
        Mutation::Flip { at, bit } => {
            if !data.is_empty() {
                data[at % n] ^= 1 << bit;
            }
        }
        Mutation::Set { at, byte } => {
            if !data.is_empty() {
                data[at % n] = *byte;
            }
        }
        Mutation::SetU32 { at, value } => {
            let at = at % n;
            if at + 4 <= data.len() {
                data[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
        }
        Mutation::Truncate { at } => data.truncate(at % n),
        Mutation::Delete { at, len } => {
            let at = at % n;
            let end = (at + len).min(data.len());
            data.drain(at..end);
        }
        Mutation::Insert { at, bytes } => {
            let at = at % (data.len() + 1);
            data.splice(at..at, bytes.iter().copied());
        }
        Mutation::Copy { from, to, len } => {
            let from = from % n;
            let to = to % n;
            let len = (*len).min(data.len() - from).min(data.len() - to);
            let chunk = data[from..from + len].to_vec();
            data[to..to + len].copy_from_slice(&chunk);
        }
    }
}

/// Recomputes the checksums of the seed's blocks that still sit where they
/// were: header, segment table and body (the last two bound to the run id,
/// read from the seed's own header).
fn fix_checksums(data: &mut [u8], blocks: &[(u64, u32)]) {
    let Ok(run_id) = LogReader::from_bytes(data.to_vec()).map(|r| r.header().run_id) else {
        return;
    };
    let crc = |part: &[u8]| {
        let mut h = crc32fast::Hasher::new();
        h.update(&run_id.to_le_bytes());
        h.update(part);
        h.finalize()
    };
    for &(off, _) in blocks {
        let at = off as usize;
        if at + 40 > data.len() || &data[at..at + 4] != b"TBLK" {
            continue;
        }
        let u32_at =
            |d: &[u8], i: usize| u32::from_le_bytes(d[i..i + 4].try_into().unwrap()) as usize;
        let table = u32_at(data, at + 16);
        let stored = u32_at(data, at + 24);
        let table_at = at + 40;
        let body_at = table_at + table;
        if let Some(t) = data.get(table_at..body_at) {
            let c = crc(t);
            data[at + 28..at + 32].copy_from_slice(&c.to_le_bytes());
        }
        if let Some(body) = data.get(body_at..body_at + stored) {
            let c = crc(body);
            data[at + 32..at + 36].copy_from_slice(&c.to_le_bytes());
        }
        let c = crc32fast::hash(&data[at..at + 36]);
        data[at + 36..at + 40].copy_from_slice(&c.to_le_bytes());
    }
}

/// Everything a consumer might do with a log.
fn exercise(data: Vec<u8>) {
    let Ok(r) = LogReader::from_bytes(data) else {
        return;
    };
    let _ = r.warnings().len();
    let _ = r.read_all();
    let _ = r.salvage();
    let _ = r.par_map_blocks(|ev| ev.map(|e| e.payload_len()).sum::<usize>());
    for p in r.processes().iter().take(64) {
        let _ = r.events_of(p.id);
        // Read a few events at a time, as a replay does.
        for b in p.block_positions() {
            if let Some(Ok(mut c)) = r.block_cursor(b) {
                while let Ok(true) = c.next_events(3, |_, e| {
                    let _ = e.payload_len();
                }) {}
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn mutated_logs_never_panic_or_allocate_without_bound(
        seed in 0usize..4,
        mutations in prop::collection::vec(mutation(), 1..5),
        fix in any::<bool>(),
    ) {
        let (bytes, blocks) = &seeds()[seed];
        let mut data = bytes.clone();
        for m in &mutations {
            apply(&mut data, m);
        }
        if fix {
            fix_checksums(&mut data, blocks);
        }
        let len = data.len();
        LARGEST.store(0, Ordering::Relaxed);
        ARMED.store(true, Ordering::Relaxed);
        exercise(data);
        ARMED.store(false, Ordering::Relaxed);
        // A block decodes to at most 1024 bytes per stored byte; an owned
        // event is under 64 bytes per decoded byte; serde preallocates at
        // most 1 MiB for a sequence.
        let bound = (1 << 20) + 64 * 1024 * len;
        let largest = LARGEST.load(Ordering::Relaxed);
        prop_assert!(largest <= bound, "allocated {largest} bytes for a {len}-byte input");
    }
}
