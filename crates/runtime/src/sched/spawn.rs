//! Creating processes: the entry process, and `spawn`/`spawn_link`/`spawn_monitor`.

use super::{signals, Entry, Runtime, Worker};
use crate::code::{FunId, Program};
use crate::exception::{badarg, Fault};
use crate::hooks::{Event, ProcessStart};
use crate::process::{run_state, ProcShared, Process};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use trace_term::{atom, Atom, Fun, Pid, Ref, Term};

/// Where a new process starts.
pub enum Target {
    /// A fun of arity 0.
    Fun(Term),
    /// `Module:Function(Args)`.
    Mfa(Atom, Atom, Vec<Term>),
}

/// Where a new process starts: its code, its initial slots and the MFA it
/// reports as its initial call.
type Start = (FunId, Vec<Term>, (Atom, Atom, u32));

/// Resolves the start function and its initial slots (arguments, then a
/// closure's captured values).
fn resolve(prog: &Program, t: Target) -> Result<Start, Fault> {
    match t {
        Target::Fun(f) => {
            let Term::Fun(fp) = &f else {
                return Err(badarg());
            };
            match &**fp {
                Fun::Closure {
                    code,
                    env,
                    arity: 0,
                    ..
                } if *code != trace_term::fun::NO_CODE => {
                    let info = &prog.closures[*code as usize];
                    let mut slots: Vec<Term> = env.to_vec();
                    if info.named {
                        slots.push(f.clone());
                    }
                    let fc = &prog.funs[info.code as usize];
                    Ok((info.code, slots, (fc.module, fc.name, 0)))
                }
                Fun::External {
                    module,
                    function,
                    arity: 0,
                } => resolve(prog, Target::Mfa(*module, *function, vec![])),
                _ => Err(badarg()),
            }
        }
        Target::Mfa(m, f, args) => {
            if let Some(id) = prog.exported(m, f, args.len() as u32) {
                return Ok((id, args, (m, f, 0)));
            }
            // Built-ins and undefined functions start through the prelude's
            // apply/3, which calls them (or raises undef in the new process).
            let tramp = prog
                .exported(Atom::intern("trace_prelude"), atom::APPLY, 3)
                .expect("prelude defines trace_prelude:apply/3");
            let n = args.len() as u32;
            Ok((
                tramp,
                vec![Term::Atom(m), Term::Atom(f), Term::list(args)],
                (m, f, n),
            ))
        }
    }
}

fn new_process(
    rt: &Runtime,
    pid: Pid,
    fun: FunId,
    slots: Vec<Term>,
    path: Vec<u32>,
    initial: (Atom, Atom, u32),
    parent: Option<Pid>,
) -> Result<(Arc<ProcShared>, Box<Process>), Fault> {
    let nslots = rt.program.funs[fun as usize].nslots;
    let shared = Arc::new(ProcShared::new(pid));
    let mut initial = initial;
    if initial.2 == 0 {
        initial.2 = rt.program.funs[fun as usize].arity;
    }
    let mut body = Box::new(Process::new(pid, fun, slots, nslots, path.clone(), initial));
    body.parent = parent;
    body.me = Some(shared.clone());
    if rt.controlled {
        body.gate = crate::process::Gate::Shut;
    }
    let info = ProcessStart {
        pid,
        parent,
        path,
        initial,
    };
    body.observer = rt.observer.process_started(&info);
    if rt.opts.trace_calls && body.observer.is_some() {
        body.trace_calls = true;
        crate::vm::calls::called(&mut body, &rt.program, fun, 0);
    }
    body.director = rt.director.process_started(&info);
    body.directed_signals = body
        .director
        .as_ref()
        .is_some_and(|d| !d.takes_signals_natively());
    body.reports_deliveries =
        body.director.is_some() || body.observer.as_ref().is_some_and(|o| o.wants_deliveries());
    if !rt.table.insert(shared.clone()) {
        return Err(Fault::Error(Term::Atom(atom::SYSTEM_LIMIT)));
    }
    Ok((shared, body))
}

fn start(rt: &Runtime, wk: Option<&Worker>, shared: Arc<ProcShared>, body: Box<Process>) {
    *shared.body.lock().unwrap_or_else(|e| e.into_inner()) = Some(body);
    shared.state.store(run_state::QUEUED, Ordering::Release);
    rt.spawned.fetch_add(1, Ordering::Relaxed);
    rt.activate(wk);
    rt.enqueue(wk, shared);
}

/// Creates the entry process (before the schedulers start).
pub fn spawn_entry(rt: &mut Runtime, entry: Entry) -> Pid {
    let pid = rt.alloc_pid();
    rt.entry_pid = pid;
    let fc = &rt.program.funs[entry.fun as usize];
    let initial = (fc.module, fc.name, fc.arity);
    let (shared, body) = new_process(rt, pid, entry.fun, entry.args, vec![], initial, None)
        .expect("entry pid is free");
    start(rt, None, shared, body);
    pid
}

/// `spawn`, `spawn_link`, `spawn_monitor` from process `p`.
pub fn spawn(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    target: Target,
    link: bool,
    monitor: bool,
) -> Result<(Pid, Option<Ref>), Fault> {
    let (fun, slots, initial) = resolve(&rt.program, target)?;
    let forced = match p.director.as_mut() {
        Some(d) => match d.spawn_pid() {
            Ok(x) => x,
            Err(div) => {
                rt.diverge(p, div, true);
                return Err(Fault::Yield(Term::Atom(atom::UNDEFINED)));
            }
        },
        None => None,
    };
    let pid = match forced {
        Some(pid) => {
            rt.reserve_pid(pid);
            pid
        }
        None => rt.alloc_pid(),
    };
    p.children += 1;
    let mut path = p.path.clone();
    path.push(p.children);
    let (shared, mut body) = new_process(rt, pid, fun, slots, path, initial, Some(p.pid))?;
    body.group_leader = p.group_leader;
    if link {
        p.add_link(pid);
        body.add_link(p.pid);
    }
    let r = if monitor {
        let r = p.make_ref();
        p.monitors.push((r, pid));
        body.monitored_by.push(crate::process::MonitoredBy {
            r,
            watcher: p.pid,
            name: None,
        });
        Some(r)
    } else {
        None
    };
    signals::emit(
        p,
        rt,
        Event::Spawn {
            child: pid,
            link,
            monitor,
        },
    );
    start(rt, Some(wk), shared, body);
    Ok((pid, r))
}
