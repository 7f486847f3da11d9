//! Properties: the ETF decoder survives any input, encode/decode round-trips,
//! and the printers accept every term.

use proptest::prelude::*;
use trace_term::fun::{Fun, NO_CODE};
use trace_term::map::MapRepr;
use trace_term::pretty::{pretty, PrettyOptions};
use trace_term::print::write_term;
use trace_term::{etf, format, phash, Arc, Atom, BigInt, Bitstring, Pid, Ref, Term};

fn atom() -> impl Strategy<Value = Atom> {
    prop_oneof![
        prop::sample::select(vec!["ok", "error", "if", "Quoted", "", "é", "α", "a b"]),
        "[a-z][a-zA-Z0-9_@]{0,8}".prop_map(|s| Box::leak(s.into_boxed_str()) as &str),
    ]
    .prop_map(Atom::intern)
}

fn leaf() -> impl Strategy<Value = Term> {
    prop_oneof![
        any::<i64>().prop_map(Term::Int),
        (0i64..300).prop_map(Term::Int),
        (any::<i64>(), any::<u64>(), 0u32..3).prop_map(|(hi, lo, shift)| {
            let b = (BigInt::from(hi) << (64 * shift)) * BigInt::from(lo) + 1;
            Term::from_bigint(b)
        }),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Term::Float),
        atom().prop_map(Term::Atom),
        Just(Term::Nil),
        prop::collection::vec(any::<u8>(), 0..20).prop_map(|b| Term::binary(&b)),
        (prop::collection::vec(any::<u8>(), 1..6), 1usize..8).prop_map(|(b, bits)| {
            let len = (b.len() - 1) * 8 + bits;
            Term::Binary(Arc::new(Bitstring::from_bits(b, len)))
        }),
        any::<u64>().prop_map(|n| Term::Pid(Pid(n))),
        any::<u64>().prop_map(|n| Term::Ref(Ref(n))),
        (atom(), atom(), 0u32..256).prop_map(|(module, function, arity)| {
            Term::Fun(Arc::new(Fun::External {
                module,
                function,
                arity,
            }))
        }),
        "[ -~]{0,12}".prop_map(|s| Term::string(&s)),
    ]
}

fn term() -> impl Strategy<Value = Term> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Term::list),
            (prop::collection::vec(inner.clone(), 1..4), inner.clone())
                .prop_map(|(v, t)| Term::list_with_tail(v, t)),
            prop::collection::vec(inner.clone(), 0..6).prop_map(Term::tuple),
            prop::collection::vec((inner.clone(), inner.clone()), 0..5)
                .prop_map(|kv| Term::Map(Arc::new(MapRepr::from_pairs(kv)))),
            (
                atom(),
                any::<u32>(),
                any::<u32>(),
                0u32..256,
                prop::collection::vec(inner, 0..3)
            )
                .prop_map(|(module, index, uniq, arity, env)| {
                    Term::Fun(Arc::new(Fun::Closure {
                        module,
                        index,
                        uniq,
                        arity,
                        code: NO_CODE,
                        env: env.into_boxed_slice(),
                    }))
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn encode_then_decode_gives_the_term_back(t in term()) {
        let bytes = etf::to_vec(&t);
        let back = etf::decode(&bytes).expect("decoding our own encoding");
        prop_assert!(back == t, "{:?} came back as {:?}", t, back);
        prop_assert_eq!(&etf::to_vec(&back), &bytes);
        // The prefix decoder stops at the term's end.
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[1, 2, 3]);
        let (again, used) = etf::decode_prefix(&longer).unwrap();
        prop_assert_eq!(used, bytes.len());
        prop_assert!(again == t);
    }

    #[test]
    fn decoding_random_bytes_never_panics(mut bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = etf::decode(&bytes);
        if !bytes.is_empty() {
            bytes[0] = 131;
        }
        let _ = etf::decode(&bytes);
    }

    #[test]
    fn decoding_mutated_encodings_never_panics(
        t in term(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let mut bytes = etf::to_vec(&t);
        for (at, byte, kind) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.truncate(i),
                _ => bytes.insert(i, byte),
            }
        }
        if let Err(e) = etf::decode(&bytes) {
            prop_assert!(e.offset <= bytes.len(), "{}", e);
        }
    }

    #[test]
    fn printers_accept_every_term(t in term(), col in 1i64..100, depth in -1i64..8) {
        let w = write_term(&t);
        prop_assert!(!w.is_empty());
        let opts = PrettyOptions { column: col, depth, ..PrettyOptions::default() };
        let p = pretty(&t, &opts);
        prop_assert!(!p.is_empty());
        // With no line length ~p never breaks a line it did not have to.
        let flat = pretty(&t, &PrettyOptions { line_length: 0, ..PrettyOptions::default() });
        prop_assert_eq!(flat.matches('\n').count(), w.matches('\n').count());
        let _ = format::format("~p ~w ~P~n", &[t.clone(), t.clone(), t.clone(), Term::Int(3)]).unwrap();
        let _ = phash::phash2(&t);
    }
}

