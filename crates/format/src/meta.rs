//! The log's metadata, serde-encoded with postcard: the header (what was run,
//! written first) and the footer (how it ended and where every block is,
//! written last). docs/format.md §3 and §6 list the fields in wire order.
//!
//! postcard is not self-describing: adding or reordering a field changes the
//! format version.

use serde::{Deserialize, Serialize};

/// What was recorded: the program's identity and the recording options.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Header {
    /// Name and version of the program that wrote the log, e.g. `trace-recorder 0.1.0`.
    pub recorder: String,
    /// Name and version of the engine that ran the program.
    pub engine: String,
    /// The program's modules, so a replay against changed sources is detected up front.
    pub modules: Vec<ModuleInfo>,
    /// The entry call as text, e.g. `ping:main()`.
    pub entry: String,
    pub options: RecordingOptions,
    /// Wall-clock start of the run, in nanoseconds since the Unix epoch.
    pub start_time_ns: u64,
    /// The node name, `nonode@nohost` for a non-distributed run.
    pub node: String,
    /// The entry process's raw pid number (`<0.N.0>`); its dense index is 0.
    pub entry_pid: u64,
    /// Names of the built-ins behind `NondetKind::Other(n)`, indexed by `n`.
    pub nondet_names: Vec<String>,
    /// A number drawn for this recording (version 2): every block carries
    /// it, so blocks of two runs written to one file are told apart. 0 in
    /// logs of version 1.
    pub run_id: u64,
    /// Names of the functions behind a `Shared` event's `function` index
    /// (version 2), e.g. `ets:insert/2`.
    pub shared_functions: Vec<String>,
}

/// The header as version 1 of the format writes it: [`Header`] without its
/// version-2 fields.
#[derive(Deserialize)]
pub(crate) struct HeaderV1 {
    recorder: String,
    engine: String,
    modules: Vec<ModuleInfo>,
    entry: String,
    options: RecordingOptions,
    start_time_ns: u64,
    node: String,
    entry_pid: u64,
    nondet_names: Vec<String>,
}

impl From<HeaderV1> for Header {
    fn from(h: HeaderV1) -> Header {
        Header {
            recorder: h.recorder,
            engine: h.engine,
            modules: h.modules,
            entry: h.entry,
            options: h.options,
            start_time_ns: h.start_time_ns,
            node: h.node,
            entry_pid: h.entry_pid,
            nondet_names: h.nondet_names,
            run_id: 0,
            shared_functions: Vec::new(),
        }
    }
}

/// One module of the recorded program.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModuleInfo {
    pub name: String,
    pub path: String,
    /// 64-bit FNV-1a of the source text ([`fnv1a64`]); shown as 16 hex digits.
    pub hash: u64,
}

/// How the run was recorded.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RecordingOptions {
    /// Message payloads are in the log.
    pub payloads: bool,
    /// `Deliver` events are in the log.
    pub deliveries: bool,
    /// Output bytes are in the log (`Output` events are always present).
    pub output: bool,
    /// Events carry timestamps (the writer sets this from its options).
    pub timestamps: bool,
    /// Number of scheduler threads of the run.
    pub schedulers: u32,
    /// Seed of the chaos scheduler, when it was on.
    pub chaos_seed: Option<u64>,
    /// Anything else worth knowing, as name/value pairs.
    pub other: Vec<(String, String)>,
}

/// The option (`other`) a log imported from CauDEr carries, with the
/// generation of CauDEr's format as its value.
pub const CAUDER_FORMAT: &str = "cauder.format";

impl RecordingOptions {
    /// Whether the log was imported from CauDEr (it holds spawns, sends
    /// and receives only).
    pub fn imported_from_cauder(&self) -> bool {
        self.other.iter().any(|(k, _)| k == CAUDER_FORMAT)
    }
}

/// How a run ended, as the recorder tells the writer.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outcome {
    pub end: RunEnd,
    /// The exit status the `trace` command returned for the run, if known.
    pub exit_status: Option<i32>,
    /// The entry call's result as `~p` prints it, if it returned.
    pub entry_result: Option<String>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum RunEnd {
    /// Every process exited or was left blocked; the log is complete.
    #[default]
    Completed,
    /// The run was stopped (Ctrl-C); the log holds everything up to that point.
    Interrupted,
    /// The recorder failed; the log holds what was written before.
    RecorderCrashed,
    /// The run was cut at a limit (`--time-limit`, `--max-events`); the log
    /// holds everything up to that point.
    Limited,
    /// The run ended when its entry did (`--halt`); other processes were
    /// left where they were, and the log holds everything up to that point.
    Halted,
}

/// The footer: the outcome, the process table and the block index.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Footer {
    pub outcome: Outcome,
    /// Wall-clock end of the run, in nanoseconds since the Unix epoch.
    pub end_time_ns: u64,
    /// Indexed by dense process index; packed (docs/format.md §7).
    #[serde(with = "packed_processes")]
    pub processes: Vec<ProcessEntry>,
    /// In file order, the first starting where the header ends and each
    /// where the one before it ends.
    pub blocks: Vec<BlockEntry>,
}

