//! Registered names read off a log: a successful `register/2` is logged as
//! `{Name, Pid}` (docs/format.md, nondet kind 6), so a property may name a
//! process `server` without declaring which one it is. The log is read for
//! this only when some property uses an undeclared name.

use std::collections::HashMap;
use trace_format::{EventRef, LogReader, NondetKind};
use trace_term::Term;

/// Who held each registered name over the run, in the order the log's
/// blocks list them (raw pid numbers, without repeats).
#[derive(Default)]
pub struct Registry {
    holders: HashMap<String, Vec<u64>>,
}

/// What a registered name stands for in one run.
pub enum Holder {
    One(u64),
    /// Several processes held it in turn; which one is meant is the user's call.
    Several(Vec<u64>),
    None,
}

impl Registry {
    /// Every `{Name, Pid}` registration the readable blocks of the log hold.
    /// A damaged block gives what it held before the damage is found: the
    /// log's own warnings say the rest.
    pub fn read(reader: &LogReader) -> Registry {
        let per_block = reader.par_map_each_block(|events| {
            let mut found = Vec::new();
            for e in events.by_ref() {
                if let EventRef::Nondet {
                    kind: NondetKind::Register,
                    value,
                } = e
                {
                    if let Some(r) = registration(value) {
                        found.push(r);
                    }
                }
            }
            found
        });
        let mut holders: HashMap<String, Vec<u64>> = HashMap::new();
        for (name, pid) in per_block.into_iter().flatten().flatten() {
            let list = holders.entry(name).or_default();
            if !list.contains(&pid) {
                list.push(pid);
            }
        }
        Registry { holders }
    }

    pub fn holder(&self, name: &str) -> Holder {
        match self.holders.get(name).map(Vec::as_slice) {
            Some([one]) => Holder::One(*one),
            Some(many) if !many.is_empty() => Holder::Several(many.to_vec()),
            _ => Holder::None,
        }
    }
}

/// `{Name, Pid}` of a successful register/2; unregister's `{Name, undefined}`,
/// a failure and the older `true` say nothing of a holder.
fn registration(value: &[u8]) -> Option<(String, u64)> {
    let t = trace_term::etf::decode(value).ok()?;
    match t.as_tuple()? {
        [Term::Atom(name), Term::Pid(pid)] => Some((name.name().to_string(), pid.0)),
        _ => None,
    }
}
