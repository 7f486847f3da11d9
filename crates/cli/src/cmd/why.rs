//! `trace why`: declarative debugging of a recorded run (trace-why). This
//! module parses the arguments, opens the program, the log and the
//! oracles, reads answers (a terminal, `--answers FILE` or standard input,
//! one a line) and prints the questions and the buggy node.

use crate::exit;
use crate::out::outln;
use clap::Args as ClapArgs;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use trace_diff::Abstraction;
use trace_format::LogReader;
use trace_why::{answer, question, Answer, BadAnswer, NodeId, Oracle, Outcome, Strategy, Tree};

#[derive(ClapArgs)]
#[command(after_help = "\
Declarative debugging (EDD: Caballero et al.): the run is replayed with every
logged choice forced, and its debugging tree built: per process, its
transitions from one receive (or its start) to the next, each consuming one
message, with the bindings in scope, the message consumed and those consumed
earlier from the same sender, what it reached, what it sent and spawned;
inside each, the calls of your functions with their arguments and results.
You are asked about these steps, never about code, and your answers lead to
the buggy node: an erroneous transition, a receive wrongly succeeding or
failing, or a function returning a wrong result, with its file:line, source
and the `trace replay --until` that stops there.

Answers, one a line: y (correct), n (wrong: what it reached or returned),
n sent N / n spawned N (that item is wrong), n consumed / n earlier N (the
message is wrong: go to the transition that sent it), n bindings (the state
is wrong: go to the step that made it), n taken (the receive should not have
taken this message), n mailbox N (a waiting process's message), d (don't
know), t (trust this function, or this process), u (undo), a (abort).

An oracle answers what it can: --oracle props.tspec judges a step wrong when
it holds an event that violates a property, correct otherwise; --oracle
good.trace (a run of the fixed program) judges a step correct when it
matches its counterpart up to causal equivalence (and --abstract patterns).
Only what the oracle cannot decide is asked.

Examples:
  trace record fixtures/papers/tcp.erl -o tcp.trace --until-failure --chaos
  trace why fixtures/papers/tcp.erl tcp.trace --start P.1
  trace why fixtures/papers/cfib.erl cfib.trace --strategy divide-and-query
  trace why prog.erl run.trace --answers answers.txt --json
  trace why prog.erl run.trace --oracle props.tspec
  trace why prog.erl run.trace --oracle good.trace --abstract '{ref, _}'
  trace why prog.erl run.trace --start 'send(P.3:1)'

Exit status: 0 a buggy node was found, 1 none was (every node judged correct,
aborted, or the answers ran out), 2 trouble (bad arguments, a malformed
answer, a log of another program, an unknown --start), 3/4 for a program that
does not compile or is not supported, 6 the replay departed from the log.")]
pub struct Args {
    /// Erlang source files, then the log of a run of them
    #[arg(required = true, num_args = 2.., value_name = "FILE.erl ... LOG")]
    pub paths: Vec<PathBuf>,
    /// Who answers: `user` (default), a specification `SPEC.tspec`, or a
    /// good run `GOOD.trace`; may be given twice (the user is always asked
    /// what the others cannot decide)
    #[arg(long, value_name = "user|SPEC.tspec|GOOD.trace")]
    pub oracle: Vec<String>,
    /// How to walk the tree
    #[arg(long, value_enum, default_value = "top-down")]
    pub strategy: StrategyArg,
    /// Start at process P (`P.1`, `<0.82.0>`) or at the transition that
    /// holds EVENT (`receive(P.2:0)`, `send(P.3:1)`, `P.1#4`, ...)
    #[arg(long, value_name = "EVENT|P")]
    pub start: Option<String>,
    /// Read the answers from FILE, one a line, instead of standard input
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// With a good run: wildcard the parts of payloads PATTERN's variables match
    #[arg(long = "abstract", value_name = "PATTERN", value_parser = super::parse_abstraction)]
    pub abstract_: Vec<Abstraction>,
    /// The most nodes the debugging tree may have
    #[arg(long, value_name = "N", default_value_t = trace_why::DEFAULT_MAX_NODES)]
    pub max_nodes: usize,
    /// Extra directories searched by -include and -include_lib
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Debug even if the sources are not the ones the log was recorded from
    #[arg(long)]
    pub force: bool,
    /// Questions and the result as JSON, one object a line
    #[arg(long)]
    pub json: bool,
}

