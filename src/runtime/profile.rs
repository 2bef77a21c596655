//! Where a step's wall-clock time goes, section by section, for benchmarks: built only
//! with the `profile-sections` feature (`cargo bench --bench profile --features
//! profile-sections -- bunny-gerstner 2000 2 each`); without it every timer is an empty
//! value and the step's code is the same as if it had none.
//!
//! A sampling profiler (perf) counts where each thread spends its time; when a section is
//! shared between two threads that is not how long the step waited for it. These timers
//! measure each section on the thread that runs the step, from its start to the moment
//! its last share is done, so that one and two threads can be compared section by
//! section. The totals are process-wide (every world's steps add to them) and cost two
//! clock reads and two atomic additions per section, a few tens of nanoseconds.

/// The timed parts of a step. A section may contain others (the patch's parts are inside
/// [`Section::Prepare`], the passes inside [`Section::Compute`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The vertex transform and the water at every vertex (`Body::prepare`).
    Prepare,
    /// The water asked at a water patch's grid points.
    PatchWater,
    /// A water patch's grid read at every vertex.
    PatchInterpolation,
    /// Everything after the water: the passes, the cut triangles, the sums (`Body::compute`).
    Compute,
    /// The whole triangles' pass (hydrostatics, slamming, air).
    WholePass,
    /// The cut triangles, one at a time (beside the whole triangles' pass on two threads).
    CutTriangles,
    /// The drag pass over whole triangles (the cut ones' pieces are not in it).
    DragPass,
    /// Both passes of a small hull's bodies stepped in lanes (`crate::loops::lanes`), for a group
    /// of up to eight bodies or one alone.
    LanePasses,
    /// A batch's checks and grouping, before any body is stepped (serial).
    BatchChecks,
    /// A batch's groups stepped, prepare and compute included (on every thread).
    BatchGroups,
    /// A batch's forces written out, after every body is stepped (serial).
    BatchWrite,
}

impl Section {
    /// Every section, in the order of [`report`].
    pub const ALL: [Section; 11] = [
        Section::Prepare,
        Section::PatchWater,
        Section::PatchInterpolation,
        Section::Compute,
        Section::WholePass,
        Section::CutTriangles,
        Section::DragPass,
        Section::LanePasses,
        Section::BatchChecks,
        Section::BatchGroups,
        Section::BatchWrite,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Section::Prepare => "prepare (vertices, water)",
            Section::PatchWater => "  patch: water at grid points",
            Section::PatchInterpolation => "  patch: interpolation",
            Section::Compute => "compute (passes, cut triangles)",
            Section::WholePass => "  whole-triangle pass",
            Section::CutTriangles => "  cut triangles",
            Section::DragPass => "  drag pass",
            Section::LanePasses => "  lanes: both passes (a group)",
            Section::BatchChecks => "batch: checks and grouping",
            Section::BatchGroups => "batch: groups stepped",
            Section::BatchWrite => "batch: forces written out",
        }
    }
}

/// What [`report`] gives for one section: total nanoseconds and how many times it ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Wall-clock time spent in the section, summed over its runs, ns.
    pub nanoseconds: u64,
    /// How many times the section ran.
    pub count: u64,
}

#[cfg(feature = "profile-sections")]
mod clock {
    use super::{Section, Totals};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;

    const N: usize = Section::ALL.len();
    static NANOSECONDS: [AtomicU64; N] = [const { AtomicU64::new(0) }; N];
    static COUNTS: [AtomicU64; N] = [const { AtomicU64::new(0) }; N];

    /// Adds its section's time when dropped.
    #[must_use = "a timer measures until it is dropped"]
    pub struct Timer(Section, Instant);

    impl Timer {
        /// Ends the measurement before the end of the scope.
        #[inline(always)]
        pub fn stop(self) {}
    }

    impl Drop for Timer {
        fn drop(&mut self) {
            let elapsed = u64::try_from(self.1.elapsed().as_nanos()).unwrap_or(u64::MAX);
            NANOSECONDS[self.0 as usize].fetch_add(elapsed, Ordering::Relaxed);
            COUNTS[self.0 as usize].fetch_add(1, Ordering::Relaxed);
        }
    }

    #[inline(always)]
    pub fn time(section: Section) -> Timer {
        Timer(section, Instant::now())
    }

