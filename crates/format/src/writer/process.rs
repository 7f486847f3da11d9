//! The per-process side of the writer: each process owns a [`ProcessWriter`]
//! and pushes its events through a [`Slice`] — one per scheduling slice.
//!
//! A process's open segment is *active* (its encoder at hand) or, once the
//! flusher needed memory while the process was idle, *dormant*: only its
//! encoded bytes are kept, and the encoder is rebuilt from them when the
//! process pushes again. A million idle processes then hold a million
//! small segments open within the budget, instead of each being cut into
//! many one-event segments.
//!
//! The process holds its buffer ([`super::cell`]) from [`ProcessWriter::hold`]
//! to [`ProcessWriter::release`] — the recorder's scheduling slice — and
//! pushing an event in between only encodes into the buffer: no lock, no
//! atomic read-modify-write. A [`Slice`] taken without holding holds the
//! buffer for itself. The background flusher tries to hold buffers of
//! processes that are not running to cut blocks that have waited too long,
//! and leaves a hint for running ones.

use super::cell::BufCell;
use super::crowd::{self, Crowd};
use super::open::my_shard;
use super::sink::{RawSegment, Wake};
use super::spares::Depot;
use super::Inner;
use crate::codec::{BlockDecoder, BlockEncoder, SharedOp};
use crate::container;
use crate::event::{Dest, Event, MsgId, NondetKind, ProcId, SignalEffect, SignalKind};
use crate::view::{EventRef, SignalKindRef};
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Memory is reported to the writer's global budget in steps of this many
/// bytes, so the count costs one atomic per step, not one per event.
const PUBLISH_STEP: usize = 4096;
/// What an open block costs before its first byte: the encoder's predictors.
const OPEN_COST: usize = std::mem::size_of::<BlockEncoder>() + 256;
/// What a dormant segment costs beyond its bytes: the allocator's share.
const DORMANT_COST: usize = 16;

/// A process's state shared between its owner and the flusher.
pub(crate) struct ProcState {
    pub id: ProcId,
    pub pid: u64,
    pub parent: Option<ProcId>,
    pub buf: BufCell<ProcBuf>,
    /// Set by the flusher when it found the process running: the slice's end
    /// checks whether its block should be cut.
    pub flush_hint: AtomicBool,
}

/// The block being built. Idle processes hold no encoder and no buffer.
pub(crate) struct ProcBuf {
    enc: Option<Box<BlockEncoder>>,
    bytes: Vec<u8>,
    /// Length at which the next budget step (or the block cut) happens.
    threshold: usize,
    block_events: u32,
    block_first_event: u64,
    block_first_signal: u64,
    events: u64,
    signals: u64,
    opened_at: Option<Instant>,
    published: usize,
    /// In the writer's list of processes with an open block.
    pub listed: bool,
    closed: bool,
    /// The last block was cut full: the next one starts at the block size
    /// rather than growing to it by doubling (a busy process's block was
    /// copied about once over by its reallocations).
    busy: bool,
    /// The crowd (its index in the writer's) whose encoder and bytes `enc`
    /// and `bytes` are, lent for the process's first slice: its events
    /// take the same path as into a segment of its own.
    crowd: Option<u8>,
}

impl ProcState {
    /// The state of a newly registered process: a spare one of this
    /// thread's, written over, or a new allocation.
    pub fn shared(id: ProcId, pid: u64, parent: Option<ProcId>) -> Arc<ProcState> {
        let spare = SPARE_STATES
            .try_with(|s| STATE_DEPOT.take(&mut s.borrow_mut()))
            .ok()
            .flatten();
        if let Some(mut state) = spare {
            if let Some(s) = Arc::get_mut(&mut state) {
                (s.id, s.pid, s.parent) = (id, pid, parent);
                // The cell anew, let go whatever its last holder left.
                s.buf = BufCell::new(ProcBuf::new());
                *s.flush_hint.get_mut() = false;
                return state;
            }
        }
        Arc::new(ProcState {
            id,
            pid,
            parent,
            buf: BufCell::new(ProcBuf::new()),
            flush_hint: AtomicBool::new(false),
        })
    }
}

