//! Figures about a log, for `trace stats` and the benchmarks: events by kind,
//! payload bytes, bytes per event with and without payloads, compression.
//!
//! "Without payloads" is measured, not estimated: every segment is
//! re-encoded with its optional terms (message payloads, exit and 'DOWN'
//! reasons, output bytes) left out, and each block's segments packed and
//! compressed again as the writer packs them (in process order, with the
//! compressor it picks for a block of that many segments); nondeterministic built-ins' results stay, since
//! replay needs them.

use crate::codec::{BlockEncoder, SharedOp};
use crate::error::FormatError;
use crate::event::EventKind;
use crate::reader::LogReader;
use crate::view::{EventRef, SignalKindRef};
use crate::writer::sink::Packer;
use rayon::prelude::*;
use std::cell::RefCell;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub processes: u64,
    pub events: u64,
    /// Counts in [`crate::EventKind::ALL`] order.
    pub by_kind: [u64; EventKind::ALL.len()],
    /// Bytes of optional terms: message payloads, exit/'DOWN' reasons, output.
    pub payload_bytes: u64,
    /// Bytes of nondeterministic built-ins' results (always recorded).
    pub nondet_bytes: u64,
    /// Segments (a process's run of events in a block), and block records.
    pub blocks: u64,
    pub records: u64,
    pub file_bytes: u64,
    /// Block bodies as stored (compressed) and as decoded.
    pub stored_bytes: u64,
    pub raw_bytes: u64,
    /// What the log would take without payloads: header, footer and
    /// trailer as they are, blocks re-encoded without payloads.
    pub file_bytes_without_payloads: u64,
    /// Wall-clock duration of the run, from the footer (or the last timestamp).
    pub duration_ns: Option<u64>,
}

impl Stats {
    pub fn bytes_per_event(&self) -> f64 {
        ratio(self.file_bytes, self.events)
    }

    pub fn bytes_per_event_without_payloads(&self) -> f64 {
        ratio(self.file_bytes_without_payloads, self.events)
    }

    /// Decoded block bytes per stored block byte.
    pub fn compression_ratio(&self) -> f64 {
        ratio(self.raw_bytes, self.stored_bytes)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[derive(Default)]
struct BlockFigures {
    by_kind: [u64; EventKind::ALL.len()],
    payload: u64,
    nondet: u64,
    stripped: Vec<u8>,
    last_time: Option<u64>,
}

thread_local! {
    /// The writer's way of compressing a block body, per thread.
    static PACKER: RefCell<Option<Packer>> = const { RefCell::new(None) };
}

/// Computes the figures, decoding every block in parallel.
pub fn compute(r: &LogReader, zstd_level: i32) -> Result<Stats, FormatError> {
    let per_block = r.par_map_blocks(|ev| {
        let info = *ev.info();
        let mut f = BlockFigures::default();
        let mut enc = BlockEncoder::new(info.process, info.pid);
        let mut stripped = Vec::with_capacity(info.raw_len as usize / 2);
        while let Some(e) = ev.next() {
            f.by_kind[e.kind() as usize] += 1;
            match e {
                EventRef::Nondet { value, .. } => f.nondet += value.len() as u64,
                _ => f.payload += e.payload_len() as u64,
            }
            encode_stripped(&mut enc, &mut stripped, &e);
            if let Some(t) = ev.time() {
                enc.time(&mut stripped, t);
                f.last_time = Some(t);
            }
        }
        f.stripped = stripped;
        f
    })?;
    let mut s = Stats {
        processes: r.processes().len() as u64,
        file_bytes: r.file_len(),
        blocks: per_block.len() as u64,
        ..Default::default()
    };
    let mut last_time = None;
    // Each segment's stripped events, by its record's offset and in the
    // order the writer packs a record's segments (by process, then event).
    let mut segments: Vec<StrippedSegment> = Vec::with_capacity(per_block.len());
    for (f, b) in per_block.into_iter().zip(r.blocks()) {
        for (k, n) in f.by_kind.iter().enumerate() {
            s.by_kind[k] += n;
        }
        s.payload_bytes += f.payload;
        s.nondet_bytes += f.nondet;
        s.raw_bytes += b.raw_len as u64;
        last_time = last_time.max(f.last_time);
        let key = (b.offset, b.process.0, b.first_event);
        segments.push((key, b.stored_len, f.stripped));
    }
    segments.sort_unstable_by_key(|s| s.0);
    // The records: offset, stored length, segments, stripped body.
    let mut records: Vec<(u64, u32, usize, Vec<u8>)> = Vec::new();
    for ((offset, ..), stored, stripped) in segments {
        match records.last_mut() {
            Some(rec) if rec.0 == offset => {
                rec.2 += 1;
                rec.3.extend_from_slice(&stripped);
            }
            _ => records.push((offset, stored, 1, stripped)),
        }
    }
    s.records = records.len() as u64;
    s.stored_bytes = records.iter().map(|r| r.1 as u64).sum();
    let stripped: u64 = records
        .par_iter()
        .map(|(_, _, segments, raw)| {
            PACKER.with(|p| {
                let mut p = p.borrow_mut();
                let p = p.get_or_insert_with(|| Packer::new(zstd_level));
                p.stored_body_len(*segments, raw) as u64
            })
        })
        .sum();
    s.events = s.by_kind.iter().sum();
    s.file_bytes_without_payloads = (s.file_bytes + stripped).saturating_sub(s.stored_bytes);
    s.duration_ns = match r.outcome() {
        Some((_, end)) => Some(end.saturating_sub(r.header().start_time_ns)),
        None => last_time,
    };
    Ok(s)
}

/// A segment re-encoded without payloads: where the writer put it (its
/// record's offset, its process, its first event), its record's stored
/// body length, and its events.
type StrippedSegment = ((u64, u32, u64), u32, Vec<u8>);

fn encode_stripped(enc: &mut BlockEncoder, out: &mut Vec<u8>, e: &EventRef<'_>) {
    match *e {
        EventRef::Spawn {
            child,
            pid,
            link,
            monitor,
        } => enc.spawn(out, child, pid, link, monitor),
        EventRef::Send { to, .. } => enc.send(out, to, None),
        EventRef::Deliver { msg } => enc.deliver(out, msg),
        EventRef::Receive { msg } => enc.receive(out, msg),
        EventRef::Timeout => enc.timeout(out),
        EventRef::Signal { to, kind, .. } => {
            let kind = match kind {
                SignalKindRef::Exit { linked, .. } => SignalKindRef::Exit {
                    reason: None,
                    linked,
                },
                SignalKindRef::Down { .. } => SignalKindRef::Down { reason: None },
                k => k,
            };
            enc.signal(out, to, kind)
        }
        EventRef::SignalTaken { signal, effect } => enc.signal_taken(out, signal, effect),
        EventRef::Nondet { kind, value } => enc.nondet(out, kind, value),
        EventRef::Output { seq, .. } => enc.output(out, seq, None),
        EventRef::Exit { .. } => enc.exit(out, None),
        // Keys and names are optional terms too; the rest replay needs.
        EventRef::Shared {
            object,
            access,
            function,
            seq,
            ..
        } => enc.shared(
            out,
            SharedOp {
                object,
                access,
                function,
                seq,
                key: None,
                name: None,
            },
        ),
        EventRef::Blocked { stuck } => enc.blocked(out, stuck),
    }
}
