//! A Director that forces the order in which chosen receives take their
//! messages drives each race fixture of `fixtures/papers` to every one of
//! its allowed outcomes, on several scheduler threads, run after run. This
//! is what the replay Director relies on: spawned processes get the pids it
//! chooses, and a receive can be made to take a given message (named by its
//! sender and the sender's signal index) even when another matching message
//! is already in the mailbox or the chosen one has not been sent yet.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use trace_runtime::hooks::{
    Director, Divergence, Event, NondetBif, Observer, OutputTurn, ProcessDirector, ProcessStart,
    ReceiveChoice,
};
use trace_runtime::process::SignalId;
use trace_term::{Pid, Term};

/// A process by its spawn path: `[]` is main (`P`), `[2]` its second child.
type Path = Vec<u32>;

/// A message named by its sender's spawn path and the sender's signal index.
type Msg<'a> = (&'a [u32], u64);

/// For some processes, the messages their first receives must take, each
/// named by (sender's spawn path, sender's signal index); later receives
/// and every other process choose natively.
#[derive(Clone, Default)]
struct Script {
    receives: HashMap<Path, Vec<(Path, u64)>>,
}

impl Script {
    fn new(receives: &[(&[u32], &[Msg])]) -> Script {
        Script {
            receives: receives
                .iter()
                .map(|(p, r)| {
                    (
                        p.to_vec(),
                        r.iter().map(|(s, i)| (s.to_vec(), *i)).collect(),
                    )
                })
                .collect(),
        }
    }
}

/// The pid the Director gives the process at `path`, so that a message can
/// be named before its sender exists (as a replay Director names them from
/// the log). main keeps the pid the engine gave it.
fn pid_of(path: &[u32], main: Pid) -> Pid {
    if path.is_empty() {
        return main;
    }
    Pid(1000 + path.iter().fold(0, |acc, &i| acc * 32 + u64::from(i)))
}

struct Forcing {
    path: Path,
    main: Pid,
    children: u32,
    choices: std::vec::IntoIter<(Path, u64)>,
}

impl Director for Script {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessDirector>> {
        let main = if p.path.is_empty() {
            p.pid
        } else {
            Pid(trace_runtime::sched::FIRST_PID)
        };
        assert_eq!(p.pid, pid_of(&p.path, main), "the pid this Director gave");
        let choices = self.receives.get(&p.path).cloned().unwrap_or_default();
        Some(Box::new(Forcing {
            path: p.path.clone(),
            main,
            children: 0,
            choices: choices.into_iter(),
        }))
    }
}

impl ProcessDirector for Forcing {
    fn signal_due(&mut self) -> Option<SignalId> {
        None
    }
    fn receive(&mut self) -> Result<ReceiveChoice, Divergence> {
        Ok(match self.choices.next() {
            Some((sender, index)) => ReceiveChoice::Message(SignalId {
                sender: pid_of(&sender, self.main),
                index,
            }),
            None => ReceiveChoice::Native,
        })
    }
    fn spawn_pid(&mut self) -> Result<Option<Pid>, Divergence> {
        self.children += 1;
        let mut child = self.path.clone();
        child.push(self.children);
        Ok(Some(pid_of(&child, self.main)))
    }
    fn nondet(&mut self, _: NondetBif, computed: Term) -> Result<Term, Divergence> {
        Ok(computed)
    }
    fn output_turn(&mut self) -> Result<OutputTurn, Divergence> {
        Ok(OutputTurn::Now)
    }
    fn event(&mut self, _: &Event<'_>) -> Result<(), Divergence> {
        Ok(())
    }
    fn takes_signals_natively(&self) -> bool {
        true
    }
}

/// Runs fixture `papers/NAME.erl` under `script` and checks it ends in
/// outcome number `want` of its `.outcomes` file (output and exit status).
fn drive(name: &str, script: Script, want: usize) {
    let file = common::fixture(&format!("papers/{name}.erl"));
    let fx = trace_fixtures::discover(&trace_fixtures::root())
        .into_iter()
        .find(|f| f.id == format!("papers/{name}"))
        .expect("fixture");
    let expected = fx.expected().expect("outcomes");
    assert!(expected.nondeterministic, "{name} has a .outcomes file");
    for schedulers in [1, 2, 4] {
        for _ in 0..5 {
            let (outcome, out) = common::run_with(
                &file,
                schedulers,
                Arc::new(trace_runtime::hooks::Native) as Arc<dyn Observer>,
                Arc::new(script.clone()),
            );
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&expected.outcomes[want]),
                "{name}, forced to outcome {want}, --schedulers {schedulers}"
            );
            assert_eq!(
                fixture_status(outcome.verdict()),
                expected.statuses[want],
                "{name}: exit status of outcome {want}"
            );
        }
    }
}

