//! The instruction set the compiler emits and the VM runs.
//!
//! A function is a flat array of register-machine instructions over *slots*: the
//! function's window onto its process's value stack. Variables and temporaries
//! are resolved to slot numbers at compile time, patterns are compiled into
//! test-and-branch sequences, and calls name their target directly (a function
//! id, a built-in id, or an entry of the external-call table resolved at link
//! time). Control flow uses absolute instruction indices (`Label`) in a
//! function's code (`FunCode::code`); in the arena the loop runs, the
//! linker makes each label relative to the instruction after its own (see
//! [`relative`]), so that a jump needs only the instruction pointer.
//!
//! Calls pass arguments in consecutive slots at the top of the caller's window;
//! the callee's window starts there, so arguments are not copied.

use trace_term::Atom;

/// A slot within the current function's window.
pub type Slot = u16;
/// An instruction index within the current function.
pub type Label = u32;
/// "No failure label": an instruction that fails raises instead of branching.
pub const RAISE: Label = u32::MAX;

/// Label `to` of the instruction at `pc`, as the arena holds it: the
/// distance in bytes from the instruction after `pc` to `to`, as an `i32`
/// in a `u32`, so that a jump adds it to the instruction pointer as it is.
/// [`RAISE`] stays itself: no distance is odd. (`code_check` bounds a
/// function's length so that every distance fits.)
pub fn relative(to: Label, pc: usize) -> Label {
    if to == RAISE {
        return RAISE;
    }
    let d = to as i64 - (pc as i64 + 1);
    (d * std::mem::size_of::<Instr>() as i64) as i32 as u32
}

/// Where relative label `rel` (see [`relative`]) of an instruction goes,
/// `next` being the index of the instruction after it.
#[inline(always)]
pub fn target(next: usize, rel: Label) -> usize {
    (next as isize + (rel as i32 / std::mem::size_of::<Instr>() as i32) as isize) as usize
}

/// The most instructions a function may have: any distance between two
/// of them, in bytes, fits an `i32` (see [`relative`]).
pub const MAX_FUN_LEN: usize = (i32::MAX as usize) / std::mem::size_of::<Instr>();

/// Where a called function starts and how many slots its window takes, as
/// the linker finds them (`link::link_calls`); unlinked code holds
/// [`Entry::UNLINKED`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub code: CodePtr,
    pub nslots: u16,
}

impl Entry {
    /// An entry the linker has yet to fill in.
    pub const UNLINKED: Entry = Entry {
        code: CodePtr(std::ptr::null()),
        nslots: 0,
    };
}

/// An address in a linked program's arena (`Program::arena`): a
/// function's first instruction, or where a caller continues.
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct CodePtr(pub *const Instr);

// SAFETY: it points into a `Program`'s code, which nothing mutates once it
// is linked and which outlives every process running it (the `Runtime`
// holds it); sharing the address between threads shares only reads.
unsafe impl Send for CodePtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for CodePtr {}

impl std::fmt::Debug for CodePtr {
    // An address says nothing in a listing, and differs from run to run.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_null() {
            "unlinked"
        } else {
            "linked"
        })
    }
}

/// [`Instr::Cons`] moves its head operand.
pub const TAKE_HEAD: u8 = 1;
/// [`Instr::Cons`] moves its tail operand.
pub const TAKE_TAIL: u8 = 2;

/// Binary operators evaluated by [`Instr::Op2`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op2 {
    Add,
    Sub,
    Mul,
    FDiv,
    IDiv,
    Rem,
    Band,
    Bor,
    Bxor,
    Bsl,
    Bsr,
    Eq,
    Neq,
    ExactEq,
    ExactNeq,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    Append,
    Subtract,
}

/// Unary operators evaluated by [`Instr::Op1`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op1 {
    Neg,
    Plus,
    Bnot,
    Not,
}

/// Comparisons used as branches in patterns and guards.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Neq,
    ExactEq,
    ExactNeq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Type tests (`is_integer/1` and friends) used as branches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypeTest {
    Integer,
    Float,
    Number,
    Atom,
    Boolean,
    Tuple,
    List,
    Map,
    Binary,
    Bitstring,
    Function,
    Pid,
    Reference,
    Port,
    Record,
}

