//! Encoding one block's events. The recorder's hot path goes through here for
//! every event, so each method appends a handful of bytes and touches only the
//! predictors; nothing allocates except the output buffer growing.

use super::cache::{Predictors, SenderCache, OBJECT_NONE};
use super::{dest, nondet_code, object_kind_code, op, shared_head, sub, tag, EXPLICIT};
use crate::event::{Access, Dest, Event, MsgId, NondetKind, ObjectId, ProcId, SignalEffect};
use crate::varint::{put, zigzag};
use crate::view::SignalKindRef;

/// The state of one block being encoded. Create one per block: the decoder
/// starts from the same empty state.
#[derive(Clone)]
pub struct BlockEncoder {
    p: Predictors,
    last_time: u64,
}

impl BlockEncoder {
    /// `own`/`own_pid`: the process whose block this is (spawns are coded relative to it).
    pub fn new(own: ProcId, own_pid: u64) -> Self {
        let mut e = BlockEncoder {
            p: Predictors::default(),
            last_time: 0,
        };
        e.reset(own, own_pid);
        e
    }

    /// Makes this encoder what [`BlockEncoder::new`] would make, without
    /// rebuilding (or reallocating) its tables: a run of short processes
    /// starts a block per process.
    pub fn reset(&mut self, own: ProcId, own_pid: u64) {
        self.p.reset(own, own_pid);
        self.last_time = 0;
    }

    /// Appends any event (the slow, general path).
    pub fn event(&mut self, out: &mut Vec<u8>, e: &Event) {
        match e {
            Event::Spawn {
                child,
                pid,
                link,
                monitor,
            } => self.spawn(out, *child, *pid, *link, *monitor),
            Event::Send { to, payload } => self.send(out, *to, payload.as_ref().map(|p| p.bytes())),
            Event::Deliver { msg } => self.deliver(out, *msg),
            Event::Receive { msg } => self.receive(out, *msg),
            Event::Timeout => self.timeout(out),
            Event::Signal { to, kind } => self.signal(out, *to, SignalKindRef::of(kind)),
            Event::SignalTaken { signal, effect } => self.signal_taken(out, *signal, *effect),
            Event::Nondet { kind, value } => self.nondet(out, *kind, value.bytes()),
            Event::Output { seq, bytes } => self.output(out, *seq, bytes.as_deref()),
            Event::Exit { reason } => self.exit(out, reason.as_ref().map(|p| p.bytes())),
            Event::Shared {
                object,
                access,
                function,
                seq,
                key,
                name,
            } => self.shared(
                out,
                SharedOp {
                    object: *object,
                    access: *access,
                    function: *function,
                    seq: *seq,
                    key: key.as_ref().map(|p| p.bytes()),
                    name: name.as_ref().map(|p| p.bytes()),
                },
            ),
            Event::Blocked { stuck } => self.blocked(out, *stuck),
        }
    }

    #[inline]
    pub fn send(&mut self, out: &mut Vec<u8>, to: Dest, payload: Option<&[u8]>) {
        self.send_head(out, to, payload.is_some());
        if let Some(p) = payload {
            put_bytes(out, p);
        }
    }

