//! Pictures of a run: the space-time diagram of a log as one
//! self-contained HTML page (`trace view`, `check --html`, `diff --html`),
//! and the run in the formats of the viewers people already use
//! (`trace export --perfetto`, `--shiviz`, `--csv`).
//!
//! ```text
//! LogReader ─► causal::Model ─► window (which events: --until, --around,
//!              │                 --from, a limit; a convex part of a
//!              │                 derivation) ─► layout (rows: Lamport
//!              │                 clocks; causes) ─► diagram (lanes,
//!              │                 columns of events, races on shared objects)
//!              │   check verdicts / diff roots ─► findings (marks) ─┐
//!              │                                  page (HTML + view.js) ◄┘
//!              └─► export: the whole derivation, placed, with vector
//!                  clocks ─► perfetto (JSON) / shiviz (text) / csv
//! ```
//!
//! Every event's text comes from the one printer
//! (`trace_format::text::Printer`) with the one namer
//! (`trace_capture::Namer`), so what the page shows can be pasted into
//! `--until`. The page computes causal pasts and futures from its arrows;
//! a window is convex in happened-before, which makes them exact (see
//! [`window`]).

mod diagram;
pub mod export;
mod findings;
mod layout;
mod page;
pub mod window;

pub use diagram::{build, kind_code, Diagram, Events, Lane};
pub use findings::{roots, violations, Finding, Mark};
pub use layout::{cause_of, class_code, Layout, Link, Placed};
pub use page::{escape_html, Codes, Page};
pub use window::{Focus, FocusError, WalkError, WindowNote, DEFAULT_LIMIT, MAX_LIMIT};

use trace_causal::Model;
use trace_format::LogReader;

/// The page of one run.
pub fn page(
    model: &Model,
    reader: &LogReader,
    focus: &Focus,
    title: String,
) -> Result<Page, WalkError> {
    Ok(Page::of(build(model, reader, focus, title)?))
}

/// The page of a check: the run with its violations marked, and the
/// check's text report.
pub fn check_page(
    model: &Model,
    reader: &LogReader,
    focus: &Focus,
    title: String,
    spec: &trace_check::Compiled,
    verdicts: &[trace_check::Verdict],
    report: String,
) -> Result<Page, WalkError> {
    let diagram = build(model, reader, focus, title)?;
    let findings = violations(spec, verdicts, model, &diagram);
    let mut page = Page::of(diagram);
    page.title = format!("trace check: {}", page.title);
    page.findings = findings;
    page.report = Some(report);
    Ok(page)
}

/// The page of a diff: both runs side by side, the root divergences
/// marked in each, and the diff's text report.
pub fn diff_page(
    runs: [(&Model, &LogReader, String); 2],
    focus: &Focus,
    diff: &trace_diff::Diff,
    report: String,
) -> Result<Page, WalkError> {
    let [(ma, ra, ta), (mb, rb, tb)] = runs;
    let title = format!("trace diff: {ta} vs {tb}");
    let a = build(ma, ra, focus, ta)?;
    let b = build(mb, rb, focus, tb)?;
    let findings = roots(diff, [ma, mb], [&a, &b]);
    Ok(Page {
        title,
        runs: vec![a, b],
        findings,
        report: Some(report),
        codes: Codes::default(),
    })
}
