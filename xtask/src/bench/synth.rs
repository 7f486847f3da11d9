//! Synthetic runs for benchmarks: a seeded, causally consistent execution of
//! many processes, handed out as [`Step`]s (one event of one process) in one
//! global order that respects happened-before.
//!
//! The mix imitates an OTP application rather than a micro-benchmark:
//! supervisors spawn servers and workers (some linked, some monitored, to
//! replace them when they end); workers call their server (request, then a
//! selective receive of the reply, or a timeout when it does not come), cast
//! to a few peers and forward what they receive; servers reply to whoever
//! called. Now and then a process asks a nondeterministic built-in, writes
//! output, links to or monitors a peer. Processes end after a random number
//! of events, mostly normally, sometimes crashing; their links and monitors
//! then send exit and 'DOWN' signals that are taken (converted to messages
//! by supervisors, which trap exits; ignored or fatal for workers).
//!
//! What holds in every generated run (checked in the tests below):
//! - every receive names a message sent earlier to that process, and each
//!   message is received at most once;
//! - messages from one sender to one receiver are received in the order sent;
//! - a spawned process has no event before its parent's spawn, and a process
//!   has no event after its exit;
//! - every signal taken was sent earlier to that process, in per-pair order.
//!
//! ```text
//! Spec ──► Generator (iterator of Step) ──► Vec<Step> ──► write_log ──► run.trace
//!                                             └─ Payloads::event ──► EventRef (the log's view)
//! ```
//!
//! The random choices do not depend on `Spec::payloads`: two specs that differ
//! only there generate the same events, with and without payloads.

// A library for benchmark groups; not every group uses every item.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::Path;
use trace_format::{
    Dest, EventRef, Header, LogWriter, MsgId, NondetKind, Outcome, ProcId, ProcessWriter,
    SignalEffect, SignalKindRef, Summary, WriterOptions,
};
use trace_term::Term;

/// What to generate.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Events in all: the run is cut after exactly this many.
    pub events: u64,
    /// About this many processes are spawned over the run (the entry included):
    /// it sets how long a process lives.
    pub processes: u32,
    /// At most this many processes are alive at once.
    pub live: u32,
    /// Messages, exit reasons and output carry small payloads (ETF terms of
    /// about 3 to 40 bytes); otherwise only results of built-ins carry terms.
    pub payloads: bool,
    pub seed: u64,
}

impl Spec {
    /// `events` events over about one process per 2000 events, 1000 alive at
    /// once, without payloads, seed 1.
    pub fn new(events: u64) -> Spec {
        Spec {
            events,
            processes: (events / 2000).clamp(2, u32::MAX as u64) as u32,
            live: 1000,
            payloads: false,
            seed: 1,
        }
    }

    pub fn with_payloads(mut self, payloads: bool) -> Spec {
        self.payloads = payloads;
        self
    }
}

/// A non-message signal of the synthetic run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SynthSignal {
    Link,
    Monitor,
    /// An exit signal sent because a linked process ended.
    Exit,
    /// The monitored process ended.
    Down,
}

/// One event in a compact form (payloads are indices into [`Payloads`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SynthEvent {
    Spawn {
        child: u32,
        link: bool,
        monitor: bool,
    },
    /// `index`: the sender's signal index (the message is `(process, index)`).
    Send {
        to: u32,
        index: u32,
        payload: u16,
    },
    Receive {
        sender: u32,
        index: u32,
    },
    Timeout,
    /// `reason`: the ended process's reason (exit and 'DOWN' signals).
    Signal {
        to: u32,
        index: u32,
        kind: SynthSignal,
        reason: u16,
    },
    SignalTaken {
        sender: u32,
        index: u32,
        effect: SignalEffect,
    },
    Nondet {
        kind: NondetKind,
        value: u16,
    },
    Output {
        seq: u32,
        payload: u16,
    },
    Exit {
        reason: u16,
    },
}

/// One event of one process. Steps come in a global order consistent with
/// happened-before; a process's steps in order are its process log.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub process: u32,
    pub ev: SynthEvent,
}

/// The raw pid number (`<0.N.0>`) of synthetic process `id`.
pub fn pid(id: u32) -> u64 {
    80 + id as u64
}

/// The ETF terms steps refer to. Message payloads are many distinct small
/// terms of a few common shapes, so compression sees realistic variety.
pub struct Payloads {
    with_payloads: bool,
    messages: Vec<Vec<u8>>,
    reasons: Vec<Vec<u8>>,
    values: Vec<Vec<u8>>,
}

