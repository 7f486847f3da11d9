//! Finding the blocks: through the footer when the log was finished, by
//! scanning for block records otherwise. Scanning checks every block's
//! checksums, so what it returns is intact; the footer path checks only block
//! headers, keeping `open` cheap, and bodies are checked when decoded.

use super::table::BlockRef;
use crate::container::{
    self, BlockHeader, RunBinding, BLOCK_HEADER_LEN, BLOCK_MAGIC, FOOTER_MAGIC,
    FOOTER_RECORD_HEADER_LEN, TRAILER_LEN,
};
use crate::error::Warning;
use crate::meta::{Footer, Outcome, ProcessEntry};

pub(super) struct Located {
    pub candidates: Vec<BlockRef>,
    /// The footer's process table, when the footer was usable.
    pub processes: Option<Vec<ProcessEntry>>,
    pub end: Option<(Outcome, u64)>,
}

pub(super) fn locate(
    data: &[u8],
    blocks_start: usize,
    binding: RunBinding,
    warnings: &mut Vec<Warning>,
) -> Located {
    match read_footer(data, blocks_start) {
        Ok(Some((footer, footer_offset))) => {
            from_footer(data, blocks_start, binding, footer, footer_offset, warnings)
        }
        Ok(None) => {
            let candidates = scan(data, blocks_start, binding, warnings);
            warnings.insert(
                0,
                Warning::cut_short(
                    None,
                    format!(
                        "no footer: the log was not finished (the run was killed, or is still \
                         being written); recovered {} intact blocks by scanning",
                        candidates.len()
                    ),
                ),
            );
            Located {
                candidates,
                processes: None,
                end: None,
            }
        }
        Err(w) => {
            let candidates = scan(data, blocks_start, binding, warnings);
            warnings.insert(
                0,
                Warning::at(
                    w.0,
                    format!(
                        "{}; recovered {} intact blocks by scanning",
                        w.1,
                        candidates.len()
                    ),
                ),
            );
            Located {
                candidates,
                processes: None,
                end: None,
            }
        }
    }
}

/// The footer and its offset; `Ok(None)` when there is no trailer at all,
/// `Err((offset, what))` when there is one but the footer is unusable.
fn read_footer(data: &[u8], blocks_start: usize) -> Result<Option<(Footer, u64)>, (u64, String)> {
    if data.len() < blocks_start + TRAILER_LEN {
        return Ok(None);
    }
    let trailer_at = data.len() - TRAILER_LEN;
    let Some(offset) = container::parse_trailer(&data[trailer_at..]) else {
        return Ok(None);
    };
    let bad = |what: String| Err((offset, format!("footer damaged ({what})")));
    if offset < blocks_start as u64 || offset > trailer_at as u64 {
        return Err((
            trailer_at as u64,
            format!("the trailer points outside the file (to byte {offset})"),
        ));
    }
    let at = offset as usize;
    let rec = &data[at..trailer_at];
    if rec.len() < FOOTER_RECORD_HEADER_LEN + 4 || rec[0..4] != FOOTER_MAGIC {
        return bad(format!(
            "expected magic \"TFTR\", found {}",
            container::show_bytes(&rec[..rec.len().min(4)])
        ));
    }
    let len = container::read_u32(rec, 4) as usize;
    if FOOTER_RECORD_HEADER_LEN + len + 4 != rec.len() {
        return bad(format!(
            "its length field says {len} bytes, but {} bytes lie before the trailer",
            rec.len().saturating_sub(FOOTER_RECORD_HEADER_LEN + 4)
        ));
    }
    let body_end = FOOTER_RECORD_HEADER_LEN + len;
    if crc32fast::hash(&rec[..body_end]) != container::read_u32(rec, body_end) {
        return bad("checksum mismatch".into());
    }
    match postcard::from_bytes::<Footer>(&rec[FOOTER_RECORD_HEADER_LEN..body_end]) {
        Ok(f) => Ok(Some((f, offset))),
        Err(e) => bad(format!("postcard: {e}")),
    }
}

fn from_footer(
    data: &[u8],
    blocks_start: usize,
    binding: RunBinding,
    footer: Footer,
    footer_offset: u64,
    warnings: &mut Vec<Warning>,
) -> Located {
    let mut candidates = Vec::with_capacity(footer.blocks.len());
    for e in &footer.blocks {
        let fail = |what: String| {
            Warning::at(
                e.offset,
                format!("block listed in the footer is unusable: {what}"),
            )
        };
        if e.offset < blocks_start as u64 || e.offset.saturating_add(e.len as u64) > footer_offset {
            warnings.push(fail(format!(
                "it lies outside the block area (length {})",
                e.len
            )));
            continue;
        }
        let at = e.offset as usize;
        let h = match BlockHeader::parse(&data[at..(at + BLOCK_HEADER_LEN).min(data.len())]) {
            Ok(h) => h,
            Err((rel, what)) => {
                warnings.push(Warning::at(
                    e.offset + rel as u64,
                    format!("block listed in the footer is unusable: expected {what}"),
                ));
                continue;
            }
        };
        if h.run_tag != binding.tag() {
            warnings.push(fail(another_run(&h, binding)));
            continue;
        }
        if h.record_len() != e.len as u64
            || h.process != e.process
            || h.first_event != e.first_event
            || h.events != e.events
        {
            warnings.push(fail(format!(
                "its header (process {}, events {}.., {} events, {} bytes) disagrees with the footer \
                 (process {}, events {}.., {} events, {} bytes)",
                h.process,
                h.first_event,
                h.events,
                h.record_len(),
                e.process,
                e.first_event,
                e.events,
                e.len
            )));
            continue;
        }
        candidates.push(BlockRef {
            offset: e.offset,
            header: h,
            version: binding.version,
        });
    }
    Located {
        candidates,
        processes: Some(footer.processes),
        end: Some((footer.outcome, footer.end_time_ns)),
    }
}

