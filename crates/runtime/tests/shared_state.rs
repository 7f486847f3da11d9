//! Shared state (ETS tables, atomics, counters, persistent_term) as a
//! nondeterministic choice: an Observer sees every operation with its
//! position among the object's operations, and a Director that names
//! positions drives a lookup-then-insert race (on a table, and on an
//! atomics array) to each of its outcomes, makes a table's owner end only
//! in its turn, and finds named tables by
//! identity whatever order names were bound in; `--chaos` preempts
//! processes before table operations, so the race shows on one thread.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use trace_runtime::hooks::{
    Access, Director, Divergence, Event, Native, NondetBif, Observer, OutputTurn, ProcessDirector,
    ProcessObserver, ProcessStart, ReceiveChoice, SharedId, SharedKind, SharedOp, SharedTurn,
};
use trace_runtime::process::SignalId;
use trace_runtime::{Chaos, LoadOptions, RunOptions, Runtime};
use trace_term::{Pid, Term};

/// A process by its spawn path: `[]` is main, `[2]` its second child.
type Path = Vec<u32>;

/// The pid the Director gives the process at `path` (main keeps its own),
/// so that objects can be named by their creator before it exists.
fn pid_of(path: &[u32], main: Pid) -> Pid {
    if path.is_empty() {
        return main;
    }
    Pid(1000 + path.iter().fold(0, |acc, &i| acc * 32 + u64::from(i)))
}

