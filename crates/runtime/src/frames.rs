//! A process's call stack: the callers' saved positions ([`Frame`]),
//! innermost last, in a stack ([`Frames`]) that a call and a return move
//! by one pointer.
//!
//! The frame is what a body call writes and its return reads, and
//! nothing more: where the caller continues and its window base (16
//! bytes); the slot for the result is the call's own `dst`, read from the
//! code at the address (`ir::result_slot`). Which function a frame is in, and how large
//! its window is, only slow paths ask (stack traces, `inspect`, the
//! debugger, cutting the stack): the program answers from the address
//! alone ([`crate::code::Program::locate`]), and the function's `nslots`
//! follows. No code start is kept: the arena's labels are relative to the
//! instruction pointer (`ir::relative`), so the loop needs none to jump.
//! The running process keeps no function id or code start either
//! (`Process::fun` is written only where the loop is left). Why not a
//! `Vec`: a push or pop through one loads its buffer and length and
//! scales the length by the frame's size; here the top is an address,
//! compared with the limit on a call and with the bottom on a return.
//!
//! Measured (callgrind, instructions per call of naive fib:
//! `(Ir(fib 28) - Ir(fib 27)) / 392,836` of `trace run --schedulers 1`):
//! 124.2 with a 32-byte frame of function, base, result slot, window
//! size, code and position in a `Vec`, also writing the function into
//! the process at every call and return; 116.2 without the function and
//! the window size; 111.2 with this stack; 108.7 with the bottom frame
//! (a return no longer asks whether there is a caller); 102.6 with no
//! code start in the frame or the process (a call saves a load and two
//! stores, a return a load and a store) and labels as byte distances
//! from the instruction pointer (a taken branch loads nothing; labels
//! relative in instructions, the code start still kept, measured 108.7:
//! the sign extension and scaling took the load's place); 100.6 with the
//! result slot read from the call's `dst` rather than written into the
//! frame. Tried and
//! dropped: writing the function into the process before every
//! instruction run out of the loop, not only before a receive, cost
//! maps_bench 23M instructions (2,314.5M on the 32-byte frame, 2,337.9M;
//! 2,323.9M as it is); the code start kept in the loop's state rather
//! than in the process, 109.2 per fib call (LLVM ran out of registers).

use crate::code::{FunId, Program};
use crate::ir::{CodePtr, Instr};
use std::mem::MaybeUninit;

/// The code a process's bottom frame returns to: a call whose result
/// slot is the initial window's first ([`crate::ir::result_slot`]), and
/// after it what only ends the process.
static END_CODE: [Instr; 2] = [
    Instr::Call {
        arity: 0,
        args: 0,
        dst: 0,
        fun: END_FUN,
        entry: crate::ir::Entry::UNLINKED,
    },
    Instr::EndProcess,
];

/// The function id a bottom frame is in ([`Frame::place`]): no function
/// of any program.
pub const END_FUN: FunId = FunId::MAX;

/// The frame below every process's frames (see [`Frames`]); an empty
/// stack's bottom points just past it.
static BOTTOM: [Frame; 1] = [Frame {
    ip: CodePtr(END_CODE.as_ptr().wrapping_add(1)),
    base: 0,
}];

/// A caller's saved position: where it continues and its window. No
/// function id, code start, window size or result slot: the address says
/// which function it is ([`Frame::place`]), a slow path that needs the
/// size looks the function up, and the result slot is the `dst` of the
/// call just before the address ([`Frame::ret`]). A call writes, and a
/// return reads, just these (see `vm::interp::call`).
#[derive(Copy, Clone, Debug)]
pub struct Frame {
    /// Where to continue in the caller, in the program's arena (or the
    /// bottom frame's code), just after the call: kept as an address so
    /// that neither the call nor the return converts it.
    pub ip: CodePtr,
    pub base: u32,
}

impl Frame {
    /// The caller's slot that receives the result: the call's `dst`,
    /// read from the code (a call writes one field less).
    #[inline(always)]
    pub fn ret(&self) -> u16 {
        // SAFETY: a frame continues just after a call with a result slot
        // (pushed by one, or the bottom frame's, see `END_CODE`).
        unsafe { crate::ir::result_slot(self.ip.0) }
    }

    /// The caller, and where it continues as an index into its code;
    /// [`END_FUN`] for the bottom frame.
    pub fn place(&self, prog: &Program) -> (FunId, u32) {
        match prog.locate(self.ip.0) {
            Some((fun, pc)) => (fun, pc as u32),
            None => (END_FUN, 0),
        }
    }
}