/// Errors raised directly by compiled code (not by built-ins).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrKind {
    /// `{badmatch, V}`
    Badmatch,
    /// `{case_clause, V}`
    CaseClause,
    /// `{try_clause, V}`
    TryClause,
    /// `if_clause`
    IfClause,
    /// `function_clause` (arguments are slots `0..arity`)
    FunctionClause,
    /// `{badrecord, V}`
    Badrecord,
    /// `{badgenerator, V}`... reported as `{bad_generator, V}` by BEAM
    BadGenerator,
    /// `{bad_filter, V}`
    BadFilter,
    /// `{badmap, V}`
    Badmap,
    /// `{badarg, V}`: a non-boolean left operand of `andalso`/`orelse`
    BadBool,
}

/// Flags of a binary segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct SegFlags {
    pub signed: bool,
    pub little: bool,
}

/// The type of a binary segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SegType {
    Integer,
    Float,
    /// `binary`/`bytes` and `bitstring`/`bits`
    Binary,
    Utf8,
    Utf16,
    Utf32,
}

/// A segment's size: a constant number of units, a slot holding the size, or
/// `all` (the rest of a binary).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SegSize {
    Const(u32),
    Slot(Slot),
    All,
    /// No size given for a type that has a default (integer 8, float 64, utf*).
    Default,
}