/// Keeps an ended process's state for a registration to come, unless
/// someone else still holds it (the open lists hold a listed one's).
fn spare_state(state: Arc<ProcState>) {
    // No weak references are made: a strong count of one is ours alone.
    if Arc::strong_count(&state) == 1 {
        let _ = SPARE_STATES.try_with(|s| STATE_DEPOT.put(&mut s.borrow_mut(), state));
    }
}

impl ProcBuf {
    pub fn new() -> Self {
        ProcBuf {
            enc: None,
            bytes: Vec::new(),
            threshold: 0,
            block_events: 0,
            block_first_event: 0,
            block_first_signal: 0,
            events: 0,
            signals: 0,
            opened_at: None,
            published: 0,
            listed: false,
            closed: false,
            busy: false,
            crowd: None,
        }
    }

    pub fn opened_at(&self) -> Option<Instant> {
        self.opened_at
    }
}

thread_local! {
    /// Encoders of blocks cut on this thread, for the next blocks opened on
    /// it: a fresh one is a 1.5 KB allocation to fill, and a run of short
    /// processes opens a block per process. Boxed: they move to and from
    /// `ProcBuf::enc` without copying.
    #[allow(clippy::vec_box)]
    static SPARE_ENCODERS: RefCell<Vec<Box<BlockEncoder>>> = const { RefCell::new(Vec::new()) };
}

/// Spare encoders kept per thread.
const SPARE_ENCODERS_MAX: usize = 8;

thread_local! {
    /// States of ended processes at this thread's hand, for the processes
    /// registered next on it: a short process's state was an allocation
    /// through the allocator's slow path (its size class) and a free,
    /// mostly on another thread than the allocation's.
    static SPARE_STATES: RefCell<Vec<Arc<ProcState>>> = const { RefCell::new(Vec::new()) };
}

/// Where threads pass each other batches of [`SPARE_STATES`].
static STATE_DEPOT: Depot<Arc<ProcState>> = Depot::new();

fn spare_encoder(enc: Box<BlockEncoder>) {
    SPARE_ENCODERS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < SPARE_ENCODERS_MAX {
            s.push(enc);
        }
    });
}

fn new_encoder(own: ProcId, own_pid: u64) -> Box<BlockEncoder> {
    match SPARE_ENCODERS.with(|s| s.borrow_mut().pop()) {
        Some(mut enc) => {
            enc.reset(own, own_pid);
            enc
        }
        None => Box::new(BlockEncoder::new(own, own_pid)),
    }
}

/// Cuts the open block, if any, and hands it to the compressors.
pub(crate) fn cut(b: &mut ProcBuf, state: &ProcState, inner: &Inner) {
    cut_and(b, state, inner, Wake::Now);
}

/// Makes an idle process's open segment dormant: its encoder goes back to
/// the spares and only its bytes stay, in a buffer of their size.
pub(crate) fn make_dormant(b: &mut ProcBuf, inner: &Inner) {
    let Some(enc) = b.enc.take() else { return };
    spare_encoder(enc);
    b.bytes.shrink_to_fit();
    let cost = b.bytes.capacity() + DORMANT_COST;
    if b.published > cost {
        inner.release(b.published - cost);
    } else {
        inner.reserve(cost - b.published);
    }
    b.published = cost;
}

/// The encoder of a dormant segment, as it was when the segment went
/// dormant: a fresh one that has encoded the same events again.
fn revive(
    bytes: &[u8],
    first_signal: u64,
    state: &ProcState,
    timestamps: bool,
) -> Box<BlockEncoder> {
    let mut enc = new_encoder(state.id, state.pid);
    let mut again = Vec::with_capacity(bytes.len());
    let mut dec = BlockDecoder::new(bytes, state.id, state.pid, first_signal, timestamps);
    while let Ok(Some(e)) = dec.next() {
        enc.event(&mut again, &e.to_owned());
        if let Some(t) = dec.time() {
            enc.time(&mut again, t);
        }
    }
    debug_assert_eq!(again, bytes, "a segment encodes the same way twice");
    enc
}

