//! A few events around a root divergence, from both runs side by side:
//! the compared positions before the first difference and after it.

use crate::event::EventComparer;
use crate::report::Row;
use crate::run::TableRow;
use crate::show::Namer;
use crate::source::Source;
use std::collections::VecDeque;

/// Rows for positions `position - around ..= position + around`, read again
/// from the start of both sources (a side without the process is `None`).
pub(crate) fn rows<'s>(
    comparer: &EventComparer<'_>,
    namers: [&Namer<'_>; 2],
    slots: [Option<TableRow>; 2],
    mut sources: [Option<&mut (dyn Source + 's)>; 2],
    position: u64,
    around: u64,
) -> Vec<Row> {
    let from = position.saturating_sub(around);
    let to = position.saturating_add(around);
    let mut out: VecDeque<Row> = VecDeque::new();
    for pos in 0..=to {
        let mut items = [None, None];
        for x in 0..2 {
            if let Some(src) = sources[x].as_deref_mut() {
                items[x] = src.peek();
            }
        }
        if items.iter().all(Option::is_none) && pos > position {
            break;
        }
        if pos >= from {
            let differs = match (&items[0], &items[1], &sources) {
                (Some(a), Some(b), [Some(sa), Some(sb)]) => {
                    comparer.comparer(a, sa.arena(), b, sb.arena()).is_some()
                }
                (None, None, _) => false,
                _ => true,
            };
            let mut cells = [None, None];
            for x in 0..2 {
                if let (Some(it), Some(src), Some(s)) = (&items[x], &sources[x], slots[x]) {
                    cells[x] = Some(namers[x].show(s, it, src.arena()));
                }
            }
            out.push_back(Row { cells, differs });
        }
        for x in 0..2 {
            if items[x].is_some() {
                if let Some(src) = sources[x].as_deref_mut() {
                    src.advance();
                }
            }
        }
    }
    out.into()
}
