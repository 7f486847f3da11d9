//! What OTP has, so that a call the engine cannot run is reported as
//! unsupported (naming it) rather than failing as `undef` at run time.
//!
//! `data/otp_exports.txt` lists `module function arity` for the modules of
//! Erlang/OTP 25 a program is likely to call; it was produced by erl with
//! `M:module_info(exports)` (see `cargo xtask fixtures --otp-exports`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

static EXPORTS: LazyLock<HashMap<&'static str, HashSet<(&'static str, u32)>>> =
    LazyLock::new(|| {
        let mut m: HashMap<&str, HashSet<(&str, u32)>> = HashMap::new();
        for line in include_str!("../data/otp_exports.txt").lines() {
            let mut it = line.split(' ');
            if let (Some(md), Some(f), Some(a)) = (it.next(), it.next(), it.next()) {
                if let Ok(a) = a.parse() {
                    m.entry(md).or_default().insert((f, a));
                }
            }
        }
        m
    });

/// The BIFs OTP 25 auto-imports (`erl_internal:bif/2`), from
/// `data/otp_autoimports.txt` (`function arity` per line).
static AUTOIMPORTS: LazyLock<HashSet<(&'static str, u32)>> = LazyLock::new(|| {
    include_str!("../data/otp_autoimports.txt")
        .lines()
        .filter_map(|l| {
            let (f, a) = l.split_once(' ')?;
            Some((f, a.parse().ok()?))
        })
        .collect()
});

/// True if OTP 25 auto-imports `erlang:f/a` (a local call to it is a BIF call).
pub fn is_autoimported(f: &str, a: u32) -> bool {
    AUTOIMPORTS.contains(&(f, a))
}

/// True if OTP 25 has module `m`.
pub fn has_module(m: &str) -> bool {
    EXPORTS.contains_key(m)
}

/// True if OTP 25 exports `m:f/a`.
pub fn has_function(m: &str, f: &str, a: u32) -> bool {
    EXPORTS.get(m).is_some_and(|s| s.contains(&(f, a)))
}
