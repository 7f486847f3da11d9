//! The causal model of a `trace` log: happened-before and everything built
//! on it — symbolic process names, consistency checks, rebuilt derivations,
//! causal pasts and futures, and the EVENT syntax users name events with.
//! `trace replay` (log-only), diff and check use it.
//!
//! Happened-before (González-Abril and Vidal 2021 §2, Palacios 2020 Definition 5.6, extended to the
//! signals of Bereczky et al. 2024): program order within a process; a spawn before the
//! child's first event; a send (or any signal) before each event that
//! received it — its delivery when deliveries are logged, its taking for a
//! link, exit, monitor or 'DOWN' signal, and its consumption by a `receive`
//! (an exit or 'DOWN' signal turned into a message keeps its id, so the
//! `receive` follows the signal's send too); and transitivity. The exit and
//! 'DOWN' signals a death sends come after the `exit` event in the dying
//! process's log, so the death happened before their receipt.
//!
//! ```text
//! LogReader ──► build (parallel over blocks) ──► Model: per process, compact facts
//!                                                 │   (signals sent, receipts, spawns, exit)
//!           names: symbolic names from the spawn tree  ├─► check (validate/): Report
//!           event: EVENT syntax ──resolve──► EventId    ├─► derive: a derivation (and cycles)
//!                                                      ├─► reach: whether it places every
//!                                                      │    event (parallel, no order)
//!                                                      └─► query: happened_before, causal
//!                                                           past / future (vector clocks)
//! stream: the model built with derive running beside the decoding, on the
//!         blocks as they come (`build_and_validate`, for trace replay LOG)
//! steps: a derivation with its events decoded, for printing (render: text, JSON)
//! stop_points: where a replay can hold each process (never inside a step's events)
//! ```
//!
//! The model holds no payloads: 9 bytes per signal, 13 per receipt and 8 per
//! spawn, plus a few words per process; a process's facts are the arrays its
//! block was decoded into when it was written in one block. Costs of the
//! queries are given in [`query`]'s documentation.
//!
//! Files in layers, none importing one above it: `facts` (what a log gives,
//! per process), `shared`, `index` and `inconsistency` over them; `model`
//! composes them; `build` fills a model, and the analyses (`query`,
//! `pasts`, `derive`, `reach`, `validate`, `cut`, `resolve`, `steps`,
//! `render`) read it; `stream` fills one through `build` with `derive`
//! beside, and `validate` above it checks what it gives.

mod build;
mod cut;
mod derive;
mod facts;
mod inconsistency;
mod index;
mod model;
mod pasts;
pub mod query;
mod reach;
pub mod render;
mod resolve;
mod shared;
mod steps;
pub mod stop_points;
mod stream;
mod validate;
mod waiters;

/// Hand-built logs, shared with the integration tests.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod test_logs;

pub use build::EventVisitor;
pub use cut::consistent_cut;
pub use derive::{derive, derive_within, DeriveOutcome};
pub use facts::{
    Destination, EventId, ProcFacts, Receipt, ReceiptKind, Sent, SignalClass, Spawned,
};
pub use inconsistency::{Inconsistency, Overtaken, Unverifiable, Wait, WaitReason};
pub use model::Model;
pub use pasts::causal_pasts;
pub use query::{Future, Past};
pub use resolve::{resolve, resolve_msg, resolve_proc, ResolveError};
pub use shared::{SameTurn, SharedFact};
pub use steps::{for_each_step, Step};
pub use validate::{build_and_validate, validate, Arrival, Report, Unreceived};