/// The frames of a process, innermost last.
///
/// Below them lies one more, a copy of [`BOTTOM`], which returns to
/// [`Instr::EndProcess`]: a return pops a frame without asking whether
/// there is one ([`Frames::pop_to_bottom`]), and the initial call's
/// return lands where the loop ends the process.
///
/// Invariant: `bottom <= top <= limit`, all three in (or one past) the
/// buffer `_store`, whose slots below `top` are written frames and whose
/// first slot, just below `bottom`, is the bottom frame (an empty stack,
/// with no buffer, has [`BOTTOM`] there).
pub struct Frames {
    /// Owns the buffer the pointers point into (read only through them).
    _store: Box<[MaybeUninit<Frame>]>,
    bottom: *mut Frame,
    top: *mut Frame,
    limit: *mut Frame,
}

// SAFETY: the pointers point into `_store`, which `Frames` owns; moving it
// to another thread moves the buffer with it (a process runs on one
// scheduler thread at a time).
unsafe impl Send for Frames {}
// SAFETY: `&Frames` only reads.
unsafe impl Sync for Frames {}

impl Default for Frames {
    /// No frames and no buffer (a process that never calls allocates none).
    fn default() -> Frames {
        // Never written through: `limit == bottom`, so the first push grows.
        let bottom = BOTTOM.as_ptr().wrapping_add(1).cast_mut();
        Frames {
            _store: Box::new([]),
            bottom,
            top: bottom,
            limit: bottom,
        }
    }
}

impl Frames {
    /// Room for `n` frames above the bottom frame.
    fn with_capacity(n: usize) -> Frames {
        let mut store: Box<[MaybeUninit<Frame>]> = Box::new_uninit_slice(n + 1);
        store[0].write(BOTTOM[0]);
        // SAFETY: the buffer has `n + 1` slots.
        let bottom = unsafe { store.as_mut_ptr().cast::<Frame>().add(1) };
        Frames {
            _store: store,
            bottom,
            top: bottom,
            // SAFETY: one past the end of the buffer.
            limit: unsafe { bottom.add(n) },
        }
    }

    /// How many frames there are (the call depth).
    #[inline]
    pub fn len(&self) -> usize {
        // SAFETY: both point into `_store` (see the invariant).
        unsafe { self.top.offset_from(self.bottom) as usize }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.top == self.bottom
    }

    /// The frames, outermost first.
    pub fn as_slice(&self) -> &[Frame] {
        // SAFETY: the slots below `top` are written (see the invariant).
        unsafe { std::slice::from_raw_parts(self.bottom, self.len()) }
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Frame> {
        self.as_slice().iter()
    }

    /// Whether a push needs [`Frames::reserve_one`] first.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.top == self.limit
    }

    /// Pushes `fr` where there is room (`!is_full()`).
    ///
    /// # Safety
    /// The stack must not be full.
    #[inline(always)]
    pub unsafe fn push_unchecked(&mut self, fr: Frame) {
        debug_assert!(!self.is_full());
        // SAFETY: `top < limit`, a slot of the buffer (the caller's promise).
        unsafe {
            self.top.write(fr);
            self.top = self.top.add(1);
        }
    }

    pub fn push(&mut self, fr: Frame) {
        self.reserve_one();
        // SAFETY: there is room now.
        unsafe { self.push_unchecked(fr) }
    }

    /// Pops the innermost frame.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Frame> {
        if self.top == self.bottom {
            return None;
        }
        // SAFETY: `top > bottom`, so the slot below it is a written frame.
        unsafe {
            self.top = self.top.sub(1);
            Some(self.top.read())
        }
    }

    /// Pops the innermost frame, or the bottom frame when there is none,
    /// which returns to [`Instr::EndProcess`].
    ///
    /// # Safety
    /// After the bottom frame is popped, nothing but [`Frames::clear`]
    /// may be called (the top is below the bottom): the loop runs
    /// `EndProcess` next, which clears the stack.
    #[inline(always)]
    pub unsafe fn pop_to_bottom(&mut self) -> Frame {
        // SAFETY: the slot below `bottom` holds the bottom frame (see the
        // invariant), and a stack popped below it is cleared before any
        // other use (the caller's promise).
        unsafe {
            self.top = self.top.sub(1);
            self.top.read()
        }
    }

    pub fn last(&self) -> Option<&Frame> {
        self.as_slice().last()
    }

    /// Keeps the outermost `n` frames.
    pub fn truncate(&mut self, n: usize) {
        if n < self.len() {
            // SAFETY: below the current top, so inside the buffer.
            self.top = unsafe { self.bottom.add(n) };
        }
    }

    pub fn clear(&mut self) {
        self.top = self.bottom;
    }

    /// Makes room for one more frame: twice as many as there are (a deep
    /// recursion grows the stack a few times, not at every call).
    #[cold]
    #[inline(never)]
    pub fn reserve_one(&mut self) {
        if !self.is_full() {
            return;
        }
        let len = self.len();
        let mut more = Frames::with_capacity((len * 2).max(16));
        // SAFETY: the first `len` frames are written; the new buffer has
        // room for them; the two buffers are distinct.
        unsafe {
            std::ptr::copy_nonoverlapping(self.bottom, more.bottom, len);
            more.top = more.bottom.add(len);
        }
        *self = more;
    }
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
