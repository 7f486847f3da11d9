//! The consistent cut of a log cut short: every event kept has all its
//! causes kept.

mod common;

use common::*;
use trace_causal::Model;

#[test]
fn a_complete_consistent_log_is_its_own_cut() {
    let dir = Scratch::new("cut-whole");
    for seed in 1..20 {
        let procs = random_run(seed, 300);
        let r = open(&dir, &procs);
        let model = Model::build(&r);
        let all: Vec<u64> = model.processes().iter().map(|p| p.events).collect();
        assert_eq!(trace_causal::consistent_cut(&model), all, "seed {seed}");
    }
}

#[test]
fn receipts_of_lost_sends_and_their_consequences_are_cut() {
    let dir = Scratch::new("cut-lost");
    // P spawns P.1 and P.2; P.1's log kept a receipt of P:1 whose send was
    // lost with P's last block; P.1 then sent to P.2, which received it.
    let procs = vec![
        proc(0, None, vec![spawn(1), spawn(2), send(1)]),
        proc(1, Some(0), vec![recv(0, 0), recv(0, 1), send(2)]),
        proc(2, Some(0), vec![recv(1, 0), exit()]),
    ];
    let r = open_with(&dir, &procs, false, Ending::Interrupted);
    let model = Model::build(&r);
    // P keeps everything; P.1 stops before the receipt of P:1, so its send
    // to P.2 goes, and P.2 keeps nothing after it.
    assert_eq!(trace_causal::consistent_cut(&model), vec![3, 1, 0]);
}

#[test]
fn a_child_whose_spawn_was_lost_is_cut_entirely() {
    let dir = Scratch::new("cut-spawn");
    let procs = vec![
        proc(0, None, vec![spawn(1)]),
        proc(1, Some(0), vec![spawn(2), send(0)]),
        proc(2, Some(1), vec![exit()]),
    ];
    let mut procs = procs;
    // P.1's spawn of P.2 is lost: cut P.1's log to nothing after it.
    procs[1].events.truncate(0);
    let r = open_with(&dir, &procs, false, Ending::Interrupted);
    let model = Model::build(&r);
    assert_eq!(trace_causal::consistent_cut(&model), vec![1, 0, 0]);
}
