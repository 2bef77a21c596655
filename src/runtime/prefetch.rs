//! A hint that memory is about to be used: the processor starts loading it now.
//!
//! A batch of many small bodies is bound by memory, not arithmetic: 10000 boxes hold more
//! than the caches do, and each body's buffers are separate allocations whose misses the
//! processor's own prefetcher does not foresee. A batch asks for the next body's buffers
//! before it steps one ([`crate::body::Body::prefetch`]).
//!
//! One of five files with `unsafe` outside [`crate::ffi`] (docs/ARCHITECTURE.md lists them):
//! Rust has no stable safe prefetch, and `_mm_prefetch` is a
//! `#[target_feature(enable = "sse")]` function, which safe code may call only from a
//! function that lists SSE itself, although every x86-64 processor has it. On other
//! architectures this does nothing.

/// Bytes per cache line.
const LINE: usize = 64;

/// Asks the processor to load the `bytes` bytes from `start` into its caches: every cache
/// line they touch, the first and last included when `start` is not at a line's start.
#[inline]
pub(crate) fn prefetch(start: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let first = (start as usize) % LINE;
        let line = start.wrapping_sub(first);
        for offset in (0..first + bytes).step_by(LINE) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: the target feature the call needs (SSE) is part of the x86-64
            // baseline that every x86_64 target enables, and a prefetch never faults,
            // whatever the address (`wrapping_add` makes no claim about it either).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.wrapping_add(offset).cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, bytes);
}