/// Lends `c`'s encoder and bytes to the process, for a row of its events
/// from here on.
fn lend_crowd(c: &mut Crowd, k: u8, b: &mut ProcBuf, state: &ProcState, inner: &Inner) {
    let block_size = inner.opts.block_size;
    c.start_row(state, block_size);
    b.enc = c.enc.take();
    std::mem::swap(&mut b.bytes, &mut c.bytes);
    b.block_first_event = b.events;
    b.block_first_signal = b.signals;
    b.block_events = 0;
    // The slow path's only business in a crowd: its being full.
    b.threshold = block_size;
    b.crowd = Some(k);
}

/// Takes back what [`lend_crowd`] lent, and ends the process's row.
fn return_crowd(c: &mut Crowd, b: &mut ProcBuf, state: &ProcState) {
    c.enc = b.enc.take();
    std::mem::swap(&mut b.bytes, &mut c.bytes);
    b.crowd = None;
    let events = std::mem::take(&mut b.block_events);
    c.end_row(state, b.block_first_event, b.block_first_signal, events);
}

/// Cuts the open block, if any, and queues it; with [`Wake::Later`] the
/// caller wakes the compressors itself once it has queued a series.
pub(crate) fn cut_and(b: &mut ProcBuf, state: &ProcState, inner: &Inner, wake: Wake) {
    debug_assert!(b.crowd.is_none(), "a crowd's row is not a segment to cut");
    b.busy = false;
    if let Some(enc) = b.enc.take() {
        spare_encoder(enc);
    }
    if b.opened_at.is_none() {
        return;
    }
    inner.release(b.published);
    b.published = 0;
    b.opened_at = None;
    let events = std::mem::take(&mut b.block_events);
    if events == 0 {
        b.bytes = Vec::new();
        return;
    }
    let block = RawSegment {
        process: state.id.0,
        parent: state.parent.map(|p| p.0),
        pid: state.pid,
        first_event: b.block_first_event,
        first_signal: b.block_first_signal,
        events,
        timestamps: inner.opts.timestamps,
        bytes: std::mem::take(&mut b.bytes),
    };
    inner.submit(block, wake);
}

/// Where a process stands with the crowds ([`super::crowd`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum CrowdStage {
    /// Nothing pushed through [`ProcessWriter::hold_crowded`] yet.
    Fresh,
    /// Writing its first slice into the crowd of this index.
    In(u8),
    /// Past its first slice.
    Out,
}

/// A process's handle on the log. Owned by the process: `Send`, not `Sync`.
pub struct ProcessWriter {
    /// Dropped only by [`spare_state`], in `drop`.
    pub(crate) state: ManuallyDrop<Arc<ProcState>>,
    pub(crate) inner: Arc<Inner>,
    /// [`ProcessWriter::close`] ran: dropping need not lock to see it.
    pub(crate) closed: bool,
    /// This handle holds `state.buf` ([`ProcessWriter::hold`]).
    pub(crate) held: bool,
    /// Where the process stands with its thread's crowd.
    pub(crate) crowd: CrowdStage,
    pub(crate) _not_sync: PhantomData<Cell<()>>,
}

impl ProcessWriter {
    /// This process's dense index.
    pub fn id(&self) -> ProcId {
        self.state.id
    }

    /// The raw pid number it was registered with.
    pub fn pid(&self) -> u64 {
        self.state.pid
    }

    /// Holds the process's buffer until [`ProcessWriter::release`]: the
    /// slices taken in between take no lock. Hold it for a scheduling slice
    /// at most: the flusher cannot cut an old block while it is held.
    #[inline]
    pub fn hold(&mut self) {
        if !self.held {
            self.state.buf.hold();
            self.held = true;
        }
    }

    /// [`ProcessWriter::hold`]; and a process that has pushed nothing yet
    /// writes its events until [`ProcessWriter::release`] into its thread's
    /// crowd ([`super::crowd`]) rather than into a segment of its own: a
    /// short process's whole life then costs a row in a shared block.
    /// `in_slice` is asked then (once a process): whether the event comes
    /// in the process's own slice on this thread. One that does not (a
    /// delivery, on its sender's thread) would hold the sender's crowd
    /// until the process's slice ends.
    #[inline]
    pub fn hold_crowded(&mut self, in_slice: impl FnOnce() -> bool) {
        if self.held {
            return;
        }
        self.hold();
        if self.crowd == CrowdStage::Fresh {
            if in_slice() {
                self.join_crowd();
            } else {
                self.crowd = CrowdStage::Out;
            }
        }
    }

