//! The fast paths give the general engine's verdicts: random runs, checked
//! both ways, must find the same violating events.

mod common;
use common::{Log, Scratch};
use std::path::Path;
use trace_check::eval::{check_with, Options};
use trace_format::LogReader;

/// A tiny deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Processes send each other {req, K} and {reply, K}; each receives some of
/// what was sent to it, in any order.
fn random_log(seed: u64) -> Log {
    let mut rng = Rng(seed * 0x9E37_79B9 + 1);
    let mut l = Log::new();
    let n = 2 + rng.below(4) as usize;
    for _ in 1..n {
        l.spawn(0);
    }
    let mut inbox: Vec<Vec<trace_format::MsgId>> = vec![Vec::new(); n];
    for _ in 0..60 {
        let from = rng.below(n as u64) as usize;
        let to = rng.below(n as u64) as usize;
        match rng.below(3) {
            0 | 1 => {
                let tag = if rng.below(2) == 0 { "req" } else { "reply" };
                let k = rng.below(4);
                let m = l.send(from, to, &format!("{{{tag}, {k}}}"));
                inbox[to].push(m);
            }
            _ => {
                if !inbox[from].is_empty() {
                    let i = rng.below(inbox[from].len() as u64) as usize;
                    let m = inbox[from].remove(i);
                    l.recv(from, m);
                }
            }
        }
    }
    l
}

const PROPS: &str = "
answered: every receive(S, C, {req, K}) is followed by send(S, C, {reply, K}).
answered_any: every receive(S, C, {req, _}) is followed by send(S, C, _).
asked: every receive(C, S, {reply, K}) is preceded by send(C, S, {req, K}).
asked_any: every receive(C, S, {reply, _}) is preceded by send(C, S, _).
later_req: every send(_, _, {reply, _}) is followed by receive(_, _, {req, _}).
earlier_req: every receive(_, _, {reply, 1}) is preceded by send(_, _, {req, _}).
from_p1: every send(<P.1>, _, _) is followed by receive(<P>, _).
p1_caused: every receive(<P>, {req, _}) is preceded by send(<P.1>, _, {req, 0}).
";

#[test]
fn fast_paths_agree_with_the_engine() {
    let dir = Scratch::new("fast");
    let spec = trace_check::load_str(Path::new("t.tspec"), PROPS).unwrap();
    let mut violated = 0;
    for seed in 1..=40 {
        let path = dir.path(&format!("r{seed}.trace"));
        random_log(seed).write(&path);
        let reader = LogReader::open(&path).unwrap();
        let run = |fast| {
            let opts = Options {
                detail: usize::MAX,
                fast,
            };
            let (_, v) = check_with(&spec, &reader, opts).unwrap();
            v.into_iter()
                .map(|v| {
                    // Every violation as described: words, bindings,
                    // related events and causal slice, not just its event.
                    let mut evs: Vec<_> = v
                        .violations
                        .iter()
                        .map(|x| (x.event, format!("{x:?}")))
                        .collect();
                    evs.sort();
                    (v.total, evs)
                })
                .collect::<Vec<_>>()
        };
        let (fast, slow) = (run(true), run(false));
        assert_eq!(fast, slow, "seed {seed}");
        violated += fast.iter().filter(|(n, _)| *n > 0).count();
    }
    // The random runs exercise both verdicts.
    assert!(violated > 10, "{violated}");
}

/// The verdicts, their violations described in full (causal slices
/// included), are the same on one thread and on several: slices are filled
/// one task per violation and the derivation they are ordered by is
/// rebuilt beside the evaluation.
#[test]
fn verdicts_do_not_depend_on_the_threads() {
    let dir = Scratch::new("threads");
    let spec = trace_check::load_str(Path::new("t.tspec"), PROPS).unwrap();
    let pools: Vec<_> = [1, 3]
        .map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .into();
    let mut sliced = 0;
    for seed in 1..=30 {
        let path = dir.path(&format!("t{seed}.trace"));
        random_log(seed).write(&path);
        let reader = LogReader::open(&path).unwrap();
        let opts = Options {
            detail: usize::MAX,
            fast: true,
        };
        let described: Vec<String> = pools
            .iter()
            .map(|pool| {
                let (_, v) = pool.install(|| check_with(&spec, &reader, opts)).unwrap();
                format!("{v:?}")
            })
            .collect();
        assert_eq!(described[0], described[1], "seed {seed}");
        let (_, v) = check_with(&spec, &reader, opts).unwrap();
        sliced += v
            .iter()
            .flat_map(|v| &v.violations)
            .filter(|x| {
                x.slice
                    .iter()
                    .any(|e| Some(e.proc) != x.event.map(|a| a.proc))
            })
            .count();
    }
    // Slices across processes are among them.
    assert!(sliced > 10, "{sliced}");
}
