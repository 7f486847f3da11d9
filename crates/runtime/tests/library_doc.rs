//! `docs/library.md` lists every library function the engine provides; this
//! keeps the list true. The list is generated from the built-in table and
//! the prelude's exports: run with `UPDATE_DOCS=1` to rewrite it.

use std::collections::BTreeMap;
use std::path::Path;

const BEGIN: &str = "<!-- BEGIN generated list -->";
const END: &str = "<!-- END generated list -->";

/// `module -> [name/arity]` for everything callable from a program.
fn provided() -> BTreeMap<String, Vec<String>> {
    let dir = std::env::temp_dir().join(format!("trace-libdoc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("empty.erl");
    std::fs::write(&f, "-module(empty).\n-export([main/0]).\nmain() -> ok.\n").unwrap();
    let opts = trace_runtime::LoadOptions {
        whole_prelude: true,
        ..Default::default()
    };
    let loaded = trace_runtime::load(&[f], &opts).expect("an empty program loads");
    let _ = std::fs::remove_dir_all(&dir);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in trace_runtime::bif::registry().all() {
        // Operators as functions (erlang:'+'/2) are not what a reader looks
        // for, nor the engine's own helpers.
        if d.module.name() != "trace_prelude"
            && d.name
                .name()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            out.entry(d.module.name().to_string())
                .or_default()
                .push(format!("{}/{}", d.name.name(), d.arity));
        }
    }
    for (m, info) in &loaded.program.modules {
        if !info.prelude || m.name() == "trace_prelude" {
            continue;
        }
        for (f, a) in info.exports.keys() {
            out.entry(m.name().to_string())
                .or_default()
                .push(format!("{}/{}", f.name(), a));
        }
    }
    for v in out.values_mut() {
        v.sort();
        v.dedup();
    }
    out
}

fn generated() -> String {
    let mut s = String::new();
    for (m, fs) in provided() {
        s.push_str(&format!("\n### {m} ({})\n\n{}\n", fs.len(), fs.join(", ")));
    }
    s
}

#[test]
fn library_doc_lists_every_provided_function() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/library.md");
    let text = std::fs::read_to_string(&path).expect("docs/library.md");
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/library.md lacks the generated-list markers");
    };
    let want = format!(
        "{}{}\n{}",
        &text[..b + BEGIN.len()],
        generated(),
        &text[e..]
    );
    if text != want {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, want).unwrap();
            return;
        }
        panic!(
            "docs/library.md is out of date with the engine's library; \
             run `UPDATE_DOCS=1 cargo test -p trace-runtime --test library_doc`"
        );
    }
}
