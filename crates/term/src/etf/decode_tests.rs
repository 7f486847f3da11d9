//! Decoding hostile and legacy input.

use super::*;
use crate::term::{Pid, Term};

#[test]
fn errors_name_the_offset() {
    let e = decode(&[131, 108, 0, 0, 0, 1, 97]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "byte 7: expected a small integer (1 bytes), only 0 left"
    );
    let e = decode(&[131, 104, 2, 97]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "byte 1: a tuple of 2 elements cannot fit in the 1 bytes left"
    );
    let e = decode(&[131, 80, 0, 0, 0, 1]).unwrap_err();
    assert_eq!(e.offset, 1);
    let e = decode(&[130]).unwrap_err();
    assert!(e
        .to_string()
        .starts_with("byte 0: expected the version byte 131"));
}

fn node() -> Vec<u8> {
    let mut b = vec![SMALL_ATOM_EXT, 13];
    b.extend_from_slice(b"nonode@nohost");
    b
}

#[test]
fn legacy_pids_references_and_atoms_decode() {
    let pid = [&[131, PID_EXT][..], &node(), &[0, 0, 0, 83, 0, 0, 0, 0, 0]].concat();
    assert!(decode(&pid).unwrap() == Term::Pid(Pid(83)));
    let r = [
        &[131, NEW_REFERENCE_EXT, 0, 3][..],
        &node(),
        &[0, 0, 0, 0, 7, 0, 0, 0, 83, 0, 0, 0, 0],
    ]
    .concat();
    assert_eq!(
        crate::print::write_term(&decode(&r).unwrap()),
        "#Ref<0.0.83.7>"
    );
    let latin1 = [131, SMALL_ATOM_EXT, 4, b'c', b'a', b'f', 0xE9];
    let got = decode(&latin1);
    assert!(
        matches!(&got, Ok(a) if *a == Term::atom("caf\u{e9}")),
        "{got:?}"
    );
}

#[test]
fn distribution_forms_are_refused_by_name() {
    for (bytes, what) in [
        (&[131, COMPRESSED, 0, 0, 0, 9, 1][..], "compressed"),
        (&[131, ATOM_CACHE_REF, 0][..], "atom cache"),
        (&[131, DIST_HEADER, 0][..], "distribution header"),
    ] {
        let e = decode(bytes).unwrap_err();
        assert_eq!(e.offset, 1);
        assert!(e.message.contains(what), "{e}");
    }
}

#[test]
fn huge_declared_lengths_are_rejected_before_allocating() {
    let e = decode(&[131, 108, 0xff, 0xff, 0xff, 0xff, 106]).unwrap_err();
    assert_eq!(e.offset, 1);
    let e = decode(&[131, 116, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
    assert_eq!(e.offset, 1);
}

#[test]
fn nesting_is_capped() {
    let mut b = vec![131];
    for _ in 0..MAX_DEPTH + 1 {
        b.extend_from_slice(&[104, 1]);
    }
    b.push(106);
    let e = decode(&b).unwrap_err();
    assert!(e.message.contains("nested deeper"), "{e}");
    // The deepest accepted term decodes, prints and drops on a test thread's stack.
    let ok = [&[131u8][..], &b[3..]].concat();
    let t = decode(&ok).unwrap();
    assert_eq!(crate::print::write_term(&t).len(), 2 * MAX_DEPTH + 2);
}