    pub fn report() -> Option<[(Section, Totals); N]> {
        Some(Section::ALL.map(|s| {
            let totals = Totals {
                nanoseconds: NANOSECONDS[s as usize].load(Ordering::Relaxed),
                count: COUNTS[s as usize].load(Ordering::Relaxed),
            };
            (s, totals)
        }))
    }

    pub fn reset() {
        for a in NANOSECONDS.iter().chain(&COUNTS) {
            a.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(not(feature = "profile-sections"))]
mod clock {
    use super::{Section, Totals};

    /// Without the feature, nothing.
    pub struct Timer;

    impl Timer {
        /// Ends the measurement before the end of the scope.
        #[inline(always)]
        pub fn stop(self) {}
    }

    #[inline(always)]
    pub fn time(_: Section) -> Timer {
        Timer
    }

    pub fn report() -> Option<[(Section, Totals); Section::ALL.len()]> {
        None
    }

    pub fn reset() {}
}

pub use clock::Timer;

/// Starts timing `section` until the returned value is dropped.
#[inline(always)]
pub fn time(section: Section) -> Timer {
    clock::time(section)
}

/// Every section's totals since the start or the last [`reset`]; `None` when built
/// without the `profile-sections` feature.
pub fn report() -> Option<[(Section, Totals); Section::ALL.len()]> {
    clock::report()
}

/// Sets every total to zero (after a warm-up, say).
pub fn reset() {
    clock::reset()
}

#[cfg(all(test, feature = "profile-sections"))]
mod tests {
    use super::*;
    use crate::{BodyDesc, BodyState, HullDesc, World, WorldDesc};

    #[test]
    fn every_step_times_each_of_its_sections() {
        let vertices: Vec<glam::Vec3> = (0..8)
            .map(|i| glam::Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) - 0.5)
            .collect();
        // Outward winding: each face's corners counter-clockwise seen from outside.
        let faces = [
            [0, 4, 6, 2],
            [1, 3, 7, 5],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 2, 3, 1],
            [4, 5, 7, 6],
        ];
        let indices: Vec<u32> = faces.iter().flat_map(|[a, b, c, d]| [*a, *b, *c, *a, *c, *d]).collect();
        let mut world = World::new(&WorldDesc {
            thread_count: 1,
            ..WorldDesc::default()
        })
        .unwrap();
        // (The world's water: flat, at height 0, where the cube floats half under.)
        let hull = world
            .create_hull(&HullDesc {
                vertices: &vertices,
                indices: &indices,
                flip_winding: false,
            })
            .unwrap();
        // The same box in the lanes, and with the pressure at the centroids (which the
        // lanes do not compute) in the triangle loops.
        let body = world
            .create_body(&BodyDesc {
                hull,
                mass: 500.0,
                ..BodyDesc::default()
            })
            .unwrap();
        let looped = world
            .create_body(&BodyDesc {
                hull,
                mass: 500.0,
                buoyancy: crate::BuoyancyModel::PressureCentroid,
                ..BodyDesc::default()
            })
            .unwrap();
        let state = BodyState::default();
        // Other tests may step bodies at the same time: only the totals' growth is ours,
        // and only as a lower bound.
        let before = report().unwrap();
        let steps = 5;
        let mut out = [crate::BodyForces::default(); 2];
        for _ in 0..steps {
            world.step_body(body, &state, 1.0 / 60.0).unwrap();
            world.step_body(looped, &state, 1.0 / 60.0).unwrap();
            world
                .step_bodies(
                    &[body, looped],
                    &[state; 2],
                    1.0 / 60.0,
                    &mut out,
                    |s| *s,
                    |f, o| *o = *f,
                )
                .unwrap();
        }
        let after = report().unwrap();
        let grew = |s: Section| {
            let i = s as usize;
            (
                after[i].1.count - before[i].1.count,
                after[i].1.nanoseconds - before[i].1.nanoseconds,
            )
        };
        for s in [
            Section::Prepare,
            Section::Compute,
            Section::WholePass,
            Section::DragPass,
            Section::LanePasses,
            Section::BatchChecks,
            Section::BatchGroups,
            Section::BatchWrite,
        ] {
            let (count, nanoseconds) = grew(s);
            assert!(count >= steps, "{s:?} ran {count} times in {steps} steps");
            assert!(nanoseconds > 0, "{s:?} took no time");
        }
    }
}
