//! Matching the processes of two runs: by symbolic name, walking both spawn
//! trees from the entry process (the `k`-th child of matched parents are
//! matched). Raw pids never matter, except for processes no spawn names
//! (possible only in damaged or inconsistent logs), which are matched by
//! raw pid as a last resort.

use crate::run::{Run, TableRow, NO_ROW};
use std::collections::HashMap;
use std::fmt;
use trace_capture::SymbolicName;
use trace_format::text::pid_text;

/// How a compared process is called.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProcName {
    Symbolic(SymbolicName),
    /// No spawn names it; matched by this raw pid.
    Pid(u64),
}

impl fmt::Display for ProcName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcName::Symbolic(n) => n.fmt(f),
            ProcName::Pid(p) => f.write_str(&pid_text(*p)),
        }
    }
}

/// Where a pair's name comes from: kept as a link to its parent pair, so
/// that a spawn chain thousands deep costs a few words a process, not a name
/// as long as the chain ([`Matching::name`] spells it out).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Naming {
    Root,
    /// The `number`-th child (from 1) of pair `parent`.
    Child {
        parent: u32,
        number: u32,
    },
    /// No spawn names it; matched by this raw pid.
    Pid(u64),
}

/// A process of either run, with its counterpart in the other if any.
#[derive(Clone, Debug)]
pub(crate) struct Pair {
    pub naming: Naming,
    pub slot: [Option<TableRow>; 2],
}

pub(crate) struct Matching {
    /// In name order (a spawn tree's preorder), unnamed processes last.
    pub pairs: Vec<Pair>,
    /// Per run, per row: the pair it belongs to.
    pub pair_of: [Vec<u32>; 2],
}

impl Matching {
    pub fn new(runs: [&Run<'_>; 2]) -> Matching {
        let mut pairs = Vec::new();
        let mut seen = [
            vec![false; runs[0].procs.len()],
            vec![false; runs[1].procs.len()],
        ];
        let mut stack: Vec<(Naming, [Option<TableRow>; 2])> = Vec::new();
        let roots = [runs[0].root(), runs[1].root()];
        if roots != [None, None] {
            stack.push((Naming::Root, roots));
        }
        while let Some((naming, slot)) = stack.pop() {
            // A process reached a second time (a spawn cycle, which only a
            // damaged log can hold) keeps its first name; in the other run
            // its counterpart goes on alone.
            let slot = [0, 1].map(|x| slot[x].filter(|&s| !seen[x][s as usize]));
            if slot == [None, None] {
                continue;
            }
            for (x, s) in slot.iter().enumerate() {
                if let Some(s) = s {
                    seen[x][*s as usize] = true;
                }
            }
            let me = pairs.len() as u32;
            let kids = |x: usize| slot[x].map_or(&[][..], |s| runs[x].children(s));
            let (ka, kb) = (kids(0), kids(1));
            // Children pushed last-first so the stack pops them in order.
            for k in (0..ka.len().max(kb.len())).rev() {
                let get = |v: &[TableRow]| v.get(k).copied().filter(|&c| c != NO_ROW);
                let c = [get(ka), get(kb)];
                if c != [None, None] {
                    let number = k as u32 + 1;
                    stack.push((Naming::Child { parent: me, number }, c));
                }
            }
            pairs.push(Pair { naming, slot });
        }
        // Processes no spawn names: by raw pid.
        let mut unnamed: HashMap<u64, [Option<TableRow>; 2]> = HashMap::new();
        for x in 0..2 {
            for (s, done) in seen[x].iter().enumerate() {
                if !done {
                    unnamed.entry(runs[x].pid(s as TableRow)).or_default()[x] = Some(s as TableRow);
                }
            }
        }
        let mut unnamed: Vec<_> = unnamed.into_iter().collect();
        unnamed.sort_unstable_by_key(|(pid, _)| *pid);
        pairs.extend(unnamed.into_iter().map(|(pid, slot)| Pair {
            naming: Naming::Pid(pid),
            slot,
        }));
        let mut pair_of = [
            vec![u32::MAX; runs[0].procs.len()],
            vec![u32::MAX; runs[1].procs.len()],
        ];
        for (i, p) in pairs.iter().enumerate() {
            for (side, s) in pair_of.iter_mut().zip(p.slot) {
                if let Some(s) = s {
                    side[s as usize] = i as u32;
                }
            }
        }
        Matching { pairs, pair_of }
    }

    /// Every raw pid names the same process in both runs (or none in
    /// either): payloads whose bytes are equal are then equal terms.
    pub fn same_pids(&self, runs: [&Run<'_>; 2]) -> bool {
        (0..2).all(|x| {
            let y = 1 - x;
            (0..runs[x].procs.len() as TableRow).all(|s| {
                runs[y]
                    .slot_of_pid(runs[x].pid(s))
                    .is_some_and(|t| self.pair(y, t) == self.pair(x, s))
            })
        })
    }

    /// Every process id names the same process in both runs: events whose
    /// encodings are equal are then the same events.
    pub fn same_ids(&self, runs: [&Run<'_>; 2]) -> bool {
        runs[0].procs.len() == runs[1].procs.len()
            && (0..runs[0].procs.len() as TableRow).all(|s| {
                runs[1]
                    .slot(runs[0].id(s))
                    .is_some_and(|t| self.pair(1, t) == self.pair(0, s))
            })
    }

    /// The pair of row `s` of run `x`.
    pub fn pair(&self, x: usize, s: TableRow) -> u32 {
        self.pair_of[x][s as usize]
    }

    /// The name of pair `pair` (cost: its length).
    pub fn name(&self, pair: u32) -> ProcName {
        let mut path = Vec::new();
        let mut at = pair;
        loop {
            match self.pairs[at as usize].naming {
                Naming::Root => break,
                Naming::Child { parent, number } => {
                    path.push(number);
                    at = parent;
                }
                Naming::Pid(pid) => return ProcName::Pid(pid),
            }
        }
        path.reverse();
        ProcName::Symbolic(SymbolicName(path))
    }

    /// The pair named `name`, if either run has it.
    pub fn find(&self, name: &SymbolicName) -> Option<u32> {
        let mut at = self.pairs.iter().position(|p| p.naming == Naming::Root)?;
        for &number in name.path() {
            // Pairs are in preorder: a child comes after its parent.
            let parent = at as u32;
            at += 1 + self.pairs[at + 1..]
                .iter()
                .position(|p| p.naming == Naming::Child { parent, number })?;
        }
        Some(at as u32)
    }
}
