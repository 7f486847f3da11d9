//! Borrowed events: what the decoder hands out without allocating. Payloads are
//! slices of the decompressed block, and the implicit signal index of a `Send`
//! or `Signal` is made explicit, so a visitor never has to count.

use crate::event::{
    Access, Dest, Event, EventKind, MsgId, NondetKind, ObjectId, Payload, ProcId, SignalClass,
    SignalEffect, SignalKind,
};

/// One event, borrowing its payloads from a decoded block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventRef<'a> {
    Spawn {
        child: ProcId,
        pid: u64,
        link: bool,
        monitor: bool,
    },
    /// `msg` is the message's identity: this process and its signal index.
    Send {
        msg: MsgId,
        to: Dest,
        payload: Option<&'a [u8]>,
    },
    Deliver {
        msg: MsgId,
    },
    Receive {
        msg: MsgId,
    },
    Timeout,
    /// `signal` is the signal's identity: this process and its signal index.
    Signal {
        signal: MsgId,
        to: Dest,
        kind: SignalKindRef<'a>,
    },
    SignalTaken {
        signal: MsgId,
        effect: SignalEffect,
    },
    Nondet {
        kind: NondetKind,
        value: &'a [u8],
    },
    Output {
        seq: u64,
        bytes: Option<&'a [u8]>,
    },
    Exit {
        reason: Option<&'a [u8]>,
    },
    /// See [`Event::Shared`].
    Shared {
        object: Option<ObjectId>,
        access: Access,
        function: u16,
        seq: u64,
        key: Option<&'a [u8]>,
        name: Option<&'a [u8]>,
    },
    Blocked {
        stuck: bool,
    },
}

impl<'a> SignalKindRef<'a> {
    /// The signal's class, its reason left out.
    pub fn class(&self) -> SignalClass {
        match *self {
            SignalKindRef::Link => SignalClass::Link,
            SignalKindRef::Unlink => SignalClass::Unlink,
            SignalKindRef::Exit { linked, .. } => SignalClass::Exit { linked },
            SignalKindRef::Monitor => SignalClass::Monitor,
            SignalKindRef::Demonitor => SignalClass::Demonitor,
            SignalKindRef::Down { .. } => SignalClass::Down,
        }
    }

    /// A signal of class `class` with this reason (kept for exit and 'DOWN'
    /// signals only); `None` for a message, which is no signal kind.
    pub fn with_class(class: SignalClass, reason: Option<&'a [u8]>) -> Option<Self> {
        Some(match class {
            SignalClass::Message => return None,
            SignalClass::Link => SignalKindRef::Link,
            SignalClass::Unlink => SignalKindRef::Unlink,
            SignalClass::Exit { linked } => SignalKindRef::Exit { reason, linked },
            SignalClass::Monitor => SignalKindRef::Monitor,
            SignalClass::Demonitor => SignalKindRef::Demonitor,
            SignalClass::Down => SignalKindRef::Down { reason },
        })
    }

    /// Its reason, for the kinds that carry one and when it was recorded.
    pub fn reason(&self) -> Option<&'a [u8]> {
        match *self {
            SignalKindRef::Exit { reason, .. } | SignalKindRef::Down { reason } => reason,
            _ => None,
        }
    }
}

/// [`SignalKind`] borrowing its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalKindRef<'a> {
    Link,
    Unlink,
    Exit {
        reason: Option<&'a [u8]>,
        linked: bool,
    },
    Monitor,
    Demonitor,
    Down {
        reason: Option<&'a [u8]>,
    },
}

fn owned(p: Option<&[u8]>) -> Option<Payload> {
    p.map(|b| Payload(b.to_vec()))
}

impl SignalKindRef<'_> {
    pub fn to_owned(self) -> SignalKind {
        match self {
            SignalKindRef::Link => SignalKind::Link,
            SignalKindRef::Unlink => SignalKind::Unlink,
            SignalKindRef::Exit { reason, linked } => SignalKind::Exit {
                reason: owned(reason),
                linked,
            },
            SignalKindRef::Monitor => SignalKind::Monitor,
            SignalKindRef::Demonitor => SignalKind::Demonitor,
            SignalKindRef::Down { reason } => SignalKind::Down {
                reason: owned(reason),
            },
        }
    }
}

impl<'a> SignalKindRef<'a> {
    pub fn of(kind: &'a SignalKind) -> Self {
        match kind {
            SignalKind::Link => SignalKindRef::Link,
            SignalKind::Unlink => SignalKindRef::Unlink,
            SignalKind::Exit { reason, linked } => SignalKindRef::Exit {
                reason: reason.as_ref().map(Payload::bytes),
                linked: *linked,
            },
            SignalKind::Monitor => SignalKindRef::Monitor,
            SignalKind::Demonitor => SignalKindRef::Demonitor,
            SignalKind::Down { reason } => SignalKindRef::Down {
                reason: reason.as_ref().map(Payload::bytes),
            },
        }
    }
}

