//! `rollback var P NAME` (CauDEr's "roll variable"): back to just before
//! process P bound variable NAME. Steps of P are undone one at a time
//! (each with what depends on it) until NAME is no longer bound where P
//! stands; that state is the one just before the step that bound it. Where
//! P does not have NAME now (it has exited), the walk first goes back to
//! where it has it. Each state tried is a replay, so this costs one replay
//! per step walked back.

use crate::cut::{self, Cut};
use crate::engine::Snapshot;
use crate::session::Session;
use trace_capture::ProcRef;
use trace_causal::EventId;

impl Session {
    pub(crate) fn rollback_var(
        &mut self,
        p: &ProcRef,
        name: &str,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let s = self;
        let slot = s.slot(p)?;
        let pid = s.model().processes()[slot].pid;
        let id = s.id(slot);
        // Where P no longer has NAME (it has exited, or left the function),
        // first walk back to where it has it.
        let mut seen = bound(s.snapshot(), pid, name);
        let mut k = s.cut().get(slot);
        let target: Cut = loop {
            if k == 0 {
                if !seen {
                    return Err(format!("{p} has not bound {name} in the run so far"));
                }
                out.extend_from_slice(
                    format!(
                        "{name} is bound before {p}'s first event: {p} goes back to its start\n"
                    )
                    .as_bytes(),
                );
                break s.cut_with_start(slot);
            }
            let start = s.stops().at_or_before(slot, k - 1);
            let candidate =
                cut::rollback(s.model(), s.stops(), s.cut(), &[EventId::new(id, start)]);
            let snap = s.bring_to_life(&candidate);
            if let Some(f) = snap.failure {
                return Err(format!("could not bring the run to that state: {f}"));
            }
            let has = bound(&snap, pid, name);
            if seen && !has {
                break candidate;
            }
            seen |= has;
            k = start;
        };
        s.go_to(target, out)
    }
}

/// Whether `name` is bound in the innermost user frame of process `pid`.
fn bound(snap: &Snapshot, pid: u64, name: &str) -> bool {
    snap.processes
        .get(&pid)
        .and_then(|p| p.user_frame())
        .is_some_and(|f| f.bindings.iter().any(|(n, _)| n == name))
}
