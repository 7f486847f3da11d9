//! The hooks of one explored run: a Director that picks each step as the
//! exploration dictates (a prefix of forced choices, then the first actor
//! not asleep), and an Observer that writes down what each step touched.

use crate::step::{Access, Actor, FastMap, MsgKey, Step, UNKNOWN};
use std::sync::{Arc, Mutex, MutexGuard};
use trace_capture::{MsgRef, ProcRef, SymbolicName};
use trace_runtime::hooks::{
    Event, NondetBif, ProcessDirector, ProcessObserver, ProcessStart, Ready, SharedOp, Touched,
};
use trace_runtime::process::SignalId;
use trace_runtime::{Director, Observer};
use trace_term::{Pid, Term};

/// Spawn paths numbered once for the whole exploration, so that a process
/// is the same actor in every run whatever pid it gets.
#[derive(Default)]
pub struct Interner {
    paths: FastMap<Vec<u32>, u32>,
    pub names: Vec<Vec<u32>>,
}

impl Interner {
    fn intern(&mut self, path: &[u32]) -> u32 {
        if let Some(&i) = self.paths.get(path) {
            return i;
        }
        let i = self.names.len() as u32;
        self.paths.insert(path.to_vec(), i);
        self.names.push(path.to_vec());
        i
    }

    /// The symbolic name of a process actor (`P`, `P.1.2`), as every
    /// command names it.
    pub fn symbolic(&self, p: u32) -> SymbolicName {
        SymbolicName(self.names.get(p as usize).cloned().unwrap_or_default())
    }
}

/// How the Director picks.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Forced choices, one per step from the first.
    pub prefix: Vec<Actor>,
    /// From step `sleep_at` on: actors asleep (with the step each would
    /// take), not to be picked while asleep.
    pub sleep: Vec<Arc<Step>>,
    pub sleep_at: usize,
    /// Past the prefix, an order to keep where it can be kept: each step
    /// goes to the first actor of this list that is ready to take the same
    /// kind of step (a timeout where the bool says so, else not), and is
    /// struck off it; so a run made to differ from another in one place
    /// keeps every other step in that run's order, and a process that
    /// waited for a message there does not time out here instead.
    pub follow: Vec<(Actor, bool)>,
    /// Past the prefix and `follow`, a process waiting at a receive's
    /// `after` goes only when nothing else can (a run that looks for a
    /// passing order: under virtual time a waiting process may time out at
    /// once, and the default choice, the last actor, often is one).
    pub timeouts_last: bool,
    /// Most steps a run may take.
    pub max_steps: usize,
}

/// What one run did, step by step.
#[derive(Default)]
pub struct RunLog {
    pub steps: Vec<Step>,
    /// The actors that could go at each step (sorted).
    pub ready: Vec<Vec<Actor>>,
    /// Sleep sets at each step past the prefix.
    pub sleep: Vec<Vec<Arc<Step>>>,
    /// Every process asleep: the run repeats one explored already.
    pub sleep_blocked: bool,
    /// The run took `max_steps` steps and was cut.
    pub cut: bool,
    /// A forced choice could not be made: the run departed from the one
    /// the prefix came from (the program is not deterministic enough).
    pub departed: bool,
}

/// When a receive's `after` and a timer may fire in an explored run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Timeouts {
    /// Whenever nothing matching has arrived (a timer: at any step): time
    /// is free to pass between any two steps.
    #[default]
    Virtual,
    /// When its time has come on a virtual clock: steps take no time, and
    /// the clock moves on only when nothing else can go, to the earliest
    /// deadline (an `after` is timed from when its receive began waiting,
    /// a timer from when it was set).
    Real,
}

/// The virtual clock of [`Timeouts::Real`].
#[derive(Default)]
struct Clock {
    /// Milliseconds since the run began.
    now: u64,
    /// Deadlines of the receives waiting with an `after` and of the
    /// pending timers, by actor.
    deadlines: FastMap<Actor, u64>,
}

impl Clock {
    /// Which of `actors` (as `ready` says they wait) may go now: those
    /// that wait for no time, or whose deadline has come; when there are
    /// none, those with the earliest deadline.
    fn enabled(&mut self, actors: &[Actor], ready: &[Ready]) -> Vec<usize> {
        let now = self.now;
        let deadlines: Vec<Option<u64>> = actors
            .iter()
            .zip(ready)
            .map(|(a, r)| {
                let ms = wait_of(r)?;
                Some(*self.deadlines.entry(*a).or_insert(now.saturating_add(ms)))
            })
            .collect();
        let due: Vec<usize> = (0..actors.len())
            .filter(|&i| deadlines[i].is_none_or(|d| d <= now))
            .collect();
        if !due.is_empty() {
            return due;
        }
        let earliest = deadlines.iter().flatten().min().copied();
        (0..actors.len())
            .filter(|&i| deadlines[i] == earliest)
            .collect()
    }

