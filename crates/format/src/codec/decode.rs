//! Decoding one block's events into borrowed [`EventRef`]s. The input is
//! untrusted: every read is bounds-checked and every malformed byte becomes a
//! [`CodecError`] naming its position and what was expected there.

use super::cache::{Predictors, SenderCache, OBJECT_NONE, SLOTS};
use super::{dest, nondet_kind, object_kind, op, shared_head_parts, sub, EXPLICIT};
use crate::event::{Dest, MsgId, ObjectId, ProcId, SignalEffect};
use crate::varint::{self, unzigzag, VarintError};
use crate::view::{EventRef, SignalKindRef};
use std::fmt;

/// A malformed block body: `at` is the byte position in the decoded
/// (decompressed) block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecError {
    pub at: usize,
    pub expected: String,
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {} of the decoded block: expected {}",
            self.at, self.expected
        )
    }
}

/// Reads the events of one block, in order.
pub struct BlockDecoder<'a> {
    buf: &'a [u8],
    st: DecoderState,
}

/// Where a [`BlockDecoder`] is in its block, apart from the block's bytes:
/// a reader that keeps many blocks open (a replay, one per live process)
/// keeps each block's bytes and this, and decodes a few events at a time
/// ([`BlockDecoder::detach`], [`BlockDecoder::attach`]).
#[derive(Clone)]
pub struct DecoderState {
    pos: usize,
    own: ProcId,
    next_signal: u64,
    timestamps: bool,
    time: u64,
    p: Predictors,
    /// The events of a later version of the format are corrupt here.
    version: u16,
}

#[inline(always)]
fn msg(sender: u32, index: u64) -> MsgId {
    MsgId {
        sender: ProcId(sender),
        index,
    }
}

#[cold]
fn err(at: usize, expected: impl Into<String>) -> CodecError {
    CodecError {
        at,
        expected: expected.into(),
    }
}

impl<'a> BlockDecoder<'a> {
    /// `first_signal`: the signal index of the block's first `Send`/`Signal`
    /// (how many the process sent before this block). `timestamps`: whether
    /// each event is followed by a time delta.
    pub fn new(
        buf: &'a [u8],
        own: ProcId,
        own_pid: u64,
        first_signal: u64,
        timestamps: bool,
    ) -> Self {
        let mut p = Predictors::default();
        p.reset(own, own_pid);
        BlockDecoder {
            buf,
            st: DecoderState {
                pos: 0,
                own,
                next_signal: first_signal,
                timestamps,
                time: 0,
                p,
                version: crate::container::VERSION,
            },
        }
    }

    /// Points the decoder at another block, as [`new`](Self::new) would make
    /// it, keeping its predictors' storage: a reader of many small segments
    /// restarts one decoder rather than building (and moving) a fresh one
    /// for each.
    #[inline]
    pub fn restart(
        &mut self,
        buf: &'a [u8],
        own: ProcId,
        own_pid: u64,
        first_signal: u64,
        timestamps: bool,
    ) {
        self.buf = buf;
        let st = &mut self.st;
        st.pos = 0;
        st.own = own;
        st.next_signal = first_signal;
        st.timestamps = timestamps;
        st.time = 0;
        st.p.reset(own, own_pid);
    }

    /// Decodes a block of a log of format version `v`: the events a later
    /// version added are corrupt in it.
    pub fn with_version(mut self, v: u16) -> Self {
        self.st.version = v;
        self
    }

    /// Its place in the block, to resume later over the same bytes.
    pub fn detach(self) -> DecoderState {
        self.st
    }

    /// Resumes decoding `buf` where `st`, detached from a decoder over the
    /// same bytes, left off.
    pub fn attach(buf: &'a [u8], st: DecoderState) -> Self {
        BlockDecoder { buf, st }
    }

    /// Length of the decoded block.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Byte position of the next event in the decoded block.
    pub fn position(&self) -> usize {
        self.st.pos
    }