const MESSAGE_TERMS: usize = 1 << 16;
/// Reason 0 is `normal`; the others are crash reasons.
const REASON_TERMS: usize = 64;
const VALUE_TERMS: usize = 1 << 12;

impl Payloads {
    pub fn new(spec: &Spec) -> Payloads {
        let mut rng = Rng::new(spec.seed ^ 0x5EED_F00D_u64);
        let etf = |t: Term| trace_term::etf::to_vec(&t);
        let keys = [
            "user", "order", "session", "cart", "stock", "price", "queue",
        ];
        let messages = (0..MESSAGE_TERMS)
            .map(|i| {
                let n = rng.below(100_000) as i64;
                let key = Term::atom(keys[i % keys.len()]);
                etf(match rng.below(7) {
                    0 => Term::atom(["ping", "pong", "tick", "stop"][i % 4]),
                    1 => Term::tuple(vec![Term::atom("req"), Term::int(n), key]),
                    2 => Term::tuple(vec![Term::atom("reply"), Term::atom("ok"), Term::int(n)]),
                    3 => Term::tuple(vec![
                        Term::atom("$gen_cast"),
                        Term::tuple(vec![Term::atom("update"), key, Term::int(n)]),
                    ]),
                    4 => {
                        let len = 4 + rng.below(20) as usize;
                        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                        Term::tuple(vec![Term::atom("data"), Term::binary(&bytes)])
                    }
                    5 => Term::tuple(vec![
                        Term::atom("get"),
                        key,
                        Term::list((0..rng.below(4)).map(|k| Term::int(k as i64)).collect()),
                    ]),
                    _ => Term::tuple(vec![Term::atom("ok"), Term::int(n)]),
                })
            })
            .collect();
        let mut reasons = vec![etf(Term::atom("normal"))];
        for i in 1..REASON_TERMS {
            reasons.push(etf(match i % 3 {
                0 => Term::atom("shutdown"),
                1 => Term::tuple(vec![Term::atom("badmatch"), Term::int(i as i64)]),
                _ => Term::tuple(vec![
                    Term::atom("badarith"),
                    Term::list(vec![Term::tuple(vec![
                        Term::atom("worker"),
                        Term::atom("handle"),
                        Term::int(2),
                    ])]),
                ]),
            }));
        }
        let values = (0..VALUE_TERMS)
            .map(|i| {
                etf(match i % 4 {
                    // monotonic_time(): large negative integers
                    0 => Term::int(-576_460_751_000_000_000 + rng.below(1 << 40) as i64),
                    1 => Term::int(rng.below(1 << 20) as i64),
                    2 => Term::int(1 + rng.below(100) as i64),
                    _ => Term::Pid(trace_term::Pid(pid(rng.below(1000) as u32))),
                })
            })
            .collect();
        Payloads {
            with_payloads: spec.payloads,
            messages,
            reasons,
            values,
        }
    }

    /// The message payloads as terms (for other formats' records).
    pub fn message_terms(&self) -> Vec<Term> {
        decode_all(&self.messages)
    }

    /// The exit reasons as terms; reason 0 is `normal`.
    pub fn reason_terms(&self) -> Vec<Term> {
        decode_all(&self.reasons)
    }

    fn optional<'a>(&self, pool: &'a [Vec<u8>], i: u16) -> Option<&'a [u8]> {
        self.with_payloads.then(|| &pool[i as usize][..])
    }

    /// The step as the log's reader would hand it out.
    pub fn event(&self, s: &Step) -> EventRef<'_> {
        let msg = |sender: u32, index: u32| MsgId {
            sender: ProcId(sender),
            index: index as u64,
        };
        match s.ev {
            SynthEvent::Spawn {
                child,
                link,
                monitor,
            } => EventRef::Spawn {
                child: ProcId(child),
                pid: pid(child),
                link,
                monitor,
            },
            SynthEvent::Send { to, index, payload } => EventRef::Send {
                msg: msg(s.process, index),
                to: Dest::Proc(ProcId(to)),
                payload: self.optional(&self.messages, payload),
            },
            SynthEvent::Receive { sender, index } => EventRef::Receive {
                msg: msg(sender, index),
            },
            SynthEvent::Timeout => EventRef::Timeout,
            SynthEvent::Signal {
                to,
                index,
                kind,
                reason,
            } => EventRef::Signal {
                signal: msg(s.process, index),
                to: Dest::Proc(ProcId(to)),
                kind: match kind {
                    SynthSignal::Link => SignalKindRef::Link,
                    SynthSignal::Monitor => SignalKindRef::Monitor,
                    SynthSignal::Exit => SignalKindRef::Exit {
                        reason: self.optional(&self.reasons, reason),
                        linked: true,
                    },
                    SynthSignal::Down => SignalKindRef::Down {
                        reason: self.optional(&self.reasons, reason),
                    },
                },
            },
            SynthEvent::SignalTaken {
                sender,
                index,
                effect,
            } => EventRef::SignalTaken {
                signal: msg(sender, index),
                effect,
            },
            SynthEvent::Nondet { kind, value } => EventRef::Nondet {
                kind,
                value: &self.values[value as usize],
            },
            SynthEvent::Output { seq, payload } => EventRef::Output {
                seq: seq as u64,
                bytes: self.optional(&self.messages, payload),
            },
            SynthEvent::Exit { reason } => EventRef::Exit {
                reason: self.optional(&self.reasons, reason),
            },
        }
    }
}