    /// Takes this thread's crowd for the process's first slice, unless
    /// someone holds it (then the process opens a segment of its own).
    #[cold]
    fn join_crowd(&mut self) {
        self.crowd = CrowdStage::Out;
        // SAFETY: held by the caller; no other reference to the buffer.
        let b = unsafe { self.state.buf.get() };
        if b.events != 0 || b.opened_at.is_some() {
            return;
        }
        let k = my_shard();
        let cell = &self.inner.crowds[k];
        if !cell.crowd.try_hold() {
            return;
        }
        // SAFETY: just taken; no other reference to it.
        let c = unsafe { cell.crowd.get() };
        // A shard's index fits a byte (`open::SHARDS`).
        let k = k as u8;
        lend_crowd(c, k, b, &self.state, &self.inner);
        self.crowd = CrowdStage::In(k);
    }

    /// Ends the process's row in the crowd it writes into, and lets the
    /// crowd go, cutting it first if it is full or the flusher found it due.
    fn leave_crowd(&mut self, k: u8) {
        self.crowd = CrowdStage::Out;
        let inner = &*self.inner;
        let cell = &inner.crowds[k as usize];
        // SAFETY: the process's buffer is held by this handle, and so is
        // the crowd it borrowed from (since `join_crowd`); no other
        // reference to either.
        let (c, b) = unsafe { (cell.crowd.get(), self.state.buf.get()) };
        return_crowd(c, b, &self.state);
        if c.full(inner.opts.block_size)
            || (crowd::take_hint(cell) && (c.due(inner) || inner.over_budget()))
        {
            c.cut(inner, Wake::Now);
        }
        // SAFETY: held by this handle, and `c` is not used past here.
        unsafe { cell.crowd.release() }
    }

    /// Lets the buffer go after [`ProcessWriter::hold`] (nothing if not
    /// held), first cutting the open block if the flusher found it due
    /// while it was held, and ending the process's row in a crowd.
    #[inline]
    pub fn release(&mut self) {
        if self.held {
            // A path of its own: sharing the common one cost it registers.
            if let CrowdStage::In(k) = self.crowd {
                return self.release_from_crowd(k);
            }
            self.release_held();
        }
    }

    #[cold]
    fn release_from_crowd(&mut self, k: u8) {
        self.leave_crowd(k);
        self.release_held();
    }

    #[inline]
    fn release_held(&mut self) {
        self.slice().take_hint();
        self.held = false;
        // SAFETY: held by this handle, and no slice borrows it now.
        unsafe { self.state.buf.release() }
    }

    /// A scheduling slice: events are pushed through the returned [`Slice`].
    /// Without [`ProcessWriter::hold`], it holds the buffer until it drops
    /// (one uncontended atomic exchange each way).
    #[inline]
    pub fn slice(&mut self) -> Slice<'_> {
        let own = !self.held;
        if own {
            self.state.buf.hold();
        }
        Slice {
            // SAFETY: held (by this handle or for this slice), and the slice
            // borrows the handle mutably: no other reference to the buffer.
            buf: unsafe { self.state.buf.get() },
            state: &self.state,
            inner: &self.inner,
            own,
        }
    }

    /// Pushes one event in a slice of its own (convenient, not the fast path).
    pub fn push(&mut self, e: &Event) {
        self.slice().push(e);
    }

    /// The process exited: writes out its last block. Returns how many events
    /// the process pushed in all.
    pub fn close(mut self) -> u64 {
        self.close_inner()
    }

    fn close_inner(&mut self) -> u64 {
        self.closed = true;
        self.hold();
        if let CrowdStage::In(k) = self.crowd {
            self.leave_crowd(k);
        }
        // SAFETY: held just above.
        let b = unsafe { self.state.buf.get() };
        if !b.closed {
            b.closed = true;
            cut(b, &self.state, &self.inner);
        }
        let events = b.events;
        self.held = false;
        // SAFETY: held, and `b` is not used past here.
        unsafe { self.state.buf.release() };
        events
    }
}

impl Drop for ProcessWriter {
    fn drop(&mut self) {
        if !self.closed {
            self.close_inner();
        }
        // SAFETY: `state` is not used past here, and taken only here.
        spare_state(unsafe { ManuallyDrop::take(&mut self.state) });
    }
}

