//! `trace view`, `check --html`, `diff --html` and `trace export
//! --perfetto/--shiviz/--csv` run as a user runs them. The pages' script
//! is checked in a browser by `cargo xtask view`; here, what the command
//! writes: one file that needs nothing else, with the run's data in it.

mod common;
use common::{program, s, text, trace, Scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Records `tests/programs/NAME` on one scheduler into `dir`.
fn record(dir: &Scratch, name: &str, extra: &[&str]) -> PathBuf {
    let log = dir.path(&format!("{}.trace", name.trim_end_matches(".erl")));
    let prog = program(name);
    let mut args = vec!["record", s(&prog), "-o", s(&log), "--schedulers", "1"];
    args.extend_from_slice(extra);
    let out = trace(&args);
    assert!(log.exists(), "{}", text(&out.stderr));
    log
}

/// The data a page holds.
fn page_data(html: &Path) -> Value {
    let page = std::fs::read_to_string(html).unwrap();
    let start = page
        .find(r#"<script type="application/json" id="trace-data">"#)
        .unwrap();
    let data = &page[start..];
    let data = &data[data.find('>').unwrap() + 1..data.find("</script>").unwrap()];
    serde_json::from_str(data).unwrap()
}

/// Nothing in the page comes from elsewhere.
fn assert_self_contained(html: &Path) {
    let page = std::fs::read_to_string(html).unwrap();
    for needle in [
        "http://",
        "https://",
        "<script src",
        "<link",
        "@import",
        "url(",
    ] {
        assert!(!page.contains(needle), "{}: {needle}", html.display());
    }
}

#[test]
fn view_writes_one_page_beside_the_log() {
    let dir = Scratch::new("view-page");
    let log = record(&dir, "dining.erl", &["--deliveries"]);
    let out = trace(&["view", s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = log.with_extension("html");
    assert!(text(&out.stdout).starts_with(&format!("wrote {} (", html.display())));
    assert_self_contained(&html);
    let data = page_data(&html);
    let run = &data["runs"][0];
    let procs = run["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "process")
        .count();
    let dump = text(&trace(&["dump", s(&log), "--json"]).stdout);
    let names: std::collections::BTreeSet<String> = dump
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(procs, names.len());
    assert_eq!(
        run["events"]["t"].as_array().unwrap().len(),
        dump.lines().count()
    );
    // Each event's text is the one trace dump prints after its process and index.
    let first = dump.lines().next().unwrap();
    let first: Value = serde_json::from_str(first).unwrap();
    assert_eq!(run["lanes"][0]["name"], first["name"]);
}

#[test]
fn view_focuses_and_says_where_the_next_window_begins() {
    let dir = Scratch::new("view-focus");
    let log = record(&dir, "proxy_server.erl", &[]);
    let html = dir.path("w.html");
    let out = trace(&["view", s(&log), "-o", s(&html), "--window", "4"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(said.contains("(4 events,"), "{said}");
    let next = said
        .split("--from '")
        .nth(1)
        .unwrap()
        .trim_end()
        .trim_end_matches('\'');
    let out = trace(&[
        "view",
        s(&log),
        "-o",
        s(&html),
        "--from",
        next,
        "--window",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let data = page_data(&html);
    let run = &data["runs"][0];
    let lane = run["events"]["l"][0].as_u64().unwrap() as usize;
    let first = format!(
        "{}#{}",
        run["lanes"][lane]["name"].as_str().unwrap(),
        run["events"]["i"][0]
    );
    assert_eq!(first, next);
    let out = trace(&["view", s(&log), "-o", s(&html), "--process", "P.1"]);
    assert_eq!(out.status.code(), Some(0));
    let lanes = page_data(&html)["runs"][0]["lanes"]
        .as_array()
        .unwrap()
        .clone();
    assert!(lanes.iter().all(|l| l["hidden"] == (l["name"] != "P.1")));
}

#[test]
fn view_refuses_what_names_nothing_and_writing_over_its_log() {
    let dir = Scratch::new("view-errors");
    let log = record(&dir, "race.erl", &[]);
    let out = trace(&["view", s(&log), "--until", "P.9#0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--until P.9#0: no process P.9"),
        "{}",
        text(&out.stderr)
    );
    let out = trace(&["view", s(&log), "--around", "send(P.1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = trace(&["view", s(&log), "-o", s(&log)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is an input"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        trace(&["dump", s(&log)]).status.success(),
        "the log is intact"
    );
    let out = trace(&["view", s(&dir.path("missing.trace"))]);
    assert_eq!(out.status.code(), Some(2));
    let out = trace(&["view", s(&log), "--window", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_and_diff_write_pages_with_their_findings() {
    let dir = Scratch::new("view-findings");
    let log = record(&dir, "dining.erl", &[]);
    let html = dir.path("check.html");
    let out = trace(&[
        "check",
        s(&log),
        "--builtin",
        "no_deadlock",
        "--html",
        s(&html),
    ]);
    assert!(
        text(&out.stderr).contains(&format!("wrote {}", html.display())),
        "{}",
        text(&out.stderr)
    );
    assert_self_contained(&html);
    let data = page_data(&html);
    assert!(data["report"].as_str().unwrap().contains("STATUS"));
    let violated = text(&out.stdout).contains("STATUS: Violated");
    assert_eq!(data["findings"].as_array().unwrap().is_empty(), !violated);
    // Two runs of a race that end differently.
    let a = record(&dir, "race.erl", &["--chaos", "--seed", "1"]);
    let b_log = dir.path("race-b.trace");
    let mut differ = false;
    for seed in 2..40 {
        trace(&[
            "record",
            s(&program("race.erl")),
            "-o",
            s(&b_log),
            "--schedulers",
            "1",
            "--chaos",
            "--seed",
            &seed.to_string(),
        ]);
        if trace(&["diff", s(&a), s(&b_log)]).status.code() == Some(1) {
            differ = true;
            break;
        }
    }
    assert!(differ, "no two runs of race.erl differ");
    let html = dir.path("diff.html");
    let out = trace(&["diff", s(&a), s(&b_log), "--html", s(&html)]);
    assert_eq!(out.status.code(), Some(1));
    assert_self_contained(&html);
    let data = page_data(&html);
    assert_eq!(data["runs"].as_array().unwrap().len(), 2);
    let roots = data["findings"].as_array().unwrap();
    assert!(!roots.is_empty());
    assert!(roots
        .iter()
        .all(|f| f["kind"] == "root" && !f["at"].as_array().unwrap().is_empty()));
}

#[test]
fn export_writes_perfetto_shiviz_and_csv() {
    let dir = Scratch::new("view-export");
    let log = record(&dir, "proxy_server.erl", &[]);
    let json = dir.path("run.json");
    let out = trace(&["export", "--perfetto", s(&json), s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["ph"] == "s"));
    let shiviz = dir.path("run.log");
    let out = trace(&["export", "--shiviz", s(&shiviz), s(&log)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout)
            .contains(r#"ShiViz parser regex: (?<host>\S+) "(?<event>.*)" (?<clock>\{.*\})"#),
        "{}",
        text(&out.stdout)
    );
    let events = text(&trace(&["dump", s(&log)]).stdout).lines().count();
    assert_eq!(
        std::fs::read_to_string(&shiviz).unwrap().lines().count(),
        events
    );
    let out = trace(&["export", "--csv", "-", s(&log)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).lines().count(), events + 1);
    assert!(
        text(&out.stderr).contains("exported"),
        "the summary goes to stderr when the data goes to stdout"
    );
    // One format, and only one.
    assert_eq!(trace(&["export", s(&log)]).status.code(), Some(2));
    assert_eq!(
        trace(&["export", "--csv", "-", "--shiviz", s(&shiviz), s(&log)])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        trace(&["export", "--csv", s(&log), s(&log)]).status.code(),
        Some(2)
    );
}

#[test]
fn view_help_has_examples() {
    let out = trace(&["view", "--help"]);
    let help = text(&out.stdout);
    assert!(
        help.contains("Examples:") && help.contains("--around"),
        "{help}"
    );
    let out = trace(&["export", "--help"]);
    assert!(text(&out.stdout).contains("--perfetto"));
}

#[test]
fn payloads_cannot_break_out_of_the_page() {
    let dir = Scratch::new("view-hostile");
    let prog = dir.write(
        "hostile.erl",
        "-module(hostile).\n-export([main/0]).\n\
         main() -> P = spawn(fun() -> receive _ -> ok end end),\n\
         P ! \"</script><script>alert(1)</script><!-- {{DATA}} {{SCRIPT}}\", ok.\n",
    );
    let log = dir.path("hostile.trace");
    trace(&["record", s(&prog), "-o", s(&log)]);
    let html = dir.path("hostile.html");
    assert_eq!(
        trace(&["view", s(&log), "-o", s(&html)]).status.code(),
        Some(0)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the page's own two scripts close"
    );
    assert_eq!(page.matches("<script").count(), 2);
    let data = page_data(&html);
    let texts = data["runs"][0]["events"]["t"].as_array().unwrap();
    assert!(texts.iter().any(|t| t
        .as_str()
        .unwrap()
        .contains("\"</script><script>alert(1)</script><!-- {{DATA}} {{SCRIPT}}\"")));
}
