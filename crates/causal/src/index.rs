//! Indexes over the model's facts, built on first use and held by the
//! model: where each receipt and process start lies in the rebuilt
//! derivation, and which receipts each signal has. [`crate::query`] builds
//! and reads them.

use crate::facts::TableRow;

/// Where each receipt and each process start lies in the rebuilt derivation.
pub(crate) struct Positions {
    /// Position of each process's first event (`u64::MAX`: never placed).
    pub(crate) start: Vec<u64>,
    /// Position of each receipt, by global receipt index.
    pub(crate) receipt: Vec<u64>,
    /// Position of each dependency, by row and index in `Model::deps`.
    pub(crate) dep: Vec<Vec<u64>>,
    /// Every event was placed (no happened-before cycle).
    pub(crate) complete: bool,
    /// The derivation's stretches in order: each a row and how many of its
    /// events it runs (a row's stretches follow each other from its first
    /// event), for sweeps through the derivation ([`crate::pasts`]).
    pub(crate) stretches: Vec<(TableRow, u32)>,
}

/// For each signal (global index), the receipts of it (global indices).
pub(crate) struct ReceiptIndex {
    pub(crate) offsets: Vec<usize>,
    pub(crate) list: Vec<usize>,
    /// The receiver of each receipt.
    pub(crate) receiver: Vec<TableRow>,
}
