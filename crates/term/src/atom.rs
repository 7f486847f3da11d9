//! Atoms: interned names shared by every thread of the process.
//!
//! An [`Atom`] is an index into one global, append-only table. Interning a
//! new name takes a lock; reading a name back does not (the table is a list
//! of chunks that are allocated once and never move), so printing and
//! comparing atoms from many scheduler threads does not contend. Nor does
//! interning a name seen before on the same thread: each thread keeps the
//! names it has looked up (atoms are never removed, so an entry stays
//! true), and threads decoding a log's messages on every core take the
//! lock only for the first `ping` each. Each entry also keeps the atom's ETF
//! encoding, made once at interning: the recorder encodes atoms in nearly
//! every message it logs, and a copy is cheaper than rebuilding the header.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::{LazyLock, Mutex, OnceLock};

/// An interned atom. Equality is identity; ordering by name is [`Atom::cmp_by_name`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Atom(u32);

/// Upper bound on the number of atoms, as BEAM's default atom table limit.
pub const MAX_ATOMS: usize = 1 << 21;

const FIRST_CHUNK_BITS: u32 = 10;
const CHUNKS: usize = 12; // 1024 * (2^12 - 1) > MAX_ATOMS

struct Table {
    /// Hashed with std's keyed SipHash, not the cache's FNV-1a: names come
    /// from logs and programs, and FNV's low bits, which pick a bucket,
    /// are easily steered by appending a few bytes, so a log of many such
    /// names would make each interning walk all of them. Only a name new
    /// to the thread is looked up here.
    index: Mutex<HashMap<&'static str, Atom>>,
    chunks: [OnceLock<Box<[OnceLock<Entry>]>>; CHUNKS],
}

/// An interned name, and the same bytes behind their ETF header (one
/// allocation: `name` points into `etf`).
#[derive(Copy, Clone)]
struct Entry {
    name: &'static str,
    etf: &'static [u8],
}

impl Entry {
    /// Leaks the atom's ETF encoding (minor version 2: `SMALL_ATOM_UTF8_EXT`,
    /// or `ATOM_UTF8_EXT` past 255 bytes), its name included.
    fn leak(name: &str) -> Entry {
        let mut etf = Vec::with_capacity(name.len() + 3);
        if let Ok(n) = u8::try_from(name.len()) {
            etf.extend_from_slice(&[crate::etf::SMALL_ATOM_UTF8_EXT, n]);
        } else {
            etf.push(crate::etf::ATOM_UTF8_EXT);
            etf.extend_from_slice(&(name.len() as u16).to_be_bytes());
        }
        let at = etf.len();
        etf.extend_from_slice(name.as_bytes());
        let etf: &'static [u8] = Box::leak(etf.into_boxed_slice());
        let name = std::str::from_utf8(&etf[at..]).expect("copied from a str");
        Entry { name, etf }
    }
}

fn locate(i: u32) -> (usize, usize) {
    // Chunk k holds 1024 << k entries, starting at 1024 * (2^k - 1).
    let n = (i >> FIRST_CHUNK_BITS) + 1;
    let k = 31 - n.leading_zeros();
    let start = ((1u32 << k) - 1) << FIRST_CHUNK_BITS;
    (k as usize, (i - start) as usize)
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let t = Table {
        index: Mutex::new(HashMap::new()),
        chunks: Default::default(),
    };
    {
        let mut idx = t.index.lock().unwrap();
        for (i, name) in PREDEFINED.iter().enumerate() {
            let a = Atom(i as u32);
            idx.insert(t.store(a, name), a);
        }
    }
    t
});

impl Table {
    /// Enters `name` as `a`; returns the table's copy of the name.
    fn store(&self, a: Atom, name: &str) -> &'static str {
        let e = Entry::leak(name);
        let (k, off) = locate(a.0);
        let chunk = self.chunks[k].get_or_init(|| {
            (0..(1usize << (k as u32 + FIRST_CHUNK_BITS)))
                .map(|_| OnceLock::new())
                .collect()
        });
        let _ = chunk[off].set(e);
        e.name
    }

    fn entry(&self, a: Atom) -> Entry {
        let (k, off) = locate(a.0);
        self.chunks[k]
            .get()
            .and_then(|c| c[off].get())
            .copied()
            .expect("atom index without a name")
    }
}

/// The atom table is full (more than [`MAX_ATOMS`] distinct atoms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomTableFull;

impl std::fmt::Display for AtomTableFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "atom table full ({MAX_ATOMS} atoms)")
    }
}

impl std::error::Error for AtomTableFull {}