fn decode_all(pool: &[Vec<u8>]) -> Vec<Term> {
    pool.iter()
        .map(|b| trace_term::etf::decode(b).expect("encoded above"))
        .collect()
}

/// wyrand: small, fast, and good enough to pick among actions.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) ^ t) as u64
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability `n` per thousand.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Role {
    /// Spawns and replaces children; traps exits.
    Supervisor,
    /// Replies to requests.
    Server,
    /// Calls its server, casts to peers, forwards.
    Worker,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Request,
    Reply,
    Cast,
    /// An exit or 'DOWN' signal turned into a message.
    Notice,
}

#[derive(Copy, Clone)]
struct Msg {
    sender: u32,
    index: u32,
    kind: Kind,
}

#[derive(Copy, Clone)]
struct PendingSignal {
    sender: u32,
    index: u32,
    kind: SynthSignal,
    reason: u16,
}

struct Proc {
    alive: bool,
    queued: bool,
    role: Role,
    /// Position in `Generator::live`.
    live_at: u32,
    server: u32,
    peers: [u32; 3],
    /// The next signal index.
    sent: u32,
    /// Events left before it ends (`u32::MAX`: never).
    life: u32,
    /// Waiting for a reply from this server.
    awaiting: Option<u32>,
    mailbox: VecDeque<Msg>,
    signals: VecDeque<PendingSignal>,
    /// Who hears of its end: linked processes and monitors.
    watchers: Vec<(u32, bool)>, // (process, linked)
}

/// The synthetic run, as an iterator of steps.
pub struct Generator {
    spec: Spec,
    rng: Rng,
    procs: Vec<Proc>,
    live: Vec<u32>,
    runq: VecDeque<u32>,
    out: VecDeque<Step>,
    emitted: u64,
    output_seq: u32,
    mean_life: u64,
}

/// Longest scan of a mailbox for a selective receive.
const SCAN: usize = 64;

impl Generator {
    pub fn new(spec: &Spec) -> Generator {
        let mut g = Generator {
            rng: Rng::new(spec.seed),
            procs: Vec::new(),
            live: Vec::new(),
            runq: VecDeque::new(),
            out: VecDeque::new(),
            emitted: 0,
            output_seq: 0,
            mean_life: (spec.events / spec.processes.max(1) as u64).max(16),
            spec: spec.clone(),
        };
        g.add_process(Role::Supervisor, 0, u32::MAX);
        g
    }

    fn add_process(&mut self, role: Role, parent: u32, life: u32) -> u32 {
        let id = self.procs.len() as u32;
        let pick = |g: &mut Generator| {
            if g.live.is_empty() {
                parent
            } else {
                g.live[g.rng.below(g.live.len() as u64) as usize]
            }
        };
        let server = pick(self);
        let peers = [parent, pick(self), pick(self)];
        self.procs.push(Proc {
            alive: true,
            queued: false,
            role,
            live_at: self.live.len() as u32,
            server,
            peers,
            sent: 0,
            life,
            awaiting: None,
            mailbox: VecDeque::new(),
            signals: VecDeque::new(),
            watchers: Vec::new(),
        });
        self.live.push(id);
        id
    }

    fn emit(&mut self, process: u32, ev: SynthEvent) {
        let p = &mut self.procs[process as usize];
        p.life = p.life.saturating_sub((p.life != u32::MAX) as u32);
        self.out.push_back(Step { process, ev });
    }