#[derive(Copy, Clone, clap::ValueEnum)]
pub enum StrategyArg {
    TopDown,
    DivideAndQuery,
}

pub fn run(args: Args) -> u8 {
    let Some((log_path, sources)) = args.paths.split_last() else {
        return exit::TROUBLE;
    };
    if sources.is_empty() || !sources.iter().all(|s| super::is_erl(s) || s.is_dir()) {
        eprintln!("trace why: give the program's .erl files, then the log of a run of them");
        return exit::TROUBLE;
    }
    let log = match LogReader::open(log_path) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("trace why: {}: {e}", log_path.display());
            return exit::TROUBLE;
        }
    };
    let entry = log.header().entry.clone();
    let loaded = match super::run::load_program_for(sources, &args.include, Some(&entry), true) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tree = match trace_why::debugging_tree(&loaded, &log, args.force, args.max_nodes) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("trace why: {e}");
            return match e {
                trace_why::TreeError::Diverged(_) => exit::DIVERGED,
                trace_why::TreeError::Refused(_) => exit::TROUBLE,
            };
        }
    };
    let start = match &args.start {
        Some(s) => match trace_why::resolve_start(&tree, s) {
            Ok(n) => Some(n),
            Err(e) => {
                eprintln!("trace why: {e}");
                return exit::TROUBLE;
            }
        },
        None => None,
    };
    let oracles = match oracles(&args, &log, &tree) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("trace why: {e}");
            return exit::TROUBLE;
        }
    };
    let mut user = match UserAnswers::open(&args) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("trace why: {e}");
            return exit::TROUBLE;
        }
    };
    let strategy = match args.strategy {
        StrategyArg::TopDown => Strategy::TopDown,
        StrategyArg::DivideAndQuery => Strategy::DivideAndQuery,
    };
    let mut session = trace_why::Session::new(&tree, strategy, start);
    let refs: Vec<&dyn Oracle> = oracles.iter().map(|o| o as &dyn Oracle).collect();
    let outcome = session.run(&refs, &mut user);
    let replay = super::replay_command(sources, log_path);
    finish(&args, &tree, &session, outcome, &replay)
}

/// The automatic oracles `--oracle` names (`user` adds none).
fn oracles(
    args: &Args,
    log: &LogReader,
    tree: &Tree,
) -> Result<Vec<trace_why::WrongEvents>, String> {
    let mut out = Vec::new();
    for o in &args.oracle {
        if o == "user" {
            continue;
        }
        let path = Path::new(o);
        if path.extension().is_some_and(|e| e == "tspec") {
            let spec = super::load_spec(path)?;
            out.push(trace_why::WrongEvents::of_spec(
                format!("spec {o}"),
                &spec,
                log,
            )?);
        } else if trace_format::is_trace_log(path) {
            let good = LogReader::open(path).map_err(|e| format!("{o}: {e}"))?;
            let opts = trace_diff::Options {
                abstractions: args.abstract_.clone(),
                ..trace_diff::Options::default()
            };
            out.push(trace_why::WrongEvents::of_good_run(
                format!("good run {o}"),
                log,
                &good,
                &opts,
                tree,
            )?);
        } else {
            return Err(format!(
                "--oracle {o}: not `user`, a .tspec specification or a trace log"
            ));
        }
    }
    if !args.abstract_.is_empty() && !args.oracle.iter().any(|o| o.ends_with(".trace")) {
        return Err("--abstract is for a good run given with --oracle GOOD.trace".into());
    }
    Ok(out)
}

/// Answers typed at a terminal, or read from a file or piped stdin.
struct UserAnswers {
    input: Box<dyn BufRead>,
    prompt: bool,
    json: bool,
    asked: usize,
}

impl UserAnswers {
    fn open(args: &Args) -> Result<UserAnswers, String> {
        let input: Box<dyn BufRead> = match &args.answers {
            Some(f) => {
                let file = std::fs::File::open(f).map_err(|e| format!("{}: {e}", f.display()))?;
                Box::new(std::io::BufReader::new(file))
            }
            None => Box::new(std::io::BufReader::new(std::io::stdin())),
        };
        let prompt = args.answers.is_none() && std::io::stdin().is_terminal();
        Ok(UserAnswers {
            input,
            prompt,
            json: args.json,
            asked: 0,
        })
    }
}

