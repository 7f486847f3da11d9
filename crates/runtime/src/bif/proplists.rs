//! (being written)

use super::Builder;

pub fn register(_b: &mut Builder) {}
