//! Erlang terms for `trace`: the value type shared by the engine, the log and
//! the analyses, with Erlang's term order, printing, `io_lib:format`, number
//! text conversions, `phash2`, `phash` and the External Term Format, all matching
//! OTP 25 byte for byte (golden data from `erl` under `tests/data`).
//!
//! - [`Term`] is a 16-byte value; compound terms are immutable and reference
//!   counted, so sending a message or reusing a literal shares rather than copies.
//! - [`atom`] interns atom names in one table for the whole process.
//! - [`order`] implements term order, `==` and `=:=`.
//! - [`quote`] quotes atoms and escapes strings as `io_lib` does; [`print`](mod@print)
//!   writes terms on one line (`~w`, `~W`); [`pretty`](mod@pretty) lays them out over lines
//!   (`~p`, `~P`); [`format`](mod@format) is `io_lib:format` on top of both.
//! - [`numtext`] converts numbers to text and back as the `erlang` BIFs do.
//! - [`phash`] is `erlang:phash2`, bit for bit; [`phash1`] is the older
//!   `erlang:phash/2` that `dict` and `sets` place keys by.
//! - [`display`](mod@display) is the text `erlang:display/1` writes.
//! - [`etf`] encodes terms for the log and decodes them from untrusted bytes.

pub mod atom;
pub mod bits;
pub mod display;
pub mod etf;
pub mod exit_reason;
pub mod format;
pub mod fun;
pub mod map;
pub mod numtext;
pub mod order;
pub mod phash;
pub mod phash1;
pub mod pretty;
pub mod print;
pub mod quote;
mod term;

pub use atom::Atom;
pub use bits::{BitWriter, Bitstring};
pub use etf::EtfError;
pub use format::{format, format_term, FormatError};
pub use fun::Fun;
pub use map::MapRepr;
pub use num_bigint::BigInt;
pub use pretty::{pretty, PrettyOptions};
pub use print::write_term;
pub use quote::Encoding;
pub use term::{Cons, ListBuilder, ListIter, Pid, Ref, Term, Tuple};
pub use triomphe::Arc;