    fn wake(&mut self, p: u32) {
        let q = &mut self.procs[p as usize];
        if q.alive && !q.queued {
            q.queued = true;
            self.runq.push_back(p);
        }
    }

    fn next_index(&mut self, p: u32) -> u32 {
        let q = &mut self.procs[p as usize];
        let i = q.sent;
        q.sent += 1;
        i
    }

    fn send(&mut self, from: u32, to: u32, kind: Kind) {
        let index = self.next_index(from);
        let payload = self.rng.below(MESSAGE_TERMS as u64) as u16;
        self.emit(from, SynthEvent::Send { to, index, payload });
        let q = &mut self.procs[to as usize];
        if q.alive {
            q.mailbox.push_back(Msg {
                sender: from,
                index,
                kind,
            });
            self.wake(to);
        }
    }

    fn signal(&mut self, from: u32, to: u32, kind: SynthSignal, reason: u16) {
        let index = self.next_index(from);
        self.emit(
            from,
            SynthEvent::Signal {
                to,
                index,
                kind,
                reason,
            },
        );
        let q = &mut self.procs[to as usize];
        if q.alive {
            q.signals.push_back(PendingSignal {
                sender: from,
                index,
                kind,
                reason,
            });
            self.wake(to);
        }
    }

    /// `q`, or when it is dead mostly a live process instead (a name lookup
    /// that finds the replacement).
    fn alive_or_other(&mut self, q: u32) -> u32 {
        if self.procs[q as usize].alive || self.rng.chance(100) {
            q // a tenth of sends to dead processes still happen: dead letters
        } else {
            self.live[self.rng.below(self.live.len() as u64) as usize]
        }
    }

    fn peer(&mut self, p: u32) -> u32 {
        let i = self.rng.below(3) as usize;
        let q = self.procs[p as usize].peers[i];
        let q = if self.rng.chance(20) {
            // acquaintances change: someone new (e.g. a name looked up)
            self.live[self.rng.below(self.live.len() as u64) as usize]
        } else {
            self.alive_or_other(q)
        };
        self.procs[p as usize].peers[i] = q;
        q
    }

    fn call(&mut self, p: u32) {
        let s = self.procs[p as usize].server;
        let s = self.alive_or_other(s);
        self.procs[p as usize].server = s;
        if s == p {
            return self.cast(p);
        }
        self.send(p, s, Kind::Request);
        self.procs[p as usize].awaiting = Some(s);
    }

    fn cast(&mut self, p: u32) {
        let q = self.peer(p);
        self.send(p, q, Kind::Cast);
    }

    fn spawn(&mut self, parent: u32) {
        let role = match self.rng.below(100) {
            0..=9 => Role::Supervisor,
            10..=24 => Role::Server,
            _ => Role::Worker,
        };
        let supervised = self.procs[parent as usize].role == Role::Supervisor;
        let link = self.rng.chance(if supervised { 800 } else { 100 });
        let monitor = !link && self.rng.chance(150);
        let life = 1 + self.rng.below(2 * self.mean_life) as u32;
        let child = self.add_process(role, parent, life);
        self.emit(
            parent,
            SynthEvent::Spawn {
                child,
                link,
                monitor,
            },
        );
        if link {
            self.procs[parent as usize].watchers.push((child, true));
        }
        if link || monitor {
            self.procs[child as usize].watchers.push((parent, link));
        }
        // Its start-up message (init arguments, a first job).
        if self.rng.chance(500) {
            self.send(parent, child, Kind::Cast);
        }
    }

    fn can_spawn(&self) -> bool {
        (self.live.len() as u32) < self.spec.live
    }

    fn nondet(&mut self, p: u32) {
        let kind = match self.rng.below(10) {
            0..=3 => NondetKind::MonotonicTime,
            4..=5 => NondetKind::UniqueInteger,
            6..=7 => NondetKind::Random,
            _ => NondetKind::Whereis,
        };
        let value = (self.rng.below(VALUE_TERMS as u64 / 4) * 4) as u16
            + match kind {
                NondetKind::MonotonicTime => 0,
                NondetKind::UniqueInteger => 1,
                NondetKind::Random => 2,
                _ => 3,
            };
        self.emit(p, SynthEvent::Nondet { kind, value });
    }