/// Every intact block record from `start` on, in file order; damaged and
/// truncated stretches become warnings.
fn scan(
    data: &[u8],
    start: usize,
    binding: RunBinding,
    warnings: &mut Vec<Warning>,
) -> Vec<BlockRef> {
    let mut found = Vec::new();
    let mut pos = start;
    let mut damaged_from: Option<usize> = None;
    let end_damage = |from: &mut Option<usize>, to: usize, warnings: &mut Vec<Warning>| {
        if let Some(f) = from.take() {
            let what = format!(
                "bytes {f}..{to} are not a readable block; skipped {} bytes",
                to - f
            );
            // Fewer bytes than a block header at the very end: the start of
            // a record the run did not finish writing.
            warnings.push(if to == data.len() && to - f < BLOCK_HEADER_LEN {
                Warning::cut_short(Some(f as u64), what)
            } else {
                Warning::at(f as u64, what)
            });
        }
    };
    while pos < data.len() {
        let rest = &data[pos..];
        if rest.starts_with(&BLOCK_MAGIC) {
            match BlockHeader::parse(&rest[..rest.len().min(BLOCK_HEADER_LEN)]) {
                Ok(h) => {
                    let rec_end = pos as u64 + h.record_len();
                    if rec_end > data.len() as u64 {
                        end_damage(&mut damaged_from, pos, warnings);
                        warnings.push(Warning::cut_short(
                            Some(pos as u64),
                            format!(
                                "the file ends inside the block of process {} (its events {}..{}): \
                                 {} of its {} bytes are present",
                                h.process,
                                h.first_event,
                                h.first_event + h.events as u64,
                                data.len() - pos,
                                h.record_len()
                            ),
                        ));
                        pos = data.len();
                        break;
                    }
                    let body = &rest[BLOCK_HEADER_LEN..h.record_len() as usize];
                    end_damage(&mut damaged_from, pos, warnings);
                    if h.run_tag != binding.tag() {
                        warnings.push(Warning::at(pos as u64, another_run(&h, binding)));
                    } else if binding.body_crc(body) == h.body_crc {
                        found.push(BlockRef {
                            offset: pos as u64,
                            header: h.clone(),
                            version: binding.version,
                        });
                    } else {
                        warnings.push(Warning::at(
                            pos as u64,
                            format!(
                                "the block of process {} (its events {}..{}) is damaged: \
                                 body checksum mismatch",
                                h.process,
                                h.first_event,
                                h.first_event + h.events as u64
                            ),
                        ));
                    }
                    pos = rec_end as usize;
                    continue;
                }
                Err(_) if rest.len() < BLOCK_HEADER_LEN => {
                    end_damage(&mut damaged_from, pos, warnings);
                    warnings.push(Warning::cut_short(
                        Some(pos as u64),
                        format!(
                            "the file ends inside a block header ({} of {BLOCK_HEADER_LEN} bytes present)",
                            rest.len()
                        ),
                    ));
                    pos = data.len();
                    break;
                }
                Err(_) => {}
            }
        } else if rest.starts_with(&FOOTER_MAGIC) && damaged_from.is_none() {
            // A footer record (its trailer was damaged): nothing but the trailer follows.
            break;
        }
        damaged_from.get_or_insert(pos);
        pos = next_magic(data, pos + 1);
    }
    end_damage(&mut damaged_from, pos.min(data.len()), warnings);
    found
}

/// The next position at or after `from` where a block magic starts (or the end).
fn next_magic(data: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < data.len() {
        match data[i..].iter().position(|&b| b == BLOCK_MAGIC[0]) {
            None => return data.len(),
            Some(k) => {
                i += k;
                if data[i..].starts_with(&BLOCK_MAGIC) {
                    return i;
                }
                i += 1;
            }
        }
    }
    data.len()
}

/// Why a block is left out: it carries another recording's run tag (two
/// recordings wrote to one file).
fn another_run(h: &BlockHeader, binding: RunBinding) -> String {
    format!(
        "the block of process {} (its events {}..{}) belongs to another recording \
         (run tag {:#06x}, this log's is {:#06x}): left out",
        h.process,
        h.first_event,
        h.first_event + h.events as u64,
        h.run_tag,
        binding.tag()
    )
}
