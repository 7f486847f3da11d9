//! The commands of a session, as typed at the prompt or read from a
//! script: one per line, processes and events named as everywhere in
//! `trace` (docs/events.md). `help` prints [`HELP`].

use trace_capture::{EventSpec, MsgRef, ProcRef};

/// One command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Every process: name, pid, status, place.
    Procs,
    /// `n` steps of one process forwards.
    Step(ProcRef, u64),
    /// `n` steps of one process backwards, causal-consistently.
    Back(ProcRef, u64),
    /// Undo an event and everything that depends on it.
    Rollback(EventSpec),
    /// Go back to just before the process bound the variable.
    RollbackVar(ProcRef, String),
    /// Do an event and everything it depends on.
    Forward(EventSpec),
    /// A session without a log: deliver a timer's message now.
    Deliver(MsgRef),
    /// Forwards to the end (stopping before breakpoints), or to an event.
    Run(Option<EventSpec>),
    /// Stop `run` before an event (without one: list the breakpoints).
    Break(Option<EventSpec>),
    /// Remove a breakpoint (without one: all of them).
    Delete(Option<EventSpec>),
    /// One process in full: bindings, place, mailbox, history, links.
    Show(ProcRef),
    /// The events done so far, in an order that respects happened-before.
    Log,
    /// Where a message was sent, delivered and received.
    Trace(MsgRef),
    /// What the program wrote to standard output so far.
    Output,
    /// Write the run so far as a log.
    Save(String),
    Help,
    Quit,
}

/// What `help` prints.
pub const HELP: &str = "\
commands (a process is P, P.2, P.2.1 or <0.83.0>; an EVENT is P.2#5,
send(P.1:3), receive(P.1:3), spawn(P.2), exit(P.2), ... as in docs/events.md):
  procs                  every process: name, pid, status, where it is
  step P [N]             N steps of P forwards (default 1); without a log,
                         P takes its next step from here (procs says who can)
  deliver P.1:3          without a log: a timer's message P.1:3 arrives now
  back P [N]             N steps of P backwards, undoing what depends on them
  rollback EVENT         undo EVENT and everything that causally depends on it
  rollback var P NAME    go back to just before P bound variable NAME
  forward EVENT          do EVENT and everything it causally depends on
  run [EVENT]            forwards to the end of the run, stopping before any
                         breakpoint not yet reached (or as forward EVENT);
                         without a log, at the end of the steps so far: on as
                         the engine schedules on its own, to the program's end
  break [EVENT]          run stops before EVENT: all that does not depend on it
                         is done (without EVENT: list the breakpoints)
  delete [EVENT]         remove a breakpoint (without EVENT: all of them)
  show P                 P's bindings, place and source line, mailbox,
                         history, links and monitors
  log                    the events done so far, causes before effects
  trace P.1:3            where message P.1:3 was sent, delivered, received
  output                 what the program has written so far
  save FILE              the run so far as a log `trace replay` accepts
  help                   this text
  quit                   end the session
lines starting with # are comments";

impl std::str::FromStr for Command {
    type Err = String;

    fn from_str(line: &str) -> Result<Command, String> {
        let line = line.trim();
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        match word {
            "procs" | "ps" => none(rest, Command::Procs),
            "step" | "s" => proc_count(rest).map(|(p, n)| Command::Step(p, n)),
            "back" | "b" => proc_count(rest).map(|(p, n)| Command::Back(p, n)),
            "rollback" | "rb" => rollback(rest),
            "forward" | "fw" => event(rest).map(Command::Forward),
            "deliver" => message(rest).map(Command::Deliver),
            "run" | "r" if rest.is_empty() => Ok(Command::Run(None)),
            "run" | "r" => event(rest).map(|e| Command::Run(Some(e))),
            "break" | "bp" if rest.is_empty() => Ok(Command::Break(None)),
            "break" | "bp" => event(rest).map(|e| Command::Break(Some(e))),
            "delete" | "d" if rest.is_empty() => Ok(Command::Delete(None)),
            "delete" | "d" => event(rest).map(|e| Command::Delete(Some(e))),
            "show" => process(rest).map(Command::Show),
            "log" => none(rest, Command::Log),
            "trace" => message(rest).map(Command::Trace),
            "output" => none(rest, Command::Output),
            "save" if rest.is_empty() => Err("save: which file? (save FILE)".into()),
            "save" => Ok(Command::Save(rest.to_string())),
            "help" | "h" | "?" => Ok(Command::Help),
            "quit" | "q" | "exit" => none(rest, Command::Quit),
            _ => Err(format!("unknown command '{word}' (help lists them)")),
        }
    }
}