// An explicit tag byte: the interpreter's dispatch reads it directly
// (a niche-encoded tag costs a subtract and a conditional move each time).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Instr {
    // --- moves and constants
    Move {
        dst: Slot,
        src: Slot,
    },
    /// A `Move` whose source is dead afterwards (see `compiler::liveness`):
    /// the value moves and `[]` is left behind, sparing a reference count.
    Take {
        dst: Slot,
        src: Slot,
    },
    /// Load literal `lit` from the program's literal table.
    Lit {
        dst: Slot,
        lit: u32,
    },
    Int {
        dst: Slot,
        val: i32,
    },
    /// `Int` whose next instruction returns it (a clause that returns a
    /// number, as `fib(0) -> 0`; the linker makes it): the loop writes the
    /// integer straight into the caller's slot, without a dispatch of the
    /// return.
    IntReturn {
        dst: Slot,
        val: i32,
    },
    Atom {
        dst: Slot,
        atom: Atom,
    },
    Nil {
        dst: Slot,
    },

    // --- construction
    Cons {
        dst: Slot,
        head: Slot,
        tail: Slot,
        /// Operands dead afterwards, moved rather than copied:
        /// [`TAKE_HEAD`] and [`TAKE_TAIL`].
        take: u8,
    },
    /// A tuple of the `arity` values in slots `start..start+arity`.
    Tuple {
        dst: Slot,
        start: Slot,
        arity: u16,
    },
    /// A new map from `n` key/value pairs interleaved in `start..start+2n`.
    MapNew {
        dst: Slot,
        start: Slot,
        n: u16,
    },
    /// `Map#{Key => Val}` (or `:=` when `exact`: the key must exist, `{badkey,K}` otherwise).
    /// Fails with `{badmap, Map}` when `map` is not a map.
    MapPut {
        dst: Slot,
        map: Slot,
        key: Slot,
        val: Slot,
        exact: bool,
        fail: Label,
        /// The map slot is dead afterwards: an unshared map updates in place.
        take: bool,
    },
    /// A closure of template `fun` capturing the `nfree` values at `start..`.
    MakeFun {
        dst: Slot,
        fun: u32,
        start: Slot,
        nfree: u16,
    },

    // --- operators (raise, or branch to `fail` inside guards)
    Op2 {
        op: Op2,
        dst: Slot,
        a: Slot,
        b: Slot,
        fail: Label,
    },
    /// `a + b`, `a - b` and `a * b`: the commonest operators of [`Op2`],
    /// each an instruction of its own (the linker makes them from `Op2`),
    /// so the loop reaches their small-integer and float cases with no
    /// second dispatch on the operator.
    Add {
        dst: Slot,
        a: Slot,
        b: Slot,
        fail: Label,
    },
    Sub {
        dst: Slot,
        a: Slot,
        b: Slot,
        fail: Label,
    },
    Mul {
        dst: Slot,
        a: Slot,
        b: Slot,
        fail: Label,
    },
    /// `a + imm` / `a - imm` fast path for small immediates.
    AddImm {
        dst: Slot,
        a: Slot,
        imm: i32,
        fail: Label,
    },
    /// `Add` whose next instruction returns its result (`fib(N - 1) +
    /// fib(N - 2)`, `H + sum(T)`; the linker makes it): the loop returns
    /// straight after the sum, without a dispatch of its own.
    AddReturn {
        dst: Slot,
        a: Slot,
        b: Slot,
        fail: Label,
    },
    /// `AddImm` whose next instruction is a `Call` (the linker makes it,
    /// for `f(N - 1)`): the loop runs the call straight after the sum,
    /// without a dispatch of its own.
    AddImmCall {
        dst: Slot,
        a: Slot,
        imm: i32,
        fail: Label,
    },
    /// `AddImmCall` before a `TailCall` (`loop(N - 1)` last in a body): a
    /// variant of its own, so that neither tests which call follows.
    AddImmTailCall {
        dst: Slot,
        a: Slot,
        imm: i32,
        fail: Label,
    },
    Op1 {
        op: Op1,
        dst: Slot,
        a: Slot,
        fail: Label,
    },

    // --- tests: fall through when true, jump to `fail` when false
    Compare {
        cmp: Cmp,
        a: Slot,
        b: Slot,
        fail: Label,
    },
    /// `a cmp imm`, a small integer constant (a guard's `N < 2`): one
    /// instruction where loading the constant into a slot would be two.
    CompareInt {
        cmp: Cmp,
        a: Slot,
        imm: i32,
        fail: Label,
    },
    /// `CompareInt` of the orderings (`<`, `=<`, `>`, `>=`), each an
    /// instruction of its own (the linker makes them from `CompareInt`), so
    /// the loop tests a small integer with no second dispatch on the
    /// comparison. (`==` and `=:=` stay `CompareInt`: they differ on floats.)
    LtInt {
        a: Slot,
        imm: i32,
        fail: Label,
    },
    LeInt {
        a: Slot,
        imm: i32,
        fail: Label,
    },
    GtInt {
        a: Slot,
        imm: i32,
        fail: Label,
    },
    GeInt {
        a: Slot,
        imm: i32,
        fail: Label,
    },
    TestType {
        test: TypeTest,
        a: Slot,
        fail: Label,
    },
    TestAtom {
        a: Slot,
        atom: Atom,
        fail: Label,
    },
    TestInt {
        a: Slot,
        val: i64,
        fail: Label,
    },
    /// A `TestInt` whose `fail` is a second `TestInt` of the same slot
    /// (clauses on `0` then `1`; the linker makes it): falls through when
    /// `a =:= first`, goes to `then` (past the second test) when
    /// `a =:= second`, else to the second's `fail`, with one dispatch for
    /// both tests. The second stays in place, for the labels that reach it.
    TestInt2 {
        a: Slot,
        first: i32,
        second: i32,
        then: Label,
        fail: Label,
    },
    /// `a =:= lit`
    TestLit {
        a: Slot,
        lit: u32,
        fail: Label,
    },
    TestTuple {
        a: Slot,
        arity: u16,
        fail: Label,
    },
    /// A tuple of `arity` whose first element is `tag` (records).
    TestRecord {
        a: Slot,
        tag: Atom,
        arity: u16,
        fail: Label,
    },
    TestCons {
        a: Slot,
        fail: Label,
    },
    TestNil {
        a: Slot,
        fail: Label,
    },
    TestMap {
        a: Slot,
        fail: Label,
    },
    /// `is_function(a, arity)`
    TestFunArity {
        a: Slot,
        arity: Slot,
        fail: Label,
    },
    Jump {
        to: Label,
    },
    /// Multi-way branch on an atom, integer or tuple arity (see [`Switch`]).
    Switch {
        a: Slot,
        table: u32,
    },

    // --- destructuring (after the matching test)
    GetElem {
        dst: Slot,
        src: Slot,
        idx: u16,
    },
    GetHd {
        dst: Slot,
        src: Slot,
    },
    GetTl {
        dst: Slot,
        src: Slot,
    },
    /// Splits a cons into head and tail, or jumps to `fail` when `src` is not a cons.
    SplitCons {
        src: Slot,
        hd: Slot,
        tl: Slot,
        fail: Label,
    },
    GetMapValue {
        dst: Slot,
        map: Slot,
        key: Slot,
        fail: Label,
    },

    // --- calls
    // A call with a result slot has `arity`, `args` and `dst` first, in
    // that order: `dst` is then at the same offset in each (see
    // `result_slot`).
    /// Call function `fun` of the program with the `arity` arguments at `args..`.
    /// The linker fills in `entry` (the callee's code and window size), so
    /// the call looks nothing up.
    Call {
        arity: u8,
        args: Slot,
        dst: Slot,
        fun: u32,
        entry: Entry,
    },
    TailCall {
        arity: u8,
        args: Slot,
        fun: u32,
        entry: Entry,
    },
    /// Call through the external table (remote calls resolved at link time).
    CallExt {
        arity: u8,
        args: Slot,
        dst: Slot,
        ext: u32,
    },
    TailCallExt {
        ext: u32,
        args: Slot,
        arity: u8,
    },
    /// Call a built-in; on failure raise, or jump to `fail` (guards).
    CallBif {
        arity: u8,
        args: Slot,
        dst: Slot,
        bif: u16,
        fail: Label,
    },
    /// Apply the fun in slot `fun`.
    CallFun {
        arity: u8,
        args: Slot,
        dst: Slot,
        fun: Slot,
    },
    TailCallFun {
        fun: Slot,
        args: Slot,
        arity: u8,
    },
    /// `M:F(Args)` where `M` or `F` is computed at run time (slots `module`, `function`).
    CallDyn {
        arity: u8,
        args: Slot,
        dst: Slot,
        module: Slot,
        function: Slot,
    },
    TailCallDyn {
        module: Slot,
        function: Slot,
        args: Slot,
        arity: u8,
    },
    Return {
        src: Slot,
    },

    // --- exceptions
    /// Enter a `try`: an exception raised before the matching `TryEnd` jumps to
    /// `handler` with class, reason and stacktrace in slots `reg`, `reg+1`, `reg+2`.
    Try {
        handler: Label,
        reg: Slot,
    },
    TryEnd,
    /// Enter `catch Expr`: an exception jumps to `handler` with the converted value in `dst`.
    Catch {
        handler: Label,
        dst: Slot,
    },
    CatchEnd,
    /// Re-raise from slots class, reason, stacktrace (as `erlang:raise/3`).
    Raise {
        reg: Slot,
    },
    /// Raise one of the errors compiled code detects.
    Error {
        kind: ErrKind,
        val: Slot,
    },

    // --- receive (see vm::receive)
    /// Begin a receive: ask the Director how to choose, reset the mailbox cursor.
    /// `after` is the `after` branch (or RAISE when the receive has none).
    RecvStart {
        after: Label,
    },
    /// Every clause of this receive needs the value in `src` in the message:
    /// when that is the reference this process made last, messages that
    /// arrived before it was made cannot match, and the scan starts after
    /// them (BEAM's receive marker, for the `make_ref(), send, receive`
    /// request/reply pattern).
    RecvRef {
        src: Slot,
    },
    /// Load the message at the cursor into `dst`, or jump to `wait` when none is left.
    /// When the clauses turn a message down, `RecvNext` passes over the following
    /// messages that `filter` says no clause can match.
    RecvPeek {
        dst: Slot,
        wait: Label,
        filter: Option<Box<RecvFilter>>,
    },
    /// The current message matched no clause: advance the cursor, go to `lp`.
    RecvNext {
        lp: Label,
    },
    /// Consume the current message (a receipt).
    RecvAccept,
    /// Suspend until a new message arrives, then go to `lp`.
    RecvWait {
        lp: Label,
    },
    /// Suspend until a new message arrives (go to `lp`) or the timeout in slot
    /// `timeout` expires (go to `after`).
    RecvWaitTimeout {
        timeout: Slot,
        lp: Label,
        after: Label,
    },

    // --- binaries
    /// Start building a binary.
    BsInit,
    /// Append a segment of `val` to the binary being built.
    BsPut {
        val: Slot,
        ty: SegType,
        size: SegSize,
        unit: u8,
        flags: SegFlags,
    },
    /// Finish the binary being built into `dst`.
    BsFinish {
        dst: Slot,
    },
    /// Start matching `src` as a bitstring: the position goes in slot `pos`
    /// (an integer bit offset); jump to `fail` if `src` is not a bitstring.
    BsStart {
        src: Slot,
        pos: Slot,
        fail: Label,
    },
    /// Match a segment of the bitstring in `src` at position `pos` into `dst`.
    BsGet {
        src: Slot,
        pos: Slot,
        dst: Slot,
        ty: SegType,
        size: SegSize,
        unit: u8,
        flags: SegFlags,
        fail: Label,
        /// `src` is dead afterwards: a `Rest/binary` tail may reuse its
        /// term instead of allocating a new one (BEAM's match contexts).
        take: bool,
    },
    /// Succeed only if the match position is at the end (`pos == bit_size(src)`).
    BsEnd {
        src: Slot,
        pos: Slot,
        fail: Label,
    },
    /// Skip `size` units.
    BsSkip {
        src: Slot,
        pos: Slot,
        size: SegSize,
        unit: u8,
        fail: Label,
    },
    /// Never run: the word just before each function's code in the
    /// program's arena (`Program::arena`), naming the function: the slot
    /// before a function's first instruction is its own, so the slot
    /// before an instruction pointer says which function it is in
    /// (`Program::locate`).
    FunStart {
        fun: u32,
    },
    /// Never in a function's code: what a process's bottom frame returns
    /// to (`frames::Frames`): its initial call returned, and it ends.
    EndProcess,
}

