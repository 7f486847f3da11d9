//! The fuzzer's seeds and cases. Seeds are made once per run: fixtures
//! recorded into logs (with and without payloads, deliveries, output,
//! timestamps), CauDEr exports of them, the fixtures' sources, a
//! decompression bomb, a named pipe with no writer. A case is one input of
//! one kind (a log, a source, a specification, a CauDEr directory, a special
//! file), mutated or generated, and the command that reads it.

use super::gen;
use super::mutate;
use super::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A recorded log and the program it came from.
pub struct SeedLog {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub program: Vec<PathBuf>,
}

pub struct Seeds {
    logs: Vec<SeedLog>,
    /// A decompression bomb (no program).
    bomb: SeedLog,
    cauder: Vec<PathBuf>,
    /// (module, text) of every fixture source.
    sources: Vec<(String, Vec<u8>)>,
    fifo: PathBuf,
}

/// Specifications the mutations start from (docs/spec-language.md).
const SPECS: &[&str] = &[
    "order: every receive(<P.1>, N) when is_integer(N)\n    is preceded by receive(<P.1>, {_, _}).\nno_deadlock.\n",
    "answered: every receive(S, C, {req, Ref}) is followed by send(S, C, {reply, Ref}).\n",
    "'no crash': never exit(_, R) when R =/= normal.\nall_received.\n",
    "chain: every send(_, _, _) then receive(_, _) is followed by exit(_).\n",
    "scoped: after spawn(<P>, C) until exit(C) at most 3 send(C, _, _).\n-registered(server, <P.1>).\n",
    "b: between send(P, _, a) and exit(P) eventually receive(P, _).\nno_abnormal_exit.\n",
];

impl Seeds {
    pub fn make(bin: &Path, dir: &Path) -> Result<Seeds, String> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let fixtures = trace_fixtures::discover(&trace_fixtures::root());
        let sources = fixtures
            .iter()
            .filter(|f| f.files.len() == 1)
            .filter_map(|f| Some((f.module.clone(), std::fs::read(&f.files[0]).ok()?)))
            .collect();
        let flags: [&[&str]; 3] = [
            &[],
            &["--deliveries", "--printed"],
            &["--timestamps", "--no-payloads"],
        ];
        let mut logs = Vec::new();
        let programs = fixtures
            .iter()
            .filter(|f| f.id.starts_with("conc/") || f.id.starts_with("papers/"));
        for (i, f) in programs.take(12).enumerate() {
            let path = dir.join(format!("{i}.trace"));
            let st = Command::new(bin)
                .args(["record", "-q", "--schedulers", "2", "-o"])
                .arg(&path)
                .args(flags[i % 3])
                .args(&f.files)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| e.to_string())?;
            // A fixture that crashes or deadlocks by design still leaves its log.
            if let (Some(0 | 1 | 5), Ok(bytes)) = (st.code(), std::fs::read(&path)) {
                logs.push(SeedLog {
                    path,
                    bytes,
                    program: f.files.clone(),
                });
            }
        }
        if logs.is_empty() {
            return Err("no fixture could be recorded".into());
        }
        let mut cauder = Vec::new();
        for (i, l) in logs.iter().enumerate().take(4) {
            let d = dir.join(format!("cauder{i}"));
            let ok = Command::new(bin)
                .args(["export", "--cauder"])
                .arg(&d)
                .arg(&l.path)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                cauder.push(d);
            }
        }
        let bomb = dir.join("bomb.trace");
        gen::bomb(&bomb, 4 << 20).map_err(|e| format!("bomb: {e}"))?;
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().ok_or("path")?).map_err(|e| e.to_string())?;
        // SAFETY: a valid C string; mkfifo only creates a file.
        if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
            return Err(format!("mkfifo: {}", std::io::Error::last_os_error()));
        }
        Ok(Seeds {
            logs,
            bomb: SeedLog {
                bytes: std::fs::read(&bomb).map_err(|e| e.to_string())?,
                path: bomb,
                program: Vec::new(),
            },
            cauder,
            sources,
            fifo,
        })
    }
}

