//! Every fixture, recorded and then replayed with the program: the replay
//! prints the same standard output byte for byte and ends the same way, on
//! one scheduler thread and on several.

mod common;
use common::{quiet, record_from, replay_of};
use trace_fixtures::Scratch;
use trace_replayer::ReplayConfig;
use trace_runtime::{LoadOptions, RunOptions};

#[test]
fn every_fixture_replays_to_the_same_output_and_end() {
    let dir = Scratch::new("replay-fixtures");
    for f in trace_fixtures::discover(&trace_fixtures::root()) {
        record_and_replay(&f, &dir.0, None);
    }
}

/// Scheduling-dependent fixtures, recorded under chaos scheduling with
/// several seeds: whichever outcome each recording got, its replay gets too.
#[test]
fn chaos_recorded_runs_of_nondeterministic_fixtures_replay() {
    let dir = Scratch::new("replay-chaos");
    for f in trace_fixtures::discover(&trace_fixtures::root()) {
        if !f.expected().unwrap().nondeterministic {
            continue;
        }
        for seed in 1..=6 {
            record_and_replay(&f, &dir.0, Some(seed));
        }
    }
}

/// OTP applications (the `otp` group), recorded under chaos scheduling:
/// supervisors restarting servers, calls through aliases, time-outs; each
/// recording replays to the same output and end.
#[test]
fn chaos_recorded_runs_of_otp_fixtures_replay() {
    chaos_record_group("otp/", "replay-chaos-otp");
}

/// Programs that keep their state in ETS tables, atomics, counters and
/// persistent terms (the `ets` group), recorded under chaos scheduling:
/// every order of table operations the chaos picked is replayed.
#[test]
fn chaos_recorded_runs_of_shared_state_fixtures_replay() {
    chaos_record_group("ets/", "replay-chaos-ets");
}

fn chaos_record_group(group: &str, scratch: &str) {
    let dir = Scratch::new(scratch);
    for f in trace_fixtures::discover(&trace_fixtures::root()) {
        if !f.id.starts_with(group) {
            continue;
        }
        for seed in 1..=3 {
            record_and_replay(&f, &dir.0, Some(seed));
        }
    }
}

fn record_and_replay(f: &trace_fixtures::Fixture, dir: &std::path::Path, chaos: Option<u64>) {
    {
        let opts = LoadOptions {
            entry: f.entry.clone(),
            ..LoadOptions::default()
        };
        let loaded = trace_runtime::load(&f.files, &opts).unwrap();
        let log = dir.join(format!("{}.trace", f.module));
        let run = RunOptions {
            chaos: chaos.map(|seed| trace_runtime::Chaos { seed }),
            ..quiet(if chaos.is_some() { 1 } else { 2 })
        };
        let (rec, recorded) = record_from(&loaded, f.entry.as_deref(), &log, run);
        // A run that called erlang:halt/1 is replayed as `trace replay`
        // replays it: every process held where its log ends.
        let holds = rec.outcome.halted.then(|| {
            let r = trace_format::LogReader::open(&log).unwrap();
            let mut holds = vec![0u64; r.processes().len()];
            for p in r.processes() {
                holds[p.id.0 as usize] = p.events;
            }
            holds
        });
        for schedulers in [1, 4] {
            let cfg = ReplayConfig {
                run: quiet(schedulers),
                force: false,
                holds: holds.clone(),
            };
            let (r, replayed) = replay_of(&loaded, &log, &cfg).unwrap();
            let id = format!("{} (chaos {chaos:?}) on {schedulers} schedulers", f.id);
            assert!(
                r.outcome.divergence.is_none(),
                "{id}: {:?}",
                r.outcome.divergence
            );
            assert!(r.stuck.is_empty(), "{id}: {:?}", r.stuck);
            assert!(r.never_started.is_empty(), "{id}: {:?}", r.never_started);
            assert_eq!(
                String::from_utf8_lossy(&replayed),
                String::from_utf8_lossy(&recorded),
                "{id}: stdout"
            );
            assert_eq!(r.verdict(), rec.verdict(), "{id}: status");
            let crashes = |o: &trace_runtime::RunOutcome| {
                let mut v: Vec<String> = o
                    .crashes
                    .iter()
                    .map(|c| format!("{} {}", c.pid, trace_term::write_term(&c.reason)))
                    .collect();
                v.sort();
                v
            };
            assert_eq!(crashes(&r.outcome), crashes(&rec.outcome), "{id}: crashes");
            let blocked = |o: &trace_runtime::RunOutcome| {
                let mut v: Vec<String> = o
                    .blocked
                    .iter()
                    .map(|b| format!("{} {}:{}", b.pid, b.file, b.line))
                    .collect();
                v.sort();
                v
            };
            // A halted recording lists no process left waiting; its replay
            // holds them all on purpose.
            if holds.is_none() {
                assert_eq!(blocked(&r.outcome), blocked(&rec.outcome), "{id}: deadlock");
            }
        }
    }
}