/// Where the `dst` of a call with a result slot lies in the instruction:
/// the same offset in each (`Instr` is `repr(u8)`, so each variant is laid
/// out as a `repr(C)` struct after the tag: `arity: u8` at 1, `args` at 2,
/// `dst` at 4).
const RESULT_AT: usize = 4;

/// The slot a return into a caller continuing at `ip` writes its value
/// to: the `dst` of the call just before `ip`. A frame keeps no result
/// slot: it keeps `ip`, and a call with a result slot is the only
/// instruction a frame continues after (`frames::Frame`).
///
/// # Safety
/// The instruction before `ip` must be a `Call`, `CallExt`, `CallBif`,
/// `CallFun` or `CallDyn`.
#[inline(always)]
pub unsafe fn result_slot(ip: *const Instr) -> Slot {
    // SAFETY: the caller's promise; `dst` is a `Slot` at `RESULT_AT` in
    // each of those (checked by the test `the_result_slot_is_each_calls_dst`),
    // aligned as a `Slot` is (`Instr` is aligned to 8).
    unsafe { ip.sub(1).cast::<u8>().add(RESULT_AT).cast::<Slot>().read() }
}

/// The label operands of an instruction, by reference or by mutable
/// reference (match ergonomics decide which), and whether they may be
/// [`RAISE`] ("no such branch": a failed test or operation raises, a
/// receive has no `after`). Every instruction is listed, none matched with
/// `_`: a new instruction with a label must say so here. A `Switch`'s
/// labels are in its table.
macro_rules! label_operands {
    ($ins:expr) => {{
        use Instr::*;
        match $ins {
            MapPut { fail, .. }
            | Op2 { fail, .. }
            | Add { fail, .. }
            | AddReturn { fail, .. }
            | Sub { fail, .. }
            | Mul { fail, .. }
            | AddImm { fail, .. }
            | AddImmCall { fail, .. }
            | AddImmTailCall { fail, .. }
            | Op1 { fail, .. }
            | Compare { fail, .. }
            | CompareInt { fail, .. }
            | LtInt { fail, .. }
            | LeInt { fail, .. }
            | GtInt { fail, .. }
            | GeInt { fail, .. }
            | TestType { fail, .. }
            | TestAtom { fail, .. }
            | TestInt { fail, .. }
            | TestLit { fail, .. }
            | TestTuple { fail, .. }
            | TestRecord { fail, .. }
            | TestCons { fail, .. }
            | TestNil { fail, .. }
            | TestMap { fail, .. }
            | TestFunArity { fail, .. }
            | SplitCons { fail, .. }
            | GetMapValue { fail, .. }
            | CallBif { fail, .. }
            | BsStart { fail, .. }
            | BsGet { fail, .. }
            | BsEnd { fail, .. }
            | BsSkip { fail, .. } => ([Some(fail), None], true),
            RecvStart { after } => ([Some(after), None], true),
            Jump { to } => ([Some(to), None], false),
            Try { handler, .. } | Catch { handler, .. } => ([Some(handler), None], false),
            RecvPeek { wait, .. } => ([Some(wait), None], false),
            RecvNext { lp } | RecvWait { lp } => ([Some(lp), None], false),
            RecvWaitTimeout { lp, after, .. } => ([Some(lp), Some(after)], false),
            TestInt2 { then, fail, .. } => ([Some(then), Some(fail)], false),
            Move { .. }
            | Take { .. }
            | Lit { .. }
            | Int { .. }
            | IntReturn { .. }
            | Atom { .. }
            | Nil { .. }
            | Cons { .. }
            | Tuple { .. }
            | MapNew { .. }
            | MakeFun { .. }
            | GetElem { .. }
            | GetHd { .. }
            | GetTl { .. }
            | Call { .. }
            | TailCall { .. }
            | CallExt { .. }
            | TailCallExt { .. }
            | CallFun { .. }
            | TailCallFun { .. }
            | CallDyn { .. }
            | TailCallDyn { .. }
            | Return { .. }
            | Switch { .. }
            | TryEnd
            | CatchEnd
            | Raise { .. }
            | Error { .. }
            | FunStart { .. }
            | EndProcess
            | RecvRef { .. }
            | RecvAccept
            | BsInit
            | BsPut { .. }
            | BsFinish { .. } => ([None, None], false),
        }
    }};
}