    /// The time of the event last returned (nanoseconds since the run
    /// started), when the block has timestamps.
    pub fn time(&self) -> Option<u64> {
        self.st.timestamps.then_some(self.st.time)
    }

    /// The signal index the next `Send`/`Signal` would take.
    pub fn next_signal(&self) -> u64 {
        self.st.next_signal
    }

    #[inline]
    fn varint(&mut self, what: &str) -> Result<u64, CodecError> {
        let at = self.st.pos;
        varint::get(self.buf, &mut self.st.pos).map_err(|e| match e {
            VarintError::Truncated => {
                err(at, format!("{what} (a varint), found the end of the block"))
            }
            VarintError::Overflow => err(at, format!("{what} (a varint), found more than 64 bits")),
        })
    }

    #[inline]
    fn bytes(&mut self, what: &str) -> Result<&'a [u8], CodecError> {
        let at = self.st.pos;
        let len = self.varint(what)?;
        let left = (self.buf.len() - self.st.pos) as u64;
        if len > left {
            return Err(err(
                at,
                format!("{what} of {len} bytes, but only {left} bytes are left in the block"),
            ));
        }
        let s = &self.buf[self.st.pos..self.st.pos + len as usize];
        self.st.pos += len as usize;
        Ok(s)
    }

    fn dest(&mut self) -> Result<Dest, CodecError> {
        let at = self.st.pos;
        let code = self.varint("a destination")?;
        Ok(match code & 3 {
            dest::PROC => Dest::Proc(ProcId(
                u32::try_from(code >> 2).map_err(|_| err(at, "a process index below 2^32"))?,
            )),
            dest::FOREIGN => Dest::Foreign(code >> 2),
            dest::UNKNOWN if code == dest::UNKNOWN => Dest::Unknown,
            dest::FOREIGN_WIDE if code == dest::FOREIGN_WIDE => {
                Dest::Foreign(self.varint("a foreign pid number")?)
            }
            _ => return Err(err(at, format!("a destination code, found {code}"))),
        })
    }

    /// An explicit destination, which joins the front of the list. Writers
    /// name a listed destination by its slot, so an explicit one must be new.
    fn new_dest(&mut self) -> Result<Dest, CodecError> {
        let at = self.st.pos;
        let d = self.dest()?;
        if let Some(slot) = self.st.p.dests.find(d) {
            return Err(err(
                at,
                format!("a destination not in the list, found one in slot {slot}"),
            ));
        }
        self.st.p.dests.insert(d);
        Ok(d)
    }

    /// A destination that may be a predictor slot (signals).
    fn dest_ref(&mut self) -> Result<Dest, CodecError> {
        let at = self.st.pos;
        let r = self.varint("a destination slot")?;
        if r < EXPLICIT as u64 {
            self.st.p.dests.take(r as usize).ok_or_else(|| {
                err(
                    at,
                    format!("a filled destination slot, found empty slot {r}"),
                )
            })
        } else if r == EXPLICIT as u64 {
            self.new_dest()
        } else {
            Err(err(at, format!("a destination slot (0..=31), found {r}")))
        }
    }

    #[inline]
    fn send_dest(&mut self, operand: u8, at: usize) -> Result<Dest, CodecError> {
        if operand == EXPLICIT {
            self.new_dest()
        } else {
            self.st.p.dests.take(operand as usize).ok_or_else(|| {
                err(
                    at,
                    format!("a filled destination slot, found empty slot {operand}"),
                )
            })
        }
    }

    /// Receives and deliveries: the sender from a slot or explicitly, then the
    /// index as predicted or with a delta.
    #[inline]
    fn taken(
        which: &mut SenderCache,
        buf: &[u8],
        pos: &mut usize,
        operand: u8,
        delta: bool,
        at: usize,
    ) -> Result<MsgId, CodecError> {
        let read = |pos: &mut usize, what: &str| {
            let p = *pos;
            varint::get(buf, pos).map_err(|_| err(p, format!("{what} (a varint)")))
        };
        if (operand as usize) < SLOTS {
            let slot = operand as usize;
            let Some((sender, expected)) = which.peek(slot) else {
                return Err(err(
                    at,
                    format!("a filled sender slot, found empty slot {slot}"),
                ));
            };
            let index = if delta {
                expected.wrapping_add(unzigzag(read(pos, "an index delta")?) as u64)
            } else {
                expected
            };
            which.hit(slot, index);
            Ok(MsgId {
                sender: ProcId(sender),
                index,
            })
        } else {
            let p = *pos;
            let sender =
                u32::try_from(read(pos, "a sender")?).map_err(|_| err(p, "a sender below 2^32"))?;
            let expected = which.expected_evicted(sender);
            let index = if delta {
                expected.wrapping_add(unzigzag(read(pos, "an index delta")?) as u64)
            } else {
                expected
            };
            if let Some(slot) = which.find(sender) {
                return Err(err(
                    p,
                    format!("a sender not in the list, found {sender}, which is in slot {slot}"),
                ));
            }
            which.miss(sender, index);
            Ok(MsgId {
                sender: ProcId(sender),
                index,
            })
        }
    }

    /// A spawn with its deltas read (zigzag undone): the child's process
    /// index and pid offset move on by them.
    #[inline(always)]
    fn spawned(&mut self, flags: u8, d_child: i64, d_off: i64) -> EventRef<'a> {
        let p = &mut self.st.p;
        let child = p
            .last_child
            .wrapping_add(1)
            .wrapping_add(d_child as i32 as u32);
        let offset = p.pid_offset.wrapping_add(d_off);
        p.last_child = child;
        p.pid_offset = offset;
        EventRef::Spawn {
            child: ProcId(child),
            pid: (child as u64).wrapping_add(offset as u64),
            link: flags & 1 != 0,
            monitor: flags & 2 != 0,
        }
    }

    fn signal_taken(&mut self, effect: u8) -> Result<EventRef<'a>, CodecError> {
        let at = self.st.pos;
        let r = self.varint("a sender slot")?;
        let operand = match r {
            r if r <= EXPLICIT as u64 => r as u8,
            _ => return Err(err(at, format!("a sender slot (0..=31), found {r}"))),
        };
        let signal = Self::taken(
            &mut self.st.p.receipts,
            self.buf,
            &mut self.st.pos,
            operand,
            true,
            at,
        )?;
        Ok(EventRef::SignalTaken {
            signal,
            effect: signal_effect(effect),
        })
    }

    #[inline]
    fn next_signal_id(&mut self) -> MsgId {
        let m = MsgId {
            sender: self.st.own,
            index: self.st.next_signal,
        };
        self.st.next_signal = self.st.next_signal.wrapping_add(1);
        m
    }

    /// The next event, or `None` at the end of the block.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)] // fallible; see the Iterator impl
    pub fn next(&mut self) -> Result<Option<EventRef<'a>>, CodecError> {
        let at = self.st.pos;
        let Some(&t) = self.buf.get(at) else {
            return Ok(None);
        };
        // Most events of a log are a send to a recent destination or the
        // receive of a message from a recent sender (expected, or a one-byte
        // delta away): they take this short path, inlined into the caller's
        // loop; everything else goes through `event`.
        let operand = (t & 31) as usize;
        let quick = match t >> 5 {
            // A crowd's short segments name most destinations and senders
            // for the first time: a process index, not yet listed, is
            // taken here too; anything else (and every error) goes the
            // general way.
            op::SEND if operand == EXPLICIT as usize => {
                self.quick_new_dest(at + 1).map(|(end, to)| {
                    (
                        end - at,
                        EventRef::Send {
                            msg: self.next_signal_id(),
                            to,
                            payload: None,
                        },
                    )
                })
            }
            op::RECEIVE | op::RECEIVE_DELTA if operand == EXPLICIT as usize => {
                let delta = t >> 5 == op::RECEIVE_DELTA;
                self.quick_new_sender(at + 1, delta)
                    .map(|(end, sender, index)| {
                        (
                            end - at,
                            EventRef::Receive {
                                msg: msg(sender, index),
                            },
                        )
                    })
            }
            op::SEND => self.st.p.dests.take(operand).map(|to| {
                (
                    1,
                    EventRef::Send {
                        msg: self.next_signal_id(),
                        to,
                        payload: None,
                    },
                )
            }),
            // With payloads on, every send carries a term: a recent
            // destination and a term shorter than 128 bytes (one length
            // byte) are the common case. A longer length, an explicit
            // destination or an empty slot take the general path.
            op::SEND_PAYLOAD => match self.buf.get(at + 1) {
                Some(&len) if len < 0x80 && self.buf.len() - (at + 2) >= len as usize => {
                    self.st.p.dests.take(operand).map(|to| {
                        let payload = &self.buf[at + 2..at + 2 + len as usize];
                        (
                            2 + len as usize,
                            EventRef::Send {
                                msg: self.next_signal_id(),
                                to,
                                payload: Some(payload),
                            },
                        )
                    })
                }
                _ => None,
            },
            op::RECEIVE => self
                .st
                .p
                .receipts
                .take_expected(operand)
                .map(|(sender, index)| {
                    (
                        1,
                        EventRef::Receive {
                            msg: msg(sender, index),
                        },
                    )
                }),
            op::RECEIVE_DELTA => self
                .quick_listed_delta(operand, at + 1)
                .map(|(sender, index)| {
                    (
                        2,
                        EventRef::Receive {
                            msg: msg(sender, index),
                        },
                    )
                }),
            op::OTHER => self.quick_other(operand as u8, at),
            _ => None,
        };
        let e = match quick {
            Some((len, e)) => {
                self.st.pos = at + len;
                e
            }
            None => self.event(t, at)?,
        };
        if self.st.timestamps {
            let d = self.varint("a time delta")?;
            self.st.time = self.st.time.wrapping_add(d);
        }
        Ok(Some(e))
    }

    /// An explicit destination that is a process not in the list, from
    /// `from`: it joins the list; returns where it ends. `None` leaves
    /// everything as it was, for the general path.
    #[inline(always)]
    fn quick_new_dest(&mut self, from: usize) -> Option<(usize, Dest)> {
        let mut end = from;
        let code = varint::get(self.buf, &mut end).ok()?;
        if code & 3 != dest::PROC {
            return None;
        }
        let to = Dest::Proc(ProcId(u32::try_from(code >> 2).ok()?));
        if self.st.p.dests.find(to).is_some() {
            return None;
        }
        self.st.p.dests.insert(to);
        Some((end, to))
    }

    /// An explicit sender not in the receipt list, from `from`, taken at
    /// its expected index, or with `delta` at the index a zigzag delta
    /// after it (a child taking its parent's k-th message): returns where
    /// it ends, the sender and the index. `None` leaves everything as it
    /// was, for the general path.
    #[inline(always)]
    fn quick_new_sender(&mut self, from: usize, delta: bool) -> Option<(usize, u32, u64)> {
        let mut end = from;
        let sender = u32::try_from(varint::get(self.buf, &mut end).ok()?).ok()?;
        let d = match delta {
            true => unzigzag(varint::get(self.buf, &mut end).ok()?) as u64,
            false => 0,
        };
        let r = &mut self.st.p.receipts;
        if r.find(sender).is_some() {
            return None;
        }
        let index = r.expected_evicted(sender).wrapping_add(d);
        r.miss(sender, index);
        Some((end, sender, index))
    }

    /// The OTHER events a crowd's segments hold besides sends and receives,
    /// in their common forms: an exit or timeout, a spawn whose deltas are
    /// one byte each, a signal without a reason to a listed or new
    /// process, a signal taken whose sender and delta are short. Returns
    /// the event's length; `None` leaves everything as it was, for the
    /// general path (which also reports every error).
    #[inline(always)]
    fn quick_other(&mut self, code: u8, at: usize) -> Option<(usize, EventRef<'a>)> {
        match code {
            sub::EXIT => Some((1, EventRef::Exit { reason: None })),
            sub::TIMEOUT => Some((1, EventRef::Timeout)),
            sub::SPAWN..=6 => {
                let (&d_child, &d_off) = (self.buf.get(at + 1)?, self.buf.get(at + 2)?);
                if (d_child | d_off) >= 0x80 {
                    return None;
                }
                let (d_child, d_off) = (unzigzag(d_child as u64), unzigzag(d_off as u64));
                Some((3, self.spawned(code - sub::SPAWN, d_child, d_off)))
            }
            sub::LINK..=sub::DEMONITOR | sub::EXIT_SIGNAL | 13 | sub::DOWN => {
                let (end, to) = match *self.buf.get(at + 1)? {
                    r if r < EXPLICIT => (at + 2, self.st.p.dests.take(r as usize)?),
                    EXPLICIT => self.quick_new_dest(at + 2)?,
                    _ => return None,
                };
                let kind = match code {
                    sub::LINK => SignalKindRef::Link,
                    sub::UNLINK => SignalKindRef::Unlink,
                    sub::MONITOR => SignalKindRef::Monitor,
                    sub::DEMONITOR => SignalKindRef::Demonitor,
                    sub::DOWN => SignalKindRef::Down { reason: None },
                    c => SignalKindRef::Exit {
                        reason: None,
                        linked: c == 13,
                    },
                };
                let signal = self.next_signal_id();
                Some((end - at, EventRef::Signal { signal, to, kind }))
            }
            sub::SIGNAL_TAKEN..=20 => {
                let (end, signal) = self.quick_signal_taken(at + 1)?;
                let effect = signal_effect(code - sub::SIGNAL_TAKEN);
                Some((end - at, EventRef::SignalTaken { signal, effect }))
            }
            _ => None,
        }
    }

    /// The sender reference and one-byte delta of a signal taken, from
    /// `from`, when the sender is listed or a new one: returns where they
    /// end and the signal. `None` leaves everything as it was.
    #[inline(always)]
    fn quick_signal_taken(&mut self, from: usize) -> Option<(usize, MsgId)> {
        match *self.buf.get(from)? {
            r if r < EXPLICIT => {
                let (sender, index) = self.quick_listed_delta(r as usize, from + 1)?;
                Some((from + 2, msg(sender, index)))
            }
            EXPLICIT => {
                let (end, sender, index) = self.quick_new_sender(from + 1, true)?;
                Some((end, msg(sender, index)))
            }
            _ => None,
        }
    }

    /// The listed sender in receipt slot `slot` and the one-byte zigzag
    /// delta at `d_at` from the index expected of it: the sender and the
    /// index, the slot moved to the front. `None` leaves everything as it
    /// was.
    #[inline(always)]
    fn quick_listed_delta(&mut self, slot: usize, d_at: usize) -> Option<(u32, u64)> {
        let d = *self.buf.get(d_at).filter(|&&d| d < 0x80)?;
        let (sender, expected) = self.st.p.receipts.peek(slot)?;
        let index = expected.wrapping_add(unzigzag(d as u64) as u64);
        self.st.p.receipts.hit(slot, index);
        Some((sender, index))
    }

    /// Any event (the general path); `t` is its tag byte at `at`.
    #[inline(never)]
    fn event(&mut self, t: u8, at: usize) -> Result<EventRef<'a>, CodecError> {
        self.st.pos = at + 1;
        let operand = t & 31;
        Ok(match t >> 5 {
            op::SEND => {
                let to = self.send_dest(operand, at)?;
                EventRef::Send {
                    msg: self.next_signal_id(),
                    to,
                    payload: None,
                }
            }
            op::SEND_PAYLOAD => {
                let to = self.send_dest(operand, at)?;
                let payload = Some(self.bytes("a message payload")?);
                EventRef::Send {
                    msg: self.next_signal_id(),
                    to,
                    payload,
                }
            }
            op::RECEIVE | op::RECEIVE_DELTA => EventRef::Receive {
                msg: Self::taken(
                    &mut self.st.p.receipts,
                    self.buf,
                    &mut self.st.pos,
                    operand,
                    t >> 5 == op::RECEIVE_DELTA,
                    at,
                )?,
            },
            op::DELIVER | op::DELIVER_DELTA => EventRef::Deliver {
                msg: Self::taken(
                    &mut self.st.p.deliveries,
                    self.buf,
                    &mut self.st.pos,
                    operand,
                    t >> 5 == op::DELIVER_DELTA,
                    at,
                )?,
            },
            op::OTHER => self.other(operand, at)?,
            op::SHARED if self.st.version >= 2 => self.shared(operand, at)?,
            _ => {
                return Err(err(
                    at,
                    format!("an event tag, found reserved tag {t:#04x}"),
                ))
            }
        })
    }

    /// An operation on shared state (format version 2).
    fn shared(&mut self, operand: u8, at: usize) -> Result<EventRef<'a>, CodecError> {
        let (object, expected) = match operand {
            OBJECT_NONE => (None, None),
            EXPLICIT => {
                let o = self.object_id()?;
                if let Some(slot) = self.st.p.objects.find(o) {
                    return Err(err(
                        at,
                        format!("a shared object not in the list, found one in slot {slot}"),
                    ));
                }
                (Some(o), Some(self.st.p.objects.expected_evicted(o)))
            }
            slot => match self.st.p.objects.peek(slot as usize) {
                Some((o, next)) => (Some(o), Some(next)),
                None => {
                    return Err(err(
                        at,
                        format!("a filled shared object slot, found empty slot {slot}"),
                    ))
                }
            },
        };
        let head_at = self.st.pos;
        let head = self.varint("the head of a shared-state operation")?;
        let (function, access, has_name, has_key) = shared_head_parts(head).ok_or_else(|| {
            err(
                head_at,
                format!("a shared-state operation head, found {head}"),
            )
        })?;
        let seq = match expected {
            Some(next) => next.wrapping_add(unzigzag(self.varint("an operation delta")?) as u64),
            None => 0,
        };
        match (object, operand) {
            (Some(o), EXPLICIT) => self.st.p.objects.miss(o, seq),
            (Some(_), slot) => self.st.p.objects.hit(slot as usize, seq),
            (None, _) => {}
        }
        let key = if has_key {
            Some(self.bytes("the key of a shared-state operation")?)
        } else {
            None
        };
        let name = if has_name {
            Some(self.bytes("the name of a shared object")?)
        } else {
            None
        };
        Ok(EventRef::Shared {
            object,
            access,
            function,
            seq,
            key,
            name,
        })
    }

    fn object_id(&mut self) -> Result<ObjectId, CodecError> {
        let at = self.st.pos;
        let code = self.varint("a shared object's kind")?;
        let kind = object_kind(code)
            .ok_or_else(|| err(at, format!("a shared object kind, found {code}")))?;
        let at = self.st.pos;
        let creator = u32::try_from(self.varint("a shared object's creator")?)
            .map_err(|_| err(at, "a creator process index below 2^32"))?;
        let at = self.st.pos;
        let serial = u32::try_from(self.varint("a shared object's serial number")?)
            .map_err(|_| err(at, "a serial number below 2^32"))?;
        Ok(ObjectId {
            kind,
            creator: ProcId(creator),
            serial,
        })
    }

    fn other(&mut self, code: u8, at: usize) -> Result<EventRef<'a>, CodecError> {
        Ok(match code {
            sub::BLOCKED_IDLE | sub::BLOCKED_STUCK if self.st.version >= 2 => EventRef::Blocked {
                stuck: code == sub::BLOCKED_STUCK,
            },
            sub::TIMEOUT => EventRef::Timeout,
            sub::EXIT => EventRef::Exit { reason: None },
            sub::EXIT_REASON => EventRef::Exit {
                reason: Some(self.bytes("an exit reason")?),
            },
            c @ sub::SPAWN..=6 => {
                let d_child = unzigzag(self.varint("a child delta")?);
                let d_off = unzigzag(self.varint("a pid delta")?);
                self.spawned(c - sub::SPAWN, d_child, d_off)
            }
            sub::LINK | sub::UNLINK | sub::MONITOR | sub::DEMONITOR => {
                let to = self.dest_ref()?;
                let kind = match code {
                    sub::LINK => SignalKindRef::Link,
                    sub::UNLINK => SignalKindRef::Unlink,
                    sub::MONITOR => SignalKindRef::Monitor,
                    _ => SignalKindRef::Demonitor,
                };
                EventRef::Signal {
                    signal: self.next_signal_id(),
                    to,
                    kind,
                }
            }
            c @ sub::EXIT_SIGNAL..=14 => {
                let flags = c - sub::EXIT_SIGNAL;
                let to = self.dest_ref()?;
                let reason = if flags & 1 != 0 {
                    Some(self.bytes("an exit signal's reason")?)
                } else {
                    None
                };
                EventRef::Signal {
                    signal: self.next_signal_id(),
                    to,
                    kind: SignalKindRef::Exit {
                        reason,
                        linked: flags & 2 != 0,
                    },
                }
            }
            sub::DOWN | sub::DOWN_REASON => {
                let to = self.dest_ref()?;
                let reason = if code == sub::DOWN_REASON {
                    Some(self.bytes("a 'DOWN' reason")?)
                } else {
                    None
                };
                EventRef::Signal {
                    signal: self.next_signal_id(),
                    to,
                    kind: SignalKindRef::Down { reason },
                }
            }
            c @ sub::SIGNAL_TAKEN..=20 => self.signal_taken(c - sub::SIGNAL_TAKEN)?,
            sub::NONDET => {
                let kat = self.st.pos;
                let k = self.varint("a nondeterministic built-in's kind")?;
                let kind = nondet_kind(k)
                    .ok_or_else(|| err(kat, format!("a built-in kind below 65547, found {k}")))?;
                EventRef::Nondet {
                    kind,
                    value: self.bytes("a built-in's result")?,
                }
            }
            sub::OUTPUT | sub::OUTPUT_BYTES => {
                let d = unzigzag(self.varint("an output sequence delta")?);
                let seq = self.st.p.next_output.wrapping_add(d as u64);
                self.st.p.next_output = seq.wrapping_add(1);
                let bytes = if code == sub::OUTPUT_BYTES {
                    Some(self.bytes("output bytes")?)
                } else {
                    None
                };
                EventRef::Output { seq, bytes }
            }
            c => {
                return Err(err(
                    at,
                    format!(
                        "an event tag, found reserved tag {:#04x}",
                        (op::OTHER << 5) | c
                    ),
                ))
            }
        })
    }
}

impl<'a> Iterator for BlockDecoder<'a> {
    type Item = Result<EventRef<'a>, CodecError>;

    fn next(&mut self) -> Option<Self::Item> {
        match BlockDecoder::next(self) {
            Ok(Some(e)) => Some(Ok(e)),
            Ok(None) => None,
            Err(e) => {
                // Stop after an error: the rest of the block is not trustworthy.
                self.st.pos = self.buf.len();
                Some(Err(e))
            }
        }
    }
}

/// The effect a signal-taken event's sub-code (less [`sub::SIGNAL_TAKEN`]) names.
fn signal_effect(n: u8) -> SignalEffect {
    match n {
        0 => SignalEffect::Applied,
        1 => SignalEffect::Ignored,
        2 => SignalEffect::Converted,
        _ => SignalEffect::Killed,
    }
}
