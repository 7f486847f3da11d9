//! `trace debug`: a reversible debugging session (trace-debug) over a
//! recorded run, or over a run the user schedules when no log is given.
//! This module reads command lines (rustyline at a terminal, a script or
//! piped stdin otherwise) and prints what the session answers.

use crate::exit;
use clap::Args as ClapArgs;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use trace_debug::{Flow, FreeConfig, Session};
use trace_format::LogReader;
use trace_runtime::RunOptions;

#[derive(ClapArgs)]
#[command(after_help = "\
A session stands at a state of the run: for every process, how many of its
events are done. Every state it reaches is a consistent cut (a state a real run
could be in): undoing an event first undoes everything that causally depends on
it, doing one first does all its causes. Each state is made by a fresh replay
of the program to that cut, every logged choice forced, so it is exactly what a
forward replay to the same cut gives.

With a log, the session walks that run. Without one, the user schedules the
run: the program starts on one thread and nothing moves until a command says
which process takes its next step (`step P`; `procs` says who can), a timer's
message is delivered when `deliver P.1:3` says, and `run` goes on as the engine
would on its own. The steps so far are a log: `back` and `rollback` walk it,
a step from an earlier state takes another way from there, and `save FILE`
writes it for `trace replay`. --time-limit and --max-events cut a `run` that
would go on for ever.

At a terminal, commands are read with line editing and history; otherwise from
--commands FILE or standard input, one per line, each echoed after the prompt
so a transcript reads as an interactive session. `help` lists the commands;
docs/debug.md has a worked session.

Examples:
  trace debug fixtures/papers/purchase.erl run.trace
  trace debug prog.erl run.trace --commands session.txt
  printf 'run\\nrollback spawn(P.2)\\nprocs\\n' | trace debug prog.erl run.trace
  printf 'step P 4\\nstep P.1 2\\nsave bug.trace\\n' | trace debug fixtures/papers/proxy_server.erl
  trace debug prog.erl --entry 'prog:start(3)'
  trace debug server.erl --max-events 100000

Exit status: 0 when every command succeeded (or at a terminal), 1 when a
scripted command failed (it says why and the script goes on), 2 trouble (a bad
log, a program that is not the one recorded), 3/4 for a program that does not
compile or is not supported.")]
pub struct Args {
    /// Erlang source files, then the log of a run of them (optional)
    #[arg(required = true, value_name = "FILE.erl ... [LOG]")]
    pub paths: Vec<PathBuf>,
    /// Without a log: the call to start with, `Module:Function(Args)`
    #[arg(long, value_name = "CALL")]
    pub entry: Option<String>,
    /// Read the commands from FILE instead of standard input
    #[arg(long, value_name = "FILE")]
    pub commands: Option<PathBuf>,
    /// Extra directories searched by -include and -include_lib
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Debug even if the sources are not the ones the log was recorded from
    #[arg(long)]
    pub force: bool,
    /// Without a log: limits on the run the session schedules
    #[command(flatten)]
    pub limits: super::limits::Limits,
    /// Each command's answer as one JSON object per line:
    /// {"command": ..., "ok": ..., "output": ...}
    #[arg(long)]
    pub json: bool,
}

const PROMPT: &str = "(debug) ";

pub fn run(args: Args) -> u8 {
    let (sources, log_path) = match args.paths.split_last() {
        Some((last, rest)) if !crate::cmd::is_erl(last) && !last.is_dir() => {
            (rest, Some(last.clone()))
        }
        _ => (&args.paths[..], None),
    };
    if sources.is_empty() {
        eprintln!("trace debug: give the program's .erl files before the log");
        return exit::TROUBLE;
    }
    let session = match log_path {
        Some(p) => open_logged(sources, &p, &args),
        None => open_free(sources, &args),
    };
    let mut session = match session {
        Ok(s) => s,
        Err(code) => return code,
    };
    let interactive = args.commands.is_none() && std::io::stdin().is_terminal();
    if interactive && !args.json {
        return prompt(&mut session);
    }
    let input: Box<dyn BufRead> = match &args.commands {
        Some(f) => match std::fs::File::open(f) {
            Ok(file) => Box::new(std::io::BufReader::new(file)),
            Err(e) => {
                eprintln!("trace debug: {}: {e}", f.display());
                return exit::TROUBLE;
            }
        },
        None => Box::new(std::io::stdin().lock()),
    };
    script(&mut session, input, args.json)
}

/// A session over the log at `log_path`.
fn open_logged(sources: &[PathBuf], log_path: &Path, args: &Args) -> Result<Session, u8> {
    if args.entry.is_some() {
        eprintln!("trace debug: --entry is for a run without a log (the log names its entry)");
        return Err(exit::TROUBLE);
    }
    let reader = match LogReader::open(log_path) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("trace debug: {}: {e}", log_path.display());
            return Err(exit::TROUBLE);
        }
    };
    let entry = reader.header().entry.clone();
    let loaded = super::run::load_program_for(sources, &args.include, Some(&entry), true)?;
    Session::open(loaded, reader, args.force).map_err(|e| {
        eprintln!("trace debug: {e}");
        exit::TROUBLE
    })
}

/// A session without a log: the user schedules the run, on one thread,
/// its log kept in a temporary file while the session lasts.
fn open_free(sources: &[PathBuf], args: &Args) -> Result<Session, u8> {
    let (loaded, entry, call) =
        super::run::load_with_entry("debug", sources, &args.include, args.entry.as_deref(), true)?;
    let path = std::env::temp_dir().join(format!(
        "trace-debug-{}-{}.trace",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let mut run = RunOptions::default();
    args.limits.apply(&mut run);
    let cfg = FreeConfig {
        entry,
        entry_text: call,
        run,
        footer_status: exit::footer_status,
        path,
    };
    Session::open_free(loaded, cfg).map_err(|e| {
        eprintln!("trace debug: {e}");
        exit::TROUBLE
    })
}

/// Commands from a script or a pipe, each echoed after the prompt.
fn script(session: &mut Session, input: Box<dyn BufRead>, json: bool) -> u8 {
    let mut status = exit::OK;
    for line in input.lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("trace debug: reading commands: {e}");
                return exit::TROUBLE;
            }
        };
        let mut out = Vec::new();
        let flow = session.execute(&line, &mut out);
        if flow == Flow::Failed {
            status = exit::DIFFERENT;
        }
        if json {
            if !line.trim().is_empty() {
                let v = serde_json::json!({
                    "command": line.trim(),
                    "ok": flow != Flow::Failed,
                    "output": String::from_utf8_lossy(&out),
                });
                write_all(format!("{v}\n").as_bytes());
            }
        } else {
            write_all(format!("{PROMPT}{line}\n").as_bytes());
            write_all(&out);
        }
        if flow == Flow::Quit {
            break;
        }
    }
    status
}

/// The interactive prompt: line editing and history (rustyline).
fn prompt(session: &mut Session) -> u8 {
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("trace debug: the terminal: {e}");
            return exit::TROUBLE;
        }
    };
    write_all(b"trace debug: `help` lists the commands\n");
    loop {
        let line = match editor.readline(PROMPT) {
            Ok(l) => l,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(_) => break,
        };
        if !line.trim().is_empty() {
            let _ = editor.add_history_entry(line.as_str());
        }
        let mut out = Vec::new();
        let flow = session.execute(&line, &mut out);
        write_all(&out);
        if flow == Flow::Quit {
            break;
        }
    }
    exit::OK
}

fn write_all(bytes: &[u8]) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(bytes).and_then(|_| o.flush()) {
        crate::out::closed_or_trouble(e);
    }
}