    /// The rarer things a process does on its own.
    fn rare(&mut self, p: u32) {
        match self.rng.below(100) {
            0..=59 => self.nondet(p),
            60..=79 => {
                let seq = self.output_seq;
                self.output_seq += 1;
                let payload = self.rng.below(MESSAGE_TERMS as u64) as u16;
                self.emit(p, SynthEvent::Output { seq, payload });
            }
            80..=89 => {
                // link to a peer (both ends hear of the other's end)
                let q = self.peer(p);
                if q != p && self.procs[q as usize].alive {
                    self.signal(p, q, SynthSignal::Link, 0);
                } else {
                    self.nondet(p);
                }
            }
            _ => {
                let s = self.procs[p as usize].server;
                if s != p && self.procs[s as usize].alive {
                    self.signal(p, s, SynthSignal::Monitor, 0);
                } else {
                    self.nondet(p);
                }
            }
        }
    }

    /// What a process does when it runs with nothing to receive.
    fn initiate(&mut self, p: u32) {
        if self.procs[p as usize].awaiting.is_some() {
            // A call whose reply did not come in time: the `after` branch.
            self.procs[p as usize].awaiting = None;
            self.emit(p, SynthEvent::Timeout);
            return;
        }
        if self.rng.chance(30) {
            // An idle `receive ... after` fired first.
            self.emit(p, SynthEvent::Timeout);
        }
        let role = self.procs[p as usize].role;
        if role == Role::Supervisor && self.can_spawn() {
            // A supervisor starts (or restarts) its children together; while
            // the application is far from its size, a pool of them.
            let batch = if (self.live.len() as u32) < self.spec.live / 2 {
                64
            } else {
                1 + self.rng.below(8)
            };
            for _ in 0..batch {
                if self.can_spawn() {
                    self.spawn(p);
                }
            }
            return;
        }
        if self.can_spawn() && self.rng.chance(20) {
            return self.spawn(p);
        }
        match self.rng.below(100) {
            0..=44 if role == Role::Worker => self.call(p),
            0..=79 => self.cast(p),
            80..=91 => {
                // a broadcast to every peer
                for _ in 0..3 {
                    self.cast(p);
                }
            }
            _ => self.rare(p),
        }
    }

    /// What a process does with a message it received.
    fn react(&mut self, p: u32, m: Msg) {
        let role = self.procs[p as usize].role;
        match m.kind {
            Kind::Request => {
                if self.rng.chance(50) {
                    self.nondet(p);
                }
                self.send(p, m.sender, Kind::Reply);
            }
            Kind::Reply => match self.rng.below(10) {
                0..=2 => self.call(p),
                3..=4 => self.cast(p),
                _ => {}
            },
            Kind::Cast => match self.rng.below(10) {
                0..=3 => self.cast(p),
                4 if role == Role::Worker => self.call(p),
                5 if self.rng.chance(100) => self.rare(p),
                _ => {}
            },
            Kind::Notice => {
                if role == Role::Supervisor && self.can_spawn() {
                    self.spawn(p);
                }
            }
        }
    }

    /// The message a `receive` takes now: a selective receive of the awaited
    /// reply, or the oldest message (sometimes the oldest of another sender).
    fn pick_message(&mut self, p: u32) -> Option<Msg> {
        let select = self.rng.chance(100);
        let q = &mut self.procs[p as usize];
        let at = match q.awaiting {
            Some(s) => {
                // `receive {S, Msg} -> ...`: the oldest message from the server
                // (per-pair order holds for consumption too); the call ends
                // when it is the reply.
                let at = q.mailbox.iter().take(SCAN).position(|m| m.sender == s)?;
                if q.mailbox[at].kind == Kind::Reply {
                    q.awaiting = None;
                }
                at
            }
            None if q.mailbox.is_empty() => return None,
            None if select => {
                // the oldest message of a sender other than the first one's
                let first = q.mailbox[0].sender;
                q.mailbox
                    .iter()
                    .take(SCAN)
                    .position(|m| m.sender != first)
                    .unwrap_or(0)
            }
            None => 0,
        };
        q.mailbox.remove(at)
    }