    /// Appends a send whose payload `write` appends in place (the recorder
    /// encodes the message's ETF straight into the block rather than into a
    /// buffer of its own to be copied). A payload longer than `max` bytes is
    /// taken back out and the send recorded without one; returns whether the
    /// payload was kept.
    #[inline]
    pub fn send_with(
        &mut self,
        out: &mut Vec<u8>,
        to: Dest,
        max: usize,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> bool {
        let tag_at = out.len();
        self.send_head(out, to, true);
        if !put_term_with(out, max, write) {
            out[tag_at] = tag(op::SEND, out[tag_at] & EXPLICIT);
            return false;
        }
        true
    }

    /// A send's tag and destination.
    #[inline(always)]
    fn send_head(&mut self, out: &mut Vec<u8>, to: Dest, payload: bool) {
        let opc = if payload { op::SEND_PAYLOAD } else { op::SEND };
        match self.take_dest(to) {
            Some(slot) => out.push(tag(opc, slot as u8)),
            None => {
                out.push(tag(opc, EXPLICIT));
                put_dest(out, to);
            }
        }
    }

    #[inline]
    pub fn receive(&mut self, out: &mut Vec<u8>, msg: MsgId) {
        take(
            &mut self.p.receipts,
            out,
            op::RECEIVE,
            op::RECEIVE_DELTA,
            msg,
        );
    }

    #[inline]
    pub fn deliver(&mut self, out: &mut Vec<u8>, msg: MsgId) {
        take(
            &mut self.p.deliveries,
            out,
            op::DELIVER,
            op::DELIVER_DELTA,
            msg,
        );
    }

    pub fn timeout(&mut self, out: &mut Vec<u8>) {
        out.push(tag(op::OTHER, sub::TIMEOUT));
    }

    pub fn spawn(&mut self, out: &mut Vec<u8>, child: ProcId, pid: u64, link: bool, monitor: bool) {
        out.push(tag(op::OTHER, sub::SPAWN + link as u8 + 2 * monitor as u8));
        let d_child = child.0.wrapping_sub(self.p.last_child).wrapping_sub(1) as i32;
        put(out, zigzag(d_child as i64));
        let offset = pid.wrapping_sub(child.0 as u64) as i64;
        put(out, zigzag(offset.wrapping_sub(self.p.pid_offset)));
        self.p.last_child = child.0;
        self.p.pid_offset = offset;
    }

    pub fn signal(&mut self, out: &mut Vec<u8>, to: Dest, kind: SignalKindRef<'_>) {
        let (code, reason) = match kind {
            SignalKindRef::Link => (sub::LINK, None),
            SignalKindRef::Unlink => (sub::UNLINK, None),
            SignalKindRef::Monitor => (sub::MONITOR, None),
            SignalKindRef::Demonitor => (sub::DEMONITOR, None),
            SignalKindRef::Exit { reason, linked } => (
                sub::EXIT_SIGNAL + reason.is_some() as u8 + 2 * linked as u8,
                reason,
            ),
            SignalKindRef::Down { reason: None } => (sub::DOWN, None),
            SignalKindRef::Down { reason } => (sub::DOWN_REASON, reason),
        };
        out.push(tag(op::OTHER, code));
        // Destination as a varint: a slot below 31, or 31 + explicit code.
        match self.take_dest(to) {
            Some(slot) => put(out, slot as u64),
            None => {
                put(out, EXPLICIT as u64);
                put_dest(out, to);
            }
        }
        if let Some(r) = reason {
            put_bytes(out, r);
        }
    }

    /// Moves `to` to the front of the destinations; returns the slot it
    /// had, or `None` if it was new (it is then inserted).
    #[inline(always)]
    fn take_dest(&mut self, to: Dest) -> Option<usize> {
        if self.p.dests.is_front(to) {
            return Some(0);
        }
        let slot = self.p.dests.find(to);
        match slot {
            Some(s) => {
                self.p.dests.take(s);
            }
            None => self.p.dests.insert(to),
        }
        slot
    }

    pub fn signal_taken(&mut self, out: &mut Vec<u8>, signal: MsgId, effect: SignalEffect) {
        let e = match effect {
            SignalEffect::Applied => 0,
            SignalEffect::Ignored => 1,
            SignalEffect::Converted => 2,
            SignalEffect::Killed => 3,
        };
        out.push(tag(op::OTHER, sub::SIGNAL_TAKEN + e));
        let c = &mut self.p.receipts;
        match c.find(signal.sender.0) {
            Some(slot) => {
                let (_, expected) = c.peek(slot).expect("slot found");
                put(out, slot as u64);
                put(out, zigzag(signal.index.wrapping_sub(expected) as i64));
                c.hit(slot, signal.index);
            }
            None => {
                let expected = c.expected_evicted(signal.sender.0);
                put(out, EXPLICIT as u64);
                put(out, signal.sender.0 as u64);
                put(out, zigzag(signal.index.wrapping_sub(expected) as i64));
                c.miss(signal.sender.0, signal.index);
            }
        }
    }

    pub fn nondet(&mut self, out: &mut Vec<u8>, kind: NondetKind, value: &[u8]) {
        out.push(tag(op::OTHER, sub::NONDET));
        put(out, nondet_code(kind));
        put_bytes(out, value);
    }

    pub fn output(&mut self, out: &mut Vec<u8>, seq: u64, bytes: Option<&[u8]>) {
        let code = if bytes.is_some() {
            sub::OUTPUT_BYTES
        } else {
            sub::OUTPUT
        };
        out.push(tag(op::OTHER, code));
        put(out, zigzag(seq.wrapping_sub(self.p.next_output) as i64));
        self.p.next_output = seq.wrapping_add(1);
        if let Some(b) = bytes {
            put_bytes(out, b);
        }
    }

    /// Appends an exit whose reason `write` appends in place (as
    /// [`BlockEncoder::send_with`] does a payload); a reason longer than
    /// `max` bytes is taken back out. Returns whether the reason was kept.
    pub fn exit_with(
        &mut self,
        out: &mut Vec<u8>,
        max: usize,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> bool {
        let tag_at = out.len();
        out.push(tag(op::OTHER, sub::EXIT_REASON));
        if !put_term_with(out, max, write) {
            out[tag_at] = tag(op::OTHER, sub::EXIT);
            return false;
        }
        true
    }

    pub fn exit(&mut self, out: &mut Vec<u8>, reason: Option<&[u8]>) {
        match reason {
            None => out.push(tag(op::OTHER, sub::EXIT)),
            Some(r) => {
                out.push(tag(op::OTHER, sub::EXIT_REASON));
                put_bytes(out, r);
            }
        }
    }

    /// An operation on shared state: the object by slot, or none, or
    /// explicitly; the head; the operation's number as a delta from the one
    /// expected next on that object; the key and the name when present.
    pub fn shared(&mut self, out: &mut Vec<u8>, s: SharedOp<'_>) {
        let (operand, expected) = match s.object {
            None => (OBJECT_NONE, None),
            Some(o) => match self.p.objects.find(o) {
                Some(slot) => {
                    let (_, next) = self.p.objects.peek(slot).expect("a found slot");
                    self.p.objects.hit(slot, s.seq);
                    (slot as u8, Some(next))
                }
                None => {
                    let next = self.p.objects.expected_evicted(o);
                    self.p.objects.miss(o, s.seq);
                    (EXPLICIT, Some(next))
                }
            },
        };
        out.push(tag(op::SHARED, operand));
        if let (EXPLICIT, Some(o)) = (operand, s.object) {
            put(out, object_kind_code(o.kind));
            put(out, o.creator.0 as u64);
            put(out, o.serial as u64);
        }
        put(
            out,
            shared_head(s.function, s.access, s.name.is_some(), s.key.is_some()),
        );
        if let Some(next) = expected {
            put(out, zigzag(s.seq.wrapping_sub(next) as i64));
        }
        if let Some(k) = s.key {
            put_bytes(out, k);
        }
        if let Some(n) = s.name {
            put_bytes(out, n);
        }
    }

    /// The end of the run found the process waiting in `receive`.
    pub fn blocked(&mut self, out: &mut Vec<u8>, stuck: bool) {
        out.push(tag(
            op::OTHER,
            if stuck {
                sub::BLOCKED_STUCK
            } else {
                sub::BLOCKED_IDLE
            },
        ));
    }

    /// Appends the time of the event just encoded (blocks with timestamps only):
    /// nanoseconds since the run started, as a delta from the previous event.
    /// Times never go backwards within a block; an earlier time is stored as
    /// equal to the previous one.
    #[inline]
    pub fn time(&mut self, out: &mut Vec<u8>, t: u64) {
        let t = t.max(self.last_time);
        put(out, t - self.last_time);
        self.last_time = t;
    }
}

#[inline]
fn take(c: &mut SenderCache, out: &mut Vec<u8>, exact: u8, delta: u8, msg: MsgId) {
    if c.take_front(msg.sender.0, msg.index) {
        return out.push(tag(exact, 0));
    }
    match c.find(msg.sender.0) {
        Some(slot) => {
            let (_, expected) = c.peek(slot).expect("slot found");
            if msg.index == expected {
                out.push(tag(exact, slot as u8));
            } else {
                out.push(tag(delta, slot as u8));
                put(out, zigzag(msg.index.wrapping_sub(expected) as i64));
            }
            c.hit(slot, msg.index);
        }
        None => {
            let expected = c.expected_evicted(msg.sender.0);
            if msg.index == expected {
                out.push(tag(exact, EXPLICIT));
                put(out, msg.sender.0 as u64);
            } else {
                out.push(tag(delta, EXPLICIT));
                put(out, msg.sender.0 as u64);
                put(out, zigzag(msg.index.wrapping_sub(expected) as i64));
            }
            c.miss(msg.sender.0, msg.index);
        }
    }
}

/// Appends a length-prefixed term that `write` appends in place: one byte
/// is kept for the length (the common case) and moved up if it needs more.
/// A term longer than `max` bytes is taken back out (`out` is as it was);
/// returns whether it was kept.
#[inline]
fn put_term_with(out: &mut Vec<u8>, max: usize, write: impl FnOnce(&mut Vec<u8>)) -> bool {
    let len_at = out.len();
    out.push(0);
    write(out);
    let n = out.len() - len_at - 1;
    if n > max {
        out.truncate(len_at);
        return false;
    }
    if n < 0x80 {
        out[len_at] = n as u8;
    } else {
        let (len, k) = varint_bytes(n as u64);
        out.splice(len_at..len_at + 1, len[..k].iter().copied());
    }
    true
}

/// The varint of `v` in a fixed array, and its length (no allocation).
fn varint_bytes(mut v: u64) -> ([u8; 10], usize) {
    let mut b = [0u8; 10];
    let mut k = 0;
    while v >= 0x80 {
        b[k] = (v as u8) | 0x80;
        v >>= 7;
        k += 1;
    }
    b[k] = v as u8;
    (b, k + 1)
}

fn put_dest(out: &mut Vec<u8>, d: Dest) {
    match d {
        Dest::Proc(p) => put(out, ((p.0 as u64) << 2) | dest::PROC),
        Dest::Foreign(n) if n < 1 << 62 => put(out, (n << 2) | dest::FOREIGN),
        Dest::Foreign(n) => {
            put(out, dest::FOREIGN_WIDE);
            put(out, n);
        }
        Dest::Unknown => put(out, dest::UNKNOWN),
    }
}

#[inline]
fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// An operation on shared state, as the encoder takes it (see
/// [`Event::Shared`]).
#[derive(Copy, Clone, Debug)]
pub struct SharedOp<'a> {
    pub object: Option<ObjectId>,
    pub access: Access,
    pub function: u16,
    pub seq: u64,
    pub key: Option<&'a [u8]>,
    pub name: Option<&'a [u8]>,
}
