//! `trace diff`: compare two runs up to causal equivalence (trace-diff).

use crate::exit;
use clap::{Args as ClapArgs, ValueEnum};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use trace_capture::SymbolicName;
use trace_diff::render::{self, Style};
use trace_diff::{Abstraction, Options};
use trace_format::LogReader;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless NO_COLOR is set
    Auto,
    Always,
    Never,
}

#[derive(ClapArgs)]
#[command(after_help = "\
trace diff compares the behaviour of two runs, not their text: processes are
matched by symbolic name (P.2.1: the 1st child of the 2nd child of the entry
process), messages by sender and send index, pids inside payloads by the
process they name. Raw pids and the interleaving never matter: runs whose
matched process logs hold the same events are causally equivalent. Otherwise
it lists the processes whose logs differ (first difference, exits) and those
only one run has, and shows each root divergence -- a difference whose causal
past holds no other difference -- with events around it from both runs.

Levels:
  (default)            every event with its payload
  --ignore-payloads    events without payloads
  --abstract PATTERN   what PATTERN's variables match in payloads is a
                       wildcard: '{tick, _T}', 'R when is_reference(R)'
  --observe P ...      only what P consumes and sends, in its order; senders
                       may differ (map vs pmap look the same to an observer
                       that gets only the result)

Examples:
  trace diff good.trace bad.trace
  trace diff v1.trace v2.trace --ignore-payloads
  trace diff a.trace b.trace --abstract '{reply, _Ref, _}' --abstract 'T when is_integer(T), T > 1000000'
  trace diff map.trace pmap.trace --observe P
  trace diff a.trace b.trace --json | jq '.roots[].event'
  trace diff good.trace bad.trace --html diff.html

Exit status: 0 equivalent; 1 different; 2 trouble (unreadable or damaged log,
bad arguments, an --observe process neither run has). docs/diff.md says more.")]
pub struct Args {
    /// The first run (a)
    pub a: PathBuf,
    /// The second run (b)
    pub b: PathBuf,
    /// Compare events without their payloads
    #[arg(long, conflicts_with = "abstract_")]
    pub ignore_payloads: bool,
    /// Wildcard what this pattern's variables match in payloads (Erlang pattern, optional guard; repeatable)
    #[arg(long = "abstract", id = "abstract_", value_name = "PATTERN", value_parser = super::parse_abstraction)]
    pub abstract_: Vec<Abstraction>,
    /// Compare only what these processes consume and send (symbolic names: P, P.1, ...)
    #[arg(long, value_name = "P", num_args = 1.., value_parser = parse_name)]
    pub observe: Vec<SymbolicName>,
    /// Events shown before and after each root divergence
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub context: u64,
    /// List every difference in text (by default at most 100)
    #[arg(long)]
    pub all: bool,
    /// One JSON document instead of text
    #[arg(long)]
    pub json: bool,
    /// Colour the text
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Threads that read and compare the logs (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    pub threads: Option<usize>,
    /// Also write both runs' diagrams side by side, root divergences marked, to this HTML page
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

fn parse_name(s: &str) -> Result<SymbolicName, String> {
    s.parse::<SymbolicName>().map_err(|e| {
        if s.trim_start().starts_with('<') {
            format!(
                "{e} (raw pids differ between runs: name the process by its symbolic name, P.2)"
            )
        } else {
            e.to_string()
        }
    })
}

fn open(path: &Path) -> Result<LogReader, u8> {
    LogReader::open(path).map_err(|e| {
        eprintln!("trace diff: {}: {e}", path.display());
        exit::TROUBLE
    })
}

pub fn run(args: Args) -> u8 {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n);
    }
    match pool.build() {
        Ok(pool) => pool.install(|| compare(&args)),
        Err(e) => {
            eprintln!("trace diff: cannot start threads: {e}");
            exit::TROUBLE
        }
    }
}

fn compare(args: &Args) -> u8 {
    let (a, b) = match (open(&args.a), open(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    let opts = Options {
        ignore_payloads: args.ignore_payloads,
        abstractions: args.abstract_.clone(),
        observe: args.observe.clone(),
        context: args.context,
    };
    let d = match trace_diff::diff(&a, &b, &opts) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("trace diff: {e}");
            return exit::TROUBLE;
        }
    };
    let paths = [&args.a, &args.b];
    let of_run = |x: usize| -> Vec<trace_format::Warning> {
        let ws = d.warnings.iter().filter(|(y, _)| *y == x);
        ws.map(|(_, w)| w.clone()).collect()
    };
    let warnings = [of_run(0), of_run(1)];
    for (path, ws) in paths.iter().zip(&warnings) {
        crate::report::print_warnings("diff", path, ws);
    }
    let files = paths.map(|p| p.display().to_string());
    let files = [files[0].as_str(), files[1].as_str()];
    let mut out = BufWriter::new(io::stdout().lock());
    let written = if args.json {
        render::json(&d, files)
            .iter()
            .try_for_each(|line| writeln!(out, "{line}"))
    } else {
        let color = match args.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        let style = Style {
            color,
            limit: if args.all {
                usize::MAX
            } else {
                Style::default().limit
            },
            ..Style::default()
        };
        render::text(&d, &style, files)
            .iter()
            .try_for_each(|l| writeln!(out, "{l}"))
    };
    match written.and_then(|_| out.flush()) {
        Ok(()) => {}
        // `trace diff | head` closes the pipe early: that is not trouble.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("trace diff: {e}");
            return exit::TROUBLE;
        }
    }
    if let Some(html) = &args.html {
        if let Err(code) = write_html(args, [&a, &b], &d, html) {
            return code;
        }
    }
    let status = if d.equivalent() {
        exit::OK
    } else {
        exit::DIFFERENT
    };
    let status = crate::report::unless_damaged("diff", &args.a, &warnings[0], status);
    crate::report::unless_damaged("diff", &args.b, &warnings[1], status)
}

/// `--html`: both runs' diagrams side by side, the root divergences marked,
/// and the text report.
fn write_html(
    args: &Args,
    readers: [&LogReader; 2],
    d: &trace_diff::Diff,
    html: &Path,
) -> Result<(), u8> {
    let paths = [&args.a, &args.b];
    let files = paths.map(|p| p.display().to_string());
    let style = Style {
        color: false,
        limit: usize::MAX,
        ..Style::default()
    };
    let report = render::text(d, &style, [files[0].as_str(), files[1].as_str()]).join("\n");
    let models = readers.map(trace_causal::Model::build);
    let title = |x: usize| super::view::title(paths[x], readers[x]);
    let page = trace_view::diff_page(
        [
            (&models[0], readers[0], title(0)),
            (&models[1], readers[1], title(1)),
        ],
        &trace_view::Focus::default(),
        d,
        report,
    )
    .map_err(|e| {
        eprintln!("trace diff: {e}");
        exit::TROUBLE
    })?;
    super::view::write_page("diff", html, &[&args.a, &args.b], &page.html())?;
    eprintln!("trace diff: wrote {}", html.display());
    Ok(())
}