/// One scheduling slice of a process: the only way to push events.
pub struct Slice<'a> {
    buf: &'a mut ProcBuf,
    state: &'a Arc<ProcState>,
    inner: &'a Arc<Inner>,
    /// Holds the buffer for itself (its handle did not): lets it go on drop.
    own: bool,
}

impl Slice<'_> {
    #[cold]
    fn open(&mut self) {
        let b = &mut *self.buf;
        b.enc = Some(new_encoder(self.state.id, self.state.pid));
        b.block_first_event = b.events;
        b.block_first_signal = b.signals;
        b.block_events = 0;
        b.opened_at = Some(Instant::now());
        // Doubling would reach twice the block size at worst: no more memory.
        let want = if b.busy {
            self.inner.opts.block_size + 64
        } else {
            256
        };
        b.bytes.reserve(want);
        b.published = OPEN_COST;
        b.threshold = PUBLISH_STEP.min(self.inner.opts.block_size);
        self.inner.reserve(OPEN_COST);
        if !b.listed {
            b.listed = true;
            self.inner.list_open(self.state.clone());
        }
    }

    /// Brings a dormant segment back: its encoder rebuilt, its memory
    /// counted as an open block's again.
    #[cold]
    fn wake(&mut self) {
        let timestamps = self.inner.opts.timestamps;
        let b = &mut *self.buf;
        let enc = revive(&b.bytes, b.block_first_signal, self.state, timestamps);
        b.enc = Some(enc);
        let want = OPEN_COST + b.bytes.len();
        if want > b.published {
            self.inner.reserve(want - b.published);
        } else {
            self.inner.release(b.published - want);
        }
        b.published = want;
        // The next event reports the buffer's growth (or cuts it).
        b.threshold = 0;
    }

    /// The encoder of the open block (opening one if needed) and the buffer.
    #[inline(always)]
    fn enc(&mut self) -> (&mut BlockEncoder, &mut Vec<u8>) {
        if self.buf.enc.is_none() {
            if self.buf.opened_at.is_some() {
                self.wake();
            } else {
                self.open();
            }
        }
        let b = &mut *self.buf;
        (b.enc.as_deref_mut().expect("opened above"), &mut b.bytes)
    }

    /// Bookkeeping after every event: count it, stamp it, and cut or report
    /// memory when the buffer crossed its threshold.
    #[inline(always)]
    fn done(&mut self) {
        let timestamps = self.inner.opts.timestamps;
        let b = &mut *self.buf;
        b.events += 1;
        b.block_events += 1;
        if timestamps {
            let t = self.inner.start.elapsed().as_nanos() as u64;
            let enc = b.enc.as_deref_mut().expect("block open");
            enc.time(&mut b.bytes, t);
        }
        if b.bytes.len() >= b.threshold {
            self.grow();
        }
    }

    #[cold]
    fn grow(&mut self) {
        let block_size = self.inner.opts.block_size;
        let b = &mut *self.buf;
        if let Some(k) = b.crowd {
            self.crowd_full(k);
            return;
        }
        if b.bytes.len() >= block_size {
            cut(b, self.state, self.inner);
            b.busy = true;
            return;
        }
        // Report memory ahead of use, one step at a time.
        let want = b.bytes.len() + PUBLISH_STEP + OPEN_COST;
        let add = want.saturating_sub(b.published);
        b.published += add;
        b.threshold = (b.bytes.len() + PUBLISH_STEP).min(block_size);
        self.inner.reserve(add);
    }

    #[inline]
    fn next_signal(&mut self) -> MsgId {
        let b = &mut *self.buf;
        let m = MsgId {
            sender: self.state.id,
            index: b.signals,
        };
        b.signals += 1;
        m
    }

    /// The crowd filled up in the process's first slice: its row so far
    /// goes with the crowd's block, and its next events start a new row.
    #[cold]
    fn crowd_full(&mut self, k: u8) {
        let inner = &**self.inner;
        // SAFETY: the crowd was lent to this process's buffer, which this
        // slice holds: the crowd is held by its handle (`join_crowd`).
        let c = unsafe { inner.crowds[k as usize].crowd.get() };
        return_crowd(c, self.buf, self.state);
        c.cut(inner, Wake::Now);
        lend_crowd(c, k, self.buf, self.state, inner);
    }

    /// Pushes any event.
    pub fn push(&mut self, e: &Event) {
        let own = MsgId {
            sender: self.state.id,
            index: self.buf.signals,
        };
        self.push_ref(&EventRef::of(e, own));
    }

    /// Pushes any event, borrowed. A `Send` or `Signal` takes this process's
    /// next signal index, whatever identity `e` carries.
    pub fn push_ref(&mut self, e: &EventRef<'_>) {
        match *e {
            EventRef::Spawn {
                child,
                pid,
                link,
                monitor,
            } => self.push_spawn(child, pid, link, monitor),
            EventRef::Send { to, payload, .. } => {
                self.push_send(to, payload);
            }
            EventRef::Deliver { msg } => self.push_deliver(msg),
            EventRef::Receive { msg } => self.push_receive(msg),
            EventRef::Timeout => self.push_timeout(),
            EventRef::Signal { to, kind, .. } => {
                self.push_signal_ref(to, kind);
            }
            EventRef::SignalTaken { signal, effect } => self.push_signal_taken(signal, effect),
            EventRef::Nondet { kind, value } => self.push_nondet(kind, value),
            EventRef::Output { seq, bytes } => self.push_output(seq, bytes),
            EventRef::Exit { reason } => self.push_exit(reason),
            EventRef::Shared {
                object,
                access,
                function,
                seq,
                key,
                name,
            } => self.push_shared(SharedOp {
                object,
                access,
                function,
                seq,
                key: self.inner.fit(key),
                name: self.inner.fit(name),
            }),
            EventRef::Blocked { stuck } => self.push_blocked(stuck),
        }
    }

    /// Pushes an operation on shared state. A key or name larger than
    /// [`crate::container::MAX_TERM`] is left out.
    pub fn push_shared(&mut self, op: SharedOp<'_>) {
        let (enc, out) = self.enc();
        enc.shared(out, op);
        self.done();
    }

    /// Pushes the end of the run finding this process waiting in `receive`.
    pub fn push_blocked(&mut self, stuck: bool) {
        let (enc, out) = self.enc();
        enc.blocked(out, stuck);
        self.done();
    }

    /// Pushes a send; returns the message's identity. A payload larger than
    /// [`crate::container::MAX_TERM`] is left out (and counted in the summary).
    #[inline]
    pub fn push_send(&mut self, to: Dest, payload: Option<&[u8]>) -> MsgId {
        let payload = self.inner.fit(payload);
        let (enc, out) = self.enc();
        enc.send(out, to, payload);
        let m = self.next_signal();
        self.done();
        m
    }

    /// Pushes a send whose payload `write` appends (see
    /// [`BlockEncoder::send_with`]); returns the message's identity.
    #[inline]
    pub fn push_send_with(&mut self, to: Dest, write: impl FnOnce(&mut Vec<u8>)) -> MsgId {
        let (enc, out) = self.enc();
        if !enc.send_with(out, to, container::MAX_TERM, write) {
            self.inner.count_oversized();
        }
        let m = self.next_signal();
        self.done();
        m
    }

    /// Pushes a non-message signal; returns its identity.
    pub fn push_signal(&mut self, to: Dest, kind: &SignalKind) -> MsgId {
        self.push_signal_ref(to, SignalKindRef::of(kind))
    }

    /// [`Slice::push_signal`], its reason borrowed.
    pub fn push_signal_ref(&mut self, to: Dest, kind: SignalKindRef<'_>) -> MsgId {
        let kind = match kind {
            SignalKindRef::Exit { reason, linked } => SignalKindRef::Exit {
                reason: self.inner.fit(reason),
                linked,
            },
            SignalKindRef::Down { reason } => SignalKindRef::Down {
                reason: self.inner.fit(reason),
            },
            k => k,
        };
        let (enc, out) = self.enc();
        enc.signal(out, to, kind);
        let m = self.next_signal();
        self.done();
        m
    }

    #[inline]
    pub fn push_receive(&mut self, msg: MsgId) {
        let (enc, out) = self.enc();
        enc.receive(out, msg);
        self.done();
    }

    #[inline]
    pub fn push_deliver(&mut self, msg: MsgId) {
        let (enc, out) = self.enc();
        enc.deliver(out, msg);
        self.done();
    }

    pub fn push_timeout(&mut self) {
        let (enc, out) = self.enc();
        enc.timeout(out);
        self.done();
    }

    pub fn push_spawn(&mut self, child: ProcId, pid: u64, link: bool, monitor: bool) {
        let (enc, out) = self.enc();
        enc.spawn(out, child, pid, link, monitor);
        self.done();
    }

    pub fn push_signal_taken(&mut self, signal: MsgId, effect: SignalEffect) {
        let (enc, out) = self.enc();
        enc.signal_taken(out, signal, effect);
        self.done();
    }

    /// A result larger than [`crate::container::MAX_TERM`] is recorded empty.
    pub fn push_nondet(&mut self, kind: NondetKind, value: &[u8]) {
        let value = self.inner.fit(Some(value)).unwrap_or_default();
        let (enc, out) = self.enc();
        enc.nondet(out, kind, value);
        self.done();
    }

    pub fn push_output(&mut self, seq: u64, bytes: Option<&[u8]>) {
        let bytes = self.inner.fit(bytes);
        let (enc, out) = self.enc();
        enc.output(out, seq, bytes);
        self.done();
    }

    /// Pushes an exit whose reason `write` appends (see
    /// [`BlockEncoder::exit_with`]): a process's last event goes straight
    /// into its block, like a message's payload.
    pub fn push_exit_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let (enc, out) = self.enc();
        if !enc.exit_with(out, container::MAX_TERM, write) {
            self.inner.count_oversized();
        }
        self.done();
    }

    pub fn push_exit(&mut self, reason: Option<&[u8]>) {
        let reason = self.inner.fit(reason);
        let (enc, out) = self.enc();
        enc.exit(out, reason);
        self.done();
    }

    /// How many events this process has pushed so far.
    pub fn events(&self) -> u64 {
        self.buf.events
    }
}

