//! Every pattern, global scope, on small hand-written logs with known verdicts.

mod common;
use common::{verdict, Log};

/// P spawns a server P.1 and a client P.2. The client sends {req,1}, gets
/// {reply,1}, then sends {req,2}, which the server receives but never answers.
fn client_server() -> (Log, [u64; 6]) {
    let mut l = Log::new();
    let s = l.spawn(0);
    let c = l.spawn(0);
    let r1 = l.send(c, s, "{req, 1}");
    let s_recv1 = l.next(s);
    l.recv(s, r1);
    let s_reply1 = l.next(s);
    let a1 = l.send(s, c, "{reply, 1}");
    let c_recv1 = l.next(c);
    l.recv(c, a1);
    let c_send2 = l.next(c);
    let r2 = l.send(c, s, "{req, 2}");
    let s_recv2 = l.next(s);
    l.recv(s, r2);
    l.exit(s, "normal");
    l.exit(c, "normal");
    l.exit(0, "normal");
    (l, [s_recv1, s_reply1, c_recv1, c_send2, s_recv2, 0])
}

#[test]
fn absence() {
    let (l, e) = client_server();
    assert_eq!(verdict(&l, "p: never send(_, _, {reply, 2})."), Ok(()));
    assert_eq!(
        verdict(&l, "p: never send(<P.1>, _, {reply, _})."),
        Err(vec![Some((1, e[1]))])
    );
    assert_eq!(
        verdict(&l, "p: never receive(<P.1>, {req, N}) when N > 1."),
        Err(vec![Some((1, e[4]))])
    );
}

#[test]
fn existence_and_bounded_existence() {
    let (l, e) = client_server();
    assert_eq!(
        verdict(&l, "p: eventually receive(<P.2>, {reply, 1})."),
        Ok(())
    );
    assert_eq!(
        verdict(&l, "p: eventually receive(<P.2>, {reply, 2})."),
        Err(vec![None])
    );
    assert_eq!(
        verdict(&l, "p: at least 2 receive(<P.1>, {req, _})."),
        Ok(())
    );
    assert_eq!(
        verdict(&l, "p: at most 2 receive(<P.1>, {req, _})."),
        Ok(())
    );
    assert_eq!(
        verdict(&l, "p: exactly 2 receive(<P.1>, {req, _})."),
        Ok(())
    );
    assert_eq!(
        verdict(&l, "p: at most 1 receive(<P.1>, {req, _})."),
        Err(vec![Some((1, e[4]))])
    );
    assert_eq!(
        verdict(&l, "p: at least 3 receive(<P.1>, {req, _})."),
        Err(vec![None])
    );
}

#[test]
fn universality() {
    let (l, e) = client_server();
    assert_eq!(verdict(&l, "p: always receive(<P.1>, {req, _})."), Ok(()));
    assert_eq!(
        verdict(&l, "p: always receive(<P.1>, {req, N}) when N < 2."),
        Err(vec![Some((1, e[4]))])
    );
    // Every message the client receives comes from the server.
    assert_eq!(verdict(&l, "p: always receive(<P.2>, <P.1>, _)."), Ok(()));
}

#[test]
fn response() {
    let (l, e) = client_server();
    assert_eq!(
        verdict(
            &l,
            "p: every receive(S, C, {req, R}) is followed by send(S, C, {reply, R})."
        ),
        Err(vec![Some((1, e[4]))])
    );
    // The client's request is followed, in its causal future, by the reply.
    assert_eq!(
        verdict(
            &l,
            "p: every send(C, S, {req, 1}) is followed by send(S, C, {reply, 1})."
        ),
        Ok(())
    );
}

#[test]
fn precedence() {
    let (l, _) = client_server();
    assert_eq!(
        verdict(
            &l,
            "p: every receive(C, S, {reply, R}) is preceded by send(C, S, {req, R})."
        ),
        Ok(())
    );
    // Across processes: the server's reply is caused by the client's request.
    assert_eq!(
        verdict(
            &l,
            "p: every send(S, C, {reply, R}) is preceded by send(C, S, {req, R})."
        ),
        Ok(())
    );
}