/// The process table of a version-3 footer as one byte string: a count,
/// then for each process three varints — its pid number's distance from
/// its index, as a zigzag step from the process before it's; its parent, 0
/// for none or one more than the zigzag distance back to it; its events. A
/// million short-lived processes take a few bytes each rather than eight.
mod packed_processes {
    use super::ProcessEntry;
    use crate::varint::{get, put, unzigzag, zigzag};
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};
    use std::borrow::Cow;

    pub fn serialize<S: Serializer>(ps: &[ProcessEntry], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(ps.len() * 4 + 4);
        put(&mut out, ps.len() as u64);
        let mut offset = 0i64;
        for (i, p) in ps.iter().enumerate() {
            let o = p.pid.wrapping_sub(i as u64) as i64;
            put(&mut out, zigzag(o.wrapping_sub(offset)));
            offset = o;
            put(
                &mut out,
                p.parent.map_or(0, |q| zigzag(i as i64 - q as i64) + 1),
            );
            put(&mut out, p.events);
        }
        s.serialize_bytes(&out)
    }

    /// The table's bytes, borrowed from the footer when the deserializer
    /// lends them (postcard does): a crowd's table has megabytes, which
    /// serde's `Vec<u8>` would take one element at a time.
    struct Bytes;

    impl<'de> Visitor<'de> for Bytes {
        type Value = Cow<'de, [u8]>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the packed process table")
        }

        fn visit_borrowed_bytes<E: Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }

        fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_vec()))
        }

        fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut v = Vec::new();
            while let Some(b) = seq.next_element()? {
                v.push(b);
            }
            Ok(Cow::Owned(v))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ProcessEntry>, D::Error> {
        let bytes = d.deserialize_bytes(Bytes)?;
        let bad = |what: &str| D::Error::custom(format!("process table: {what}"));
        let mut at = 0usize;
        let n = get(&bytes, &mut at).map_err(|_| bad("a count"))?;
        // Every entry takes three bytes at least.
        if n > (bytes.len() / 3) as u64 {
            return Err(bad("fewer entries than its bytes hold"));
        }
        let mut ps = Vec::with_capacity(n as usize);
        let mut offset = 0i64;
        for i in 0..n {
            let mut next = || get(&bytes, &mut at).map_err(|_| bad("a varint"));
            offset = offset.wrapping_add(unzigzag(next()?));
            let pid = i.wrapping_add(offset as u64);
            let parent = match next()? {
                0 => None,
                c => Some(
                    (i as i64)
                        .checked_sub(unzigzag(c - 1))
                        .and_then(|q| u32::try_from(q).ok())
                        .ok_or_else(|| bad("a parent index"))?,
                ),
            };
            let events = next()?;
            ps.push(ProcessEntry {
                pid,
                parent,
                events,
            });
        }
        if at != bytes.len() {
            return Err(bad("its end after the last entry"));
        }
        Ok(ps)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ProcessEntry {
    pub pid: u64,
    pub parent: Option<u32>,
    pub events: u64,
}

/// A block record of a version-3 log.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BlockEntry {
    /// Length of the whole record, header included.
    pub len: u32,
    /// Rows of its segment table.
    pub segments: u32,
}

/// The footer of versions 1 and 2: one process per block, each listed with
/// its place.
#[derive(Deserialize)]
pub(crate) struct FooterV2 {
    pub outcome: Outcome,
    pub end_time_ns: u64,
    pub processes: Vec<ProcessEntry>,
    pub blocks: Vec<BlockEntryV2>,
}

#[derive(Copy, Clone, Debug, Deserialize)]
pub(crate) struct BlockEntryV2 {
    pub process: u32,
    pub first_event: u64,
    pub events: u32,
    /// Offset of the block record (its `TBLK` magic) in the file.
    pub offset: u64,
    /// Length of the whole record, header included.
    pub len: u32,
}

/// 64-bit FNV-1a, the content hash of [`ModuleInfo`].
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn footer_round_trips_with_its_packed_process_table() {
        let f = Footer {
            outcome: Outcome::default(),
            end_time_ns: 5,
            processes: vec![
                ProcessEntry {
                    pid: 80,
                    parent: None,
                    events: 4,
                },
                ProcessEntry {
                    pid: 81,
                    parent: Some(0),
                    events: 1 << 40,
                },
                ProcessEntry {
                    pid: 7,
                    parent: Some(1),
                    events: 0,
                },
            ],
            blocks: vec![BlockEntry {
                len: 100,
                segments: 2,
            }],
        };
        let bytes = postcard::to_allocvec(&f).unwrap();
        assert_eq!(postcard::from_bytes::<Footer>(&bytes).unwrap(), f);
        // The packed table, after the outcome (3 bytes), the end time and
        // its own length: count 3; the first pid offset 80 as a step from 0.
        assert_eq!(&bytes[5..9], &[3, 0xa0, 0x01, 0]);
        for cut in 0..bytes.len() {
            assert!(postcard::from_bytes::<Footer>(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn header_round_trips_through_postcard() {
        let h = Header {
            recorder: "trace-recorder 0.1.0".into(),
            engine: "trace-runtime 0.1.0".into(),
            modules: vec![ModuleInfo {
                name: "ping".into(),
                path: "ping.erl".into(),
                hash: fnv1a64(b"-module(ping)."),
            }],
            entry: "ping:main()".into(),
            options: RecordingOptions {
                payloads: true,
                schedulers: 2,
                chaos_seed: Some(7),
                ..Default::default()
            },
            start_time_ns: 1_700_000_000_000_000_000,
            node: "nonode@nohost".into(),
            entry_pid: 80,
            nondet_names: vec!["os:getpid/0".into()],
            run_id: 0x0123_4567_89ab_cdef,
            shared_functions: vec!["ets:insert/2".into()],
        };
        let bytes = postcard::to_allocvec(&h).unwrap();
        assert_eq!(postcard::from_bytes::<Header>(&bytes).unwrap(), h);
    }
}
