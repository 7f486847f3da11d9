//! The container's fixed-layout parts (docs/format.md §2, §4, §5, §7): the
//! preamble, block record headers (version 3's, and the one-process headers
//! of versions 1 and 2), the footer record and the trailer. All integers are
//! little-endian. Every record starts with a 4-byte magic so a reader without
//! a footer can find blocks by scanning. A version-3 block's segment table
//! is in [`crate::segment`].

/// First 8 bytes of every log. As in PNG: a high-bit byte (catches 7-bit
/// transfers), then `TRC`, then CR LF, ^Z, LF (catch line-ending conversion).
pub const MAGIC: [u8; 8] = *b"\x89TRC\r\n\x1a\n";
/// The format version this build writes (and the newest it reads).
pub const VERSION: u16 = 3;
/// The oldest format version this build reads.
pub const FIRST_VERSION: u16 = 1;
/// Magic, version, flags, header length.
pub const PREAMBLE_LEN: usize = 16;
/// A header longer than this is rejected before allocating for it.
pub const MAX_HEADER_LEN: u32 = 16 << 20;

pub const BLOCK_MAGIC: [u8; 4] = *b"TBLK";
pub const FOOTER_MAGIC: [u8; 4] = *b"TFTR";
pub const TRAILER_MAGIC: [u8; 4] = *b"TEND";
/// A version-3 block header.
pub const BLOCK_HEADER_LEN: usize = 40;
/// A block header of versions 1 and 2 (one process per block).
pub const BLOCK_HEADER_LEN_V2: usize = 60;
pub const FOOTER_RECORD_HEADER_LEN: usize = 8;
pub const TRAILER_LEN: usize = 16;

/// Largest decoded block body a reader accepts (and a writer produces: its
/// block size is at most a quarter of this and a term at most half, so a
/// block that goes one event past its size still fits).
pub const MAX_BLOCK_RAW: u32 = 64 << 20;
/// Largest term (payload, reason, built-in result, output) a writer puts in
/// a log; a larger optional term is left out, a larger result is recorded empty.
pub const MAX_TERM: usize = 32 << 20;
/// A zstd block may decode to at most this many times its stored size: it
/// bounds what a small hostile file can make a reader allocate. Writers pad
/// blocks that compress better than this with a zstd skippable frame.
pub const MAX_RATIO: u32 = 1024;

/// How a block body is stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// The encoded events as they are.
    Raw = 0,
    /// One zstd frame (possibly followed by skippable frames).
    Zstd = 1,
}

/// Block flag: every event is followed by a time delta.
pub const FLAG_TIMESTAMPS: u8 = 1;
/// Block flag (version 3): the segment table is one zstd frame.
pub const FLAG_TABLE_ZSTD: u8 = 2;

/// What ties a block to the log it belongs to (version 2): the low 16
/// bits of the header's run id in the block header, and the whole run id
/// folded into the body's checksum. A file that two recordings wrote at
/// once holds blocks of both; a reader tells them apart instead of reading
/// a hybrid. Version 1 binds nothing: its run tag is 0 and its checksum is
/// the body's alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RunBinding {
    pub version: u16,
    pub run_id: u64,
}

impl RunBinding {
    /// The run tag a block of this log carries.
    pub fn tag(&self) -> u16 {
        if self.version >= 2 {
            self.run_id as u16
        } else {
            0
        }
    }

    /// The checksum a block body (or, in version 3, a segment table) of
    /// this log carries.
    pub fn body_crc(&self, stored: &[u8]) -> u32 {
        if self.version >= 2 {
            let mut h = crc32fast::Hasher::new();
            h.update(&self.run_id.to_le_bytes());
            h.update(stored);
            h.finalize()
        } else {
            crc32fast::hash(stored)
        }
    }
}