impl Instr {
    /// The instruction's label operands (a `Switch`'s are in its table),
    /// and whether they may be [`RAISE`].
    pub fn labels(&self) -> ([Option<&Label>; 2], bool) {
        label_operands!(self)
    }

    /// [`Instr::labels`], to rewrite them (the builder resolving its labels).
    pub fn labels_mut(&mut self) -> [Option<&mut Label>; 2] {
        label_operands!(self).0
    }

    /// Whether control may go on to the next instruction.
    pub fn falls_through(&self) -> bool {
        use Instr::*;
        !matches!(
            self,
            Return { .. }
                | TailCall { .. }
                | TailCallExt { .. }
                | TailCallFun { .. }
                | TailCallDyn { .. }
                | Jump { .. }
                | Switch { .. }
                | Error { .. }
                | Raise { .. }
                | RecvNext { .. }
                | RecvWait { .. }
                | RecvWaitTimeout { .. }
        )
    }

    /// A call that leaves the function's local code: a built-in, another
    /// module's function, a fun, `apply`. A built-in may run (and emit
    /// events) within it.
    pub fn calls_out(&self) -> bool {
        use Instr::*;
        matches!(
            self,
            CallBif { .. }
                | CallExt { .. }
                | TailCallExt { .. }
                | CallFun { .. }
                | TailCallFun { .. }
                | CallDyn { .. }
                | TailCallDyn { .. }
        )
    }

