//! Native `maps` built-ins.

use super::Builder;
use crate::exception::{badarg, error_tagged, BifResult};
use trace_term::{atom, Arc, MapRepr, Term};

pub fn register(b: &mut Builder) {
    b.pure("maps", "to_list", 1, to_list, 0);
    b.pure("maps", "from_list", 1, from_list, 0);
}

fn to_list(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Map(m) => Ok(Term::list(
            m.iter()
                .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
                .collect(),
        )),
        other => Err(error_tagged(atom::BADMAP, other.clone())),
    }
}

fn from_list(a: &[Term]) -> BifResult {
    let mut m = MapRepr::new();
    for e in a[0].to_vec().ok_or_else(badarg)? {
        match e.as_tuple() {
            Some([k, v]) => {
                m.insert(k.clone(), v.clone());
            }
            _ => return Err(badarg()),
        }
    }
    Ok(Term::Map(Arc::new(m)))
}
