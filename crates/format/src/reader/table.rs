//! The process table and, for each process, the blocks a reader serves: the
//! longest run of blocks that follow each other without a gap from event 0.

use crate::container::BlockHeader;
use crate::error::Warning;
use crate::event::ProcId;
use crate::meta::{Header, ProcessEntry};
use std::collections::BTreeMap;
use std::ops::Range;

/// A block record found in the file; its header has been checked.
#[derive(Clone, Debug)]
pub(crate) struct BlockRef {
    pub offset: u64,
    pub header: BlockHeader,
}

/// One process of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessInfo {
    pub id: ProcId,
    /// Raw pid number (`<0.N.0>`).
    pub pid: u64,
    pub parent: Option<ProcId>,
    /// Events that can be read: all of them unless blocks were lost.
    pub events: u64,
    /// Events the footer says the process recorded (`None` when recovered by scanning).
    pub recorded: Option<u64>,
    pub(crate) blocks: Range<usize>,
}

pub(super) fn build(
    header: &Header,
    mut candidates: Vec<BlockRef>,
    footer: Option<Vec<ProcessEntry>>,
    warnings: &mut Vec<Warning>,
) -> (Vec<ProcessInfo>, Vec<BlockRef>) {
    candidates.sort_by_key(|b| (b.header.process, b.header.first_event, b.offset));
    let mut table: BTreeMap<u32, (u64, Option<ProcId>, Option<u64>)> = BTreeMap::new();
    match footer {
        Some(entries) => {
            for (i, e) in entries.into_iter().enumerate() {
                table.insert(i as u32, (e.pid, e.parent.map(ProcId), Some(e.events)));
            }
            candidates.retain(|b| {
                let known = table.contains_key(&b.header.process);
                if !known {
                    warnings.push(Warning::at(
                        b.offset,
                        format!(
                            "block of process {} which the footer does not list; skipped",
                            b.header.process
                        ),
                    ));
                }
                known
            });
        }
        None => {
            for b in &candidates {
                let h = &b.header;
                let entry = table
                    .entry(h.process)
                    .or_insert((h.pid, h.parent().map(ProcId), None));
                if entry.0 != h.pid || entry.1 != h.parent().map(ProcId) {
                    warnings.push(Warning::at(
                        b.offset,
                        format!(
                            "block of process {} says pid <0.{}.0>, parent {:?}; an earlier block said <0.{}.0>, {:?}",
                            h.process,
                            h.pid,
                            h.parent(),
                            entry.0,
                            entry.1.map(|p| p.0)
                        ),
                    ));
                }
            }
            table.entry(0).or_insert((header.entry_pid, None, None));
        }
    }

    let mut processes = Vec::with_capacity(table.len());
    let mut blocks = Vec::with_capacity(candidates.len());
    let mut cand = candidates.into_iter().peekable();
    for (id, (pid, parent, recorded)) in table {
        let start = blocks.len();
        let mut expected = 0u64;
        let mut gap: Option<(u64, u64, u64)> = None; // (missing from, to, events dropped after)
        while let Some(b) = cand.next_if(|b| b.header.process == id) {
            let h = &b.header;
            if let Some(g) = gap.as_mut() {
                g.2 += h.events as u64;
            } else if h.first_event == expected {
                if h.pid != pid {
                    warnings.push(Warning::at(
                        b.offset,
                        format!(
                            "block of process {id} says pid <0.{}.0>, the table says <0.{pid}.0>",
                            h.pid
                        ),
                    ));
                }
                expected += h.events as u64;
                blocks.push(b);
            } else if h.first_event < expected {
                warnings.push(Warning::at(
                    b.offset,
                    format!(
                        "block of process {id} repeats its events {}..{}; skipped",
                        h.first_event,
                        h.first_event + h.events as u64
                    ),
                ));
            } else {
                gap = Some((expected, h.first_event, h.events as u64));
            }
        }
        if let Some((from, to, dropped)) = gap {
            warnings.push(Warning::general(format!(
                "process {id} <0.{pid}.0>: its events {from}..{to} are missing; its log is read up to \
                 event {from} and {dropped} later events are left out"
            )));
        }
        if let Some(r) = recorded {
            if r != expected && gap.is_none() {
                warnings.push(Warning::general(format!(
                    "process {id} <0.{pid}.0>: the footer counts {r} events, {expected} are readable"
                )));
            }
        }
        processes.push(ProcessInfo {
            id: ProcId(id),
            pid,
            parent,
            events: expected,
            recorded,
            blocks: start..blocks.len(),
        });
    }
    (processes, blocks)
}