/// FNV-1a from a per-thread random start, finished with a full-width mix:
/// atom names are short and the thread's cache is probed on every atom a
/// decoder meets, so the hash must be cheap; the random start and the mix
/// keep a log or program from choosing names that all fall in one bucket
/// (plain FNV-1a's low bits, which pick the bucket, can be steered).
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        // MurmurHash3's 64-bit finaliser: every input bit reaches the low bits.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// Builds [`NameHasher`]s from one thread's random start.
#[derive(Clone)]
struct NameHashing(u64);

impl std::hash::BuildHasher for NameHashing {
    type Hasher = NameHasher;

    fn build_hasher(&self) -> NameHasher {
        NameHasher(self.0)
    }
}

impl Default for NameHashing {
    fn default() -> Self {
        use std::hash::BuildHasher;
        let seed = std::collections::hash_map::RandomState::new().hash_one(0u8);
        NameHashing(seed | 1)
    }
}

type Known = HashMap<&'static str, Atom, NameHashing>;

/// Names this thread has looked up, at most this many (then it starts over).
const KNOWN_MAX: usize = 1 << 14;

thread_local! {
    static KNOWN: RefCell<Known> = RefCell::new(Known::default());
}

fn known(name: &str) -> Option<Atom> {
    // `try_with`: a thread tearing down its locals still interns, uncached.
    KNOWN
        .try_with(|k| k.borrow().get(name).copied())
        .ok()
        .flatten()
}

/// Remembers on this thread that `a` is named `name` (the table's copy).
fn remember(a: Atom) {
    let _ = KNOWN.try_with(|k| {
        let mut k = k.borrow_mut();
        if k.len() >= KNOWN_MAX {
            k.clear();
        }
        k.insert(a.name(), a);
    });
}

impl Atom {
    /// Interns `name`. Panics only if the atom table is full; use [`Atom::try_intern`]
    /// on untrusted input.
    pub fn intern(name: &str) -> Atom {
        Self::try_intern(name).expect("atom table full")
    }

    /// Interns `name`, or fails when the table already holds [`MAX_ATOMS`] atoms.
    pub fn try_intern(name: &str) -> Result<Atom, AtomTableFull> {
        if let Some(a) = known(name) {
            return Ok(a);
        }
        let a = Self::intern_shared(name)?;
        remember(a);
        Ok(a)
    }

    /// Interns `name` in the shared table, under its lock.
    fn intern_shared(name: &str) -> Result<Atom, AtomTableFull> {
        let t = &*TABLE;
        let mut idx = t.index.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&a) = idx.get(name) {
            return Ok(a);
        }
        let n = idx.len();
        if n >= MAX_ATOMS {
            return Err(AtomTableFull);
        }
        let a = Atom(n as u32);
        idx.insert(t.store(a, name), a);
        Ok(a)
    }

    /// Returns the atom named `name` if it already exists (like `list_to_existing_atom`).
    pub fn existing(name: &str) -> Option<Atom> {
        if let Some(a) = known(name) {
            return Some(a);
        }
        let a = TABLE
            .index
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .copied()?;
        remember(a);
        Some(a)
    }

    /// The atom's name.
    pub fn name(self) -> &'static str {
        TABLE.entry(self).name
    }

    /// The atom as `term_to_binary` writes it with `{minor_version, 2}`
    /// (without the version byte): tag, length, UTF-8 name.
    pub fn etf(self) -> &'static [u8] {
        TABLE.entry(self).etf
    }

    /// The atom's index in the table (stable for the life of the process).
    pub fn index(self) -> u32 {
        self.0
    }

    /// Term order between atoms: by name, codepoint by codepoint.
    pub fn cmp_by_name(self, other: Atom) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        self.name().cmp(other.name())
    }

    /// `true` or `false` as an atom.
    pub fn from_bool(b: bool) -> Atom {
        if b {
            TRUE
        } else {
            FALSE
        }
    }
}

impl std::fmt::Debug for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}'", self.name())
    }
}

macro_rules! predefined_atoms {
    ($($id:ident = $name:literal),* $(,)?) => {
        const PREDEFINED: &[&str] = &[$($name),*];
        predefined_atoms!(@consts 0u32; $($id),*);
    };
    (@consts $n:expr; $id:ident $(, $rest:ident)*) => {
        #[doc = concat!("The predefined atom `", stringify!($id), "`.")]
        pub const $id: Atom = Atom($n);
        predefined_atoms!(@consts $n + 1u32; $($rest),*);
    };
    (@consts $n:expr;) => {};
}