    /// Any call: a local one, or one that [calls out](Instr::calls_out).
    pub fn is_call(&self) -> bool {
        matches!(self, Instr::Call { .. } | Instr::TailCall { .. }) || self.calls_out()
    }

    /// An instruction of a `receive` (where a waiting process is saved).
    pub fn is_receive(&self) -> bool {
        use Instr::*;
        matches!(
            self,
            RecvStart { .. }
                | RecvRef { .. }
                | RecvPeek { .. }
                | RecvNext { .. }
                | RecvAccept
                | RecvWait { .. }
                | RecvWaitTimeout { .. }
        )
    }
}

/// What a message must look like for some clause of a receive to match it,
/// from the clauses' patterns alone (guards are left to the clauses). A scan
/// passes over a message that fits no alternative without lending it to the
/// clauses, which is most of the work of a receive deep in a mailbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecvFilter {
    /// One per clause; a message may match when it fits any.
    pub alts: Box<[Shape]>,
}

/// A necessary condition for a pattern to match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    Any,
    Atom(Atom),
    Int(i64),
    /// `=:=` this constant (a big integer).
    Lit(trace_term::Term),
    /// `=:=` the variable in this slot, bound before the receive.
    Bound(Slot),
    Tuple(Box<[Shape]>),
}

impl RecvFilter {
    /// Whether every clause wants something bound before the receive in its
    /// message (a reference, a pid, a tag): the receive waits for a reply or
    /// for one particular process, not for whatever work comes. A server's
    /// loop (`receive {call, From, Req} -> ...`) is not specific.
    pub fn is_specific(&self) -> bool {
        self.alts.iter().all(Shape::has_bound)
    }