impl Slice<'_> {
    /// Cuts the open block if the flusher found it due while the process
    /// held it. One plain load when it did not.
    #[inline]
    fn take_hint(&mut self) {
        if self.state.flush_hint.load(Ordering::Relaxed) {
            self.cut_if_due();
        }
    }

    #[cold]
    fn cut_if_due(&mut self) {
        self.state.flush_hint.store(false, Ordering::Relaxed);
        let due = match self.buf.opened_at {
            Some(t) => t.elapsed() >= self.inner.opts.flush_interval || self.inner.over_budget(),
            None => false,
        };
        if due {
            cut(self.buf, self.state, self.inner);
        }
    }
}

impl Drop for Slice<'_> {
    fn drop(&mut self) {
        if self.own {
            self.take_hint();
            // SAFETY: held for this slice, whose borrow of the buffer ends here.
            unsafe { self.state.buf.release() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LogWriter, WriterOptions};
    use super::CrowdStage;
    use crate::meta::Header;

    /// A first event in the process's slice takes the thread's crowd; one
    /// outside it (a delivery) does not, and leaves the crowd free.
    #[test]
    fn only_a_first_event_in_the_slice_takes_the_crowd() {
        let dir = std::env::temp_dir().join(format!("trace-crowd-{}", std::process::id()));
        let w = LogWriter::create(&dir, Header::default(), WriterOptions::default()).unwrap();
        let mut delivered = w.register(80, None);
        delivered.hold_crowded(|| false);
        delivered.slice().push_timeout();
        assert_eq!(delivered.crowd, CrowdStage::Out);
        let mut running = w.register(81, None);
        running.hold_crowded(|| true);
        running.slice().push_timeout();
        assert!(matches!(running.crowd, CrowdStage::In(_)));
        running.release();
        assert_eq!(running.crowd, CrowdStage::Out);
        running.hold_crowded(|| true);
        assert_eq!(running.crowd, CrowdStage::Out, "a second slice");
        running.release();
        delivered.release();
        drop((delivered, running));
        let summary = w.finish(Default::default()).unwrap();
        assert_eq!(summary.events, 2);
        let _ = std::fs::remove_file(&dir);
    }
}
