//! Packing lanes: the chosen rows of a lane group moved, in order, to the end of a
//! buffer's packed rows, so that later work runs on full groups of chosen rows only.
//!
//! The drag pass evaluates the three edge midpoints of the triangles that need them (a
//! third of a bunny's wet rows, spread over four fifths of its lane groups). Evaluating
//! every row of a group that has one did about two and a half times the work; packing the chosen rows
//! costs one vector instruction per column on processors with AVX-512
//! (`vcompresspd`, or `vcompressps` for the corners, kept in single precision as the
//! hull keeps them), and eight scalar moves per column elsewhere.
//!
//! Both ways write the same numbers to the same places, so the sums built on them, and
//! the forces, are the same bits on every processor. Past the packed rows, the buffer
//! holds unspecified numbers (zeros or copies of rows not chosen): the reader clears them.
//!
//! One of five files with `unsafe` outside [`crate::ffi`] (docs/ARCHITECTURE.md lists
//! them): the AVX-512 loads and stores take raw pointers.

/// Rows per lane group.
pub(crate) const LANES: usize = 8;

/// A buffer column: room for the packed rows (fewer than [`LANES`] between uses) and a
/// whole group written after them.
pub(crate) type PackColumn = [f64; 2 * LANES];

/// A buffer column in single precision (the hull's corners): 64 bytes, so that in a
/// buffer aligned to 64 the eight rows a packing writes never straddle two cache lines.
pub(crate) type PackColumn32 = [f32; 2 * LANES];

/// Appends the rows of `from` whose bit is set in `keep` (bit `l` for row `l`) after the
/// first `at` rows of every column of `to` (`at` below [`LANES`]), in order; the portable
/// code. Returns the new number of packed rows.
#[inline(always)]
pub(crate) fn pack_portable<T: Copy, const K: usize>(
    keep: u8,
    from: &[[T; LANES]; K],
    to: &mut [[T; 2 * LANES]; K],
    at: usize,
) -> usize {
    let at = at.min(LANES);
    // Every row is written, a row not kept at the place of the next kept one, which
    // overwrites it (rows are written in order): no branch per row.
    let mut slot = [0usize; LANES];
    let mut next = at;
    for (l, slot) in slot.iter_mut().enumerate() {
        *slot = next;
        next += usize::from((keep >> l) & 1);
    }
    for (from, to) in from.iter().zip(to.iter_mut()) {
        for (&slot, &value) in slot.iter().zip(from) {
            to[slot.min(2 * LANES - 1)] = value;
        }
    }
    next
}

/// [`pack_portable`] with AVX-512's `vcompresspd`: one instruction per column.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn pack_avx512<const K: usize>(
    keep: u8,
    from: &[[f64; LANES]; K],
    to: &mut [PackColumn; K],
    at: usize,
) -> usize {
    use std::arch::x86_64::{_mm512_loadu_pd, _mm512_maskz_compress_pd, _mm512_storeu_pd};
    let at = at.min(LANES);
    for (from, to) in from.iter().zip(to.iter_mut()) {
        if let Some(window) = to.get_mut(at..at + LANES) {
            // SAFETY: reads the eight numbers of `from` and writes the eight of `window`,
            // both valid for eight unaligned `f64`s; AVX-512F is enabled on this function.
            unsafe {
                let packed = _mm512_maskz_compress_pd(keep, _mm512_loadu_pd(from.as_ptr()));
                _mm512_storeu_pd(window.as_mut_ptr(), packed);
            }
        }
    }
    at + keep.count_ones() as usize
}

/// [`pack_avx512`] for single-precision columns (`vcompressps` on eight lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
pub(crate) fn pack_avx512_f32<const K: usize>(
    keep: u8,
    from: &[[f32; LANES]; K],
    to: &mut [PackColumn32; K],
    at: usize,
) -> usize {
    use std::arch::x86_64::{_mm256_loadu_ps, _mm256_maskz_compress_ps, _mm256_storeu_ps};
    let at = at.min(LANES);
    for (from, to) in from.iter().zip(to.iter_mut()) {
        if let Some(window) = to.get_mut(at..at + LANES) {
            // SAFETY: reads the eight numbers of `from` and writes the eight of `window`,
            // both valid for eight unaligned `f32`s; AVX-512F and VL are enabled on this
            // function.
            unsafe {
                let packed = _mm256_maskz_compress_ps(keep, _mm256_loadu_ps(from.as_ptr()));
                _mm256_storeu_ps(window.as_mut_ptr(), packed);
            }
        }
    }
    at + keep.count_ones() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways agree with a plain filter for every choice of rows and every start.
    #[test]
    fn packing_keeps_the_chosen_rows_in_order_after_the_packed_ones() {
        let from: [[f64; LANES]; 2] = [
            std::array::from_fn(|l| l as f64 + 1.0),
            std::array::from_fn(|l| -(l as f64) - 10.0),
        ];
        for keep in 0..=u8::MAX {
            for at in 0..LANES {
                let filtered: Vec<Vec<f64>> = from
                    .iter()
                    .map(|c| (0..LANES).filter(|&l| keep >> l & 1 == 1).map(|l| c[l]).collect())
                    .collect();
                let before: [PackColumn; 2] = [[0.5; 2 * LANES], [0.25; 2 * LANES]];
                let mut ways = vec![];
                let mut portable = before;
                ways.push((pack_portable(keep, &from, &mut portable, at), portable));
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f") {
                    let mut vector = before;
                    // SAFETY: the processor has AVX-512F (checked above).
                    let len = unsafe { pack_avx512(keep, &from, &mut vector, at) };
                    ways.push((len, vector));
                }
                let from32 = from.map(|c| c.map(|x| x as f32));
                let before32 = before.map(|c| c.map(|x| x as f32));
                let mut portable32 = before32;
                let len32 = pack_portable(keep, &from32, &mut portable32, at);
                let mut ways32 = vec![(len32, portable32)];
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl") {
                    let mut vector = before32;
                    // SAFETY: the processor has AVX-512F and VL (checked above).
                    let len = unsafe { pack_avx512_f32(keep, &from32, &mut vector, at) };
                    ways32.push((len, vector));
                }
                for (len, packed) in ways32 {
                    assert_eq!(len, at + keep.count_ones() as usize);
                    for k in 0..2 {
                        assert_eq!(packed[k][..at], before32[k][..at], "rows before {at} kept (f32)");
                        let expected: Vec<f32> = filtered[k].iter().map(|&x| x as f32).collect();
                        assert_eq!(packed[k][at..len], expected[..], "keep {keep:08b} at {at} (f32)");
                    }
                }
                for (len, packed) in ways {
                    assert_eq!(len, at + keep.count_ones() as usize);
                    for k in 0..2 {
                        assert_eq!(packed[k][..at], before[k][..at], "rows before {at} kept");
                        assert_eq!(packed[k][at..len], filtered[k][..], "keep {keep:08b} at {at}");
                    }
                }
            }
        }
    }
}
