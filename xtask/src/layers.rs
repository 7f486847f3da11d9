//! `cargo xtask layers`: the crates' dependency graph against the layers
//! CONTRIBUTING.md draws. A crate may depend only on crates of lower layers
//! (dev-dependencies aside: tests may use anything), so data flows one way
//! and siblings (the recorder and the replayer) never reach into each other.
//! A new crate must be given a layer here before it passes.

use serde_json::Value;
use std::process::{Command, ExitCode};

/// Each layer, bottom first.
const LAYERS: &[&[&str]] = &[
    // Opening the files a user names, with bounds on special files.
    &["trace-input"],
    // Values and source text; test support.
    &["trace-term", "trace-syntax", "trace-fixtures"],
    // The log format, term patterns, and the engine: three independent bases.
    &["trace-format", "trace-pattern", "trace-runtime"],
    // The one vocabulary between the engine and the log.
    &["trace-capture"],
    // Record and replay sessions, siblings over the capture layer.
    &["trace-recorder", "trace-replayer"],
    // The causal model of a log.
    &["trace-causal"],
    // Analyses over the causal model.
    &["trace-diff", "trace-check"],
    // Drivers: searching for failing runs, causal-consistent replay,
    // pictures of a run, reversible debugging.
    &[
        "trace-search",
        "trace-causal-replay",
        "trace-view",
        "trace-debug",
    ],
    // Systematic exploration, over the search's idea of a failure;
    // declarative debugging, over replay, check and diff.
    &["trace-explore", "trace-why"],
    // The command line.
    &["trace-cli"],
];

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

pub fn main(_args: &[String]) -> ExitCode {
    let out = match Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
    {
        Ok(o) if o.status.success() => o.stdout,
        Ok(o) => {
            eprintln!(
                "layers: cargo metadata failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("layers: cannot run cargo metadata: {e}");
            return ExitCode::from(2);
        }
    };
    let meta: Value = match serde_json::from_slice(&out) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("layers: cargo metadata printed something else: {e}");
            return ExitCode::from(2);
        }
    };
    let problems = check(&meta);
    if problems.is_empty() {
        println!(
            "layers: every arrow between crates goes down ({} layers)",
            LAYERS.len()
        );
        ExitCode::SUCCESS
    } else {
        for p in &problems {
            eprintln!("layers: {p}");
        }
        ExitCode::FAILURE
    }
}

/// Every arrow that does not go down, and every crate without a layer.
fn check(meta: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    let ours: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    for p in &packages {
        let name = p["name"].as_str().unwrap_or("?");
        if name == "xtask" {
            continue;
        }
        let Some(mine) = layer_of(name) else {
            problems.push(format!(
                "{name} has no layer: add it to LAYERS in xtask/src/layers.rs and to CONTRIBUTING.md"
            ));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let dep = d["name"].as_str().unwrap_or("?");
            let normal = d["kind"].is_null();
            if !normal || !ours.contains(&dep) {
                continue;
            }
            match layer_of(dep) {
                Some(theirs) if theirs < mine => {}
                Some(theirs) => problems.push(format!(
                    "{name} (layer {mine}) depends on {dep} (layer {theirs}): an arrow that {}",
                    if theirs == mine {
                        "joins two siblings"
                    } else {
                        "runs back up"
                    }
                )),
                None => {} // reported as a crate without a layer
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(deps: &[(&str, &str, Option<&str>)]) -> Value {
        let mut packages = std::collections::BTreeMap::<&str, Vec<Value>>::new();
        for (from, to, kind) in deps {
            packages.entry(from).or_default();
            packages.entry(to).or_default();
            packages
                .get_mut(from)
                .unwrap()
                .push(serde_json::json!({"name": to, "kind": kind}));
        }
        let list: Vec<Value> = packages
            .into_iter()
            .map(|(n, d)| serde_json::json!({"name": n, "dependencies": d}))
            .collect();
        serde_json::json!({ "packages": list })
    }

    #[test]
    fn arrows_down_pass_and_others_are_named() {
        assert!(check(&meta(&[("trace-recorder", "trace-capture", None)])).is_empty());
        // Tests may use anything.
        assert!(check(&meta(&[("trace-format", "trace-capture", Some("dev"))])).is_empty());
        let up = check(&meta(&[("trace-recorder", "trace-check", None)]));
        assert!(up[0].contains("runs back up"), "{up:?}");
        let side = check(&meta(&[("trace-replayer", "trace-recorder", None)]));
        assert!(side[0].contains("joins two siblings"), "{side:?}");
        let new = check(&meta(&[("trace-new", "trace-term", None)]));
        assert!(new[0].contains("trace-new has no layer"), "{new:?}");
    }
}
