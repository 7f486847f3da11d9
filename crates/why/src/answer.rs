//! Answers to questions, as a user types them (or a file lists them, one a
//! line): correct, wrong (and which part), don't know, trusted, undo, abort.
//! Blank lines and lines starting with `#` are not answers.

use std::fmt;

/// The part of a question marked wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// What the node computed: the value, the receive reached, the crash.
    Result,
    /// The `N`-th message sent (from 1).
    Sent(usize),
    /// The `N`-th process spawned (from 1).
    Spawned(usize),
    /// The message the receive consumed (its sender is to blame).
    Consumed,
    /// The `N`-th message consumed earlier from the same sender.
    Earlier(usize),
    /// The bindings in scope (what came before is to blame).
    Bindings,
    /// The receive should not have taken this message (or this clause).
    Taken,
    /// The `N`-th message left in a waiting process's mailbox.
    Mailbox(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Correct,
    Wrong(Item),
    DontKnow,
    /// Trust the node's function (an evaluation) or process (any other node).
    Trust,
    Undo,
    Abort,
}

/// An answer that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadAnswer(pub String);

impl fmt::Display for BadAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Result => f.write_str("result"),
            Item::Sent(n) => write!(f, "sent {n}"),
            Item::Spawned(n) => write!(f, "spawned {n}"),
            Item::Consumed => f.write_str("consumed"),
            Item::Earlier(n) => write!(f, "earlier {n}"),
            Item::Bindings => f.write_str("bindings"),
            Item::Taken => f.write_str("taken"),
            Item::Mailbox(n) => write!(f, "mailbox {n}"),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Correct => f.write_str("correct"),
            Answer::Wrong(i) => write!(f, "wrong ({i})"),
            Answer::DontKnow => f.write_str("don't know"),
            Answer::Trust => f.write_str("trusted"),
            Answer::Undo => f.write_str("undo"),
            Answer::Abort => f.write_str("abort"),
        }
    }
}

/// What answers look like, for prompts and errors.
pub const SYNTAX: &str = "y (correct), n (wrong), n sent N, n spawned N, n consumed, \
n earlier N, n bindings, n taken, n mailbox N, d (don't know), t (trust), u (undo), a (abort)";

/// Parses one answer; `None` for a blank or comment line.
pub fn parse(line: &str) -> Option<Result<Answer, BadAnswer>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let mut words = line.split_whitespace();
    let head = words.next()?.to_ascii_lowercase();
    let rest: Vec<&str> = words.collect();
    let simple = |a: Answer| {
        if rest.is_empty() {
            Ok(a)
        } else {
            Err(BadAnswer(format!(
                "{line:?}: {head} takes nothing after it; answers are: {SYNTAX}"
            )))
        }
    };
    Some(match head.as_str() {
        "y" | "yes" | "c" | "correct" => simple(Answer::Correct),
        "d" | "dk" | "?" | "dont-know" | "don't-know" => simple(Answer::DontKnow),
        "t" | "trust" | "trusted" => simple(Answer::Trust),
        "u" | "undo" => simple(Answer::Undo),
        "a" | "abort" | "q" | "quit" => simple(Answer::Abort),
        "n" | "no" | "w" | "wrong" => item(line, &rest).map(Answer::Wrong),
        _ => Err(BadAnswer(format!(
            "{line:?} is not an answer; answers are: {SYNTAX}"
        ))),
    })
}

fn item(line: &str, rest: &[&str]) -> Result<Item, BadAnswer> {
    let bad = || {
        BadAnswer(format!(
            "{line:?}: which part is wrong? answers are: {SYNTAX}"
        ))
    };
    let number = |w: Option<&&str>| -> Result<usize, BadAnswer> {
        match w.and_then(|w| w.parse::<usize>().ok()) {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(BadAnswer(format!(
                "{line:?}: give the item's number as the question lists it (from 1)"
            ))),
        }
    };
    let Some(what) = rest.first() else {
        return Ok(Item::Result);
    };
    let it = match what.to_ascii_lowercase().as_str() {
        "result" | "value" | "reached" => Item::Result,
        "sent" | "send" => Item::Sent(number(rest.get(1))?),
        "spawned" | "spawn" => Item::Spawned(number(rest.get(1))?),
        "consumed" | "message" => Item::Consumed,
        "earlier" => Item::Earlier(number(rest.get(1))?),
        "bindings" | "state" => Item::Bindings,
        "taken" => Item::Taken,
        "mailbox" => Item::Mailbox(number(rest.get(1))?),
        _ => return Err(bad()),
    };
    let used = if matches!(
        it,
        Item::Result | Item::Consumed | Item::Bindings | Item::Taken
    ) {
        1
    } else {
        2
    };
    if rest.len() > used {
        return Err(bad());
    }
    Ok(it)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse() {
        assert_eq!(parse("y"), Some(Ok(Answer::Correct)));
        assert_eq!(parse("  n sent 2 "), Some(Ok(Answer::Wrong(Item::Sent(2)))));
        assert_eq!(
            parse("wrong consumed"),
            Some(Ok(Answer::Wrong(Item::Consumed)))
        );
        assert_eq!(parse("n"), Some(Ok(Answer::Wrong(Item::Result))));
        assert_eq!(parse("# why"), None);
        assert_eq!(parse(""), None);
        assert!(matches!(parse("n sent 0"), Some(Err(_))));
        assert!(matches!(parse("n sent"), Some(Err(_))));
        assert!(matches!(parse("maybe"), Some(Err(_))));
        assert!(matches!(parse("y please"), Some(Err(_))));
    }
}