fn none(rest: &str, c: Command) -> Result<Command, String> {
    if rest.is_empty() {
        Ok(c)
    } else {
        Err(format!("unexpected '{rest}' (help lists the commands)"))
    }
}

fn process(text: &str) -> Result<ProcRef, String> {
    if text.is_empty() {
        return Err("which process? (P, P.2, <0.83.0>)".into());
    }
    text.parse::<ProcRef>()
        .map_err(|e| format!("'{text}': {e}"))
}

/// `P [N]`.
fn proc_count(rest: &str) -> Result<(ProcRef, u64), String> {
    let mut parts = rest.split_whitespace();
    let p = process(parts.next().unwrap_or(""))?;
    let n = match parts.next() {
        None => 1,
        Some(n) => n
            .parse::<u64>()
            .map_err(|_| format!("'{n}' is not a number of steps"))?,
    };
    match parts.next() {
        None => Ok((p, n)),
        Some(x) => Err(format!("unexpected '{x}'")),
    }
}

fn event(text: &str) -> Result<EventSpec, String> {
    if text.is_empty() {
        return Err("which event? (send(P.1:0), receive(P.1:0), spawn(P.2), P.2#5, ...)".into());
    }
    text.parse::<EventSpec>()
        .map_err(|e| format!("'{text}': {e}"))
}

fn message(text: &str) -> Result<MsgRef, String> {
    match format!("send({text})").parse::<EventSpec>() {
        Ok(EventSpec::Send(m)) => Ok(m),
        _ => Err(format!(
            "'{text}' is not a message: a sender and its signal index, as P.1:3"
        )),
    }
}

fn rollback(rest: &str) -> Result<Command, String> {
    let mut parts = rest.split_whitespace();
    if parts.next() != Some("var") {
        return event(rest).map(Command::Rollback);
    }
    let p = process(parts.next().unwrap_or(""))?;
    let name = parts.next().ok_or("rollback var P NAME: which variable?")?;
    if !name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
        return Err(format!("'{name}' is not a variable name"));
    }
    match parts.next() {
        None => Ok(Command::RollbackVar(p, name.to_string())),
        Some(x) => Err(format!("unexpected '{x}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Command, String> {
        s.parse()
    }

    #[test]
    fn commands_parse_with_their_arguments() {
        assert_eq!(parse("procs"), Ok(Command::Procs));
        assert!(matches!(parse("step P.1 3"), Ok(Command::Step(_, 3))));
        assert!(matches!(parse("back P"), Ok(Command::Back(_, 1))));
        assert!(matches!(
            parse("rollback send(P.1:0)"),
            Ok(Command::Rollback(EventSpec::Send(_)))
        ));
        assert!(matches!(parse("rollback var P.2 X"), Ok(Command::RollbackVar(_, n)) if n == "X"));
        assert!(matches!(parse("run"), Ok(Command::Run(None))));
        assert!(matches!(
            parse("run receive(P:1)"),
            Ok(Command::Run(Some(_)))
        ));
        assert!(matches!(parse("trace P.1:3"), Ok(Command::Trace(_))));
        assert!(matches!(parse("deliver P:0"), Ok(Command::Deliver(_))));
        assert!(matches!(
            parse("break send(P.1:0)"),
            Ok(Command::Break(Some(_)))
        ));
        assert_eq!(parse("delete"), Ok(Command::Delete(None)));
        assert_eq!(
            parse("save out.trace"),
            Ok(Command::Save("out.trace".into()))
        );
    }

    #[test]
    fn mistakes_are_named() {
        assert!(parse("stepp P").unwrap_err().contains("unknown command"));
        assert!(parse("step").unwrap_err().contains("which process"));
        assert!(parse("step P x").unwrap_err().contains("not a number"));
        assert!(parse("rollback var P x")
            .unwrap_err()
            .contains("not a variable"));
        assert!(parse("trace P.1").unwrap_err().contains("not a message"));
        assert!(parse("procs now").unwrap_err().contains("unexpected"));
    }
}
