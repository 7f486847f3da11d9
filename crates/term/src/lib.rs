//! Erlang terms for `trace`: the value type shared by the engine, the log and
//! the analyses, with Erlang's term order, printing and the External Term Format.
//!
//! - [`Term`] is a 16-byte value; compound terms are immutable and reference
//!   counted, so sending a message or reusing a literal shares rather than copies.
//! - [`atom`] interns atom names in one table for the whole process.
//! - [`order`] implements term order, `==` and `=:=`.
//! - [`print`] prints terms as `~w` does, [`pretty`] as `~p` does.
//! - [`format`] is `io_lib:format`.
//! - [`numtext`] converts numbers to text and back as the `erlang` BIFs do.
//! - [`phash`] is `erlang:phash2`, bit for bit.
//! - [`etf`] encodes and decodes the External Term Format.

pub mod atom;
pub mod bits;
pub mod etf;
pub mod format;
pub mod fun;
pub mod map;
pub mod numtext;
pub mod order;
pub mod phash;
pub mod pretty;
pub mod print;
pub mod quote;
mod term;

pub use atom::Atom;
pub use bits::{BitWriter, Bitstring};
pub use fun::Fun;
pub use map::MapRepr;
pub use num_bigint::BigInt;
pub use term::{Cons, ListIter, Pid, Ref, Term, Tuple};
pub use triomphe::Arc;