/// One forced turn: native, the `seq`-th operation of the `serial`-th
/// table (or atomics array) made by the process at `creator`, or "finds
/// no table".
#[derive(Clone, Debug)]
enum Turn {
    Now,
    Table(&'static [u32], u32, u64),
    Atomics(&'static [u32], u32, u64),
    Missing,
}

/// For some processes, the turns of their first shared-state operations
/// (later ones, and other processes, go natively).
#[derive(Clone, Default)]
struct Turns(HashMap<Path, Vec<Turn>>);

impl Turns {
    fn new(t: &[(&[u32], &[Turn])]) -> Turns {
        Turns(t.iter().map(|(p, ts)| (p.to_vec(), ts.to_vec())).collect())
    }
}

struct Forcing {
    path: Path,
    main: Pid,
    children: u32,
    turns: Vec<Turn>,
    /// Operations done so far: the next turn's index. `shared_turn` only
    /// peeks (it is asked again when the process had to wait).
    done: usize,
}

impl Director for Turns {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessDirector>> {
        let main = if p.path.is_empty() {
            p.pid
        } else {
            Pid(trace_runtime::sched::FIRST_PID)
        };
        Some(Box::new(Forcing {
            path: p.path.clone(),
            main,
            children: 0,
            turns: self.0.get(&p.path).cloned().unwrap_or_default(),
            done: 0,
        }))
    }
}

impl ProcessDirector for Forcing {
    fn signal_due(&mut self) -> Option<SignalId> {
        None
    }
    fn receive(&mut self) -> Result<ReceiveChoice, Divergence> {
        Ok(ReceiveChoice::Native)
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
    fn shared_turn(&mut self, _: &'static str, _: &Term) -> Result<SharedTurn, Divergence> {
        Ok(match self.turns.get(self.done) {
            None | Some(Turn::Now) => SharedTurn::Now,
            Some(Turn::Missing) => SharedTurn::Missing,
            Some(Turn::Table(creator, serial, seq)) => SharedTurn::At {
                object: SharedId {
                    kind: SharedKind::Table,
                    creator: pid_of(creator, self.main),
                    serial: *serial,
                },
                seq: *seq,
                name: None,
            },
            Some(Turn::Atomics(creator, serial, seq)) => SharedTurn::At {
                object: SharedId {
                    kind: SharedKind::Atomics,
                    creator: pid_of(creator, self.main),
                    serial: *serial,
                },
                seq: *seq,
                name: None,
            },
        })
    }
    fn shared_event(&mut self, _: &SharedOp<'_>) -> Result<(), Divergence> {
        self.done += 1;
        Ok(())
    }
}

/// Runs `src` under `turns` on several thread counts, run after run, and
/// checks it always prints `want`.
fn drive(name: &str, src: &str, turns: Turns, want: &str) {
    let file = common::program(name, src);
    for schedulers in [1, 2, 4] {
        for _ in 0..10 {
            let (outcome, out) = common::run_with(
                &file,
                schedulers,
                Arc::new(Native) as Arc<dyn Observer>,
                Arc::new(turns.clone()),
            );
            assert_eq!(
                outcome.verdict(),
                trace_runtime::Verdict::Ok,
                "{name}: {outcome:?}"
            );
            assert_eq!(
                String::from_utf8_lossy(&out),
                want,
                "{name}, --schedulers {schedulers}"
            );
        }
    }
}

/// Two processes each read a counter and write it back plus one: run one
/// after the other the counter ends at 2; interleaved, an update is lost.
const RACE: &str = r#"
-module(race).
-export([main/0]).
main() ->
    T = ets:new(counter, [public]),
    ets:insert(T, {n, 0}),
    Me = self(),
    [spawn(fun() -> bump(T), Me ! done end) || _ <- [1, 2]],
    [receive done -> ok end || _ <- [1, 2]],
    io:format("~p~n", [ets:lookup_element(T, n, 2)]).
bump(T) ->
    [{n, V}] = ets:lookup(T, n),
    ets:insert(T, {n, V + 1}).
"#;

const MAIN: &[u32] = &[];

#[test]
fn a_lookup_then_insert_race_is_driven_to_both_outcomes() {
    // The table is main's first (new is its operation 0, the insert 1);
    // P.1 and P.2 each look up, then insert.
    let at = |seq| Turn::Table(MAIN, 0, seq);
    let one_then_other = Turns::new(&[(&[1], &[at(2), at(3)]), (&[2], &[at(4), at(5)])]);
    drive("race", RACE, one_then_other, "2\n");
    let interleaved = Turns::new(&[(&[1], &[at(2), at(4)]), (&[2], &[at(3), at(5)])]);
    drive("race", RACE, interleaved, "1\n");
    let other_first = Turns::new(&[(&[1], &[at(4), at(5)]), (&[2], &[at(2), at(3)])]);
    drive("race", RACE, other_first, "2\n");
}

/// The same race on an atomics array: a get, then a put of one more.
const ATOMIC_RACE: &str = r#"
-module(atomic_race).
-export([main/0]).
main() ->
    A = atomics:new(1, []),
    Me = self(),
    [spawn(fun() -> atomics:put(A, 1, atomics:get(A, 1) + 1), Me ! done end) || _ <- [1, 2]],
    [receive done -> ok end || _ <- [1, 2]],
    io:format("~p~n", [atomics:get(A, 1)]).
"#;

#[test]
fn a_race_on_an_atomics_array_is_driven_to_both_outcomes() {
    // The array is main's first (new is its operation 0).
    let at = |seq| Turn::Atomics(MAIN, 0, seq);
    let serial = Turns::new(&[(&[1], &[at(1), at(2)]), (&[2], &[at(3), at(4)])]);
    drive("atomic_race", ATOMIC_RACE, serial, "2\n");
    let interleaved = Turns::new(&[(&[1], &[at(1), at(3)]), (&[2], &[at(2), at(4)])]);
    drive("atomic_race", ATOMIC_RACE, interleaved, "1\n");
}

/// The owner hands its table over in a message and ends at once; main
/// writes to the table. Natively the write usually comes too late.
const OWNER_ENDS: &str = r#"
-module(owner_ends).
-export([main/0]).
main() ->
    Me = self(),
    spawn(fun() -> T = ets:new(t, [public]), ets:insert(T, {a, 1}), Me ! {tab, T} end),
    receive {tab, T} -> ok end,
    R = try ets:insert(T, {b, 2}) catch error:E -> E end,
    io:format("~p~n", [R]).
"#;

#[test]
fn an_owner_ends_in_its_turn() {
    // P.1 makes the table (0) and inserts (1); its end deletes it ("exit").
    let at = |seq| Turn::Table(&[1], 0, seq);
    let write_first = Turns::new(&[(&[1], &[Turn::Now, Turn::Now, at(3)]), (MAIN, &[at(2)])]);
    drive("owner_ends", OWNER_ENDS, write_first, "true\n");
    let end_first = Turns::new(&[
        (&[1], &[Turn::Now, Turn::Now, at(2)]),
        (MAIN, &[Turn::Missing]),
    ]);
    drive("owner_ends", OWNER_ENDS, end_first, "badarg\n");
}

/// Two processes make a table of the same name, use it by name, and
/// delete it: natively the second `new` fails while the first table lives.
/// A replay names each table by identity, so whichever process runs first,
/// each finds its own table and nobody waits for a name.
const SAME_NAME: &str = r#"
-module(same_name).
-export([main/0]).
main() ->
    Me = self(),
    [spawn(fun() -> Me ! {I, use(I)} end) || I <- [1, 2]],
    R = [receive {I, V} -> V end || I <- [1, 2]],
    io:format("~p~n", [R]).
use(I) ->
    ets:new(shared_name, [named_table, public]),
    ets:insert(shared_name, {who, I}),
    [{who, W}] = ets:lookup(shared_name, who),
    ets:delete(shared_name),
    W.
"#;

/// P.2 makes a table of the name P.1 then renames its own table to,
/// while P.2's still lives: natively the rename fails. A replay in which
/// the rename happened (P.2's table had given the name up in the recorded
/// run) places it in its turn, and the name goes to P.1's table.
const RENAMED: &str = r#"
-module(renamed).
-export([main/0]).
main() ->
    Me = self(),
    Two = spawn(fun() -> two(Me) end),
    receive made -> ok end,
    spawn(fun() -> Me ! {1, one()} end),
    One = receive {1, V} -> V end,
    Two ! go,
    receive {2, W} -> io:format("~p~n", [[One, W]]) end.
one() ->
    ets:new(first_name, [named_table, public]),
    ets:rename(first_name, taken_name),
    ets:insert(taken_name, {who, 1}),
    ets:lookup_element(taken_name, who, 2).
two(Main) ->
    ets:new(taken_name, [named_table, public]),
    ets:insert(taken_name, {who, 2}),
    Main ! made,
    receive go -> ok end,
    W = ets:lookup_element(taken_name, who, 2),
    ets:delete(taken_name),
    Main ! {2, W}.
"#;

#[test]
fn named_tables_are_found_by_identity_whatever_the_order_of_names() {
    let own = |p: &'static [u32]| -> Vec<Turn> { (0..4).map(|s| Turn::Table(p, 0, s)).collect() };
    let (one, two) = (own(&[1]), own(&[2]));
    drive(
        "same_name",
        SAME_NAME,
        Turns::new(&[(&[1], &one), (&[2], &two)]),
        "[1,2]\n",
    );
    drive(
        "renamed",
        RENAMED,
        Turns::new(&[(&[1], &one), (&[2], &two)]),
        "[1,2]\n",
    );
}

/// What an Observer saw: each process's shared-state operations.
type Ops = Arc<Mutex<HashMap<Path, Vec<Seen>>>>;

#[derive(Clone, Debug)]
struct Seen {
    object: Option<SharedId>,
    name: Option<String>,
    access: Access,
    function: &'static str,
    key: Option<String>,
    seq: u64,
}

#[derive(Default)]
struct Collect(Ops);

struct CollectOf {
    path: Path,
    ops: Ops,
}

impl Observer for Collect {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(CollectOf {
            path: p.path.clone(),
            ops: self.0.clone(),
        }))
    }
}

impl ProcessObserver for CollectOf {
    fn event(&mut self, _: &Event<'_>) {}
    fn shared(&mut self, op: &SharedOp<'_>) {
        self.ops
            .lock()
            .unwrap()
            .entry(self.path.clone())
            .or_default()
            .push(Seen {
                object: op.object,
                name: op.name.map(|n| n.name().to_string()),
                access: op.access,
                function: op.function,
                key: op.key.map(trace_term::write_term),
                seq: op.seq,
            });
    }
}

const MANY: &str = r#"
-module(many).
-export([main/0]).
main() ->
    ets:new(scores, [named_table, public, ordered_set]),
    A = atomics:new(1, []),
    persistent_term:put({many, a}, A),
    Me = self(),
    [spawn(fun() -> work(I), Me ! done end) || I <- [1, 2, 3]],
    [receive done -> ok end || _ <- [1, 2, 3]],
    io:format("~p ~p~n", [ets:info(scores, size), atomics:get(A, 1)]),
    catch ets:lookup(nosuch, k),
    ets:delete(scores).
work(I) ->
    A = persistent_term:get({many, a}),
    [begin
         ets:update_counter(scores, K, 1, {K, 0}),
         atomics:add(A, 1, 1)
     end || K <- lists:seq(1, 20)],
    ets:insert(scores, {{I}, done}).
"#;

#[test]
fn the_observer_sees_every_operation_with_its_position() {
    let file = common::program("many", MANY);
    for schedulers in [1, 4] {
        let ops = Ops::default();
        let (outcome, out) = common::run_with(
            &file,
            schedulers,
            Arc::new(Collect(ops.clone())),
            Arc::new(Native),
        );
        assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
        assert_eq!(String::from_utf8_lossy(&out), "23 60\n");
        let ops = ops.lock().unwrap();
        // Per object, the positions of all processes' operations are
        // 0, 1, 2, ... with none twice; each process's increase.
        let mut by_object: HashMap<SharedId, Vec<u64>> = HashMap::new();
        for seen in ops.values() {
            let mut last: HashMap<SharedId, u64> = HashMap::new();
            for s in seen {
                let Some(id) = s.object else { continue };
                if let Some(prev) = last.insert(id, s.seq) {
                    assert!(s.seq > prev, "{s:?} after position {prev}");
                }
                by_object.entry(id).or_default().push(s.seq);
            }
        }
        assert_eq!(by_object.len(), 3, "a table, an array, persistent_term");
        for (id, mut seqs) in by_object {
            seqs.sort();
            assert!(
                seqs.iter().enumerate().all(|(i, s)| *s == i as u64),
                "{id:?}: {seqs:?}"
            );
        }
        let main = &ops[&vec![]];
        let table = main[0].object.expect("new made a table");
        assert_eq!(table.kind, SharedKind::Table);
        assert_eq!(
            (main[0].function, main[0].access, main[0].seq),
            ("new", Access::Create, 0)
        );
        assert_eq!(main[0].name.as_deref(), Some("scores"));
        let missing = main
            .iter()
            .find(|s| s.object.is_none())
            .expect("the lookup of nosuch");
        assert_eq!(
            (missing.function, missing.key.as_deref()),
            ("lookup", Some("k"))
        );
        let last = main.last().unwrap();
        assert_eq!(
            (last.function, last.access, last.object),
            ("delete", Access::Delete, Some(table))
        );
        let child = &ops[&vec![2]];
        assert_eq!(child[0].object, Some(SharedId::PERSISTENT_TERM));
        assert_eq!(
            (child[0].function, child[0].key.as_deref()),
            ("get", Some("{many,a}"))
        );
        let counter = child
            .iter()
            .find(|s| s.function == "update_counter")
            .unwrap();
        assert_eq!(
            (counter.access, counter.key.as_deref()),
            (Access::ReadWrite, Some("1"))
        );
        assert!(child.iter().any(
            |s| s.function == "add" && s.object.is_some_and(|o| o.kind == SharedKind::Atomics)
        ));
    }
}

/// On one scheduler thread a process runs its lookup and insert in one
/// slice, so the race never shows natively; `--chaos` preempts before
/// table operations and finds the lost update within a few seeds.
#[test]
fn chaos_preempts_before_table_operations() {
    let file = common::program("race", RACE);
    let loaded = trace_runtime::load(std::slice::from_ref(&file), &LoadOptions::default()).unwrap();
    let (entry, _) = trace_runtime::entry(&loaded, None).unwrap();
    let run = |chaos: Option<Chaos>| {
        let out = common::Captured::default();
        let opts = RunOptions {
            schedulers: 1,
            reports: false,
            chaos,
            ..RunOptions::default()
        };
        let rt = Runtime::new(
            loaded.program.clone(),
            opts,
            Arc::new(Native),
            Arc::new(Native),
            Box::new(out.clone()),
        );
        assert_eq!(
            trace_runtime::run(rt, entry.clone()).verdict(),
            trace_runtime::Verdict::Ok
        );
        let bytes = out.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    };
    assert_eq!(run(None), "2\n");
    let outcomes: std::collections::HashSet<String> =
        (0..64).map(|seed| run(Some(Chaos { seed }))).collect();
    assert!(
        outcomes.contains("1\n"),
        "no seed lost an update: {outcomes:?}"
    );
    assert!(outcomes.contains("2\n"), "{outcomes:?}");
}