    fn take_signal(&mut self, p: u32, s: PendingSignal) {
        let trap = self.procs[p as usize].role == Role::Supervisor;
        let effect = match s.kind {
            SynthSignal::Link => {
                let w = &mut self.procs[p as usize].watchers;
                if !w.contains(&(s.sender, true)) {
                    w.push((s.sender, true));
                }
                let w = &mut self.procs[s.sender as usize].watchers;
                if !w.contains(&(p, true)) {
                    w.push((p, true));
                }
                SignalEffect::Applied
            }
            SynthSignal::Monitor => {
                self.procs[p as usize].watchers.push((s.sender, false));
                SignalEffect::Applied
            }
            // 'DOWN' always becomes a message; an exit signal does when trapped.
            SynthSignal::Down => SignalEffect::Converted,
            SynthSignal::Exit if trap => SignalEffect::Converted,
            SynthSignal::Exit if s.reason == 0 => SignalEffect::Ignored,
            SynthSignal::Exit => SignalEffect::Killed,
        };
        self.emit(
            p,
            SynthEvent::SignalTaken {
                sender: s.sender,
                index: s.index,
                effect,
            },
        );
        match effect {
            SignalEffect::Converted => self.procs[p as usize].mailbox.push_back(Msg {
                sender: s.sender,
                index: s.index,
                kind: Kind::Notice,
            }),
            SignalEffect::Killed => self.exit(p, s.reason),
            _ => {}
        }
    }

    fn exit(&mut self, p: u32, reason: u16) {
        let watchers = std::mem::take(&mut self.procs[p as usize].watchers);
        for (w, linked) in watchers {
            if self.procs[w as usize].alive && w != p {
                let kind = if linked {
                    SynthSignal::Exit
                } else {
                    SynthSignal::Down
                };
                self.signal(p, w, kind, reason);
            }
        }
        self.emit(p, SynthEvent::Exit { reason });
        let q = &mut self.procs[p as usize];
        q.alive = false;
        q.mailbox = VecDeque::new();
        q.signals = VecDeque::new();
        let at = q.live_at as usize;
        self.live.swap_remove(at);
        if let Some(&moved) = self.live.get(at) {
            self.procs[moved as usize].live_at = at as u32;
        }
    }

    /// Runs one scheduling slice of some process, appending its steps to `out`.
    fn slice(&mut self) {
        let (p, mut initiative) = match self.runq.front() {
            Some(_) if !self.rng.chance(125) => {
                let p = self.runq.pop_front().expect("non-empty");
                self.procs[p as usize].queued = false;
                (p, false)
            }
            _ => (
                self.live[self.rng.below(self.live.len() as u64) as usize],
                true,
            ),
        };
        if !self.procs[p as usize].alive {
            return;
        }
        let actions = 1 + self.rng.below(4);
        for _ in 0..actions {
            while let Some(s) = self.procs[p as usize].signals.pop_front() {
                self.take_signal(p, s);
                if !self.procs[p as usize].alive {
                    return;
                }
            }
            if let Some(m) = self.pick_message(p) {
                self.emit(
                    p,
                    SynthEvent::Receive {
                        sender: m.sender,
                        index: m.index,
                    },
                );
                self.react(p, m);
            } else if initiative {
                initiative = false;
                self.initiate(p);
            } else {
                break;
            }
            if self.procs[p as usize].life == 0 {
                let reason = if self.rng.chance(30) {
                    1 + self.rng.below(REASON_TERMS as u64 - 1) as u16
                } else {
                    0
                };
                return self.exit(p, reason);
            }
        }
        let q = &self.procs[p as usize];
        // Still something to do (unless it waits for a reply that is not there yet).
        if !q.signals.is_empty() || (!q.mailbox.is_empty() && q.awaiting.is_none()) {
            self.wake(p);
        }
    }

    /// Processes created so far (dense indices `0..processes()`).
    pub fn processes(&self) -> u32 {
        self.procs.len() as u32
    }
}

impl Iterator for Generator {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        if self.emitted >= self.spec.events {
            return None;
        }
        while self.out.is_empty() {
            self.slice();
        }
        self.emitted += 1;
        self.out.pop_front()
    }
}

/// The whole run, collected (16 bytes per step).
pub fn steps(spec: &Spec) -> Vec<Step> {
    let mut v = Vec::with_capacity(spec.events as usize);
    v.extend(Generator::new(spec));
    v
}