// Atoms the engine and the tools refer to by constant. Order is the table order.
predefined_atoms! {
    FALSE = "false", TRUE = "true", OK = "ok", ERROR = "error", UNDEFINED = "undefined",
    NORMAL = "normal", KILL = "kill", KILLED = "killed", NOPROC = "noproc", EXIT = "exit",
    THROW = "throw", EXIT_UPPER = "EXIT", DOWN = "DOWN", PROCESS = "process",
    BADARG = "badarg", BADARITH = "badarith", BADMATCH = "badmatch",
    FUNCTION_CLAUSE = "function_clause", CASE_CLAUSE = "case_clause", IF_CLAUSE = "if_clause",
    TRY_CLAUSE = "try_clause", UNDEF = "undef", BADFUN = "badfun", BADARITY = "badarity",
    BADKEY = "badkey", BADMAP = "badmap", BADRECORD = "badrecord", TIMEOUT_VALUE = "timeout_value",
    SYSTEM_LIMIT = "system_limit", NOCATCH = "nocatch", INFINITY = "infinity",
    TIMEOUT = "timeout", NONODE = "nonode@nohost", ERLANG = "erlang", TRAP_EXIT = "trap_exit",
    FILE = "file", LINE = "line", ERROR_INFO = "error_info", BADGENERATOR = "badgenerator",
    NAN = "nan", INTEGER = "integer", FLOAT = "float", BINARY = "binary", UTF8 = "utf8",
    LATIN1 = "latin1", UNICODE = "unicode", ALL = "all", UNDEFINED_FUNCTION = "undefined_function",
    MODULE = "module", NAME = "name", ARITY = "arity", ENV = "env", TYPE = "type",
    LOCAL = "local", EXTERNAL = "external", BIG = "big", LITTLE = "little", SIGNED = "signed",
    UNSIGNED = "unsigned", NATIVE = "native", APPLY = "apply", SECOND = "second",
    MILLISECOND = "millisecond", MICROSECOND = "microsecond", NANOSECOND = "nanosecond",
    PERF_COUNTER = "perf_counter", MONITOR = "monitor",
    LINK = "link", NOCONNECTION = "noconnection", FLUSH = "flush", INFO = "info",
    REGISTERED_NAME = "registered_name", MESSAGE_QUEUE_LEN = "message_queue_len",
    MESSAGES = "messages", LINKS = "links", STATUS = "status", DICTIONARY = "dictionary",
    WAITING = "waiting", RUNNING = "running", RUNNABLE = "runnable", EXITING = "exiting",
    CURRENT_FUNCTION = "current_function", GROUP_LEADER = "group_leader",
    DEFAULT = "default", POSITIVE = "positive",
    MONOTONIC = "monotonic", BADFILE = "badfile", EMPTY = "empty", NONE = "none", VALUE = "value",
    SAME = "same",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_atoms_have_their_names() {
        assert_eq!(TRUE.name(), "true");
        assert_eq!(OK.name(), "ok");
        assert_eq!(Atom::intern("badarg"), BADARG);
        assert_eq!(SAME.name(), "same");
    }

    #[test]
    fn etf_encodings_carry_the_name() {
        assert_eq!(OK.etf(), b"\x77\x02ok");
        let long = "é".repeat(200);
        let a = Atom::intern(&long);
        assert_eq!(a.name(), long);
        assert_eq!(&a.etf()[..3], &[118, 1, 144]);
        assert_eq!(&a.etf()[3..], long.as_bytes());
    }

    #[test]
    fn interning_is_idempotent_and_ordered_by_name() {
        let a = Atom::intern("zebra_atom_test");
        let b = Atom::intern("apple_atom_test");
        assert_eq!(a, Atom::intern("zebra_atom_test"));
        assert_eq!(b.cmp_by_name(a), std::cmp::Ordering::Less);
        assert_eq!(Atom::existing("apple_atom_test"), Some(b));
        assert_eq!(Atom::existing("never_interned_atom_xyz"), None);
    }

    #[test]
    fn chunk_location_covers_boundaries() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(1023), (0, 1023));
        assert_eq!(locate(1024), (1, 0));
        assert_eq!(locate(1024 + 2047), (1, 2047));
        assert_eq!(locate(1024 + 2048), (2, 0));
        let (k, off) = locate(MAX_ATOMS as u32 - 1);
        assert!(k < CHUNKS && off < (1 << (k as u32 + FIRST_CHUNK_BITS)));
    }

    #[test]
    fn many_atoms_from_many_threads() {
        let hs: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    (0..3000)
                        .map(|i| Atom::intern(&format!("thr{t}_{i}")))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (t, h) in hs.into_iter().enumerate() {
            for (i, a) in h.join().unwrap().into_iter().enumerate() {
                assert_eq!(a.name(), format!("thr{t}_{i}"));
            }
        }
    }
}
