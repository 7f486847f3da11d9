//! Which events a picture shows: a window of a derivation, chosen with
//! `--until EVENT` (its causal past), `--around EVENT` (its causal slice:
//! past and future), `--from EVENT` (from where a derivation reaches it)
//! and a limit on the number of events.
//!
//! Every window is convex in happened-before: when it holds `x` and `y`
//! and `x → z → y`, it holds `z` too (a causal past is closed downwards,
//! a future upwards, a slice is a past and a future joined at one event,
//! and a stretch of a derivation holds everything placed between its ends).
//! So the causes of a shown event that are themselves shown are linked by
//! arrows between shown events, and the page computes causal pasts and
//! futures exactly from the arrows it has.

use crate::layout::{Layout, Placed};
use std::fmt;
use trace_capture::{EventSpec, ProcRef};
use trace_causal::{EventId, Future, Model, Past, Step};
use trace_format::{FormatError, LogReader, ProcId};

/// Events a page shows by default: 100,000 open in a few seconds and
/// scroll smoothly (`cargo xtask view` measures it).
pub const DEFAULT_LIMIT: usize = 250_000;

/// The most events a page may be asked to hold: about 200 bytes each in
/// the page, and as much again in the browser.
pub const MAX_LIMIT: usize = 2_000_000;

/// What to show, as the user asked for it.
#[derive(Clone, Debug, Default)]
pub struct Focus {
    /// Lanes shown at first (all when empty); the others are hidden, not
    /// left out, so that causal pasts stay exact.
    pub processes: Vec<ProcRef>,
    pub around: Option<EventSpec>,
    pub until: Option<EventSpec>,
    pub from: Option<EventSpec>,
    /// Most events shown (0: [`DEFAULT_LIMIT`]).
    pub limit: usize,
}

/// Why a window cannot be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FocusError(pub String);

impl fmt::Display for FocusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FocusError {}

/// What the window holds, for the page to say.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WindowNote {
    /// Events shown.
    pub shown: u64,
    /// Events of the selection (the log, a causal past, a slice), when
    /// known without reading it all.
    pub total: Option<u64>,
    /// The selection in words: `the whole run`, `the causal past of P.1#4`.
    pub selection: String,
    /// The first event left out by the limit: `--from` it shows the next window.
    pub next: Option<String>,
    /// Processes the page hides at first (`--process` named the others).
    #[serde(skip)]
    pub hidden: Vec<ProcId>,
}

/// A focus resolved against a log's model.
struct Resolved {
    until: Option<Past>,
    around: Option<(Past, Future)>,
    from: Option<EventId>,
    limit: usize,
}

fn resolve(
    model: &Model,
    spec: &Option<EventSpec>,
    flag: &str,
) -> Result<Option<EventId>, FocusError> {
    spec.as_ref()
        .map(|s| trace_causal::resolve(model, s).map_err(|e| FocusError(format!("{flag} {e}"))))
        .transpose()
}

impl Focus {
    fn resolve(&self, model: &Model) -> Result<Resolved, FocusError> {
        let until = resolve(model, &self.until, "--until")?;
        let around = resolve(model, &self.around, "--around")?;
        let from = resolve(model, &self.from, "--from")?;
        let limit = match self.limit {
            0 => DEFAULT_LIMIT,
            n if n > MAX_LIMIT => {
                return Err(FocusError(format!(
                "a page holds at most {MAX_LIMIT} events; choose a window with --from and --until"
            )))
            }
            n => n,
        };
        Ok(Resolved {
            until: until.map(|e| model.causal_past(e)),
            around: around.map(|e| (model.causal_past(e), model.causal_future(e))),
            from,
            limit,
        })
    }

    /// The processes hidden at first: all but those `--process` named.
    fn hidden(&self, model: &Model) -> Result<Vec<ProcId>, FocusError> {
        if self.processes.is_empty() {
            return Ok(Vec::new());
        }
        let mut shown = Vec::new();
        for p in &self.processes {
            let id = trace_causal::resolve_proc(model, p)
                .map_err(|e| FocusError(format!("--process {p}: {e}")))?;
            shown.push(id);
        }
        Ok(model
            .processes()
            .iter()
            .map(|p| p.id)
            .filter(|id| !shown.contains(id))
            .collect())
    }

    fn selection(&self) -> String {
        let mut s = match (&self.until, &self.around) {
            (None, None) => "the whole run".to_string(),
            (Some(u), None) => format!("the causal past of {u}"),
            (None, Some(a)) => format!("the causal slice of {a} (its past and future)"),
            (Some(u), Some(a)) => format!("the causal slice of {a} within the causal past of {u}"),
        };
        if let Some(f) = &self.from {
            s.push_str(&format!(", from {f}"));
        }
        s
    }
}

/// Walks the window of `focus` in a derivation and hands each event to
/// `f` with its place. Returns what the window holds.
pub fn walk(
    model: &Model,
    reader: &LogReader,
    focus: &Focus,
    mut f: impl FnMut(&Step<'_>, Placed),
) -> Result<WindowNote, WalkError> {
    let r = focus.resolve(model).map_err(WalkError::Focus)?;
    let mut note = WindowNote {
        selection: focus.selection(),
        hidden: focus.hidden(model).map_err(WalkError::Focus)?,
        total: match (&r.until, &r.around, r.from) {
            (_, _, Some(_)) => None,
            (None, None, None) => Some(model.event_count()),
            (Some(p), None, None) => Some(p.len()),
            (None, Some((p, fu)), None) => Some(p.len() + fu.len() - 1),
            (Some(_), Some(_), None) => None,
        },
        ..WindowNote::default()
    };
    let mut layout = Layout::new(model);
    let mut started = r.from.is_none();
    let namer = trace_capture::Namer::new(model.names());
    trace_causal::for_each_step(
        model,
        reader,
        r.until.as_ref().map(Past::as_limits),
        |step| {
            let e = step.event;
            started |= r.from == Some(e);
            let inside = r
                .around
                .as_ref()
                .is_none_or(|(p, fu)| p.contains(e) || fu.contains(e));
            if !started || !inside {
                return true;
            }
            if note.shown as usize == r.limit {
                note.next = Some(namer.event_name(e.proc, e.index));
                return false;
            }
            note.shown += 1;
            f(step, layout.place(step));
            true
        },
    )
    .map_err(WalkError::Format)?;
    if !started {
        let from = focus
            .from
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(WalkError::Focus(FocusError(format!(
            "--from {from}: not in {}",
            focus.selection()
        ))));
    }
    Ok(note)
}

/// Why a window could not be walked.
#[derive(Debug)]
pub enum WalkError {
    Focus(FocusError),
    Format(FormatError),
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::Focus(e) => e.fmt(f),
            WalkError::Format(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WalkError {}