/// Scalars as `term_to_binary(T, [{minor_version, 2}])` spells them, written
/// out field by field from the format's description: the oracle for the
/// encoder's fast paths (cached atom encodings, pids and references written
/// as one array).
fn spelled_scalar(t: &Term, out: &mut Vec<u8>) {
    let node = |out: &mut Vec<u8>| {
        out.extend_from_slice(&[119, 13]);
        out.extend_from_slice(b"nonode@nohost");
    };
    match t {
        Term::Int(i @ 0..=255) => out.extend_from_slice(&[97, *i as u8]),
        Term::Int(i) if i32::try_from(*i).is_ok() => {
            out.push(98);
            out.extend_from_slice(&(*i as i32).to_be_bytes());
        }
        Term::Int(i) => {
            let mag = i.unsigned_abs().to_le_bytes();
            let n = mag.iter().rposition(|&b| b != 0).unwrap() + 1;
            out.extend_from_slice(&[110, n as u8, u8::from(*i < 0)]);
            out.extend_from_slice(&mag[..n]);
        }
        Term::Atom(a) => {
            let name = a.name().as_bytes();
            if name.len() < 256 {
                out.extend_from_slice(&[119, name.len() as u8]);
            } else {
                out.push(118);
                out.extend_from_slice(&(name.len() as u16).to_be_bytes());
            }
            out.extend_from_slice(name);
        }
        Term::Nil => out.push(106),
        Term::Pid(p) => {
            out.push(88);
            node(out);
            out.extend_from_slice(&(p.0 as u32).to_be_bytes());
            out.extend_from_slice(&((p.0 >> 32) as u32).to_be_bytes());
            out.extend_from_slice(&0u32.to_be_bytes());
        }
        Term::Ref(r) => {
            out.extend_from_slice(&[90, 0, 3]);
            node(out);
            out.extend_from_slice(&0u32.to_be_bytes());
            for w in [r.counter(), r.creator() as u32, 0] {
                out.extend_from_slice(&w.to_be_bytes());
            }
        }
        _ => unreachable!("not a scalar: {t:?}"),
    }
}

fn scalar() -> impl Strategy<Value = Term> {
    prop_oneof![
        any::<i64>().prop_map(Term::Int),
        (-300i64..300).prop_map(Term::Int),
        atom().prop_map(Term::Atom),
        // Atoms past 255 bytes take the two-byte length.
        (1usize..255).prop_map(|n| Term::Atom(Atom::intern(&"é".repeat(n)))),
        Just(Term::Nil),
        any::<u64>().prop_map(|n| Term::Pid(Pid(n))),
        any::<u64>().prop_map(|n| Term::Ref(Ref(n))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn scalars_encode_as_the_format_spells_them(elems in prop::collection::vec(scalar(), 0..8)) {
        for t in &elems {
            let mut want = vec![131];
            spelled_scalar(t, &mut want);
            prop_assert_eq!(etf::to_vec(t), want, "{:?}", t);
        }
        let mut want = vec![131, 104, elems.len() as u8];
        for t in &elems {
            spelled_scalar(t, &mut want);
        }
        prop_assert_eq!(etf::to_vec(&Term::tuple(elems)), want);
    }
}
