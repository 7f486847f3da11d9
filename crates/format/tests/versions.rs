//! What binds a log together across versions: logs of versions 1 and 2
//! still read as they did, and blocks another recording wrote into the same file are
//! told apart instead of read as part of this run.

mod common;
use common::{ring, write, TempPath};
use std::path::Path;
use trace_format::text::Printer;
use trace_format::{LogReader, ProcId};

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn dump(r: &LogReader) -> String {
    let names = trace_capture::Names::of_table(r.processes());
    let printer = Printer {
        header: r.header(),
        names: &names,
    };
    let mut out = String::new();
    for p in r.processes() {
        r.for_each_event_of(p.id, |i, t, e| {
            out.push_str(&printer.line(p.id, i, t, &e));
            out.push('\n');
        })
        .unwrap();
    }
    out
}

#[test]
fn logs_of_versions_1_and_2_still_read_as_they_did() {
    for (name, version) in [
        ("v1_cfib", 1),
        ("v1_links_monitors", 1),
        ("v2_cfib", 2),
        ("v2_bank_accounts", 2),
    ] {
        let r = LogReader::open(data(&format!("{name}.trace"))).unwrap();
        assert_eq!(r.version(), version, "{name}");
        assert!(r.warnings().is_empty(), "{name}: {:?}", r.warnings());
        assert_eq!(r.header().run_id == 0, version == 1);
        let path = data(&format!("{name}.dump"));
        // The dumps of version 2 were written by this test from logs the
        // version-2 writer made, and checked against its `trace dump`.
        if std::env::var_os("UPDATE_VERSION_DUMPS").is_some() && version == 2 {
            std::fs::write(&path, dump(&r)).unwrap();
        }
        let want = std::fs::read_to_string(path).unwrap();
        assert_eq!(dump(&r), want, "{name}");
    }
}

#[test]
fn blocks_of_another_recording_in_the_same_file_are_left_out() {
    // Two recordings of different runs; the second's blocks appended to the
    // first's header and blocks, as two writers of one file leave it.
    let (a, b) = (TempPath::new("a.trace"), TempPath::new("b.trace"));
    write(&a.0, &ring(3, 2, true), Default::default());
    write(&b.0, &ring(4, 1, true), Default::default());
    let ra = LogReader::open(&a.0).unwrap();
    let rb = LogReader::open(&b.0).unwrap();
    assert_eq!(ra.version(), 3);
    assert_ne!(ra.header().run_id, rb.header().run_id);
    let bytes_a = std::fs::read(&a.0).unwrap();
    let bytes_b = std::fs::read(&b.0).unwrap();
    let records = |r: &LogReader| -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = r
            .blocks()
            .map(|b| {
                (
                    b.offset as usize,
                    (b.body_offset + b.stored_len as u64) as usize,
                )
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let blocks = |r: &LogReader, bytes: &[u8]| -> Vec<u8> {
        let mut v = Vec::new();
        for (at, end) in records(r) {
            v.extend_from_slice(&bytes[at..end]);
        }
        v
    };
    // No footer: the hybrid is read by scanning.
    let head_len = ra.blocks().map(|b| b.offset).min().unwrap() as usize;
    let mut hybrid = bytes_a[..head_len].to_vec();
    hybrid.extend(blocks(&ra, &bytes_a));
    hybrid.extend(blocks(&rb, &bytes_b));
    let r = LogReader::from_bytes(hybrid).unwrap();
    let foreign: Vec<_> = r
        .warnings()
        .iter()
        .filter(|w| w.to_string().contains("belongs to another recording"))
        .collect();
    assert_eq!(foreign.len(), records(&rb).len(), "{:?}", r.warnings());
    // Each is damage at the offset where the foreign block starts.
    let spliced_at = head_len + blocks(&ra, &bytes_a).len();
    assert!(foreign.iter().all(|w| w.is_damage()));
    assert_eq!(foreign[0].offset, Some(spliced_at as u64));
    // What is read is the first run alone.
    assert_eq!(r.processes().len(), ra.processes().len());
    assert_eq!(dump(&r), dump(&ra));
    assert!(r.process(ProcId(0)).is_some());
}
