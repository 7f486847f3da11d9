//! One comparison pass: what every process pair shares (the runs, the
//! matching, the comparer of events) and the comparison of one pair — read
//! both process logs (or an observer's projections) and compare them, or
//! find them stored alike and skip them.

use crate::compare::{compare, Compared};
use crate::event::EventComparer;
use crate::matching::Matching;
use crate::observe;
use crate::run::{Run, TableRow};
use crate::show::Namer;
use crate::source::Cut;
use crate::source::{BlockStream, Projected, Source};
use trace_format::Warning;

/// What comparing one pair gave.
pub(crate) struct PairOutcome {
    pub pair: u32,
    pub compared: Option<Compared>,
    /// A process one run only has: its whole log.
    pub alone: Option<Cut>,
    pub names_wrong: [bool; 2],
    pub warnings: Vec<(usize, Warning)>,
}

/// Everything one comparison pass shares.
pub(crate) struct Comparison<'a> {
    pub runs: [&'a Run<'a>; 2],
    pub matching: &'a Matching,
    pub comparer: EventComparer<'a>,
    pub namers: [Namer<'a>; 2],
    pub observed: Option<&'a [bool]>,
    pub skip_deliveries: bool,
    /// Equal blocks hold equal events (same process ids and pids, same
    /// events compared): equal blocks are not decoded.
    pub same_layout: bool,
}

impl Comparison<'_> {
    /// The two sources of a pair (a side without the process has none).
    pub fn sources(
        &self,
        slots: [Option<TableRow>; 2],
        warnings: &mut Vec<(usize, Warning)>,
    ) -> [Option<Box<dyn Source + '_>>; 2] {
        let mut out: [Option<Box<dyn Source + '_>>; 2] = [None, None];
        for x in 0..2 {
            if let Some(s) = slots[x] {
                out[x] = Some(if self.observed.is_some() {
                    let mut w = Vec::new();
                    let p: Projected = observe::project(self.runs[x], s, &mut w);
                    warnings.extend(w.into_iter().map(|w| (x, w)));
                    Box::new(p)
                } else {
                    Box::new(BlockStream::new(self.runs[x], s, self.skip_deliveries))
                });
            }
        }
        out
    }

    /// Both process logs are stored in the same blocks, byte for byte.
    fn same_blocks(&self, sa: TableRow, sb: TableRow) -> bool {
        let (ka, kb) = (self.runs[0].blocks(sa), self.runs[1].blocks(sb));
        ka.len() == kb.len()
            && ka.zip(kb).all(|(x, y)| {
                let a = self.runs[0].reader.block_bytes(x);
                a.is_some() && a == self.runs[1].reader.block_bytes(y)
            })
    }

    pub fn compare_pair(&self, pair: u32) -> PairOutcome {
        let slots = self.matching.pairs[pair as usize].slot;
        let mut warnings = Vec::new();
        let mut names_wrong = [false, false];
        let compared = match slots {
            [Some(sa), Some(sb)] if self.same_layout && self.same_blocks(sa, sb) => {
                Some(Compared::equal(self.runs[0].events(sa)))
            }
            [Some(sa), Some(sb)] => {
                if self.observed.is_some() {
                    let mut w = Vec::new();
                    let mut a = observe::project(self.runs[0], sa, &mut w);
                    warnings.extend(w.drain(..).map(|w| (0, w)));
                    let mut b = observe::project(self.runs[1], sb, &mut w);
                    warnings.extend(w.into_iter().map(|w| (1, w)));
                    Some(compare(
                        &self.comparer,
                        [&self.namers[0], &self.namers[1]],
                        [sa, sb],
                        &mut a,
                        &mut b,
                    ))
                } else {
                    let mut a = BlockStream::new(self.runs[0], sa, self.skip_deliveries);
                    let mut b = BlockStream::new(self.runs[1], sb, self.skip_deliveries);
                    let c = compare(
                        &self.comparer,
                        [&self.namers[0], &self.namers[1]],
                        [sa, sb],
                        &mut a,
                        &mut b,
                    );
                    for (x, mut s) in [(0, a), (1, b)] {
                        names_wrong[x] = s.names_wrong;
                        warnings.extend(s.damaged.take().map(|w| (x, w)));
                    }
                    Some(c)
                }
            }
            _ => None,
        };
        // A process only one run has is a difference from its first event.
        let alone = match slots {
            [Some(s), None] | [None, Some(s)] => {
                let x = if slots[0].is_some() { 0 } else { 1 };
                Some(if self.observed.is_some() {
                    observe::project(self.runs[x], s, &mut Vec::new()).read()
                } else {
                    BlockStream::new(self.runs[x], s, false).drain()
                })
            }
            _ => None,
        };
        PairOutcome {
            pair,
            compared,
            alone,
            names_wrong,
            warnings,
        }
    }
}
