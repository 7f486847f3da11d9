//! Saying what a file is: a trace log or not, and when not, what, in a few
//! words.

use crate::container::MAGIC;

/// Whether the file at `path` is a regular file that starts as a trace log
/// does (its magic bytes): for a command that must tell a log from the
/// other files it is given. A pipe or device is not looked into: what this
/// read would be lost to the command.
pub fn is_trace_log(path: &std::path::Path) -> bool {
    // `metadata` opens nothing: a FIFO is neither waited for nor read.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; MAGIC.len()];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == MAGIC)
}

/// A short description of what `data` looks like, for "not a trace log: ..." errors.
pub fn describe(data: &[u8]) -> String {
    let head = &data[..data.len().min(64)];
    if data.is_empty() {
        return "the file is empty".into();
    }
    if data.len() >= 4 && data[0] == MAGIC[0] && &data[1..4] == b"TRC" {
        return "it starts like a trace log, but its line-ending bytes were altered \
                (was it transferred in text mode?)"
            .into();
    }
    if data.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        return "a zstd-compressed file; decompress it first".into();
    }
    if data.starts_with(&[0x1F, 0x8B]) {
        return "a gzip-compressed file; decompress it first".into();
    }
    if data.starts_with(b"\x7FELF") {
        return "an ELF executable".into();
    }
    if data.starts_with(b"PK\x03\x04") {
        return "a zip archive".into();
    }
    if looks_like_trace_port(data) {
        return "an OTP dbg/ttb trace-port file (records <<0, Len:32, term_to_binary(Term)>>)"
            .into();
    }
    if let Ok(text) = std::str::from_utf8(head) {
        let t = text.trim_start();
        if t.starts_with("{trace_")
            || t.starts_with("{call,")
            || t.starts_with("{spawn,")
            || t.starts_with("{send,")
            || t.starts_with("{'receive',")
            || t.starts_with("call ")
            || (t.starts_with('{') && t.contains(",spawn,"))
        {
            return "a CauDEr text log; convert its directory with `trace import --cauder DIR -o run.trace`".into();
        }
        if t.starts_with("-module(") || t.starts_with('%') {
            return "Erlang source text; record it with `trace record`".into();
        }
        if text.chars().all(|c| !c.is_control() || c.is_whitespace()) {
            return "a text file".into();
        }
    }
    let shown: Vec<String> = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("unknown data starting with bytes {}", shown.join(" "))
}

/// A dbg trace-port file: `0`, a 32-bit big-endian length, then an ETF term
/// (version byte 131), and the length fits the file.
fn looks_like_trace_port(data: &[u8]) -> bool {
    if data.len() < 6 || data[0] != 0 {
        return false;
    }
    let len = u32::from_be_bytes([data[1], data[2], data[3], data[4]]) as usize;
    data[5] == 131 && len >= 2 && len <= data.len() - 5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_common_foreign_files() {
        assert!(describe(b"").contains("empty"));
        assert!(describe(b"{trace_spawn,nonode@nohost,216,true}.\n").contains("CauDEr"));
        assert!(describe(b"{74,spawn,78}\n").contains("CauDEr"));
        assert!(describe(b"call \"barber:main()\"\n").contains("CauDEr"));
        assert!(describe(&[0, 0, 0, 0, 3, 131, 100, 0]).contains("trace-port"));
        assert!(describe(&[0x28, 0xB5, 0x2F, 0xFD, 0]).contains("zstd"));
        assert!(describe(b"\x89TRC\n\x1a\n\x01\x00").contains("text mode"));
        assert!(describe(b"-module(ping).\n").contains("Erlang source"));
        assert!(describe(b"hello world\n").contains("text file"));
        assert!(describe(&[0xde, 0xad, 0xbe, 0xef]).contains("de ad be ef"));
    }
}
