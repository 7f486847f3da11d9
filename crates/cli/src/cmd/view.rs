//! `trace view`: a run's space-time diagram as one self-contained HTML
//! page (trace-view), written to a file and, with `--open`, shown in the
//! browser.

use crate::exit;
use clap::Args as ClapArgs;
use std::path::{Path, PathBuf};
use trace_capture::{EventSpec, ProcRef};
use trace_causal::Model;
use trace_format::LogReader;
use trace_view::Focus;

#[derive(ClapArgs)]
#[command(after_help = "\
Writes one HTML file that needs nothing else (no network, no script or font from
elsewhere): a lane per process (symbolic name and pid) and per shared object
(an ETS table, an atomics or counters array, persistent_term), time going down,
events placed in an order that respects happened-before, an arrow per message
from its send to its receive (and to its delivery, when deliveries were
recorded), spawns, links, monitors, exit and 'DOWN' signals drawn apart,
timeouts, crashes and processes left idle or stuck marked. Operations on a
shared object that happened-before leaves unordered (a race) are bracketed.

Click an event: its details (the line trace dump prints, payloads as ~p prints
them), and its causal past in blue and future in orange. Search by process,
kind or text; hide, collapse and move lanes; zoom with + and - (or ctrl+wheel).

A page holds at most --window events (default 250000), chosen in an order that
respects happened-before; beyond, it says so and names the event --from starts
the next window at. Events are named as everywhere (docs/events.md): P.2#5,
send(P.1:0), receive(P.1:0), spawn(P.2), exit(P.2).

Examples:
  trace view run.trace                          # writes run.html
  trace view run.trace -o /tmp/run.html --open
  trace view run.trace --process P P.2           # only these lanes shown at first
  trace view run.trace --around 'receive(P.1:3)' # its causal past and future
  trace view run.trace --until P.2#40            # what led to P.2#40
  trace view big.trace --from P.3#1200 --window 100000

Exit status: 0 the page was written; 2 trouble (unreadable log, an EVENT that
names nothing, an output that cannot be written).")]
pub struct Args {
    /// The recorded run
    pub log: PathBuf,
    /// Write the page here (default: the log's name with .html)
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Open the page in the default browser once written
    #[arg(long)]
    pub open: bool,
    /// Show only these processes' lanes at first (the others can be shown again in the page)
    #[arg(long, value_name = "P", num_args = 1..)]
    pub process: Vec<ProcRef>,
    /// Only EVENT's causal slice: its causal past and its causal future
    #[arg(long, value_name = "EVENT")]
    pub around: Option<EventSpec>,
    /// Only EVENT's causal past (what trace replay --until EVENT replays)
    #[arg(long, value_name = "EVENT")]
    pub until: Option<EventSpec>,
    /// Start the window where a derivation reaches EVENT
    #[arg(long, value_name = "EVENT")]
    pub from: Option<EventSpec>,
    /// Most events the page holds
    #[arg(long, value_name = "N", default_value_t = trace_view::DEFAULT_LIMIT as u64,
          value_parser = clap::value_parser!(u64).range(1..=trace_view::MAX_LIMIT as u64))]
    pub window: u64,
}

/// The page's default name: the log's, with `.html`.
pub fn default_out(log: &Path) -> PathBuf {
    log.with_extension("html")
}

/// A title for a log's pages: its file name and entry call.
pub fn title(log: &Path, reader: &LogReader) -> String {
    let file = log.file_name().map_or_else(
        || log.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    format!("{file} ({})", reader.header().entry)
}

/// Writes a page, refusing to write over one of its inputs.
pub fn write_page(cmd: &str, out: &Path, inputs: &[&Path], html: &str) -> Result<(), u8> {
    if inputs.iter().any(|i| super::same_file(i, out)) {
        eprintln!(
            "trace {cmd}: {}: is an input; choose another output",
            out.display()
        );
        return Err(exit::TROUBLE);
    }
    std::fs::write(out, html).map_err(|e| {
        eprintln!("trace {cmd}: {}: {e}", out.display());
        exit::TROUBLE
    })
}

pub fn run(args: Args) -> u8 {
    let reader = match LogReader::open(&args.log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace view: {}: {e}", args.log.display());
            return exit::TROUBLE;
        }
    };
    let model = Model::build(&reader);
    crate::report::print_warnings("view", &args.log, model.warnings());
    let status = draw(&args, &model, &reader);
    crate::report::unless_damaged("view", &args.log, model.warnings(), status)
}

/// Writes the page of `model` and says where.
fn draw(args: &Args, model: &Model, reader: &LogReader) -> u8 {
    let focus = Focus {
        processes: args.process.clone(),
        around: args.around.clone(),
        until: args.until.clone(),
        from: args.from.clone(),
        limit: args.window as usize,
    };
    let page = match trace_view::page(model, reader, &focus, title(&args.log, reader)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("trace view: {}: {e}", args.log.display());
            return exit::TROUBLE;
        }
    };
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.log));
    if let Err(code) = write_page("view", &out, &[&args.log], &page.html()) {
        return code;
    }
    let w = &page.runs[0].window;
    crate::out::outln!(
        "wrote {} ({} events, {} lanes)",
        out.display(),
        w.shown,
        page.runs[0].lanes.len()
    );
    if let Some(next) = &w.next {
        crate::out::outln!(
            "  the page holds a window; the next one: trace view {} --from '{next}'",
            args.log.display()
        );
    }
    if args.open {
        open(&out);
    }
    exit::OK
}

/// Shows the page in the desktop's browser; a failure is said, not fatal:
/// the page is written.
fn open(page: &Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    match std::process::Command::new(opener)
        .arg(page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(_) => {}
        Err(e) => eprintln!(
            "trace view: cannot start {opener} to open {}: {e}; open it in a browser",
            page.display()
        ),
    }
}
