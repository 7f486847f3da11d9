//! The one printer of events: one event per line, terms as `~p` prints
//! them, pids as `<0.N.0>`; or one JSON object per line. Every command that
//! shows an event (`dump`, replay's derivations and reports, diff, check)
//! prints it here, so an event printed anywhere reads the same and can be
//! pasted into `--until`.
//!
//! The format knows no symbolic names: a [`Naming`] says how processes and
//! messages are written (trace-capture's namer writes `P.1 <0.81.0>` and
//! `P.1:4`, the message numbered 4 that `P.1` sent).

use crate::event::{Dest, MsgId, NondetKind, ObjectId, ObjectKind, ProcId, SignalEffect};
use crate::meta::Header;
use crate::view::{EventRef, SignalKindRef};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// A payload (ETF bytes) as `~p` prints the term, on one line. Bytes that are
/// not a valid term print as `#bad_etf<...>` with the decoder's complaint.
pub fn render_payload(bytes: &[u8]) -> String {
    match trace_term::etf::decode(bytes) {
        Ok(t) => render_term(&t),
        Err(e) => format!("#bad_etf<{e}>"),
    }
}

/// A term as `~p` prints it, on one line: how every report shows a term.
pub fn render_term(t: &trace_term::Term) -> String {
    trace_term::pretty(
        t,
        &trace_term::PrettyOptions {
            line_length: 0,
            ..Default::default()
        },
    )
}

/// `<0.N.0>`.
pub fn pid_text(pid: u64) -> String {
    trace_term::Pid(pid).to_string()
}

/// How a line names processes and messages: trace-capture's namer writes
/// `P.1 <0.81.0>` and `P.1:4`; diff writes symbolic names alone, which read
/// the same in both runs.
pub trait Naming {
    /// A process in full.
    fn process(&self, p: ProcId) -> String;
    /// A process as the sender part of a message's name (`S` in `S:K`).
    fn sender(&self, p: ProcId) -> String;
    /// The child a spawn created; the event carries its raw pid.
    fn child(&self, child: ProcId, _pid: u64) -> String {
        self.process(child)
    }
    /// The raw pid number the process had, if the log has it.
    fn pid(&self, p: ProcId) -> Option<u64>;
    /// The short name (`P.1`, or the raw pid), for `--json`'s `"name"`.
    fn name(&self, p: ProcId) -> String {
        self.sender(p)
    }
}

/// Prints events: the log's header (for the names of nondeterministic
/// built-ins) and a [`Naming`].
#[derive(Copy, Clone)]
pub struct Printer<'a> {
    pub header: &'a Header,
    pub names: &'a dyn Naming,
}

fn dest(names: &dyn Naming, d: Dest) -> String {
    match d {
        Dest::Proc(p) => names.process(p),
        Dest::Foreign(n) => format!("{} (not in this log)", pid_text(n)),
        Dest::Unknown => "? (not recorded)".into(),
    }
}

/// The name of shared-state function number `f` in a log with this header.
pub fn shared_function(header: &Header, f: u16) -> String {
    header
        .shared_functions
        .get(f as usize)
        .cloned()
        .unwrap_or_else(|| format!("function#{f}"))
}

