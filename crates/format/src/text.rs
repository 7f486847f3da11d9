//! Events as text, for `trace dump`: one event per line, terms as `~p` prints
//! them, pids as `<0.N.0>`; or one JSON object per line.
//!
//! A message or signal is written `S:K`: the K-th signal of process S (dense
//! index). A process is written by dense index and raw pid, `3 <0.83.0>`.

use crate::event::{Dest, NondetKind, ProcId, SignalEffect};
use crate::meta::Header;
use crate::view::{EventRef, SignalKindRef};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// A payload (ETF bytes) as `~p` prints the term, on one line. Bytes that are
/// not a valid term print as `#bad_etf<...>` with the decoder's complaint.
pub fn render_payload(bytes: &[u8]) -> String {
    match trace_term::etf::decode(bytes) {
        Ok(t) => trace_term::pretty(
            &t,
            &trace_term::PrettyOptions {
                line_length: 0,
                ..Default::default()
            },
        ),
        Err(e) => format!("#bad_etf<{e}>"),
    }
}

/// How `--process` names a process: a dense index (`3`) or a raw pid (`<0.83.0>`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProcessSelector {
    Index(u32),
    Pid(u64),
}

impl std::fmt::Display for ProcessSelector {
    /// As the user writes it: a process index, or a raw pid `<0.N.0>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProcessSelector::Index(i) => write!(f, "{i}"),
            ProcessSelector::Pid(p) => f.write_str(&pid_text(*p)),
        }
    }
}

impl std::str::FromStr for ProcessSelector {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if let Some(inner) = s.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            let parts: Vec<&str> = inner.split('.').collect();
            if let [node, n, serial] = parts[..] {
                if node == "0" && serial == "0" {
                    if let Ok(n) = n.parse() {
                        return Ok(ProcessSelector::Pid(n));
                    }
                }
            }
            return Err(format!("{s:?} is not a local pid of the form <0.N.0>"));
        }
        s.parse()
            .map(ProcessSelector::Index)
            .map_err(|_| format!("{s:?} is neither a process index (3) nor a pid (<0.83.0>)"))
    }
}

/// `<0.N.0>`.
pub fn pid_text(pid: u64) -> String {
    trace_term::Pid(pid).to_string()
}

/// The names and context a line needs: pids of processes, names of built-ins.
pub struct Context<'a> {
    pub header: &'a Header,
    /// The raw pid of a process, if the log has it.
    pub pid_of: &'a dyn Fn(ProcId) -> Option<u64>,
}

/// How a line names processes and messages. [`Context`] names them by dense
/// index and raw pid (`3 <0.83.0>`, message `3:4`), as `trace dump` prints;
/// another naming (symbolic names, `P.1 <0.81.0>` and `P.1:4`) goes through
/// [`line_named`].
pub trait Naming {
    /// A process in full.
    fn process(&self, p: ProcId) -> String;
    /// A process as the sender part of a message's name (`S` in `S:K`).
    fn sender(&self, p: ProcId) -> String;
    /// The child a spawn created; the event carries its raw pid.
    fn child(&self, child: ProcId, _pid: u64) -> String {
        self.process(child)
    }
}

impl Naming for Context<'_> {
    fn process(&self, p: ProcId) -> String {
        self.proc(p)
    }

    fn sender(&self, p: ProcId) -> String {
        p.0.to_string()
    }

    fn child(&self, child: ProcId, pid: u64) -> String {
        format!("{} {}", child.0, pid_text(pid))
    }
}

fn dest(names: &dyn Naming, d: Dest) -> String {
    match d {
        Dest::Proc(p) => names.process(p),
        Dest::Foreign(n) => format!("{} (not in this log)", pid_text(n)),
        Dest::Unknown => "? (not recorded)".into(),
    }
}

impl Context<'_> {
    fn proc(&self, p: ProcId) -> String {
        match (self.pid_of)(p) {
            Some(pid) => format!("{} {}", p.0, pid_text(pid)),
            None => format!("{} <?>", p.0),
        }
    }

    fn nondet(&self, k: NondetKind) -> String {
        match k {
            NondetKind::Other(n) => self
                .header
                .nondet_names
                .get(n as usize)
                .cloned()
                .unwrap_or_else(|| format!("other#{n}")),
            k => nondet_name(k).to_string(),
        }
    }
}