    /// `a` takes its step, as `r` said it would: a timeout or a timer's
    /// delivery moves the clock to its deadline.
    fn took(&mut self, a: Actor, r: &Ready) {
        if let Some(d) = self.deadlines.remove(&a) {
            if wait_of(r).is_some() {
                self.now = self.now.max(d);
            }
        }
    }
}

/// The milliseconds a ready actor's step waits for: a receive's `after`
/// (when its step is the timeout) or a timer's delay.
fn wait_of(r: &Ready) -> Option<u64> {
    match r {
        Ready::Process { timeout, .. } => *timeout,
        Ready::Timer { after, .. } => Some(*after),
    }
}

#[derive(Default)]
struct State {
    interner: Interner,
    timeouts: Timeouts,
    clock: Clock,
    pids: FastMap<Pid, u32>,
    plan: Plan,
    log: RunLog,
    /// Accesses of the step under way, and its actor.
    current: Option<(Actor, Vec<Access>)>,
    /// Sends so far: at which step, to whom, what (a timer's message is
    /// delivered by a step of its own).
    sends: FastMap<MsgKey, (usize, u32, Term)>,
    /// The sleep set of the step about to be picked.
    asleep: Vec<Arc<Step>>,
    /// The last access was a timeout: the filter that follows is its.
    timed_out: bool,
    /// The timers pending when the step under way was picked, to tell
    /// which of them it cancelled.
    timers: Vec<MsgKey>,
    /// The ready actors of the last pick (a buffer kept between picks).
    all: Vec<Actor>,
    cx: crate::step::Context,
}

/// The Director and the Observer of explored runs (one value, both roles).
#[derive(Clone, Default)]
pub struct Hooks(Arc<Mutex<State>>);