/// The name of built-in `k` in a log with this header.
pub fn nondet_label(header: &Header, k: NondetKind) -> String {
    match k {
        NondetKind::Other(n) => header
            .nondet_names
            .get(n as usize)
            .cloned()
            .unwrap_or_else(|| format!("other#{n}")),
        k => nondet_name(k).to_string(),
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

/// The payloads of messages sent and not yet taken, for a printer that walks
/// events in an order where each send comes before its receipts (a
/// derivation, or a pass over the sends first): it shows the message a
/// receive took. At most [`InFlight::LIMIT`] bytes are held; beyond, a
/// receive prints without its message.
#[derive(Default)]
pub struct InFlight {
    held: std::collections::HashMap<MsgId, Box<[u8]>>,
    bytes: usize,
}

impl InFlight {
    /// Payload bytes held at most.
    pub const LIMIT: usize = 64 << 20;

    /// Remembers a send's payload (until a receive takes it).
    pub fn sent(&mut self, e: &EventRef<'_>) {
        if let EventRef::Send {
            msg,
            payload: Some(p),
            ..
        } = *e
        {
            if self.bytes + p.len() <= Self::LIMIT {
                self.bytes += p.len();
                self.held.insert(msg, p.into());
            }
        }
    }

    /// The event next in the walk: remembers a send, and gives back the
    /// message a receive took (a receive takes a message once).
    pub fn note(&mut self, e: &EventRef<'_>) -> Option<Box<[u8]>> {
        self.sent(e);
        self.taken(e)
    }

    /// The message a receive took, given back once (for a walk whose sends
    /// were all remembered beforehand).
    pub fn taken(&mut self, e: &EventRef<'_>) -> Option<Box<[u8]>> {
        let EventRef::Receive { msg } = *e else {
            return None;
        };
        let p = self.held.remove(&msg)?;
        self.bytes -= p.len();
        Some(p)
    }
}

impl Printer<'_> {
    /// `P.1:4`.
    pub fn msg(&self, m: MsgId) -> String {
        format!("{}:{}", self.names.sender(m.sender), m.index)
    }

    /// One event as a line of text (no newline): its process, its index in
    /// the process log, the time when the log has timestamps, then
    /// [`Printer::event`].
    pub fn line(&self, proc: ProcId, index: u64, time: Option<u64>, e: &EventRef<'_>) -> String {
        self.line_taking(proc, index, time, e, None)
    }

    /// [`Printer::line`] of a receive with the message it took
    /// (`receive P:0: {ping,1}`), when the caller knows it (see
    /// [`InFlight`]).
    pub fn line_taking(
        &self,
        proc: ProcId,
        index: u64,
        time: Option<u64>,
        e: &EventRef<'_>,
        taken: Option<&[u8]>,
    ) -> String {
        let mut s = format!("{} #{index}", self.names.process(proc));
        if let Some(t) = time {
            let _ = write!(s, " t={}.{:09}", t / 1_000_000_000, t % 1_000_000_000);
        }
        s.push(' ');
        s.push_str(&self.event_taking(e, taken));
        s
    }

    /// The event without its process: its kind and details,
    /// `send P.1:4 to P.2 <0.82.0>: {ping,1}`.
    pub fn event(&self, e: &EventRef<'_>) -> String {
        self.event_taking(e, None)
    }

    /// [`Printer::event`], a receive with the message it took.
    pub fn event_taking(&self, e: &EventRef<'_>, taken: Option<&[u8]>) -> String {
        let names = self.names;
        let mut s = String::from(e.kind().name());
        let payload = |s: &mut String, p: Option<&[u8]>| {
            if let Some(p) = p {
                let _ = write!(s, ": {}", render_payload(p));
            }
        };
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
                payload: p,
            } => {
                let _ = write!(s, " {} to {}", self.msg(m), dest(names, to));
                payload(&mut s, p);
            }
            EventRef::Deliver { msg: m } => {
                let _ = write!(s, " {}", self.msg(m));
            }
            EventRef::Receive { msg: m } => {
                let _ = write!(s, " {}", self.msg(m));
                payload(&mut s, taken);
            }
            EventRef::Timeout => {}
            EventRef::Signal { signal, to, kind } => {
                let _ = write!(
                    s,
                    " {} {} to {}",
                    self.msg(signal),
                    signal_name(&kind),
                    dest(names, to)
                );
                if let SignalKindRef::Exit { linked: true, .. } = kind {
                    s.push_str(" (link)");
                }
                payload(&mut s, kind.reason());
            }
            EventRef::SignalTaken { signal, effect } => {
                let _ = write!(s, " {} {}", self.msg(signal), effect_name(effect));
            }
            EventRef::Nondet { kind, value } => {
                let _ = write!(
                    s,
                    " {}: {}",
                    nondet_label(self.header, kind),
                    render_payload(value)
                );
            }
            EventRef::Output { seq, bytes } => {
                let _ = write!(s, " {seq}");
                if let Some(b) = bytes {
                    let _ = write!(s, ": {}", string_literal(b));
                }
            }
            EventRef::Exit { reason } => payload(&mut s, reason),
            EventRef::Shared {
                object,
                access,
                function,
                seq,
                key,
                name,
            } => {
                let _ = write!(s, " {}", shared_function(self.header, function));
                match object {
                    Some(o) => {
                        let _ = write!(s, " {} @{seq}", self.object(o));
                    }
                    None => s.push_str(" (no such object)"),
                }
                let _ = write!(s, " {}", access.name());
                if let Some(n) = name {
                    let _ = write!(s, " named {}", render_payload(n));
                }
                if let Some(k) = key {
                    let _ = write!(s, ": {}", render_payload(k));
                }
            }
            EventRef::Blocked { stuck } => {
                s.push_str(if stuck { " stuck" } else { " idle" });
            }
        }
        s
    }

    /// A shared object: `table P.1/0` (the first table `P.1` created), or
    /// `persistent_term`.
    pub fn object(&self, o: ObjectId) -> String {
        match o.kind {
            ObjectKind::PersistentTerm => o.kind.name().into(),
            k => format!("{} {}/{}", k.name(), self.names.sender(o.creator), o.serial),
        }
    }

    fn proc_json(&self, p: ProcId) -> Value {
        json!({ "proc": p.0, "name": self.names.name(p), "pid": self.names.pid(p).map(pid_text) })
    }

    fn dest_json(&self, d: Dest) -> Value {
        match d {
            Dest::Proc(p) => self.proc_json(p),
            Dest::Foreign(n) => json!({ "proc": null, "name": null, "pid": pid_text(n) }),
            Dest::Unknown => Value::Null,
        }
    }

    /// One event as a JSON object (one line, no newline): the fields of
    /// [`Printer::line`], messages named as there (`"P.1:4"`), payloads as
    /// text under `"payload"`/`"reason"`/`"value"`.
    pub fn json(&self, proc: ProcId, index: u64, time: Option<u64>, e: &EventRef<'_>) -> String {
        self.json_with(proc, index, time, e, Map::new(), None)
    }

    /// [`Printer::json`] of a receive with the message it took, under
    /// `"payload"` as a send's.
    pub fn json_taking(
        &self,
        proc: ProcId,
        index: u64,
        time: Option<u64>,
        e: &EventRef<'_>,
        taken: Option<&[u8]>,
    ) -> String {
        self.json_with(proc, index, time, e, Map::new(), taken)
    }

    /// [`Printer::json_taking`] with more fields first (a derivation's step
    /// number).
    pub fn json_with(
        &self,
        proc: ProcId,
        index: u64,
        time: Option<u64>,
        e: &EventRef<'_>,
        first: Map<String, Value>,
        taken: Option<&[u8]>,
    ) -> String {
        // The fixed fields first, in this order; then the event's own, by name.
        #[derive(serde::Serialize)]
        struct Line<'a> {
            #[serde(flatten)]
            first: Map<String, Value>,
            proc: u32,
            name: String,
            pid: Option<String>,
            index: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            time_ns: Option<u64>,
            kind: &'a str,
            #[serde(flatten)]
            details: Map<String, Value>,
        }
        let line = Line {
            first,
            proc: proc.0,
            name: self.names.name(proc),
            pid: self.names.pid(proc).map(pid_text),
            index,
            time_ns: time,
            kind: e.kind().name(),
            details: self.json_details(e, taken),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }

    fn json_details(&self, e: &EventRef<'_>, taken: Option<&[u8]>) -> Map<String, Value> {
        let mut o = Map::new();
        let text = |p: Option<&[u8]>| p.map(render_payload).map_or(Value::Null, Value::from);
        match *e {
            EventRef::Spawn {
                child,
                pid,
                link,
                monitor,
            } => {
                let mut c = self.proc_json(child);
                c["pid"] = pid_text(pid).into();
                o.insert("child".into(), c);
                o.insert("link".into(), link.into());
                o.insert("monitor".into(), monitor.into());
            }
            EventRef::Send { msg, to, payload } => {
                o.insert("msg".into(), self.msg(msg).into());
                o.insert("to".into(), self.dest_json(to));
                if payload.is_some() {
                    o.insert("payload".into(), text(payload));
                }
            }
            EventRef::Deliver { msg } => {
                o.insert("msg".into(), self.msg(msg).into());
            }
            EventRef::Receive { msg } => {
                o.insert("msg".into(), self.msg(msg).into());
                if taken.is_some() {
                    o.insert("payload".into(), text(taken));
                }
            }
            EventRef::Timeout => {}
            EventRef::Signal { signal, to, kind } => {
                o.insert("signal".into(), self.msg(signal).into());
                o.insert("signal_kind".into(), signal_name(&kind).into());
                o.insert("to".into(), self.dest_json(to));
                if let SignalKindRef::Exit { linked, .. } = kind {
                    o.insert("linked".into(), linked.into());
                }
                if matches!(
                    kind,
                    SignalKindRef::Exit { .. } | SignalKindRef::Down { .. }
                ) {
                    o.insert("reason".into(), text(kind.reason()));
                }
            }
            EventRef::SignalTaken { signal, effect } => {
                o.insert("signal".into(), self.msg(signal).into());
                o.insert("effect".into(), effect_name(effect).into());
            }
            EventRef::Nondet { kind, value } => {
                o.insert("builtin".into(), nondet_label(self.header, kind).into());
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
            EventRef::Shared {
                object,
                access,
                function,
                seq,
                key,
                name,
            } => {
                o.insert(
                    "function".into(),
                    shared_function(self.header, function).into(),
                );
                o.insert(
                    "object".into(),
                    object.map_or(Value::Null, |x| {
                        json!({"kind": x.kind.name(), "creator": self.names.name(x.creator),
                               "serial": x.serial, "name": self.object(x)})
                    }),
                );
                o.insert("seq".into(), seq.into());
                o.insert("access".into(), access.name().into());
                if key.is_some() {
                    o.insert("key".into(), text(key));
                }
                if name.is_some() {
                    o.insert("table_name".into(), text(name));
                }
            }
            EventRef::Blocked { stuck } => {
                o.insert("stuck".into(), stuck.into());
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names a process `Q<index>`, with pid 80 + index.
    struct Plain;

    impl Naming for Plain {
        fn process(&self, p: ProcId) -> String {
            format!("Q{} {}", p.0, pid_text(80 + p.0 as u64))
        }
        fn sender(&self, p: ProcId) -> String {
            format!("Q{}", p.0)
        }
        fn pid(&self, p: ProcId) -> Option<u64> {
            (p.0 < 10).then_some(80 + p.0 as u64)
        }
    }

    #[test]
    fn lines_name_processes_messages_and_destinations() {
        let h = Header {
            nondet_names: vec!["os:getpid/0".into()],
            ..Default::default()
        };
        let p = Printer {
            header: &h,
            names: &Plain,
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
            p.line(ProcId(1), 9, None, &send),
            "Q1 <0.81.0> #9 send Q1:4 to Q2 <0.82.0>"
        );
        let recv = EventRef::Receive { msg: m };
        assert_eq!(
            p.line(ProcId(2), 0, Some(1_500_000_000), &recv),
            "Q2 <0.82.0> #0 t=1.500000000 receive Q1:4"
        );
        let foreign = EventRef::Send {
            msg: m,
            to: Dest::Foreign(200),
            payload: None,
        };
        assert!(p
            .line(ProcId(1), 9, None, &foreign)
            .ends_with("to <0.200.0> (not in this log)"));
        let out = EventRef::Output {
            seq: 3,
            bytes: Some(b"hi \"x\"\n"),
        };
        assert_eq!(
            p.line(ProcId(0), 1, None, &out),
            r#"Q0 <0.80.0> #1 output 3: "hi \"x\"\n""#
        );
        let nd = EventRef::Nondet {
            kind: NondetKind::Other(0),
            value: &[131, 97, 1],
        };
        assert!(p
            .line(ProcId(0), 2, None, &nd)
            .contains("nondet os:getpid/0: "));
        let spawn = EventRef::Spawn {
            child: ProcId(3),
            pid: 83,
            link: true,
            monitor: false,
        };
        assert_eq!(p.event(&spawn), "spawn Q3 <0.83.0> link");
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
    fn json_lines_parse_back() {
        let h = Header::default();
        let p = Printer {
            header: &h,
            names: &Plain,
        };
        let e = EventRef::SignalTaken {
            signal: MsgId {
                sender: ProcId(3),
                index: 0,
            },
            effect: SignalEffect::Killed,
        };
        let line = p.json(ProcId(4), 7, Some(12), &e);
        assert!(
            line.starts_with(
                r#"{"proc":4,"name":"Q4","pid":"<0.84.0>","index":7,"time_ns":12,"kind":"signal_taken","#
            ),
            "{line}"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["pid"], "<0.84.0>");
        assert_eq!(v["kind"], "signal_taken");
        assert_eq!(v["signal"], "Q3:0");
        assert_eq!(v["effect"], "killed");
        assert_eq!(v["time_ns"], 12);
    }
}
