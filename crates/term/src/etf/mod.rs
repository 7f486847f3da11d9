//! The External Term Format (version 131), as `term_to_binary` and
//! `binary_to_term` speak it: message payloads in the log are ETF.
//!
//! [`encode`] writes the encoding OTP produces with `{minor_version, 2}`
//! (UTF-8 atoms), byte for byte for every term that is not a fun; [`decode`]
//! also reads what older encoders write (latin1 atoms, `FLOAT_EXT`, `PID_EXT`,
//! `NEW_REFERENCE_EXT`). Decoding treats its input as hostile; see [`decode`].
//!
//! Identifiers map as follows, node and creation being `nonode@nohost` and 0:
//!
//! - a pid `<0.N.0>` is `NEW_PID_EXT` with ID = the low 32 bits of N and
//!   Serial = the high 32 bits (0 for any pid the engine makes), so it
//!   round-trips and Erlang reads it as `<0.N.0>`;
//! - a reference `#Ref<0.0.P.C>` is `NEWER_REFERENCE_EXT` with the three id
//!   words `[C, P, 0]` (Erlang orders them least significant first and prints
//!   `#Ref<0.W2.W1.W0>`), so Erlang prints it the same way;
//! - a foreign reference (from another encoder) keeps id word 0 as the counter
//!   and word 1 as the creator; further words, the node and the creation are
//!   dropped, so two foreign references that differ only there decode equal;
//! - a foreign pid keeps `Serial << 32 | ID` and drops node and creation;
//! - a closure `#Fun<M.I.U>` is `NEW_FUN_EXT` with Index = OldIndex = I,
//!   OldUniq = U, U also in the first 4 bytes of the 16-byte Uniq (the rest
//!   zero), pid `<0.0.0>`, and its free variables; decoding keeps module,
//!   index, OldUniq, arity and free variables, with `code` = [`NO_CODE`](crate::fun::NO_CODE).

mod decode;
#[cfg(test)]
mod decode_tests;
mod encode;
mod flat;

pub use decode::{decode, decode_part, decode_prefix, EtfError, MAX_DEPTH};
pub use encode::{encode, encode_with, to_vec, Style};

// The format's version byte and tags, by OTP's names: public for the
// crates that read ETF bytes without decoding them (pattern pre-checks,
// canonical hashing).
pub const VERSION: u8 = 131;

pub const NEW_FLOAT_EXT: u8 = 70;
pub const BIT_BINARY_EXT: u8 = 77;
/// A zlib-compressed term.
pub const COMPRESSED: u8 = 80;
pub const ATOM_CACHE_REF: u8 = 82;
pub const NEW_PID_EXT: u8 = 88;
pub const NEW_PORT_EXT: u8 = 89;
pub const NEWER_REFERENCE_EXT: u8 = 90;
pub const SMALL_INTEGER_EXT: u8 = 97;
pub const INTEGER_EXT: u8 = 98;
pub const FLOAT_EXT: u8 = 99;
pub const ATOM_EXT: u8 = 100;
pub const REFERENCE_EXT: u8 = 101;
pub const PORT_EXT: u8 = 102;
pub const PID_EXT: u8 = 103;
pub const SMALL_TUPLE_EXT: u8 = 104;
pub const LARGE_TUPLE_EXT: u8 = 105;
pub const NIL_EXT: u8 = 106;
pub const STRING_EXT: u8 = 107;
pub const LIST_EXT: u8 = 108;
pub const BINARY_EXT: u8 = 109;
pub const SMALL_BIG_EXT: u8 = 110;
pub const LARGE_BIG_EXT: u8 = 111;
pub const NEW_FUN_EXT: u8 = 112;
pub const EXPORT_EXT: u8 = 113;
pub const NEW_REFERENCE_EXT: u8 = 114;
pub const SMALL_ATOM_EXT: u8 = 115;
pub const MAP_EXT: u8 = 116;
pub const FUN_EXT: u8 = 117;
pub const ATOM_UTF8_EXT: u8 = 118;
pub const SMALL_ATOM_UTF8_EXT: u8 = 119;
pub const V4_PORT_EXT: u8 = 120;
pub const DIST_HEADER: u8 = 68;
pub const DIST_FRAG_HEADER: u8 = 69;