/// One case: its kind and the arguments of `trace` (run in the case's
/// directory, which holds its inputs).
pub struct Case {
    pub kind: &'static str,
    pub args: Vec<String>,
}

/// Makes case number `n` in `dir`.
pub fn make(rng: &mut Rng, s: &Seeds, dir: &Path, n: u64) -> Case {
    match rng.below(20) {
        0..=7 => log(rng, s, dir),
        8..=12 => source(rng, s, dir),
        13..=15 => spec(rng, s, dir),
        16..=17 if !s.cauder.is_empty() => cauder(rng, s, dir),
        18 => special(s, n),
        _ => log(rng, s, dir),
    }
}

fn arg(p: &Path) -> String {
    p.display().to_string()
}

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| x.to_string()).collect()
}

/// A mutated log (now and then the bomb, whole or mutated) under a command
/// that reads logs.
fn log(rng: &mut Rng, s: &Seeds, dir: &Path) -> Case {
    let seed = if rng.one_in(8) {
        &s.bomb
    } else {
        rng.pick(&s.logs)
    };
    let mut b = seed.bytes.clone();
    if !rng.one_in(10) {
        let other = &rng.pick(&s.logs).bytes;
        mutate::bytes(rng, &mut b, other);
    }
    std::fs::write(dir.join("in.trace"), &b).expect("write case");
    let other = arg(&rng.pick(&s.logs).path);
    let mut args = match rng.below(9) {
        0 => strings(&["dump", "in.trace"]),
        1 => strings(&["stats", "in.trace"]),
        2 => strings(&["replay", "in.trace"]),
        3 => strings(&["replay", "--summary", "in.trace"]),
        4 => strings(&["check", "--builtin", "no_deadlock", "in.trace"]),
        5 => {
            std::fs::write(dir.join("s.tspec"), rng.pick(SPECS)).expect("write case");
            strings(&["check", "--spec", "s.tspec", "in.trace"])
        }
        6 => vec!["diff".into(), "in.trace".into(), other],
        7 => strings(&["export", "--cauder", "out", "in.trace"]),
        _ => {
            let mut a = strings(&["replay", "--force", "--schedulers", "2"]);
            a.extend(seed.program.iter().map(|p| arg(p)));
            a.push("in.trace".into());
            a
        }
    };
    if rng.one_in(4) {
        args.insert(1, "--threads".into());
        args.insert(2, "1".into());
    }
    Case {
        kind: "log",
        args: fix_threads(args),
    }
}

/// `--threads` only where the command has it.
fn fix_threads(mut args: Vec<String>) -> Vec<String> {
    let takes = matches!(args[0].as_str(), "check")
        || (args[0] == "replay" && !args.iter().any(|a| a.ends_with(".erl")));
    if !takes && args.get(1).is_some_and(|a| a == "--threads") {
        args.drain(1..3);
    }
    args
}

/// A fixture's source mutated, or a generated one, compiled (the entry is a
/// function no source has, so nothing runs after the front end and compiler).
fn source(rng: &mut Rng, s: &Seeds, dir: &Path) -> Case {
    let (module, mut b) = if rng.one_in(3) {
        let m = "fuzzed".to_string();
        (m.clone(), gen::source(rng, &m))
    } else {
        rng.pick(&s.sources).clone()
    };
    if !rng.one_in(5) {
        mutate::text(rng, &mut b);
    }
    let file = format!("{module}.erl");
    std::fs::write(dir.join(&file), &b).expect("write case");
    Case {
        kind: "source",
        args: vec![
            "run".into(),
            file,
            "--entry".into(),
            format!("{module}:trace_fuzz_absent()"),
        ],
    }
}

