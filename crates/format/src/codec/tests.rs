use super::*;
use crate::event::{
    Access, Dest, Event, MsgId, NondetKind, ObjectId, ObjectKind, Payload, ProcId, SignalEffect,
    SignalKind,
};
use proptest::prelude::*;

fn encode(own: ProcId, pid: u64, events: &[Event], times: Option<&[u64]>) -> Vec<u8> {
    let mut enc = BlockEncoder::new(own, pid);
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        enc.event(&mut out, e);
        if let Some(t) = times {
            enc.time(&mut out, t[i]);
        }
    }
    out
}

fn decode(
    own: ProcId,
    pid: u64,
    first_signal: u64,
    buf: &[u8],
    times: bool,
) -> Vec<(Event, Option<u64>)> {
    let mut d = BlockDecoder::new(buf, own, pid, first_signal, times);
    let mut v = Vec::new();
    while let Some(e) = d.next().unwrap() {
        v.push((e.to_owned(), d.time()));
    }
    v
}

fn m(sender: u32, index: u64) -> MsgId {
    MsgId {
        sender: ProcId(sender),
        index,
    }
}

fn p(b: &[u8]) -> Option<Payload> {
    Some(Payload(b.to_vec()))
}

fn every_kind() -> Vec<Event> {
    vec![
        Event::Spawn {
            child: ProcId(9),
            pid: 90,
            link: true,
            monitor: false,
        },
        Event::Spawn {
            child: ProcId(12),
            pid: 95,
            link: false,
            monitor: true,
        },
        Event::Send {
            to: Dest::Proc(ProcId(9)),
            payload: p(&[131, 100, 0, 2, b'h', b'i']),
        },
        Event::Send {
            to: Dest::Foreign(4000),
            payload: None,
        },
        Event::Send {
            to: Dest::Foreign(u64::MAX),
            payload: None,
        },
        Event::Send {
            to: Dest::Unknown,
            payload: None,
        },
        Event::Deliver { msg: m(9, 0) },
        Event::Receive { msg: m(9, 0) },
        Event::Receive { msg: m(9, 7) },
        Event::Timeout,
        Event::Signal {
            to: Dest::Proc(ProcId(9)),
            kind: SignalKind::Link,
        },
        Event::Signal {
            to: Dest::Proc(ProcId(12)),
            kind: SignalKind::Unlink,
        },
        Event::Signal {
            to: Dest::Proc(ProcId(12)),
            kind: SignalKind::Monitor,
        },
        Event::Signal {
            to: Dest::Proc(ProcId(12)),
            kind: SignalKind::Demonitor,
        },
        Event::Signal {
            to: Dest::Proc(ProcId(1)),
            kind: SignalKind::Exit {
                reason: p(&[131, 100, 0, 4, b'k', b'i', b'l', b'l']),
                linked: false,
            },
        },
        Event::Signal {
            to: Dest::Foreign(5),
            kind: SignalKind::Exit {
                reason: None,
                linked: true,
            },
        },
        Event::Signal {
            to: Dest::Proc(ProcId(1)),
            kind: SignalKind::Down { reason: None },
        },
        Event::Signal {
            to: Dest::Proc(ProcId(1)),
            kind: SignalKind::Down {
                reason: p(&[131, 106]),
            },
        },
        Event::SignalTaken {
            signal: m(9, 8),
            effect: SignalEffect::Converted,
        },
        Event::SignalTaken {
            signal: m(400, 3),
            effect: SignalEffect::Killed,
        },
        Event::Nondet {
            kind: NondetKind::Random,
            value: Payload(vec![131, 97, 4]),
        },
        Event::Nondet {
            kind: NondetKind::Other(65535),
            value: Payload(vec![]),
        },
        Event::Output {
            seq: 17,
            bytes: Some(b"hello\n".to_vec()),
        },
        Event::Output {
            seq: 18,
            bytes: None,
        },
        Event::Output {
            seq: 3,
            bytes: None,
        },
        Event::Exit {
            reason: p(&[131, 100, 0, 6, b'n', b'o', b'r', b'm', b'a', b'l']),
        },
        Event::Exit { reason: None },
        Event::Shared {
            object: Some(table(1, 0)),
            access: Access::Create,
            function: 0,
            seq: 0,
            key: None,
            name: p(&[131, 119, 5, b'c', b'a', b'c', b'h', b'e']),
        },
        Event::Shared {
            object: Some(table(1, 0)),
            access: Access::ReadWrite,
            function: 3,
            seq: 7,
            key: p(&[131, 97, 1]),
            name: None,
        },
        Event::Shared {
            object: None,
            access: Access::Read,
            function: 2,
            seq: 0,
            key: None,
            name: None,
        },
        Event::Shared {
            object: Some(ObjectId {
                kind: ObjectKind::PersistentTerm,
                creator: ProcId::UNKNOWN,
                serial: 0,
            }),
            access: Access::Write,
            function: 1,
            seq: 3,
            key: None,
            name: None,
        },
        Event::Blocked { stuck: false },
        Event::Blocked { stuck: true },
    ]
}