impl Hooks {
    /// Hooks for runs whose timeouts fire as `timeouts` says.
    pub fn new(timeouts: Timeouts) -> Hooks {
        let h = Hooks::default();
        h.lock().timeouts = timeouts;
        h
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Readies the hooks for a new run that follows `plan`.
    pub fn start(&self, plan: Plan) {
        let mut s = self.lock();
        s.pids.clear();
        s.sends.clear();
        s.clock = Clock::default();
        s.current = None;
        s.timed_out = false;
        s.timers.clear();
        s.asleep = Vec::new();
        s.plan = plan;
        s.log = RunLog::default();
        // Sleep sets wake on any dependent step: writes always count as
        // dependent there, whatever the race search is told.
        s.cx.output_matters = true;
    }

    /// Ends the run: its log.
    pub fn finish(&self) -> RunLog {
        let mut s = self.lock();
        // Nothing is pending once a run is over: the last step cancelled
        // whatever timers it left.
        s.cancelled(&[]);
        s.close_step();
        std::mem::take(&mut s.log)
    }

    pub fn symbolic(&self, a: Actor) -> String {
        match a {
            Actor::Process(p) => self.name(p).to_string(),
            Actor::Timer(m) => format!("timer({})", self.msg(m)),
        }
    }

    /// `text` with each pid of the last run written as its process's
    /// symbolic name (`<0.83.0>` as `P.1.1`): what stays the same across
    /// interleavings, where pid numbers follow the order of the spawns.
    pub fn with_symbolic_pids(&self, text: &str) -> String {
        let s = self.lock();
        let by_number: FastMap<u64, u32> = s.pids.iter().map(|(p, a)| (p.number(), *a)).collect();
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("<0.") {
            out.push_str(&rest[..at]);
            let tail = &rest[at + 3..];
            let digits = tail
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(tail.len());
            let known = tail[digits..]
                .starts_with(".0>")
                .then(|| tail[..digits].parse::<u64>().ok())
                .flatten()
                .and_then(|n| by_number.get(&n));
            match known {
                Some(&a) => {
                    out.push_str(&s.interner.symbolic(a).to_string());
                    rest = &tail[digits + 3..];
                }
                None => {
                    out.push_str("<0.");
                    rest = tail;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// A process actor's symbolic name.
    pub fn name(&self, p: u32) -> SymbolicName {
        self.lock().interner.symbolic(p)
    }

    /// A message as every command names it (`P.1:0`).
    pub fn msg(&self, m: crate::step::MsgKey) -> MsgRef {
        MsgRef {
            sender: ProcRef::Name(self.name(m.sender)),
            index: m.index,
        }
    }
}

impl State {
    fn actor_of(&self, pid: Pid) -> u32 {
        self.pids.get(&pid).copied().unwrap_or(UNKNOWN)
    }

    fn key(&self, id: SignalId) -> MsgKey {
        MsgKey {
            sender: self.actor_of(id.sender),
            index: id.index,
        }
    }

    fn push(&mut self, a: Access) {
        if let Some((_, v)) = self.current.as_mut() {
            v.push(a);
        }
    }

    /// The step under way is over: files it, and wakes the sleepers it is
    /// dependent with.
    fn close_step(&mut self) {
        let Some((actor, accesses)) = self.current.take() else {
            return;
        };
        let step = Step { actor, accesses };
        let cx = &self.cx;
        self.asleep
            .retain(|q| crate::step::relation(&step, q, cx) == crate::step::Relation::Independent);
        self.log.steps.push(step);
    }

    /// Files, on the step under way, the timers pending when it was
    /// picked that are neither pending now (`now`) nor fired by it: the
    /// step cancelled them (a process's end cancels the timers aimed at
    /// it), and the order in which they fire before it is to be tried.
    fn cancelled(&mut self, now: &[Actor]) {
        let Some((actor, accesses)) = self.current.as_mut() else {
            return;
        };
        for &msg in &self.timers {
            let t = Actor::Timer(msg);
            if t != *actor && !now.contains(&t) {
                accesses.push(Access::Cancel { msg });
            }
        }
    }

    /// The actors of `ready`, into `out`.
    fn ready_actors(&self, ready: &[Ready], out: &mut Vec<Actor>) {
        out.clear();
        out.extend(ready.iter().map(|r| match r {
            Ready::Process { pid, .. } => Actor::Process(self.actor_of(*pid)),
            Ready::Timer { id, .. } => Actor::Timer(self.key(*id)),
        }));
    }

    /// A timer's step: its message goes to the mailbox now; the step that
    /// set it only armed it.
    fn fire(&mut self, msg: MsgKey) {
        let Some((at, to, payload)) = self.sends.get(&msg).cloned() else {
            return;
        };
        if let Some(step) = self.log.steps.get_mut(at) {
            for a in &mut step.accesses {
                if matches!(a, Access::Send { msg: m, .. } if *m == msg) {
                    *a = Access::Arm { msg };
                }
            }
        }
        self.push(Access::Send { to, msg, payload });
    }
}

impl Director for Hooks {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessDirector>> {
        let mut s = self.lock();
        let a = s.interner.intern(&p.path);
        s.pids.insert(p.pid, a);
        None
    }

    fn controls_scheduling(&self) -> bool {
        true
    }

    fn pick(&self, ready: &[Ready]) -> Option<usize> {
        let mut s = self.lock();
        let s = &mut *s;
        let mut all = std::mem::take(&mut s.all);
        s.ready_actors(ready, &mut all);
        s.cancelled(&all);
        s.close_step();
        s.timers.clear();
        s.timers.extend(all.iter().filter_map(|a| match a {
            Actor::Timer(m) => Some(*m),
            Actor::Process(_) => None,
        }));
        // Under real timeouts, only what may go now is offered: `actors`,
        // at `enabled` in `all`.
        let (actors, enabled) = match s.timeouts {
            Timeouts::Virtual => (all, None),
            Timeouts::Real => {
                let enabled = s.clock.enabled(&all, ready);
                let actors: Vec<Actor> = enabled.iter().map(|&i| all[i]).collect();
                s.all = all;
                (actors, Some(enabled))
            }
        };
        let times_out = |i: usize| {
            let r = &ready[enabled.as_ref().map_or(i, |e| e[i])];
            matches!(
                r,
                Ready::Process {
                    timeout: Some(_),
                    ..
                }
            )
        };
        let i = s.choose(&actors, times_out);
        let picked = i.map(|i| enabled.as_ref().map_or(i, |e| e[i]));
        if let (Some(i), Some(picked)) = (i, picked) {
            let a = actors[i];
            s.clock.took(a, &ready[picked]);
            let mut sorted = actors.clone();
            sorted.sort_unstable();
            s.log.ready.push(sorted);
            let asleep = s.asleep.clone();
            s.log.sleep.push(asleep);
            // A step makes a few accesses: room for them at once.
            s.current = Some((a, Vec::with_capacity(4)));
            if let Actor::Timer(m) = a {
                s.fire(m);
            }
        }
        if enabled.is_none() {
            s.all = actors;
        }
        picked
    }
}

impl State {
    /// Which of `actors` takes the next step: the plan's forced choice,
    /// else the first ready actor of the order the plan keeps, else the
    /// last actor if it can go on and is awake (no preemption), else the
    /// first awake one; `None` ends the run (cut, departed from
    /// the plan, or every actor asleep), as the log says.
    /// `times_out(i)`: the step of `actors[i]` would be a receive's timeout.
    fn choose(&mut self, actors: &[Actor], times_out: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.log.steps.len();
        if n >= self.plan.max_steps {
            self.log.cut = true;
            return None;
        }
        if n == self.plan.sleep_at {
            self.asleep = self.plan.sleep.clone();
        }
        if let Some(want) = self.plan.prefix.get(n).copied() {
            let i = actors.iter().position(|a| *a == want);
            self.log.departed |= i.is_none();
            return i;
        }
        let asleep = &self.asleep;
        let awake = |a: &Actor| !asleep.iter().any(|q| q.actor == *a);
        let kept = self
            .plan
            .follow
            .iter()
            .enumerate()
            .find_map(|(k, &(f, t))| {
                let i = actors.iter().position(|a| *a == f && awake(a))?;
                (times_out(i) == t).then_some((k, i))
            });
        if let Some((k, i)) = kept {
            self.plan.follow.remove(k);
            return Some(i);
        }
        let last = self.log.steps.last().map(|st| st.actor);
        // `patient`: leave out actors whose step would be a timeout.
        let goes = |i: usize, patient: bool| awake(&actors[i]) && !(patient && times_out(i));
        let pick = |patient: bool| {
            let mut all = 0..actors.len();
            all.clone()
                .find(|&i| Some(actors[i]) == last && goes(i, patient))
                .or_else(|| all.find(|&i| goes(i, patient)))
        };
        let i = if self.plan.timeouts_last {
            pick(true).or_else(|| pick(false))
        } else {
            pick(false)
        };
        self.log.sleep_blocked |= i.is_none();
        i
    }
}

impl Observer for Hooks {
    fn process_started(&self, _p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(StepObserver(self.clone())))
    }
}

/// Writes down what one process's events touch, into the step under way.
struct StepObserver(Hooks);

impl ProcessObserver for StepObserver {
    fn event(&mut self, ev: &Event<'_>) {
        let mut s = self.0.lock();
        let s = &mut *s;
        s.timed_out = false;
        let a = match ev {
            Event::Send { id, to, payload } => {
                let msg = s.key(*id);
                let to = s.actor_of(*to);
                let at = s.log.steps.len();
                s.sends.insert(msg, (at, to, (*payload).clone()));
                Access::Send {
                    to,
                    msg,
                    payload: (*payload).clone(),
                }
            }
            Event::Receive { id, .. } => Access::Receive { msg: s.key(*id) },
            Event::Timeout => {
                s.timed_out = true;
                Access::Timeout
            }
            Event::Spawn { child, .. } => Access::Spawn {
                child: s.actor_of(*child),
            },
            Event::Signal { to, .. } => Access::Signal {
                to: s.actor_of(*to),
            },
            Event::Output { .. } => Access::Output,
            Event::Exit { .. } => Access::Exit,
            Event::Nondet {
                kind: NondetBif::Registered | NondetBif::Processes,
                ..
            } => Access::Inspect(UNKNOWN),
            _ => return,
        };
        s.push(a);
    }

    fn shared(&mut self, op: &SharedOp<'_>) {
        use trace_runtime::hooks::Access as A;
        let write = !matches!(op.access, A::Read);
        self.0.lock().push(Access::Shared { write });
    }

    fn touched(&mut self, t: &Touched<'_>) {
        let mut s = self.0.lock();
        let s = &mut *s;
        let a = match t {
            Touched::Receive(f) => {
                let filter = f.cloned();
                let timed_out = std::mem::take(&mut s.timed_out);
                Access::Filter { filter, timed_out }
            }
            Touched::NoClauses => Access::NoClauses,
            Touched::MayTimeOut => Access::MayTimeOut,
            Touched::Liveness(p) => Access::Liveness(s.actor_of(*p)),
            Touched::Name(n) => Access::Name(*n),
            Touched::Process(p) => Access::Inspect(s.actor_of(*p)),
            Touched::Monitors | Touched::TrapExit => Access::OwnSignals,
        };
        s.push(a);
    }
}
