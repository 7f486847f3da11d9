//! Reading the golden data files under tests/data (format in tests/data/README.md).
#![allow(dead_code)]

use trace_term::{etf, Term};

pub fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Undoes the `\\` and `\n` escapes of the data files.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub fn term(hex: &str) -> Term {
    etf::decode(&unhex(hex)).unwrap_or_else(|e| panic!("decoding {hex}: {e}"))
}

/// One block of terms.txt.
#[derive(Default)]
pub struct TermCase {
    pub line: usize,
    pub etf: String,
    pub etf_default: String,
    pub etf_v0: String,
    pub w: String,
    /// (column, text)
    pub p: Vec<(usize, String)>,
    pub tp: Vec<(usize, String)>,
    /// (depth, text)
    pub big_p: Vec<(i64, String)>,
    pub big_w: Vec<(i64, String)>,
}

pub fn term_cases() -> Vec<TermCase> {
    let text = data("terms.txt");
    let mut cases = Vec::new();
    let mut cur = TermCase::default();
    for (i, line) in text.lines().enumerate() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let num_text = || {
            let (n, t) = rest.split_once(' ').unwrap_or((rest, ""));
            (n.parse::<i64>().expect("number"), unescape(t))
        };
        match key {
            "etf" => {
                cur.line = i + 1;
                cur.etf = rest.to_string()
            }
            "etf_default" => cur.etf_default = rest.to_string(),
            "etf_v0" => cur.etf_v0 = rest.to_string(),
            "w" => cur.w = unescape(rest),
            "p" => {
                let (n, t) = num_text();
                cur.p.push((n as usize, t))
            }
            "tp" => {
                let (n, t) = num_text();
                cur.tp.push((n as usize, t))
            }
            "P" => cur.big_p.push(num_text()),
            "W" => cur.big_w.push(num_text()),
            "end" => cases.push(std::mem::take(&mut cur)),
            _ => panic!("terms.txt:{}: unknown line {line:?}", i + 1),
        }
    }
    cases
}