fn table(creator: u32, serial: u32) -> ObjectId {
    ObjectId {
        kind: ObjectKind::Table,
        creator: ProcId(creator),
        serial,
    }
}

#[test]
fn every_kind_round_trips_with_and_without_times() {
    let events = every_kind();
    let buf = encode(ProcId(3), 83, &events, None);
    let back: Vec<Event> = decode(ProcId(3), 83, 0, &buf, false)
        .into_iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(back, events);

    let times: Vec<u64> = (0..events.len() as u64)
        .map(|i| 1_000 + i * i * 977)
        .collect();
    let buf = encode(ProcId(3), 83, &events, Some(&times));
    let back = decode(ProcId(3), 83, 0, &buf, true);
    assert_eq!(back.iter().map(|x| x.0.clone()).collect::<Vec<_>>(), events);
    assert_eq!(back.iter().map(|x| x.1.unwrap()).collect::<Vec<_>>(), times);
}

#[test]
fn sends_and_signals_take_consecutive_indices_from_the_block_start() {
    let events = every_kind();
    let buf = encode(ProcId(3), 83, &events, None);
    let mut d = BlockDecoder::new(&buf, ProcId(3), 83, 100, false);
    let mut seen = Vec::new();
    while let Some(e) = d.next().unwrap() {
        match e {
            crate::view::EventRef::Send { msg, .. }
            | crate::view::EventRef::Signal { signal: msg, .. } => {
                assert_eq!(msg.sender, ProcId(3));
                seen.push(msg.index)
            }
            _ => {}
        }
    }
    let n = events.iter().filter(|e| e.sends_signal()).count() as u64;
    assert_eq!(seen, (100..100 + n).collect::<Vec<_>>());
}

#[test]
fn ping_pong_is_one_byte_per_event() {
    // Process 0 sends to 1 and receives 1's replies, 1000 times.
    let mut events = Vec::new();
    for k in 0..1000 {
        events.push(Event::Send {
            to: Dest::Proc(ProcId(1)),
            payload: None,
        });
        events.push(Event::Receive { msg: m(1, k) });
    }
    let buf = encode(ProcId(0), 80, &events, None);
    // The first send and receive name their peer explicitly (2 bytes each).
    assert_eq!(buf.len(), events.len() + 2);
}

#[test]
fn server_with_many_clients_stays_small() {
    // A server receiving round-robin from 100 clients, each sending only to it.
    let mut events = Vec::new();
    for round in 0..50u64 {
        for c in 1..=100u32 {
            events.push(Event::Receive { msg: m(c, round) });
            events.push(Event::Send {
                to: Dest::Proc(ProcId(c)),
                payload: None,
            });
        }
    }
    let buf = encode(ProcId(0), 80, &events, None);
    // 100 senders overflow the 31 slots, so every receive names its sender
    // (tag + 1-byte varint) but the side map still predicts the index: no delta.
    // Every send names its destination: tag + varint(c << 2), 1 byte below c = 32.
    let sends: usize = (1..=100).map(|c| if c < 32 { 2 } else { 3 }).sum();
    assert_eq!(buf.len(), 50 * (100 * 2 + sends));
    let back: Vec<Event> = decode(ProcId(0), 80, 0, &buf, false)
        .into_iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(back, events);
}

