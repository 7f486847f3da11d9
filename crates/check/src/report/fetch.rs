//! Decoding the few events a report shows: the block holding each is decoded
//! once and kept.

use std::collections::HashMap;
use trace_causal::EventId;
use trace_format::{Event, EventRef, LogReader, MsgId, ProcId};

/// An event with its signal identity (for a send or signal).
#[derive(Clone, Debug)]
pub struct Fetched {
    pub event: Event,
    pub msg: Option<MsgId>,
    pub time: Option<u64>,
}

pub struct Fetcher<'a> {
    reader: &'a LogReader,
    /// Per process: (first event, events, block number), in order.
    blocks: HashMap<ProcId, Vec<(u64, u64, usize)>>,
    cache: HashMap<usize, Vec<Fetched>>,
}

impl<'a> Fetcher<'a> {
    pub fn new(reader: &'a LogReader) -> Self {
        let mut blocks: HashMap<ProcId, Vec<(u64, u64, usize)>> = HashMap::new();
        for (k, b) in reader.blocks().enumerate() {
            blocks
                .entry(b.process)
                .or_default()
                .push((b.first_event, b.events as u64, k));
        }
        Fetcher {
            reader,
            blocks,
            cache: HashMap::new(),
        }
    }

    pub fn get(&mut self, e: EventId) -> Option<&Fetched> {
        let list = self.blocks.get(&e.proc)?;
        let i = list.partition_point(|(first, _, _)| *first <= e.index);
        let (first, n, block) = *list.get(i.checked_sub(1)?)?;
        if e.index >= first + n {
            return None;
        }
        if !self.cache.contains_key(&block) {
            let mut v = Vec::with_capacity(n as usize);
            self.reader
                .for_each_event_in_block(block, |_, time, ev| {
                    let msg = match ev {
                        EventRef::Send { msg, .. } => Some(msg),
                        EventRef::Signal { signal, .. } => Some(signal),
                        _ => None,
                    };
                    v.push(Fetched {
                        event: ev.to_owned(),
                        msg,
                        time,
                    });
                })
                .ok()?;
            self.cache.insert(block, v);
        }
        self.cache.get(&block)?.get((e.index - first) as usize)
    }
}