/// The fixed header of a block record of versions 1 and 2: one process's events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockHeaderV2 {
    pub storage: Storage,
    pub flags: u8,
    /// Bytes 6..8: the run tag (see [`RunBinding`]); 0 in version 1.
    pub run_tag: u16,
    pub process: u32,
    /// The process's parent, `u32::MAX` for none.
    pub parent: u32,
    pub pid: u64,
    /// Index of the block's first event in the process log.
    pub first_event: u64,
    /// Signal index of the block's first `Send`/`Signal`.
    pub first_signal: u64,
    pub events: u32,
    pub raw_len: u32,
    pub stored_len: u32,
    /// CRC-32 of the stored body.
    pub body_crc: u32,
}

pub const NO_PARENT: u32 = u32::MAX;

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl BlockHeaderV2 {
    pub fn encode(&self) -> [u8; BLOCK_HEADER_LEN_V2] {
        let mut b = [0u8; BLOCK_HEADER_LEN_V2];
        b[0..4].copy_from_slice(&BLOCK_MAGIC);
        b[4] = self.storage as u8;
        b[5] = self.flags;
        b[6..8].copy_from_slice(&self.run_tag.to_le_bytes());
        b[8..12].copy_from_slice(&self.process.to_le_bytes());
        b[12..16].copy_from_slice(&self.parent.to_le_bytes());
        b[16..24].copy_from_slice(&self.pid.to_le_bytes());
        b[24..32].copy_from_slice(&self.first_event.to_le_bytes());
        b[32..40].copy_from_slice(&self.first_signal.to_le_bytes());
        b[40..44].copy_from_slice(&self.events.to_le_bytes());
        b[44..48].copy_from_slice(&self.raw_len.to_le_bytes());
        b[48..52].copy_from_slice(&self.stored_len.to_le_bytes());
        b[52..56].copy_from_slice(&self.body_crc.to_le_bytes());
        let crc = crc32fast::hash(&b[..56]);
        b[56..60].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Parses and checks a block header. The error says what was expected,
    /// relative to the header's first byte.
    pub fn parse(b: &[u8]) -> Result<BlockHeaderV2, (usize, String)> {
        check_magic(b, BLOCK_HEADER_LEN_V2)?;
        let crc = u32_at(b, 56);
        if crc32fast::hash(&b[..56]) != crc {
            return Err((56, "a block header matching its checksum".into()));
        }
        let storage = storage_of(b[4], 4)?;
        let flags = b[5];
        if flags & !FLAG_TIMESTAMPS != 0 {
            return Err((5, format!("known block flags, found {flags:#04x}")));
        }
        let h = BlockHeaderV2 {
            storage,
            flags,
            run_tag: u16::from_le_bytes([b[6], b[7]]),
            process: u32_at(b, 8),
            parent: u32_at(b, 12),
            pid: u64_at(b, 16),
            first_event: u64_at(b, 24),
            first_signal: u64_at(b, 32),
            events: u32_at(b, 40),
            raw_len: u32_at(b, 44),
            stored_len: u32_at(b, 48),
            body_crc: u32_at(b, 52),
        };
        if h.raw_len > MAX_BLOCK_RAW {
            return Err((
                44,
                format!(
                    "a decoded block length of at most {MAX_BLOCK_RAW}, found {}",
                    h.raw_len
                ),
            ));
        }
        if h.events > h.raw_len {
            return Err((
                40,
                format!(
                    "at most one event per decoded byte ({}), found {} events",
                    h.raw_len, h.events
                ),
            ));
        }
        check_ratio(h.storage, h.raw_len, h.stored_len, 48, "block")?;
        Ok(h)
    }

    pub fn timestamps(&self) -> bool {
        self.flags & FLAG_TIMESTAMPS != 0
    }

    pub fn parent(&self) -> Option<u32> {
        (self.parent != NO_PARENT).then_some(self.parent)
    }

    /// Length of the whole record.
    pub fn record_len(&self) -> u64 {
        BLOCK_HEADER_LEN_V2 as u64 + self.stored_len as u64
    }
}

/// A block header's length and magic, before anything else is read.
fn check_magic(b: &[u8], len: usize) -> Result<(), (usize, String)> {
    if b.len() < len {
        return Err((
            0,
            format!("a {len}-byte block header, found only {} bytes", b.len()),
        ));
    }
    if b[0..4] != BLOCK_MAGIC {
        return Err((
            0,
            format!("a block (magic \"TBLK\"), found {}", show_bytes(&b[0..4])),
        ));
    }
    Ok(())
}

fn storage_of(code: u8, at: usize) -> Result<Storage, (usize, String)> {
    match code {
        0 => Ok(Storage::Raw),
        1 => Ok(Storage::Zstd),
        s => Err((at, format!("a block storage code 0 or 1, found {s}"))),
    }
}

/// Checks a stored length against the decoded one: equal when raw, and at
/// most [`MAX_RATIO`] times smaller when zstd.
fn check_ratio(
    storage: Storage,
    raw: u32,
    stored: u32,
    at: usize,
    what: &str,
) -> Result<(), (usize, String)> {
    match storage {
        Storage::Raw if stored != raw => Err((
            at,
            format!("a raw {what}'s stored length to equal its decoded length {raw}, found {stored}"),
        )),
        Storage::Zstd if raw as u64 > stored as u64 * MAX_RATIO as u64 => Err((
            at,
            format!("a {what} decoded length at most {MAX_RATIO} times the stored {stored} bytes, found {raw}"),
        )),
        _ => Ok(()),
    }
}

/// The most bytes one row of a segment table takes (docs/format.md §5.1):
/// seven varints, none longer than 10 bytes.
pub const MAX_SEGMENT_ROW: u32 = 70;

/// The fixed header of a version-3 block record: one or more segments (a
/// segment is consecutive events of one process), their table, and the
/// body holding their encoded events one after the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    /// How the body is stored.
    pub storage: Storage,
    /// [`FLAG_TIMESTAMPS`], [`FLAG_TABLE_ZSTD`].
    pub flags: u8,
    /// The run tag (see [`RunBinding`]).
    pub run_tag: u16,
    /// Rows of the segment table.
    pub segments: u32,
    /// Length of the segment table, decoded and as stored.
    pub table_raw_len: u32,
    pub table_stored_len: u32,
    /// Length of the body, decoded and as stored.
    pub raw_len: u32,
    pub stored_len: u32,
    /// [`RunBinding::body_crc`] of the stored table, and of the stored body.
    pub table_crc: u32,
    pub body_crc: u32,
}