#[test]
fn malformed_bodies_are_errors_with_positions() {
    let cases: &[(&[u8], usize, &str)] = &[
        (&[tag(op::SEND, 0)], 0, "empty slot 0"),
        (&[tag(op::RECEIVE, 4)], 0, "empty slot 4"),
        (&[0xE0], 0, "filled shared object slot, found empty slot 0"),
        (&[tag(op::OTHER, 30)], 0, "reserved tag 0xde"),
        (
            &[tag(op::SEND_PAYLOAD, EXPLICIT), 0, 200, 1],
            2,
            "200 bytes",
        ),
        (&[tag(op::SEND, EXPLICIT), 0x80], 1, "end of the block"),
        (
            &[tag(op::SEND, EXPLICIT), 7],
            1,
            "destination code, found 7",
        ),
        (
            &[tag(op::OTHER, sub::NONDET), 0xff, 0xff, 0x7f],
            1,
            "built-in kind",
        ),
        // Explicit values must be new to their list: a listed one has a slot.
        (
            &[tag(op::SEND, EXPLICIT), 4, tag(op::SEND, EXPLICIT), 4],
            3,
            "destination not in the list, found one in slot 0",
        ),
        (
            &[tag(op::RECEIVE, EXPLICIT), 3, tag(op::RECEIVE, EXPLICIT), 3],
            3,
            "sender not in the list, found 3, which is in slot 0",
        ),
    ];
    for (buf, at, what) in cases {
        let mut d = BlockDecoder::new(buf, ProcId(0), 80, 0, false);
        let e = loop {
            match d.next() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("{buf:?} decoded"),
                Err(e) => break e,
            }
        };
        assert_eq!(e.at, *at, "{buf:?}: {e}");
        assert!(e.expected.contains(what), "{buf:?}: {e}");
    }
}

fn arb_payload() -> impl Strategy<Value = Payload> + Clone {
    proptest::collection::vec(any::<u8>(), 0..12).prop_map(Payload)
}

fn arb_dest() -> impl Strategy<Value = Dest> {
    prop_oneof![
        6 => (0u32..40).prop_map(|i| Dest::Proc(ProcId(i))),
        1 => any::<u64>().prop_map(Dest::Foreign),
        1 => Just(Dest::Unknown),
    ]
}

fn arb_msg() -> impl Strategy<Value = MsgId> {
    prop_oneof![
        4 => (0u32..40, 0u64..20).prop_map(|(s, i)| m(s, i)),
        1 => (any::<u32>(), any::<u64>()).prop_map(|(s, i)| m(s, i)),
    ]
}

fn arb_event() -> impl Strategy<Value = Event> {
    let reason = proptest::option::of(arb_payload());
    prop_oneof![
        1 => (any::<u32>(), any::<u64>(), any::<bool>(), any::<bool>()).prop_map(|(c, pid, link, monitor)| Event::Spawn {
            child: ProcId(c),
            pid,
            link,
            monitor
        }),
        4 => (arb_dest(), proptest::option::of(arb_payload())).prop_map(|(to, payload)| Event::Send { to, payload }),
        1 => arb_msg().prop_map(|msg| Event::Deliver { msg }),
        4 => arb_msg().prop_map(|msg| Event::Receive { msg }),
        1 => Just(Event::Timeout),
        1 => (arb_dest(), 0u8..6, reason.clone(), any::<bool>()).prop_map(|(to, k, reason, linked)| Event::Signal {
            to,
            kind: match k {
                0 => SignalKind::Link,
                1 => SignalKind::Unlink,
                2 => SignalKind::Monitor,
                3 => SignalKind::Demonitor,
                4 => SignalKind::Exit { reason, linked },
                _ => SignalKind::Down { reason },
            }
        }),
        1 => (arb_msg(), 0u8..4).prop_map(|(signal, e)| Event::SignalTaken {
            signal,
            effect: [SignalEffect::Applied, SignalEffect::Ignored, SignalEffect::Converted, SignalEffect::Killed][e as usize]
        }),
        1 => (0u64..30, arb_payload()).prop_map(|(k, value)| Event::Nondet {
            kind: nondet_kind(k).unwrap(),
            value
        }),
        1 => (any::<u64>(), proptest::option::of(proptest::collection::vec(any::<u8>(), 0..8)))
            .prop_map(|(seq, bytes)| Event::Output { seq, bytes }),
        1 => reason.prop_map(|reason| Event::Exit { reason }),
        3 => (proptest::option::of((0u32..6, 0u32..3, 0usize..4)), 0usize..6, 0u16..70, 0u64..40,
              proptest::option::of(arb_payload()), proptest::option::of(arb_payload()))
            .prop_map(|(o, a, function, seq, key, name)| Event::Shared {
                object: o.map(|(c, serial, k)| ObjectId { kind: ObjectKind::ALL[k], creator: ProcId(c), serial }),
                access: Access::ALL[a],
                function,
                seq: if o.is_some() { seq } else { 0 },
                key,
                name,
            }),
        1 => any::<bool>().prop_map(|stuck| Event::Blocked { stuck }),
    ]
}