impl trace_why::User for UserAnswers {
    fn answer(&mut self, tree: &Tree, node: NodeId) -> Result<Option<Answer>, BadAnswer> {
        self.asked += 1;
        if self.json {
            let mut q = question::json(tree, node);
            q["question"] = self.asked.into();
            outln!("{q}");
        } else {
            outln!("Question {}:", self.asked);
            for l in question::text(tree, node).lines() {
                outln!("  {l}");
            }
        }
        loop {
            if self.prompt {
                print!("answer> ");
                let _ = std::io::stdout().flush();
            }
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => return Ok(None),
                Ok(_) => {}
            }
            let parsed = answer::parse(&line)
                .map(|r| r.and_then(|a| trace_why::session::fits(tree, node, a).map(|_| a)));
            match parsed {
                None => continue,
                Some(Ok(a)) => {
                    if !self.prompt && !self.json {
                        outln!("answer> {}", line.trim());
                    }
                    return Ok(Some(a));
                }
                // At a terminal a typo is asked again; in a script it is trouble.
                Some(Err(e)) if self.prompt => eprintln!("{e}"),
                Some(Err(e)) => return Err(e),
            }
        }
    }
}

/// Prints how the session ended; the exit status.
fn finish(
    args: &Args,
    tree: &Tree,
    session: &trace_why::Session<'_>,
    outcome: Result<Outcome, BadAnswer>,
    replay: &str,
) -> u8 {
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            eprintln!("trace why: bad answer: {e}");
            return exit::TROUBLE;
        }
    };
    let by_user = session.asked.iter().filter(|a| a.by == "user").count();
    let by_oracle = session.asked.len() - by_user;
    let buggy = match &outcome {
        Outcome::Buggy { node, item, .. } => Some(trace_why::report::buggy(tree, *node, *item)),
        _ => None,
    };
    if args.json {
        print_json(tree, session, &outcome, buggy.as_ref(), by_user, by_oracle);
    } else {
        print_text(
            tree,
            session,
            &outcome,
            buggy.as_ref(),
            replay,
            by_user,
            by_oracle,
        );
    }
    match outcome {
        Outcome::Buggy { .. } => exit::OK,
        _ => exit::NOT_FOUND,
    }
}

fn print_text(
    tree: &Tree,
    session: &trace_why::Session<'_>,
    outcome: &Outcome,
    buggy: Option<&trace_why::report::Buggy>,
    replay: &str,
    by_user: usize,
    by_oracle: usize,
) {
    for a in session.asked.iter().filter(|a| a.by != "user") {
        outln!(
            "{}: {}: {} {}",
            a.by,
            a.answer,
            question::kind_name(&tree.nodes[a.node]),
            question::until(tree, a.node).unwrap_or_default()
        );
    }
    match outcome {
        Outcome::Buggy { unknown, .. } => {
            if let Some(b) = buggy {
                for l in b.text(tree, replay).lines() {
                    outln!("{l}");
                }
            }
            if *unknown > 0 {
                outln!("  ({unknown} of its children were answered \"don't know\" and taken as correct)");
            }
        }
        Outcome::NoBug(why) => outln!("No buggy node found: {why}."),
        Outcome::Aborted => outln!("Aborted."),
        Outcome::NoMoreAnswers(_) => {
            outln!("The answers ran out before a buggy node was found.")
        }
    }
    outln!(
        "Questions: {} ({by_user} by the user, {by_oracle} by oracles)",
        by_user + by_oracle
    );
}

fn print_json(
    tree: &Tree,
    session: &trace_why::Session<'_>,
    outcome: &Outcome,
    buggy: Option<&trace_why::report::Buggy>,
    by_user: usize,
    by_oracle: usize,
) {
    let asked: Vec<serde_json::Value> = session
        .asked
        .iter()
        .map(|a| {
            serde_json::json!({
                "node": a.node,
                "kind": question::kind_name(&tree.nodes[a.node]),
                "answer": a.answer.to_string(),
                "by": a.by,
            })
        })
        .collect();
    let (result, why) = match outcome {
        Outcome::Buggy { .. } => ("buggy", None),
        Outcome::NoBug(w) => ("no_bug", Some(w.clone())),
        Outcome::Aborted => ("aborted", None),
        Outcome::NoMoreAnswers(_) => ("no_more_answers", None),
    };
    let v = serde_json::json!({
        "result": result,
        "why": why,
        "buggy": buggy.map(|b| b.json(tree)),
        "asked": asked,
        "questions": {"user": by_user, "oracles": by_oracle},
    });
    outln!("{v}");
}
