//! The `trace` log format (docs/format.md): a versioned, compressed,
//! crash-safe, random-access container of per-process event logs. It knows
//! nothing of the engine: the recorder pushes events in, and everything that
//! reads a run (replay, diff, check, dump, stats, converters) reads them out.
//!
//! ```text
//! writing:  Event / push_* ─► writer (per-process buffers, flusher,
//!           compressor threads) ─► codec::BlockEncoder ─► zstd ─► container ─► file
//!           meta::Header first, meta::Footer + trailer on finish
//! reading:  file ─► reader (mmap; preamble + header; footer index, or scan
//!           when it is missing) ─► zstd ─► codec::BlockDecoder ─► view::EventRef
//!           ─► text (dump), stats, cauder (export); or Event / ProcessLog (owned)
//! ```
//!
//! - [`event`]: the vocabulary (DESIGN §4) and message identities; [`view`]
//!   the same events borrowed from a decoded block.
//! - [`varint`] and [`codec`]: how one block's events become bytes.
//! - [`container`]: preamble, block headers, footer record, trailer;
//!   [`segment`]: the table of a block's segments (runs of one process's
//!   events); [`meta`]: the postcard header and footer.
//! - [`writer`] and [`reader`]; [`error`]: what reading can report.
//! - [`text`] and [`stats`]: for `trace dump` and `trace stats`; [`cauder`]:
//!   CauDEr's log directories, both ways.
//! - [`prefetch`]: a cache hint for the readers of large tables, here and in
//!   the crates that analyse logs; `sync`: the lock both the writer and the
//!   reader take.

pub mod cauder;
pub mod codec;
pub mod container;
pub mod error;
pub mod event;
pub mod meta;
pub mod prefetch;
pub mod reader;
pub mod segment;
mod sniff;
pub mod stats;
mod sync;
pub mod text;
pub mod varint;
pub mod view;
pub mod writer;

pub use error::{FormatError, Loss, Warning};
pub use event::{
    Access, Dest, Event, EventKind, MsgId, NondetKind, ObjectId, ObjectKind, Payload, ProcId,
    ProcessLog, SignalClass, SignalEffect, SignalKind,
};
pub use meta::{
    BlockEntry, Footer, Header, ModuleInfo, Outcome, ProcessEntry, RecordingOptions, RunEnd,
};
pub use reader::{BlockCursor, BlockInfo, Events, LogReader, ProcessInfo, RecordScratch};
pub use sniff::is_trace_log;
pub use view::{EventRef, SignalKindRef};
pub use writer::{LogWriter, ProcessWriter, Slice, Summary, WriterOptions};
