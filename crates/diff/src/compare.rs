//! Comparing two matched processes position by position: the first
//! difference (with both events), how many positions differ, and whether
//! their exits differ.

use crate::event::{EventComparer, Item, Kind, LoggedEvent, Span};
use crate::report::ExitDiff;
use crate::run::TableRow;
use crate::show::{Namer, Shown};
use crate::source::Cut;
use crate::source::Source;

/// Where two process logs first part ways.
#[derive(Clone, Debug)]
pub(crate) struct First {
    /// Position among the compared events (equal to the event index unless
    /// some events are left out of the comparison).
    pub position: u64,
    pub kind: Kind,
    pub item: [Option<Item>; 2],
    pub shown: [Option<Shown>; 2],
}

pub(crate) struct Compared {
    /// Events compared on each side.
    pub events: [u64; 2],
    /// Boxed: most processes have none, and one outcome per process is kept.
    pub first: Option<Box<First>>,
    /// Positions whose events differ (one log going on counts each extra event).
    pub differing: u64,
    pub exit: Option<Box<ExitDiff>>,
    /// Each whole log, when it was read (what the causal walk of `roots` needs).
    pub read: [Option<Cut>; 2],
}

impl Compared {
    /// Two process logs of `events` events each, found equal without reading them.
    pub fn equal(events: u64) -> Compared {
        Compared {
            events: [events; 2],
            first: None,
            differing: 0,
            exit: None,
            read: [None, None],
        }
    }
}

/// An exit event copied out of its block, with its reason.
struct Exited {
    item: Item,
    arena: Vec<u8>,
    shown: Shown,
}

fn exited(n: &Namer<'_>, me: TableRow, it: &Item, arena: &[u8]) -> Option<Exited> {
    let LoggedEvent::Exit { reason } = it.ev else {
        return None;
    };
    let mut own = Vec::new();
    let reason = reason.and_then(|r| Span::push(&mut own, r.of(arena)));
    Some(Exited {
        item: Item {
            ev: LoggedEvent::Exit { reason },
            ..*it
        },
        shown: n.show(me, it, arena),
        arena: own,
    })
}

pub(crate) fn compare<A: Source + ?Sized, B: Source + ?Sized>(
    comparer: &EventComparer<'_>,
    namers: [&Namer<'_>; 2],
    slots: [TableRow; 2],
    a: &mut A,
    b: &mut B,
) -> Compared {
    let mut events = [0u64; 2];
    let mut first: Option<Box<First>> = None;
    let mut differing = 0u64;
    let mut exits: [Option<Exited>; 2] = [None, None];
    let mut position = 0u64;
    loop {
        let (wa, aa) = a.window();
        let (wb, ab) = b.window();
        if wa.is_empty() && wb.is_empty() {
            break;
        }
        // Events side by side in both windows, or one log's events past the other's end.
        let n = match (wa.len(), wb.len()) {
            (0, n) | (n, 0) => n,
            (x, y) => x.min(y),
        };
        for i in 0..n {
            let (x, y) = (wa.get(i), wb.get(i));
            let kind = match (x, y) {
                (Some(x), Some(y)) => comparer.comparer(x, aa, y, ab),
                _ => Some(Kind::Missing),
            };
            for (side, it, arena) in [(0, x, aa), (1, y, ab)] {
                if let (
                    Some(
                        it @ Item {
                            ev: LoggedEvent::Exit { .. },
                            ..
                        },
                    ),
                    None,
                ) = (it, &exits[side])
                {
                    exits[side] = exited(namers[side], slots[side], it, arena);
                }
            }
            if let Some(kind) = kind {
                differing += 1;
                if first.is_none() {
                    first = Some(Box::new(First {
                        position: position + i as u64,
                        kind,
                        item: [x.copied(), y.copied()],
                        shown: [
                            x.map(|i| namers[0].show(slots[0], i, aa)),
                            y.map(|i| namers[1].show(slots[1], i, ab)),
                        ],
                    }));
                }
            }
        }
        let (na, nb) = (n.min(wa.len()), n.min(wb.len()));
        a.consume(na);
        b.consume(nb);
        events[0] += na as u64;
        events[1] += nb as u64;
        position += n as u64;
    }
    let exit = match &exits {
        // The first difference already is this one.
        _ if first.as_ref().is_some_and(|f| f.kind == Kind::ExitReason) => None,
        [Some(ea), Some(eb)] => comparer
            .comparer(&ea.item, &ea.arena, &eb.item, &eb.arena)
            .map(|_| {
                Box::new(ExitDiff {
                    a: Some(ea.shown.clone()),
                    b: Some(eb.shown.clone()),
                })
            }),
        [None, None] => None,
        [ea, eb] => Some(Box::new(ExitDiff {
            a: ea.as_ref().map(|e| e.shown.clone()),
            b: eb.as_ref().map(|e| e.shown.clone()),
        })),
    };
    Compared {
        events,
        first,
        differing,
        exit,
        read: [Some(a.read()), Some(b.read())],
    }
}