impl BlockHeader {
    pub fn encode(&self) -> [u8; BLOCK_HEADER_LEN] {
        let mut b = [0u8; BLOCK_HEADER_LEN];
        b[0..4].copy_from_slice(&BLOCK_MAGIC);
        b[4] = self.storage as u8;
        b[5] = self.flags;
        b[6..8].copy_from_slice(&self.run_tag.to_le_bytes());
        b[8..12].copy_from_slice(&self.segments.to_le_bytes());
        b[12..16].copy_from_slice(&self.table_raw_len.to_le_bytes());
        b[16..20].copy_from_slice(&self.table_stored_len.to_le_bytes());
        b[20..24].copy_from_slice(&self.raw_len.to_le_bytes());
        b[24..28].copy_from_slice(&self.stored_len.to_le_bytes());
        b[28..32].copy_from_slice(&self.table_crc.to_le_bytes());
        b[32..36].copy_from_slice(&self.body_crc.to_le_bytes());
        let crc = crc32fast::hash(&b[..36]);
        b[36..40].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Parses and checks a version-3 block header. The error says what was
    /// expected, relative to the header's first byte.
    pub fn parse(b: &[u8]) -> Result<BlockHeader, (usize, String)> {
        check_magic(b, BLOCK_HEADER_LEN)?;
        if crc32fast::hash(&b[..36]) != u32_at(b, 36) {
            return Err((36, "a block header matching its checksum".into()));
        }
        let storage = storage_of(b[4], 4)?;
        let flags = b[5];
        if flags & !(FLAG_TIMESTAMPS | FLAG_TABLE_ZSTD) != 0 {
            return Err((5, format!("known block flags, found {flags:#04x}")));
        }
        let h = BlockHeader {
            storage,
            flags,
            run_tag: u16::from_le_bytes([b[6], b[7]]),
            segments: u32_at(b, 8),
            table_raw_len: u32_at(b, 12),
            table_stored_len: u32_at(b, 16),
            raw_len: u32_at(b, 20),
            stored_len: u32_at(b, 24),
            table_crc: u32_at(b, 28),
            body_crc: u32_at(b, 32),
        };
        if h.raw_len > MAX_BLOCK_RAW {
            return Err((
                20,
                format!(
                    "a decoded block length of at most {MAX_BLOCK_RAW}, found {}",
                    h.raw_len
                ),
            ));
        }
        // Every segment holds an event, and every event takes a byte.
        if h.segments == 0 || h.segments > h.raw_len {
            return Err((
                8,
                format!(
                    "between 1 and {} segments (one event per decoded byte), found {}",
                    h.raw_len, h.segments
                ),
            ));
        }
        if h.table_raw_len as u64 > h.segments as u64 * MAX_SEGMENT_ROW as u64 {
            return Err((
                12,
                format!(
                    "a segment table of at most {MAX_SEGMENT_ROW} bytes a row, found {} bytes for {} rows",
                    h.table_raw_len, h.segments
                ),
            ));
        }
        let table = if h.table_zstd() {
            Storage::Zstd
        } else {
            Storage::Raw
        };
        check_ratio(
            table,
            h.table_raw_len,
            h.table_stored_len,
            16,
            "segment table",
        )?;
        check_ratio(h.storage, h.raw_len, h.stored_len, 24, "block")?;
        Ok(h)
    }

    pub fn timestamps(&self) -> bool {
        self.flags & FLAG_TIMESTAMPS != 0
    }

    pub fn table_zstd(&self) -> bool {
        self.flags & FLAG_TABLE_ZSTD != 0
    }

    /// Length of the whole record.
    pub fn record_len(&self) -> u64 {
        BLOCK_HEADER_LEN as u64 + self.table_stored_len as u64 + self.stored_len as u64
    }
}

/// The 16-byte preamble.
pub fn preamble(header_len: u32) -> [u8; PREAMBLE_LEN] {
    let mut b = [0u8; PREAMBLE_LEN];
    b[0..8].copy_from_slice(&MAGIC);
    b[8..10].copy_from_slice(&VERSION.to_le_bytes());
    b[12..16].copy_from_slice(&header_len.to_le_bytes());
    b
}

/// The footer record's fixed header: magic and postcard length.
pub fn footer_record_header(len: u32) -> [u8; FOOTER_RECORD_HEADER_LEN] {
    let mut b = [0u8; FOOTER_RECORD_HEADER_LEN];
    b[0..4].copy_from_slice(&FOOTER_MAGIC);
    b[4..8].copy_from_slice(&len.to_le_bytes());
    b
}

/// The trailer: where the footer record starts.
pub fn trailer(footer_offset: u64) -> [u8; TRAILER_LEN] {
    let mut b = [0u8; TRAILER_LEN];
    b[0..8].copy_from_slice(&footer_offset.to_le_bytes());
    let crc = crc32fast::hash(&b[0..8]);
    b[8..12].copy_from_slice(&crc.to_le_bytes());
    b[12..16].copy_from_slice(&TRAILER_MAGIC);
    b
}

/// Parses a trailer: the footer offset, if the bytes are a valid trailer.
pub fn parse_trailer(b: &[u8]) -> Option<u64> {
    if b.len() != TRAILER_LEN || b[12..16] != TRAILER_MAGIC {
        return None;
    }
    (crc32fast::hash(&b[0..8]) == u32_at(b, 8)).then(|| u64_at(b, 0))
}

pub(crate) fn read_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(crate) fn read_u32(b: &[u8], at: usize) -> u32 {
    u32_at(b, at)
}

/// Bytes as a short printable sequence for error messages: `"TBLK"` or `00 ff 1a`.
pub fn show_bytes(b: &[u8]) -> String {
    if !b.is_empty() && b.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        format!("{:?}", String::from_utf8_lossy(b))
    } else if b.is_empty() {
        "nothing".into()
    } else {
        let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
        format!("bytes {}", hex.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> BlockHeaderV2 {
        BlockHeaderV2 {
            storage: Storage::Zstd,
            flags: FLAG_TIMESTAMPS,
            run_tag: 0xbeef,
            process: 7,
            parent: 2,
            pid: 87,
            first_event: 1000,
            first_signal: 400,
            events: 900,
            raw_len: 1500,
            stored_len: 600,
            body_crc: 0xdead_beef,
        }
    }

    #[test]
    fn block_header_round_trips() {
        let h = sample();
        assert_eq!(BlockHeaderV2::parse(&h.encode()), Ok(h));
    }

    #[test]
    fn block_header_rejects_damage_and_lies() {
        let mut b = sample().encode();
        b[20] ^= 1;
        assert_eq!(BlockHeaderV2::parse(&b).unwrap_err().0, 56);
        let mut h = sample();
        h.raw_len = h.stored_len * MAX_RATIO + 1;
        h.events = 10;
        assert!(BlockHeaderV2::parse(&h.encode())
            .unwrap_err()
            .1
            .contains("1024 times"));
        let mut h = sample();
        h.events = h.raw_len + 1;
        assert!(BlockHeaderV2::parse(&h.encode())
            .unwrap_err()
            .1
            .contains("one event per decoded byte"));
        assert!(BlockHeaderV2::parse(&b"TBLK"[..])
            .unwrap_err()
            .1
            .contains("only 4 bytes"));
    }

    fn sample_v3() -> BlockHeader {
        BlockHeader {
            storage: Storage::Zstd,
            flags: FLAG_TIMESTAMPS | FLAG_TABLE_ZSTD,
            run_tag: 0xbeef,
            segments: 40,
            table_raw_len: 300,
            table_stored_len: 120,
            raw_len: 1500,
            stored_len: 600,
            table_crc: 0x1234_5678,
            body_crc: 0xdead_beef,
        }
    }

    #[test]
    fn version_3_block_header_round_trips_and_checks_its_bounds() {
        let h = sample_v3();
        assert_eq!(BlockHeader::parse(&h.encode()), Ok(h.clone()));
        assert_eq!(h.record_len(), 40 + 120 + 600);
        let mut b = h.encode();
        b[9] ^= 1;
        assert_eq!(BlockHeader::parse(&b).unwrap_err().0, 36);
        let bad = |f: &dyn Fn(&mut BlockHeader)| {
            let mut h = sample_v3();
            f(&mut h);
            BlockHeader::parse(&h.encode()).unwrap_err().1
        };
        assert!(bad(&|h| h.segments = 0).contains("segments"));
        assert!(bad(&|h| h.segments = 1501).contains("segments"));
        assert!(bad(&|h| h.table_raw_len = 40 * MAX_SEGMENT_ROW + 1).contains("a row"));
        assert!(bad(&|h| h.table_stored_len = 0).contains("1024 times"));
        assert!(bad(&|h| h.flags = 4).contains("flags"));
        assert!(bad(&|h| {
            h.storage = Storage::Raw;
        })
        .contains("equal its decoded length"));
    }

    #[test]
    fn trailer_round_trips_and_checks_its_crc() {
        let t = trailer(123_456);
        assert_eq!(parse_trailer(&t), Some(123_456));
        let mut bad = t;
        bad[0] ^= 1;
        assert_eq!(parse_trailer(&bad), None);
    }
}