const MAIN: &[u32] = &[];

#[test]
fn echo_target_is_driven_to_both_orders() {
    // main's signals: 0 the monitor, 1 `hello`, 2 `{Target, world}`;
    // echo (P.1) forwards `world` as its signal 0; target is P.2.
    let hello = (MAIN, 1);
    let world: Msg = (&[1], 0);
    drive("echo_target", Script::new(&[(&[2], &[hello, world])]), 0);
    drive("echo_target", Script::new(&[(&[2], &[world, hello])]), 1);
}

#[test]
fn proxy_server_is_driven_to_its_answer_and_to_its_deadlock() {
    // The server is P.1, the proxy P.2; main sends {S, {C, 40}} to the proxy
    // (signal 0) and 2 to the server (signal 1); the proxy forwards {C, 40}
    // as its signal 0.
    let forwarded: Msg = (&[2], 0);
    let two = (MAIN, 1);
    drive("proxy_server", Script::new(&[(&[1], &[forwarded, two])]), 0);
    drive("proxy_server", Script::new(&[(&[1], &[two])]), 1);
}

#[test]
fn purchase_is_driven_to_refusal_and_to_wrong_approval() {
    // async_and is P.1; the credit, address and item checks are P.2, P.3, P.4.
    let credit: Msg = (&[2], 0);
    let address: Msg = (&[3], 0);
    let item: Msg = (&[4], 0);
    drive("purchase", Script::new(&[(&[1], &[address, credit])]), 0);
    drive("purchase", Script::new(&[(&[1], &[address, item])]), 1);
}

#[test]
fn tcp_is_driven_to_each_bug() {
    // The server is P.1; client1 (port 57) is P.2, client2 (port 50) P.3.
    let syn1: Msg = (&[2], 0);
    let syn2: Msg = (&[3], 0);
    drive("tcp", Script::new(&[(&[1], &[syn2, syn1])]), 0);
    drive("tcp", Script::new(&[(&[1], &[syn1])]), 1);
}

#[test]
fn client_server_is_driven_to_both_service_orders() {
    // The server is P.1; main (c1) and c2 (P.2) each send their request as
    // their signal 0.
    let c1 = (MAIN, 0);
    let c2: Msg = (&[2], 0);
    drive("client_server", Script::new(&[(&[1], &[c1, c2])]), 0);
    drive("client_server", Script::new(&[(&[1], &[c2, c1])]), 1);
}

#[test]
fn dining_philosophers_is_driven_into_its_lost_request() {
    // The waiter is P.1; its forks are P.1.1 .. P.1.5 and its philosophers
    // P.1.6 .. P.1.10, each sending {hungry, Self} as its signal 0. The
    // waiter takes philosopher 1's request, then -- in ask_state, waiting
    // for fork 1's state -- philosopher 2's request: the bug. Philosopher 2
    // then waits forever, and so does everybody else.
    let hungry1: Msg = (&[1, 6], 0);
    let hungry2: Msg = (&[1, 7], 0);
    drive(
        "dining_philosophers",
        Script::new(&[(&[1], &[hungry1, hungry2])]),
        1,
    );
}

/// The exit status a fixture's `.status` file gives for a verdict (the
/// README's table of `trace run`'s statuses).
fn fixture_status(v: trace_runtime::Verdict) -> u8 {
    use trace_runtime::Verdict;
    match v {
        Verdict::Ok => 0,
        Verdict::EntryCrashed => 1,
        Verdict::Unsupported => 4,
        Verdict::Deadlock => 5,
        Verdict::Diverged => 6,
        Verdict::InternalError => 70,
        Verdict::Interrupted => 130,
        Verdict::Limited => 124,
    }
}
