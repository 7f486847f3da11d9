//! `process_info/1,2` and `processes/0`: looking at processes, a
//! nondeterministic observation.

use super::pid_arg;
use crate::bif::{Builder, Ctx, AUTO};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::NondetBif;
use trace_term::{atom, Atom, Pid, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(e, "processes", 0, processes, AUTO);
    b.proc(e, "process_info", 2, process_info2, AUTO);
    b.proc(e, "process_info", 1, process_info1, AUTO);
}

fn processes(cx: &mut Ctx, _: &[Term]) -> BifResult {
    cx.before_event()?;
    let pids = cx.rt.table.live_pids();
    cx.decide(
        NondetBif::Processes,
        Term::list(pids.into_iter().map(Term::Pid).collect()),
    )
}

/// The process being looked at, as far as `process_info` can see it.
struct View<'a> {
    p: &'a crate::process::Process,
    status: Atom,
    /// Messages that arrived but are not in the mailbox yet (another
    /// process's inbox): BEAM counts them too.
    arrived: Vec<Term>,
    /// Links and monitoring processes, counting the link, unlink, monitor
    /// and demonitor signals that arrived (BEAM takes them before it answers).
    links: Vec<Pid>,
    monitored_by: Vec<(trace_term::Ref, Pid)>,
}

impl View<'_> {
    fn messages(&self) -> Vec<Term> {
        let p = self.p;
        let mut out: Vec<Term> = p.mailbox.iter().map(|m| m.payload.clone()).collect();
        // A process suspended while matching has its current message on
        // loan in a stack slot.
        if let (Some(slot), Some(m)) = (p.loan, out.get_mut(p.cursor)) {
            *m = p.regs[slot as usize].clone();
        }
        out.extend(self.arrived.iter().cloned());
        out
    }
}

fn info_item(cx: &Ctx, v: &View, item: Atom) -> Result<Term, Fault> {
    let p = v.p;
    let value = match item.name() {
        "message_queue_len" => Term::Int((p.mailbox.len() + v.arrived.len()) as i64),
        "messages" => Term::list(v.messages()),
        "links" => Term::list(v.links.iter().map(|l| Term::Pid(*l)).collect()),
        "trap_exit" => Term::bool(p.trap_exit),
        "status" => Term::Atom(v.status),
        "dictionary" => Term::list(
            p.dict
                .iter()
                .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
                .collect(),
        ),
        "registered_name" => {
            let names = cx.rt.names.lock().unwrap_or_else(|e| e.into_inner());
            match names.iter().find(|(_, pid)| **pid == p.pid) {
                Some((n, _)) => Term::Atom(*n),
                None => Term::Nil,
            }
        }
        "monitors" => Term::list(
            p.monitors
                .iter()
                .map(|(_, t)| Term::tuple(vec![Term::Atom(atom::PROCESS), Term::Pid(*t)]))
                .collect(),
        ),
        "monitored_by" => Term::list(v.monitored_by.iter().map(|m| Term::Pid(m.1)).collect()),
        "current_function" => {
            let (m, f, a) = cx.rt.program.mfa(p.fun);
            Term::tuple(vec![Term::Atom(m), Term::Atom(f), Term::Int(a as i64)])
        }
        "initial_call" => Term::tuple(vec![
            Term::Atom(p.initial.0),
            Term::Atom(p.initial.1),
            Term::Int(p.initial.2 as i64),
        ]),
        "group_leader" => Term::Pid(p.group_leader),
        "heap_size" | "total_heap_size" | "stack_size" | "reductions" | "memory" => Term::Int(0),
        "priority" => Term::atom("normal"),
        _ => return Err(badarg()),
    };
    Ok(Term::tuple(vec![Term::Atom(item), value]))
}

/// The answer for `items` (an atom or a list of atoms) about `v`.
fn answer(cx: &Ctx, v: &View, items: &Term) -> Result<Term, Fault> {
    match items {
        // BEAM answers `[]`, not `{registered_name, []}`, for a process
        // without a name asked for that item alone.
        Term::Atom(item) if item.name() == "registered_name" => match info_item(cx, v, *item)? {
            t if matches!(t.as_tuple(), Some([_, Term::Nil])) => Ok(Term::Nil),
            t => Ok(t),
        },
        Term::Atom(item) => info_item(cx, v, *item),
        Term::Cons(_) | Term::Nil => {
            let mut out = Vec::new();
            for it in items.to_vec().ok_or_else(badarg)? {
                out.push(info_item(cx, v, it.as_atom().ok_or_else(badarg)?)?);
            }
            Ok(Term::list(out))
        }
        _ => Err(badarg()),
    }
}

fn process_info2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    if !matches!(&a[1], Term::Atom(_) | Term::Cons(_) | Term::Nil) {
        return Err(badarg());
    }
    cx.before_event()?;
    cx.touched(crate::hooks::Touched::Process(pid));
    let computed = if pid == cx.proc.pid {
        let v = View {
            p: cx.proc,
            status: atom::RUNNING,
            arrived: Vec::new(),
            links: cx.proc.links.clone(),
            monitored_by: cx
                .proc
                .monitored_by
                .iter()
                .map(|m| (m.r, m.watcher))
                .collect(),
        };
        answer(cx, &v, &a[1])?
    } else {
        match other(cx, pid, &a[1])? {
            Some(t) => t,
            None => Term::Atom(atom::UNDEFINED),
        }
    };
    cx.decide(NondetBif::ProcessInfo, computed)
}

/// `process_info` of another process, read between two of its slices (BEAM
/// answers it from the target's side too). `None`: it is not alive. While it
/// runs on another thread, the built-in is tried again later.
fn other(cx: &Ctx, pid: Pid, items: &Term) -> Result<Option<Term>, Fault> {
    let Some(shared) = cx.rt.table.get(pid) else {
        return Ok(None);
    };
    let body = shared.body.lock().unwrap_or_else(|e| e.into_inner());
    let Some(p) = body.as_deref() else {
        return if shared.is_exited() {
            Ok(None)
        } else {
            Err(Fault::Retry)
        };
    };
    let status = match shared.state.load(std::sync::atomic::Ordering::Acquire) {
        crate::process::run_state::WAITING => atom::WAITING,
        _ => atom::RUNNABLE,
    };
    let mut v = View {
        p,
        status,
        arrived: Vec::new(),
        links: p.links.clone(),
        monitored_by: p.monitored_by.iter().map(|m| (m.r, m.watcher)).collect(),
    };
    for s in shared
        .inbox
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        use crate::process::Signal;
        match s {
            // A message through an alias is counted though it may yet be
            // dropped on arrival (the alias's state is the target's own).
            Signal::Message { payload, .. } => v.arrived.push(payload.clone()),
            Signal::Link { id } if !v.links.contains(&id.sender) => v.links.push(id.sender),
            Signal::Unlink { id } => v.links.retain(|l| *l != id.sender),
            Signal::Monitor { id, r, .. } => v.monitored_by.push((*r, id.sender)),
            Signal::Demonitor { r, .. } => v.monitored_by.retain(|m| m.0 != *r),
            _ => {}
        }
    }
    answer(cx, &v, items).map(Some)
}

fn process_info1(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let items = Term::list(
        [
            "registered_name",
            "current_function",
            "initial_call",
            "status",
            "message_queue_len",
            "links",
            "dictionary",
            "trap_exit",
        ]
        .iter()
        .map(|s| Term::atom(s))
        .collect(),
    );
    process_info2(cx, &[a[0].clone(), items])
}