proptest! {
    #[test]
    fn any_sequence_round_trips(
        own in 0u32..40,
        pid in any::<u64>(),
        events in proptest::collection::vec(arb_event(), 0..200),
    ) {
        let buf = encode(ProcId(own), pid, &events, None);
        let back: Vec<Event> = decode(ProcId(own), pid, 0, &buf, false).into_iter().map(|x| x.0).collect();
        prop_assert_eq!(back, events);
    }

    #[test]
    fn arbitrary_bytes_never_panic(buf in proptest::collection::vec(any::<u8>(), 0..300), times: bool) {
        let d = BlockDecoder::new(&buf, ProcId(1), 81, 0, times);
        let mut n = 0;
        for e in d {
            n += 1;
            if e.is_err() { break; }
        }
        // Every event consumes at least one byte.
        prop_assert!(n <= buf.len() + 1);
    }
}

proptest! {
    /// Sends with their payload written in place are byte for byte the sends
    /// of staged payloads, and an oversized one is a send without payload.
    #[test]
    fn sends_written_in_place_match_staged_ones(
        sends in proptest::collection::vec((arb_dest(), 0usize..400, any::<u8>()), 0..40),
        max in 100usize..300,
    ) {
        let (mut staged, mut in_place) = (BlockEncoder::new(ProcId(1), 81), BlockEncoder::new(ProcId(1), 81));
        let (mut want, mut got) = (Vec::new(), Vec::new());
        for (to, len, byte) in sends {
            let payload = vec![byte; len];
            staged.send(&mut want, to, (len <= max).then_some(&payload[..]));
            let kept = in_place.send_with(&mut got, to, max, |out| out.extend_from_slice(&payload));
            prop_assert_eq!(kept, len <= max);
            prop_assert_eq!(&got, &want);
        }
    }
    /// So are exits with their reason written in place.
    #[test]
    fn exits_written_in_place_match_staged_ones(len in 0usize..400, byte: u8, max in 100usize..300) {
        let (mut staged, mut in_place) = (BlockEncoder::new(ProcId(1), 81), BlockEncoder::new(ProcId(1), 81));
        let (mut want, mut got) = (vec![5u8], vec![5u8]);
        let reason = vec![byte; len];
        staged.exit(&mut want, (len <= max).then_some(&reason[..]));
        let kept = in_place.exit_with(&mut got, max, |out| out.extend_from_slice(&reason));
        prop_assert_eq!(kept, len <= max);
        prop_assert_eq!(got, want);
    }
}

proptest! {
    /// An encoder reset after other blocks writes what a new one writes.
    #[test]
    fn a_reset_encoder_encodes_as_a_new_one(
        before in proptest::collection::vec(arb_event(), 0..150),
        events in proptest::collection::vec(arb_event(), 0..150),
        own in 0u32..40,
        pid in any::<u64>(),
    ) {
        let mut enc = BlockEncoder::new(ProcId(3), 99);
        let mut scratch = Vec::new();
        for e in &before {
            enc.event(&mut scratch, e);
            enc.time(&mut scratch, 1 << 40);
        }
        enc.reset(ProcId(own), pid);
        let times: Vec<u64> = (0..events.len() as u64).map(|i| i * 7).collect();
        let mut got = Vec::new();
        for (e, &t) in events.iter().zip(&times) {
            enc.event(&mut got, e);
            enc.time(&mut got, t);
        }
        prop_assert_eq!(got, encode(ProcId(own), pid, &events, Some(&times)));
    }
}

#[test]
fn version_1_blocks_hold_no_event_of_version_2() {
    let kinds = every_kind();
    let at = kinds
        .iter()
        .position(|e| matches!(e, Event::Shared { .. }))
        .unwrap();
    let shared = encode(ProcId(0), 80, &kinds[at..at + 1], None);
    assert_eq!(shared[0] >> 5, op::SHARED);
    let mut d = BlockDecoder::new(&shared, ProcId(0), 80, 0, false).with_version(1);
    assert!(d.next().unwrap_err().expected.contains("reserved tag"));
    let blocked = encode(ProcId(0), 80, &[Event::Blocked { stuck: true }], None);
    let mut d = BlockDecoder::new(&blocked, ProcId(0), 80, 0, false).with_version(1);
    assert!(d.next().unwrap_err().expected.contains("reserved tag"));
}

#[test]
fn a_shared_operation_on_a_recent_object_is_three_bytes() {
    let ops: Vec<Event> = (0..3)
        .map(|k| Event::Shared {
            object: Some(table(2, 0)),
            access: Access::ReadWrite,
            function: 1,
            seq: 10 + 4 * k,
            key: None,
            name: None,
        })
        .collect();
    let first = encode(ProcId(0), 80, &ops[..1], None).len();
    let all = encode(ProcId(0), 80, &ops, None).len();
    // Tag (slot 0), head, a delta of 3 from the expected operation number.
    assert_eq!(all - first, 2 * 3);
}
