//! Comparing two matched processes position by position: the first
//! difference (with both events), how many positions differ, and whether
//! their exits differ.

use crate::event::{Ev, Item, Judge, Kind, Span};
use crate::report::ExitDiff;
use crate::roots::Cut;
use crate::run::Slot;
use crate::show::{Namer, Shown};
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
    pub first: Option<First>,
    /// Positions whose events differ (one log going on counts each extra event).
    pub differing: u64,
    pub exit: Option<ExitDiff>,
    /// Each whole log (what the causal walk of `roots` needs).
    pub read: [Cut; 2],
}

/// An exit event copied out of its block, with its reason.
struct Exited {
    item: Item,
    arena: Vec<u8>,
    shown: Shown,
}

fn exited(n: &Namer<'_>, me: Slot, it: &Item, arena: &[u8]) -> Option<Exited> {
    let Ev::Exit { reason } = it.ev else {
        return None;
    };
    let mut own = Vec::new();
    let reason = reason.map(|r| Span::push(&mut own, r.of(arena)));
    Some(Exited {
        item: Item {
            ev: Ev::Exit { reason },
            ..*it
        },
        shown: n.show(me, it, arena),
        arena: own,
    })
}

pub(crate) fn compare(
    judge: &Judge<'_>,
    namers: [&Namer<'_>; 2],
    slots: [Slot; 2],
    a: &mut dyn Source,
    b: &mut dyn Source,
) -> Compared {
    let mut events = [0u64; 2];
    let mut first: Option<First> = None;
    let mut differing = 0u64;
    let mut exits: [Option<Exited>; 2] = [None, None];
    let mut position = 0u64;
    loop {
        let (x, y) = (a.peek(), b.peek());
        let kind = match (&x, &y) {
            (None, None) => break,
            (Some(x), Some(y)) => judge.judge(x, a.arena(), y, b.arena()),
            _ => Some(Kind::Missing),
        };
        for (side, it, src) in [(0, &x, &*a), (1, &y, &*b)] {
            if let (Some(it), None) = (it, &exits[side]) {
                exits[side] = exited(namers[side], slots[side], it, src.arena());
            }
        }
        if let Some(kind) = kind {
            differing += 1;
            if first.is_none() {
                first = Some(First {
                    position,
                    kind,
                    item: [x, y],
                    shown: [
                        x.map(|i| namers[0].show(slots[0], &i, a.arena())),
                        y.map(|i| namers[1].show(slots[1], &i, b.arena())),
                    ],
                });
            }
        }
        if x.is_some() {
            a.advance();
            events[0] += 1;
        }
        if y.is_some() {
            b.advance();
            events[1] += 1;
        }
        position += 1;
    }
    let exit = match &exits {
        // The first difference already is this one.
        _ if first.as_ref().is_some_and(|f| f.kind == Kind::ExitReason) => None,
        [Some(ea), Some(eb)] => judge
            .judge(&ea.item, &ea.arena, &eb.item, &eb.arena)
            .map(|_| ExitDiff {
                a: Some(ea.shown.clone()),
                b: Some(eb.shown.clone()),
            }),
        [None, None] => None,
        [ea, eb] => Some(ExitDiff {
            a: ea.as_ref().map(|e| e.shown.clone()),
            b: eb.as_ref().map(|e| e.shown.clone()),
        }),
    };
    Compared {
        events,
        first,
        differing,
        exit,
        read: [a.read(), b.read()],
    }
}
