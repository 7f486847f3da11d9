//! `process_info/1,2` and `processes/0`: looking at processes, a
//! nondeterministic observation.

use super::pid_arg;
use crate::bif::{Builder, Ctx, AUTO};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::NondetKind;
use trace_term::{atom, Atom, Pid, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(e, "processes", 0, processes, AUTO);
    b.proc(e, "process_info", 2, process_info2, AUTO);
    b.proc(e, "process_info", 1, process_info1, AUTO);
}

fn processes(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let mut pids: Vec<Pid> = cx
        .rt
        .table
        .all()
        .iter()
        .filter(|s| !s.is_exited())
        .map(|s| s.pid)
        .collect();
    pids.sort();
    cx.nondet(
        NondetKind::Processes,
        Term::list(pids.into_iter().map(Term::Pid).collect()),
    )
}

fn info_item(cx: &mut Ctx, item: Atom) -> Result<Term, Fault> {
    let p = &*cx.proc;
    let v = match item.name() {
        "message_queue_len" => Term::Int(p.mailbox.len() as i64),
        "messages" => Term::list(p.mailbox.iter().map(|m| m.payload.clone()).collect()),
        "links" => Term::list(p.links.iter().map(|l| Term::Pid(*l)).collect()),
        "trap_exit" => Term::bool(p.trap_exit),
        "status" => Term::Atom(atom::RUNNING),
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
        "current_function" => {
            let (m, f, a) = cx.rt.program.mfa(p.fun);
            Term::tuple(vec![Term::Atom(m), Term::Atom(f), Term::Int(a as i64)])
        }
        "initial_call" => Term::tuple(vec![
            Term::Atom(p.initial.0),
            Term::Atom(p.initial.1),
            Term::Int(p.initial.2 as i64),
        ]),
        "group_leader" => Term::Pid(Pid(0)),
        "heap_size" | "total_heap_size" | "stack_size" | "reductions" | "memory" => Term::Int(0),
        "priority" => Term::atom("normal"),
        _ => return Err(badarg()),
    };
    Ok(Term::tuple(vec![Term::Atom(item), v]))
}

fn process_info2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let pid = pid_arg(&a[0])?;
    if pid != cx.proc.pid {
        // Another process's state is not ours to read mid-run; report liveness only.
        let alive = cx.alive(pid)?;
        return if alive {
            Ok(Term::Nil)
        } else {
            Ok(Term::Atom(atom::UNDEFINED))
        };
    }
    let v = match &a[1] {
        Term::Atom(item) => info_item(cx, *item)?,
        items @ (Term::Cons(_) | Term::Nil) => {
            let mut out = Vec::new();
            for it in items.to_vec().ok_or_else(badarg)? {
                out.push(info_item(cx, it.as_atom().ok_or_else(badarg)?)?);
            }
            Term::list(out)
        }
        _ => return Err(badarg()),
    };
    cx.nondet(NondetKind::ProcessInfo, v)
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
