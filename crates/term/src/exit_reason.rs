//! Exit reasons as OTP reads them: `normal`, `shutdown` and `{shutdown, _}`
//! end a process as intended (supervisors, error reports and `trace`'s
//! failures agree); any other reason is a crash.

use crate::{Atom, Term};

/// Whether a process that ended with `reason` crashed: any reason but
/// `normal`, `shutdown` and `{shutdown, _}`.
pub fn is_abnormal(reason: &Term) -> bool {
    let shutdown = Atom::intern("shutdown");
    let intended = match reason.as_tuple() {
        Some([tag, _]) => tag.is_atom(shutdown),
        _ => reason.is_atom(shutdown) || reason.is_atom(Atom::intern("normal")),
    };
    !intended
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_and_shutdown_are_not_crashes() {
        for r in [
            Term::atom("normal"),
            Term::atom("shutdown"),
            Term::tuple(vec![Term::atom("shutdown"), Term::atom("x")]),
        ] {
            assert!(!is_abnormal(&r), "{r:?}");
        }
        for r in [
            Term::atom("killed"),
            Term::atom("boom"),
            Term::tuple(vec![Term::atom("normal"), Term::atom("x")]),
        ] {
            assert!(is_abnormal(&r), "{r:?}");
        }
    }
}
