//! Stage 2, sampling the water: the hull's vertices turned into world axes (relative to
//! the body origin) and each one's height above the water, with the water's velocity
//! there when a force needs it.

use glam::{DMat3, DVec2, DVec3};

use super::Environment;
use crate::body::{Body, BodyState};
use crate::error::Result;
use crate::loops::whole::PARALLEL_ROWS;
use crate::runtime::team::Team;
use crate::water::{FroudeKrylov, Water};

impl Body {
    /// Transforms every vertex once into the set the next step samples into
    /// ([`Body::next_samples`]) and measures its height above the water, and the water's
    /// velocity there when `velocities` is set (the world's current included), with the
    /// mean water velocity over the vertices under water. The caller makes it the last
    /// step's set (`sampled`) only when this succeeds.
    #[inline(always)]
    pub(crate) fn sample_water(&mut self, state: &BodyState, env: &Environment<'_>, velocities: bool) -> Result<()> {
        let in_lanes = self.can_step_in_lanes();
        // (Written in place: a set lent out and swapped back in was copied three times.)
        let out = &mut self.sample_sets[!self.sampled as usize];
        let origin = state.position;
        // The water's queries are in its own frame (a far origin's, in f64), horizontally;
        // heights stay in the world's (the surface's moved down by the offset's height), so
        // that every path computes a vertex's height with the same arithmetic.
        let offset = env.water_offset;
        let water_origin = origin + DVec3::new(offset.x, 0.0, offset.z);
        // The matrix, not the quaternion: the loops turn the corners with the same
        // arithmetic, so that both see the same heights to the bit.
        let rotation = DMat3::from_quat(state.rotation);
        // The world positions of the vertices (the water's query points): this thread's,
        // not the body's, since nothing reads them after the step (10000 boxes: three
        // cache lines fewer to load and write back per box).
        out.turned = !in_lanes;
        // Flat water's level in the world's frame.
        let level = match env.water {
            Water::Flat(flat) => flat.level - offset.y,
            _ => 0.0,
        };
        out.flat = match env.water {
            Water::Flat(_) => Some((origin.y, level)),
            _ => None,
        };
        let (vertical, horizontal) = self.desc.feels_froude_krylov();
        out.froude_krylov = if vertical {
            // Over the hull's bounding box turned into world axes.
            let (min, max) = (self.hull.info.bounds_min, self.hull.info.bounds_max);
            let centre = water_origin + rotation * (0.5 * (min + max));
            let half = rotation.abs() * (0.5 * (max - min));
            let mut f = env.water.froude_krylov(
                DVec2::new(centre.x, centre.z),
                DVec2::new(half.x, half.z),
                env.time,
                env.gravity,
            );
            // Heights in the world's frame (the water's moved down by the offset's
            // height), relative to the body's origin, as the centre of buoyancy is.
            f.height -= offset.y + origin.y;
            if !horizontal {
                f.acceleration = DVec3::new(0.0, f.acceleration.y, 0.0);
                f.slope = DVec3::ZERO;
            }
            f
        } else {
            FroudeKrylov::default()
        };
        // Still flat water: the heights straight from the turned vertices, with the same
        // arithmetic as below (`point.y - level`, `point = origin + turned`), without the
        // world positions and the water's pass over them (a bunny: 5 % of its step). A
        // body of the lanes (not turned here) takes only the heights, with `point`'s
        // own arithmetic (`water_origin + rotation * local`, whose height is that of
        // `origin` plus zero): flat water is never asked anything.
        if let (Water::Flat(_), false) = (env.water, velocities) {
            if out.turned {
                for ((local, rel), height) in self.hull.positions.iter().zip(&mut out.vertices).zip(&mut out.heights) {
                    *rel = rotation * *local;
                    *height = (origin.y + rel.y) - level;
                }
            } else {
                for (local, height) in self.hull.positions.iter().zip(&mut out.heights) {
                    *height = (water_origin + rotation * *local).y - level;
                }
            }
            out.mean_velocity = env.current;
            return Ok(());
        }
        let mut points = POINTS.take();
        points.resize(self.hull.positions.len(), DVec3::ZERO);
        if out.turned {
            for ((local, rel), world) in self.hull.positions.iter().zip(&mut out.vertices).zip(&mut points) {
                *rel = rotation * *local;
                *world = water_origin + *rel;
            }
        } else {
            for (local, world) in self.hull.positions.iter().zip(&mut points) {
                *world = water_origin + rotation * *local;
            }
        }
        let v = if velocities {
            Some(&mut out.velocities[..])
        } else {
            None
        };
        let sampled = if self.uses_patch && !env.water.is_cheap() {
            // A big hull stepped alone shares the patch with its team (the world's helper
            // thread or pool), as it shares its triangles.
            let team = if self.hull.columns.len() > PARALLEL_ROWS {
                env.team()
            } else {
                Team::Alone
            };
            self.patch
                .sample(env.water, env.time, &points, &mut out.heights, v, team)
        } else if let Water::Perlin(perlin) = env.water {
            // Straight to its vector loop: through `Water::sample_into`, a small body's
            // call (eight points) also paid for its tests of the other kinds of water.
            #[cfg(test)]
            crate::water::SAMPLED.with(|n| n.set(n.get() + points.len()));
            perlin.sample_batch(&points, env.time, &mut out.heights, v);
            Ok(())
        } else {
            env.water.sample_into(&points, env.time, &mut out.heights, None, v)
        };
        if let Err(e) = sampled {
            POINTS.set(points);
            return Err(e);
        }
        if offset.y != 0.0 {
            out.heights.iter_mut().for_each(|h| *h -= offset.y);
        }
        let (mut sum, mut count) = (DVec3::ZERO, 0usize);
        // The water's velocity falls with depth under the surface (waves' orbits shrink
        // as e^{-k d}); 0 for water that answers its own velocities.
        let decay = env.water.velocity_decay();
        // `heights` held the surface; now the vertex's height above it. A surface that is
        // not a number (a model pushed past f64's range) counts as no water there, so that
        // no NaN ever reaches a force. (Zipped, not indexed: no bounds check per vertex.)
        let height_above = |point: &DVec3, surface: f64| {
            if surface.is_finite() {
                point.y - surface
            } else {
                f64::INFINITY
            }
        };
        if velocities {
            let rows = points.iter().zip(out.heights.iter_mut()).zip(out.velocities.iter_mut());
            for ((point, height), v) in rows {
                *height = height_above(point, *height);
                if !v.is_finite() {
                    *v = DVec3::ZERO;
                }
                if decay > 0.0 && *height < 0.0 {
                    *v *= (decay * *height).exp();
                }
                *v += env.current;
                if *height < 0.0 {
                    sum += *v;
                    count += 1;
                }
            }
        } else {
            for (point, height) in points.iter().zip(out.heights.iter_mut()) {
                *height = height_above(point, *height);
            }
        }
        POINTS.set(points);
        out.mean_velocity = if count > 0 { sum / count as f64 } else { env.current };
        Ok(())
    }
}

/// [`Body::sample_water`] compiled for the processor at hand (the vertices' transform
/// and heights in vector instructions).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(crate) fn sample_water_for_cpu<'w>(
    body: &mut Body,
    state: &BodyState,
    env: &Environment<'w>,
    velocities: bool,
) -> Result<()> {
    body.sample_water(state, env, velocities)
}

thread_local! {
    /// A step's world positions of the vertices, taken and given back (a step that
    /// re-enters keel from a water callback finds it taken and uses a new one).
    static POINTS: std::cell::Cell<Vec<DVec3>> = const { std::cell::Cell::new(Vec::new()) };
}