    /// Whether `msg` may match some clause; `frame` is the function's window.
    #[inline]
    pub fn admits(&self, msg: &trace_term::Term, frame: &[trace_term::Term]) -> bool {
        self.alts.iter().any(|a| a.admits(msg, frame))
    }

    /// The filter with each variable bound before the receive replaced by
    /// its value in `frame`: it then needs no frame (`admits(msg, &[])`),
    /// and says later which messages the receive could have taken.
    pub fn closed(&self, frame: &[trace_term::Term]) -> RecvFilter {
        RecvFilter {
            alts: self.alts.iter().map(|a| a.closed(frame)).collect(),
        }
    }
}

impl Shape {
    fn closed(&self, frame: &[trace_term::Term]) -> Shape {
        match self {
            Shape::Bound(s) => match frame.get(*s as usize) {
                Some(v) => Shape::Lit(v.clone()),
                None => Shape::Any,
            },
            Shape::Tuple(ps) => Shape::Tuple(ps.iter().map(|p| p.closed(frame)).collect()),
            other => other.clone(),
        }
    }

    fn has_bound(&self) -> bool {
        match self {
            Shape::Bound(_) => true,
            Shape::Tuple(ps) => ps.iter().any(Shape::has_bound),
            Shape::Any | Shape::Atom(_) | Shape::Int(_) | Shape::Lit(_) => false,
        }
    }

    /// A pattern's shape: most often a tuple of leaves, checked flat here.
    #[inline(always)]
    fn admits(&self, t: &trace_term::Term, frame: &[trace_term::Term]) -> bool {
        match self {
            Shape::Tuple(ps) => t.as_tuple().is_some_and(|es| {
                es.len() == ps.len() && ps.iter().zip(es).all(|(p, e)| p.leaf(e, frame))
            }),
            _ => self.leaf(t, frame),
        }
    }

    #[inline(always)]
    fn leaf(&self, t: &trace_term::Term, frame: &[trace_term::Term]) -> bool {
        use trace_term::Term;
        match self {
            Shape::Any => true,
            Shape::Atom(a) => matches!(t, Term::Atom(x) if x == a),
            Shape::Int(i) => matches!(t, Term::Int(x) if x == i),
            Shape::Lit(v) => t == v,
            Shape::Bound(s) => frame.get(*s as usize).is_some_and(|v| match (t, v) {
                // Immediates first: they are most of what a receive waits for.
                (Term::Int(x), Term::Int(y)) => x == y,
                (Term::Atom(x), Term::Atom(y)) => x == y,
                _ => t == v,
            }),
            Shape::Tuple(_) => self.nested(t, frame),
        }
    }

    /// A tuple inside a tuple: out of line, so the flat case stays small.
    #[inline(never)]
    fn nested(&self, t: &trace_term::Term, frame: &[trace_term::Term]) -> bool {
        self.admits(t, frame)
    }
}

/// A jump table for [`Instr::Switch`].
#[derive(Clone, Debug)]
pub struct Switch {
    pub kind: SwitchKind,
    /// Sorted by key for binary search.
    pub cases: Vec<(i64, Label)>,
    pub default: Label,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SwitchKind {
    /// Keys are atom indices.
    Atom,
    Int,
    /// Keys are tuple arities; non-tuples go to default.
    TupleArity,
}

const _: () = assert!(std::mem::size_of::<Instr>() <= 32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_slot_is_each_calls_dst() {
        let calls = [
            Instr::Call {
                arity: 3,
                args: 4,
                dst: 501,
                fun: 9,
                entry: Entry::UNLINKED,
            },
            Instr::CallExt {
                arity: 3,
                args: 4,
                dst: 502,
                ext: 9,
            },
            Instr::CallBif {
                arity: 3,
                args: 4,
                dst: 503,
                bif: 9,
                fail: RAISE,
            },
            Instr::CallFun {
                arity: 3,
                args: 4,
                dst: 504,
                fun: 9,
            },
            Instr::CallDyn {
                arity: 3,
                args: 4,
                dst: 505,
                module: 8,
                function: 9,
            },
        ];
        for (i, c) in calls.iter().enumerate() {
            // SAFETY: the instruction before the address is a call.
            let got = unsafe { result_slot((c as *const Instr).add(1)) };
            assert_eq!(got, 501 + i as Slot, "{c:?}");
        }
    }
}