/// A specification, mutated or generated, checked against a seed log; now
/// and then through `record --until-failure --check`.
fn spec(rng: &mut Rng, s: &Seeds, dir: &Path) -> Case {
    let mut b = if rng.one_in(3) {
        gen::spec(rng)
    } else {
        rng.pick(SPECS).as_bytes().to_vec()
    };
    if !rng.one_in(4) {
        mutate::text(rng, &mut b);
    }
    std::fs::write(dir.join("s.tspec"), &b).expect("write case");
    let seed = rng.pick(&s.logs);
    let args = if rng.one_in(10) {
        let mut a = strings(&[
            "record",
            "-q",
            "--until-failure",
            "--attempts",
            "1",
            "--check",
            "s.tspec",
            "-o",
            "r.trace",
        ]);
        a.extend(seed.program.iter().map(|p| arg(p)));
        a
    } else {
        vec![
            "check".into(),
            "--spec".into(),
            "s.tspec".into(),
            arg(&seed.path),
        ]
    };
    Case { kind: "spec", args }
}

/// A seed's CauDEr directory with one file mutated (a line dropped or
/// repeated, a token inserted, the final dot gone), sometimes with a stray
/// file or a process log of an unknown pid, imported.
fn cauder(rng: &mut Rng, s: &Seeds, dir: &Path) -> Case {
    let from = rng.pick(&s.cauder);
    let to = dir.join("c");
    std::fs::create_dir_all(&to).expect("case directory");
    let mut files: Vec<PathBuf> = std::fs::read_dir(from)
        .expect("seed directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let victim = rng.below(files.len().max(1));
    for (i, f) in files.iter().enumerate() {
        let mut b = std::fs::read(f).unwrap_or_default();
        if i == victim {
            match rng.below(3) {
                0 => {
                    while b
                        .last()
                        .is_some_and(|c| c.is_ascii_whitespace() || *c == b'.')
                    {
                        b.pop();
                    }
                }
                1 => mutate::bytes(rng, &mut b, &[]),
                _ => mutate::text(rng, &mut b),
            }
        }
        std::fs::write(to.join(f.file_name().expect("a file")), &b).expect("write case");
    }
    match rng.below(4) {
        0 => std::fs::write(to.join("trace_abc.log"), "{send,1}.\n").expect("write case"),
        1 => std::fs::write(to.join("trace_999.log"), "{spawn,{1000,[]}}.\n{send,7}.\n")
            .expect("write case"),
        _ => {}
    }
    Case {
        kind: "cauder",
        args: strings(&["import", "--cauder", "c", "-o", "out.trace"]),
    }
}

/// A special file in place of a log, a source or a specification (the
/// `n`-th of a fixed list, so that a run covers them all).
fn special(s: &Seeds, n: u64) -> Case {
    let fifo = arg(&s.fifo);
    let log = arg(&s.logs[0].path);
    let prog: Vec<String> = s.logs[0].program.iter().map(|p| arg(p)).collect();
    let lists: Vec<Vec<String>> = ["/dev/zero", "/dev/urandom", fifo.as_str()]
        .iter()
        .flat_map(|f| {
            let f = f.to_string();
            let mut with_prog = strings(&["replay", "--force"]);
            with_prog.extend(prog.iter().cloned());
            with_prog.push(f.clone());
            vec![
                vec!["dump".into(), f.clone()],
                vec!["stats".into(), f.clone()],
                vec!["replay".into(), f.clone()],
                vec![
                    "check".into(),
                    "--builtin".into(),
                    "no_deadlock".into(),
                    f.clone(),
                ],
                vec!["diff".into(), f.clone(), log.clone()],
                with_prog,
                vec!["run".into(), f.clone()],
                vec!["check".into(), "--spec".into(), f.clone(), log.clone()],
            ]
        })
        .collect();
    Case {
        kind: "special",
        args: lists[n as usize % lists.len()].clone(),
    }
}