pub fn nondet_name(k: NondetKind) -> &'static str {
    match k {
        NondetKind::MonotonicTime => "monotonic_time",
        NondetKind::SystemTime => "system_time",
        NondetKind::Timestamp => "timestamp",
        NondetKind::UniqueInteger => "unique_integer",
        NondetKind::Random => "random",
        NondetKind::Whereis => "whereis",
        NondetKind::Register => "register",
        NondetKind::Registered => "registered",
        NondetKind::IsProcessAlive => "is_process_alive",
        NondetKind::Processes => "processes",
        NondetKind::ProcessInfo => "process_info",
        NondetKind::Other(_) => "other",
    }
}

/// How `dump` names a signal's effect: `applied`, `ignored`, `converted`, `killed`.
pub fn effect_name(e: SignalEffect) -> &'static str {
    match e {
        SignalEffect::Applied => "applied",
        SignalEffect::Ignored => "ignored",
        SignalEffect::Converted => "converted",
        SignalEffect::Killed => "killed",
    }
}

/// How `dump` names a signal kind: `link`, `unlink`, `exit`, `monitor`, `demonitor`, `down`.
pub fn signal_name(k: &SignalKindRef<'_>) -> &'static str {
    k.class().name()
}

/// Bytes as an Erlang string literal.
pub fn string_literal(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for &c in b {
        match c {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(c as char),
            _ => {
                let _ = write!(s, "\\x{{{c:X}}}");
            }
        }
    }
    s.push('"');
    s
}

/// One event as a line of text (no newline).
pub fn line(
    cx: &Context<'_>,
    proc: ProcId,
    index: u64,
    time: Option<u64>,
    e: &EventRef<'_>,
) -> String {
    line_named(cx, cx, proc, index, time, e)
}

/// As [`line`], with processes and messages named by `names`.
pub fn line_named(
    cx: &Context<'_>,
    names: &dyn Naming,
    proc: ProcId,
    index: u64,
    time: Option<u64>,
    e: &EventRef<'_>,
) -> String {
    let msg = |m: crate::event::MsgId| format!("{}:{}", names.sender(m.sender), m.index);
    let mut s = format!("{} #{index}", names.process(proc));
    if let Some(t) = time {
        let _ = write!(s, " t={}.{:09}", t / 1_000_000_000, t % 1_000_000_000);
    }
    s.push(' ');
    s.push_str(e.kind().name());
    match *e {
        EventRef::Spawn {
            child,
            pid,
            link,
            monitor,
        } => {
            let _ = write!(s, " {}", names.child(child, pid));
            if link {
                s.push_str(" link");
            }
            if monitor {
                s.push_str(" monitor");
            }
        }
        EventRef::Send {
            msg: m,
            to,
            payload,
        } => {
            let _ = write!(s, " {} to {}", msg(m), dest(names, to));
            if let Some(p) = payload {
                let _ = write!(s, ": {}", render_payload(p));
            }
        }
        EventRef::Deliver { msg: m } | EventRef::Receive { msg: m } => {
            let _ = write!(s, " {}", msg(m));
        }
        EventRef::Timeout => {}
        EventRef::Signal { signal, to, kind } => {
            let _ = write!(
                s,
                " {} {} to {}",
                msg(signal),
                signal_name(&kind),
                dest(names, to)
            );
            match kind {
                SignalKindRef::Exit { reason, linked } => {
                    if linked {
                        s.push_str(" (link)");
                    }
                    if let Some(r) = reason {
                        let _ = write!(s, ": {}", render_payload(r));
                    }
                }
                SignalKindRef::Down { reason: Some(r) } => {
                    let _ = write!(s, ": {}", render_payload(r));
                }
                _ => {}
            }
        }
        EventRef::SignalTaken { signal, effect } => {
            let _ = write!(s, " {} {}", msg(signal), effect_name(effect));
        }
        EventRef::Nondet { kind, value } => {
            let _ = write!(s, " {}: {}", cx.nondet(kind), render_payload(value));
        }
        EventRef::Output { seq, bytes } => {
            let _ = write!(s, " {seq}");
            if let Some(b) = bytes {
                let _ = write!(s, ": {}", string_literal(b));
            }
        }
        EventRef::Exit { reason } => {
            if let Some(r) = reason {
                let _ = write!(s, ": {}", render_payload(r));
            }
        }
    }
    s
}

fn proc_json(cx: &Context<'_>, p: ProcId) -> Value {
    json!({ "proc": p.0, "pid": (cx.pid_of)(p).map(pid_text) })
}

fn dest_json(cx: &Context<'_>, d: Dest) -> Value {
    match d {
        Dest::Proc(p) => proc_json(cx, p),
        Dest::Foreign(n) => json!({ "proc": null, "pid": pid_text(n) }),
        Dest::Unknown => Value::Null,
    }
}

fn msg_json(m: crate::event::MsgId) -> Value {
    json!([m.sender.0, m.index])
}

/// One event as a JSON object (one line, no newline). Payloads appear as
/// text (as in [`line`]) under `"payload"`/`"reason"`/`"value"`.
pub fn json(
    cx: &Context<'_>,
    proc: ProcId,
    index: u64,
    time: Option<u64>,
    e: &EventRef<'_>,
) -> String {
    let mut o = Map::new();
    let text = |p: Option<&[u8]>| p.map(render_payload).map_or(Value::Null, Value::from);
    match *e {
        EventRef::Spawn {
            child,
            pid,
            link,
            monitor,
        } => {
            o.insert(
                "child".into(),
                json!({ "proc": child.0, "pid": pid_text(pid) }),
            );
            o.insert("link".into(), link.into());
            o.insert("monitor".into(), monitor.into());
        }
        EventRef::Send { msg, to, payload } => {
            o.insert("msg".into(), msg_json(msg));
            o.insert("to".into(), dest_json(cx, to));
            if payload.is_some() {
                o.insert("payload".into(), text(payload));
            }
        }
        EventRef::Deliver { msg } | EventRef::Receive { msg } => {
            o.insert("msg".into(), msg_json(msg));
        }
        EventRef::Timeout => {}
        EventRef::Signal { signal, to, kind } => {
            o.insert("signal".into(), msg_json(signal));
            o.insert("signal_kind".into(), signal_name(&kind).into());
            o.insert("to".into(), dest_json(cx, to));
            match kind {
                SignalKindRef::Exit { reason, linked } => {
                    o.insert("linked".into(), linked.into());
                    o.insert("reason".into(), text(reason));
                }
                SignalKindRef::Down { reason } => {
                    o.insert("reason".into(), text(reason));
                }
                _ => {}
            }
        }
        EventRef::SignalTaken { signal, effect } => {
            o.insert("signal".into(), msg_json(signal));
            o.insert("effect".into(), effect_name(effect).into());
        }
        EventRef::Nondet { kind, value } => {
            o.insert("builtin".into(), cx.nondet(kind).into());
            o.insert("value".into(), render_payload(value).into());
        }
        EventRef::Output { seq, bytes } => {
            o.insert("seq".into(), seq.into());
            if let Some(b) = bytes {
                o.insert(
                    "bytes".into(),
                    String::from_utf8_lossy(b).into_owned().into(),
                );
            }
        }
        EventRef::Exit { reason } => {
            o.insert("reason".into(), text(reason));
        }
    }
    // The fixed fields first, in this order; then the event's own, by name.
    #[derive(serde::Serialize)]
    struct Line<'a> {
        proc: u32,
        pid: Option<String>,
        index: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        time_ns: Option<u64>,
        kind: &'a str,
        #[serde(flatten)]
        details: Map<String, Value>,
    }
    let line = Line {
        proc: proc.0,
        pid: (cx.pid_of)(proc).map(pid_text),
        index,
        time_ns: time,
        kind: e.kind().name(),
        details: o,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::MsgId;

    fn cx_pid(p: ProcId) -> Option<u64> {
        (p.0 < 10).then_some(80 + p.0 as u64)
    }

    #[test]
    fn lines_name_processes_messages_and_destinations() {
        let h = Header {
            nondet_names: vec!["os:getpid/0".into()],
            ..Default::default()
        };
        let cx = Context {
            header: &h,
            pid_of: &cx_pid,
        };
        let m = MsgId {
            sender: ProcId(1),
            index: 4,
        };
        let send = EventRef::Send {
            msg: m,
            to: Dest::Proc(ProcId(2)),
            payload: None,
        };
        assert_eq!(
            line(&cx, ProcId(1), 9, None, &send),
            "1 <0.81.0> #9 send 1:4 to 2 <0.82.0>"
        );
        let recv = EventRef::Receive { msg: m };
        assert_eq!(
            line(&cx, ProcId(2), 0, Some(1_500_000_000), &recv),
            "2 <0.82.0> #0 t=1.500000000 receive 1:4"
        );
        let foreign = EventRef::Send {
            msg: m,
            to: Dest::Foreign(200),
            payload: None,
        };
        assert!(line(&cx, ProcId(1), 9, None, &foreign).ends_with("to <0.200.0> (not in this log)"));
        let out = EventRef::Output {
            seq: 3,
            bytes: Some(b"hi \"x\"\n"),
        };
        assert_eq!(
            line(&cx, ProcId(0), 1, None, &out),
            r#"0 <0.80.0> #1 output 3: "hi \"x\"\n""#
        );
        let nd = EventRef::Nondet {
            kind: NondetKind::Other(0),
            value: &[131, 97, 1],
        };
        assert!(line(&cx, ProcId(0), 2, None, &nd).contains("nondet os:getpid/0: "));
        let spawn = EventRef::Spawn {
            child: ProcId(3),
            pid: 83,
            link: true,
            monitor: false,
        };
        assert_eq!(
            line(&cx, ProcId(0), 0, None, &spawn),
            "0 <0.80.0> #0 spawn 3 <0.83.0> link"
        );
    }

    #[test]
    fn payloads_print_as_p_does_on_one_line() {
        // {ping, 1, "hi"} and a term too wide for one 80-column line.
        let t = [
            131, 104, 3, 119, 4, b'p', b'i', b'n', b'g', 97, 1, 107, 0, 2, b'h', b'i',
        ];
        assert_eq!(render_payload(&t), "{ping,1,\"hi\"}");
        let mut long = vec![131, 108, 0, 0, 0, 40];
        for _ in 0..40 {
            long.extend_from_slice(&[119, 5, b'a', b'b', b'c', b'd', b'e']);
        }
        long.push(106);
        let text = render_payload(&long);
        assert!(
            !text.contains('\n') && text.starts_with("[abcde,abcde,"),
            "{text}"
        );
        assert!(
            render_payload(&[131, 200]).starts_with("#bad_etf<byte 1: "),
            "{}",
            render_payload(&[131, 200])
        );
    }

    #[test]
    fn process_selectors_parse() {
        assert_eq!("3".parse(), Ok(ProcessSelector::Index(3)));
        assert_eq!("<0.83.0>".parse(), Ok(ProcessSelector::Pid(83)));
        assert!("<0.83.1>".parse::<ProcessSelector>().is_err());
        assert!("P.1".parse::<ProcessSelector>().is_err());
    }

    #[test]
    fn json_lines_parse_back() {
        let h = Header::default();
        let cx = Context {
            header: &h,
            pid_of: &cx_pid,
        };
        let e = EventRef::SignalTaken {
            signal: MsgId {
                sender: ProcId(3),
                index: 0,
            },
            effect: SignalEffect::Killed,
        };
        let line = json(&cx, ProcId(4), 7, Some(12), &e);
        assert!(
            line.starts_with(
                r#"{"proc":4,"pid":"<0.84.0>","index":7,"time_ns":12,"kind":"signal_taken","#
            ),
            "{line}"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["pid"], "<0.84.0>");
        assert_eq!(v["kind"], "signal_taken");
        assert_eq!(v["signal"], json!([3, 0]));
        assert_eq!(v["effect"], "killed");
        assert_eq!(v["time_ns"], 12);
    }
}