/// The header of a synthetic log.
pub fn header(spec: &Spec) -> Header {
    Header {
        recorder: "xtask synth".into(),
        engine: "none (synthetic)".into(),
        entry: "synth:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: pid(0),
        options: trace_format::RecordingOptions {
            payloads: spec.payloads,
            other: vec![("synth.seed".into(), spec.seed.to_string())],
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Writes `steps` as a log, feeding the writer the way the recorder does:
/// one slice per run of consecutive steps of a process, the child registered
/// when it is spawned, and a process's writer closed at its exit.
pub fn write_log(
    path: &Path,
    spec: &Spec,
    payloads: &Payloads,
    steps: &[Step],
    opts: WriterOptions,
) -> std::io::Result<Summary> {
    let w = LogWriter::create(path, header(spec), opts)?;
    let mut handles: Vec<Option<ProcessWriter>> = vec![Some(w.register(pid(0), None))];
    for run in steps.chunk_by(|a, b| a.process == b.process) {
        let p = run[0].process as usize;
        let Some(h) = handles.get_mut(p).and_then(Option::as_mut) else {
            return Err(std::io::Error::other(format!(
                "step of process {p}, which is not alive"
            )));
        };
        let mut exited = false;
        let mut children = Vec::new();
        {
            let mut s = h.slice();
            for st in run {
                match payloads.event(st) {
                    EventRef::Spawn {
                        child,
                        pid,
                        link,
                        monitor,
                    } => {
                        // Registered before the spawn is pushed: its index is the next one.
                        let c = w.register(pid, Some(ProcId(p as u32)));
                        debug_assert_eq!(c.id(), child);
                        children.push(c);
                        s.push_spawn(child, pid, link, monitor);
                    }
                    EventRef::Send { to, payload, .. } => {
                        s.push_send(to, payload);
                    }
                    EventRef::Receive { msg } => s.push_receive(msg),
                    EventRef::Deliver { msg } => s.push_deliver(msg),
                    EventRef::Timeout => s.push_timeout(),
                    EventRef::Signal { to, kind, .. } => {
                        s.push_signal(to, &kind.to_owned());
                    }
                    EventRef::SignalTaken { signal, effect } => s.push_signal_taken(signal, effect),
                    EventRef::Nondet { kind, value } => s.push_nondet(kind, value),
                    EventRef::Output { seq, bytes } => s.push_output(seq, bytes),
                    EventRef::Exit { reason } => {
                        s.push_exit(reason);
                        exited = true;
                    }
                    // The synthetic runs make neither.
                    e @ (EventRef::Shared { .. } | EventRef::Blocked { .. }) => s.push_ref(&e),
                }
            }
        }
        handles.extend(children.into_iter().map(Some));
        if exited {
            handles[p] = None;
        }
    }
    drop(handles);
    w.finish(Outcome::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use trace_format::{Event, LogReader};

    fn spec(events: u64) -> Spec {
        Spec {
            events,
            processes: 300,
            live: 60,
            payloads: true,
            seed: 7,
        }
    }

    #[test]
    fn steps_are_compact() {
        assert_eq!(std::mem::size_of::<Step>(), 16);
    }

    /// The properties the module doc promises, checked on a whole run.
    #[test]
    fn runs_are_causally_consistent() {
        let steps = steps(&spec(200_000));
        assert_eq!(steps.len(), 200_000);
        let n = steps.iter().map(|s| s.process).max().unwrap() as usize + 1;
        let mut started = vec![false; n];
        started[0] = true;
        let mut ended = vec![false; n];
        let mut sent_to: HashMap<(u32, u32), u32> = HashMap::new(); // (sender, index) -> receiver
        let mut signal_to: HashMap<(u32, u32), u32> = HashMap::new();
        let mut taken: HashMap<(u32, u32), ()> = HashMap::new();
        let mut converted: HashMap<(u32, u32), u32> = HashMap::new();
        let mut last_from: HashMap<(u32, u32), u32> = HashMap::new(); // (receiver, sender) -> index
        let mut next_index = vec![0u32; n];
        let mut kinds: HashMap<&str, u64> = HashMap::new();
        for (i, s) in steps.iter().enumerate() {
            let p = s.process;
            assert!(
                started[p as usize],
                "step {i}: process {p} acts before its spawn"
            );
            assert!(
                !ended[p as usize],
                "step {i}: process {p} acts after its exit"
            );
            let name = match s.ev {
                SynthEvent::Spawn { child, .. } => {
                    assert!(!started[child as usize]);
                    started[child as usize] = true;
                    "spawn"
                }
                SynthEvent::Send { to, index, .. } => {
                    assert_eq!(index, next_index[p as usize]);
                    next_index[p as usize] += 1;
                    sent_to.insert((p, index), to);
                    "send"
                }
                SynthEvent::Signal { to, index, .. } => {
                    assert_eq!(index, next_index[p as usize]);
                    next_index[p as usize] += 1;
                    signal_to.insert((p, index), to);
                    "signal"
                }
                SynthEvent::Receive { sender, index } => {
                    let to = sent_to
                        .remove(&(sender, index))
                        .or_else(|| converted.remove(&(sender, index)));
                    assert_eq!(to, Some(p), "step {i}: receive of {sender}:{index}");
                    if let Some(&prev) = last_from.get(&(p, sender)) {
                        assert!(index > prev, "step {i}: out of per-pair order");
                    }
                    last_from.insert((p, sender), index);
                    "receive"
                }
                SynthEvent::SignalTaken {
                    sender,
                    index,
                    effect,
                } => {
                    assert_eq!(signal_to.remove(&(sender, index)), Some(p), "step {i}");
                    assert!(taken.insert((sender, index), ()).is_none());
                    if effect == SignalEffect::Converted {
                        converted.insert((sender, index), p);
                    }
                    "signal_taken"
                }
                SynthEvent::Exit { .. } => {
                    ended[p as usize] = true;
                    "exit"
                }
                SynthEvent::Timeout => "timeout",
                SynthEvent::Nondet { .. } => "nondet",
                SynthEvent::Output { .. } => "output",
            };
            *kinds.entry(name).or_default() += 1;
        }
        // A realistic mix: every kind occurs, sends and receives dominate.
        for k in [
            "spawn",
            "send",
            "receive",
            "timeout",
            "signal",
            "signal_taken",
            "nondet",
            "output",
            "exit",
        ] {
            assert!(kinds.get(k).copied().unwrap_or(0) > 0, "no {k}: {kinds:?}");
        }
        let messages = kinds["send"] + kinds["receive"];
        assert!(messages * 10 > 8 * steps.len() as u64, "{kinds:?}");
        assert!(kinds["spawn"] > 200, "{kinds:?}");
    }

    #[test]
    fn payloads_do_not_change_the_events() {
        let a = steps(&spec(20_000));
        let b = steps(&spec(20_000).with_payloads(false));
        assert_eq!(a, b);
    }

    #[test]
    fn written_logs_read_back_as_generated() {
        let spec = spec(30_000);
        let steps = steps(&spec);
        let payloads = Payloads::new(&spec);
        let dir = std::env::temp_dir().join(format!("xtask-synth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("synth.trace");
        let opts = WriterOptions {
            block_size: 1024,
            ..Default::default()
        };
        let summary = write_log(&path, &spec, &payloads, &steps, opts).unwrap();
        assert_eq!(summary.events, 30_000);
        let r = LogReader::open(&path).unwrap();
        assert!(r.warnings().is_empty(), "{:?}", r.warnings());
        let logs = r.read_all().unwrap();
        let mut expect: Vec<Vec<Event>> = vec![Vec::new(); logs.len()];
        for s in &steps {
            expect[s.process as usize].push(payloads.event(s).to_owned());
        }
        for (l, e) in logs.iter().zip(&expect) {
            assert_eq!(&l.events, e, "process {}", l.id.0);
            assert_eq!(l.pid, pid(l.id.0));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `steps` with, in every `every`-th process, its first and third
    /// receives swapped: a receive then comes before the send its message
    /// needs (a happened-before cycle), and others wait on it.
    fn scrambled(mut steps: Vec<Step>, every: u32) -> Vec<Step> {
        let mut receives: std::collections::HashMap<u32, Vec<usize>> = Default::default();
        for (i, s) in steps.iter().enumerate() {
            if s.process % every == 1 && matches!(s.ev, SynthEvent::Receive { .. }) {
                receives.entry(s.process).or_default().push(i);
            }
        }
        for r in receives.values().filter(|r| r.len() >= 3) {
            steps.swap(r[0], r[2]);
        }
        steps
    }

    #[test]
    fn the_causal_check_of_a_synthetic_log_is_the_same_on_any_thread_count() {
        let spec = spec(60_000);
        let payloads = Payloads::new(&spec);
        let dir = std::env::temp_dir().join(format!("xtask-synth-hb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut cyclic = 0;
        for (n, steps) in [steps(&spec), scrambled(steps(&spec), 7)]
            .into_iter()
            .enumerate()
        {
            let path = dir.join(format!("synth{n}.trace"));
            let opts = WriterOptions {
                block_size: 4096,
                ..Default::default()
            };
            write_log(&path, &spec, &payloads, &steps, opts).unwrap();
            let r = LogReader::open(&path).unwrap();
            let m = trace_causal::Model::build(&r);
            let on = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                format!("{:?}", pool.install(|| trace_causal::validate(&m)))
            };
            let one = on(1);
            cyclic += usize::from(one.contains("Cycle"));
            for threads in [2, 4] {
                assert!(one == on(threads), "log {n}, {threads} threads");
            }
        }
        assert_eq!(cyclic, 1, "the scrambled log has no cycle");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