impl<'a> EventRef<'a> {
    /// The borrowed view of an owned event. `msg` is the identity a `Send` or
    /// `Signal` takes (the owned event leaves it implicit); other events
    /// ignore it.
    pub fn of(e: &'a Event, msg: MsgId) -> Self {
        let p = |x: &'a Option<Payload>| x.as_ref().map(Payload::bytes);
        match e {
            Event::Spawn {
                child,
                pid,
                link,
                monitor,
            } => EventRef::Spawn {
                child: *child,
                pid: *pid,
                link: *link,
                monitor: *monitor,
            },
            Event::Send { to, payload } => EventRef::Send {
                msg,
                to: *to,
                payload: p(payload),
            },
            Event::Deliver { msg } => EventRef::Deliver { msg: *msg },
            Event::Receive { msg } => EventRef::Receive { msg: *msg },
            Event::Timeout => EventRef::Timeout,
            Event::Signal { to, kind } => EventRef::Signal {
                signal: msg,
                to: *to,
                kind: SignalKindRef::of(kind),
            },
            Event::SignalTaken { signal, effect } => EventRef::SignalTaken {
                signal: *signal,
                effect: *effect,
            },
            Event::Nondet { kind, value } => EventRef::Nondet {
                kind: *kind,
                value: value.bytes(),
            },
            Event::Output { seq, bytes } => EventRef::Output {
                seq: *seq,
                bytes: bytes.as_deref(),
            },
            Event::Exit { reason } => EventRef::Exit { reason: p(reason) },
            Event::Shared {
                object,
                access,
                function,
                seq,
                key,
                name,
            } => EventRef::Shared {
                object: *object,
                access: *access,
                function: *function,
                seq: *seq,
                key: p(key),
                name: p(name),
            },
            Event::Blocked { stuck } => EventRef::Blocked { stuck: *stuck },
        }
    }
}

impl EventRef<'_> {
    /// True for the events that take a signal index of this process.
    pub fn sends_signal(&self) -> bool {
        matches!(self, EventRef::Send { .. } | EventRef::Signal { .. })
    }

    /// The owned event (copies payloads).
    pub fn to_owned(self) -> Event {
        match self {
            EventRef::Spawn {
                child,
                pid,
                link,
                monitor,
            } => Event::Spawn {
                child,
                pid,
                link,
                monitor,
            },
            EventRef::Send { to, payload, .. } => Event::Send {
                to,
                payload: owned(payload),
            },
            EventRef::Deliver { msg } => Event::Deliver { msg },
            EventRef::Receive { msg } => Event::Receive { msg },
            EventRef::Timeout => Event::Timeout,
            EventRef::Signal { to, kind, .. } => Event::Signal {
                to,
                kind: kind.to_owned(),
            },
            EventRef::SignalTaken { signal, effect } => Event::SignalTaken { signal, effect },
            EventRef::Nondet { kind, value } => Event::Nondet {
                kind,
                value: Payload(value.to_vec()),
            },
            EventRef::Output { seq, bytes } => Event::Output {
                seq,
                bytes: bytes.map(<[u8]>::to_vec),
            },
            EventRef::Exit { reason } => Event::Exit {
                reason: owned(reason),
            },
            EventRef::Shared {
                object,
                access,
                function,
                seq,
                key,
                name,
            } => Event::Shared {
                object,
                access,
                function,
                seq,
                key: owned(key),
                name: owned(name),
            },
            EventRef::Blocked { stuck } => Event::Blocked { stuck },
        }
    }

    /// The bytes of payloads this event carries (message, reason, value, output).
    pub fn payload_len(&self) -> usize {
        let opt = |p: Option<&[u8]>| p.map_or(0, <[u8]>::len);
        match *self {
            EventRef::Send { payload, .. } => opt(payload),
            EventRef::Signal {
                kind: SignalKindRef::Exit { reason, .. } | SignalKindRef::Down { reason },
                ..
            } => opt(reason),
            EventRef::Nondet { value, .. } => value.len(),
            EventRef::Output { bytes, .. } => opt(bytes),
            EventRef::Exit { reason } => opt(reason),
            EventRef::Shared { key, name, .. } => opt(key) + opt(name),
            _ => 0,
        }
    }

    /// The event's kind.
    pub fn kind(&self) -> EventKind {
        match self {
            EventRef::Spawn { .. } => EventKind::Spawn,
            EventRef::Send { .. } => EventKind::Send,
            EventRef::Deliver { .. } => EventKind::Deliver,
            EventRef::Receive { .. } => EventKind::Receive,
            EventRef::Timeout => EventKind::Timeout,
            EventRef::Signal { .. } => EventKind::Signal,
            EventRef::SignalTaken { .. } => EventKind::SignalTaken,
            EventRef::Nondet { .. } => EventKind::Nondet,
            EventRef::Output { .. } => EventKind::Output,
            EventRef::Exit { .. } => EventKind::Exit,
            EventRef::Shared { .. } => EventKind::Shared,
            EventRef::Blocked { .. } => EventKind::Blocked,
        }
    }
}
