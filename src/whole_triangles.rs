//! The step's hot loops: forces on the triangles wholly under or wholly above the water,
//! four at a time.
//!
//! Most of a hull is not cut by the water: on the Stanford bunny floating at half height
//! 94 % of the triangles are wholly wet or wholly dry. Those need no clipping, and their
//! forces are the same formulas as for a clipped piece ([`crate::forces`]) with the
//! piece being the triangle. The step sorts the triangles into three lists (wet, dry,
//! cut); this module takes the first two through [`crate::lanes`] arithmetic, the step
//! the third through the clipping code one triangle at a time. Both add up the same
//! formulas; `Body`'s tests check that the two ways agree.
//!
//! Drag is integrated over a piece with one point, its centroid, when the rotation adds
//! little to the velocity across it (`|omega| r < |u_c| / 10`, `r` the farthest vertex
//! from the centroid: the error of the one-point rule is then below 1 % of the piece's
//! drag), and with the three edge midpoints otherwise, a rule exact for fields quadratic
//! over the piece, which keeps a face turning about its own centroid (a box rocking about
//! a face diagonal) braked. The lanes do the first; the rare pieces needing the second
//! go back to the step as a list.

use glam::{DMat3, DVec3};
use multiversion::multiversion;

use crate::forces::air::air_force_lanes;
use crate::forces::pressure_drag::{DragCoefficients, pressure_drag_force_lanes};
use crate::forces::slamming::{SlammingHistory, SlammingParams, slamming_force_lanes};
use crate::forces::viscous::viscous_force_lanes;
use crate::hull::TriangleChunk;
use crate::lanes::{F4, LANES, M4, V4};

/// `|omega| r` above this fraction of the centroid's speed takes a piece's drag to three
/// points.
pub(crate) const ONE_POINT_SPREAD: f64 = 0.1;

/// Whether a piece whose vertices are at most `radius_squared.sqrt()` from its centroid
/// needs the three-point drag rule (squared quantities: no square root).
#[inline(always)]
pub(crate) fn needs_three_points(omega_squared: f64, radius_squared: f64, speed_squared: f64) -> bool {
    omega_squared * radius_squared > ONE_POINT_SPREAD * ONE_POINT_SPREAD * speed_squared
}

/// The hull, turned, and the water under it.
#[derive(Clone, Copy)]
pub(crate) struct Mesh<'a> {
    pub chunks: &'a [TriangleChunk],
    pub triangle_count: usize,
    /// Body-local to world rotation.
    pub rotation: DMat3,
    /// Height of each vertex above the water.
    pub heights: &'a [f64],
    /// For flat water, the body origin's height and the water level: the heights are
    /// then computed from the corners (the same arithmetic as `heights`, to the bit).
    pub flat: Option<(f64, f64)>,
    /// Water velocity at each vertex, when it matters.
    pub water_velocities: Option<&'a [DVec3]>,
}

/// A rigid motion: `velocity + angular_velocity x (r - com)` at `r`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motion {
    pub com: DVec3,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
}

/// How hydrostatic pressure is summed on the wet triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pressure {
    /// At the exact centre of pressure.
    Exact,
    /// At the centroid.
    Centroid,
    /// Not per triangle (volume models, none).
    Off,
}

/// What the pass over whole triangles computes besides geometry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WholeParams {
    pub rho_g: f64,
    pub pressure: Pressure,
    pub vertical_only: bool,
    /// Slamming and the step length, when slamming is on and has a last step to compare.
    pub slamming: Option<(SlammingParams, f64)>,
    /// Air density, drag coefficient and wind, when per-triangle air resistance is on.
    pub air: Option<(f64, f64, DVec3)>,
    /// The body's velocity relative to the air, when the lumped resistance is on.
    pub lumped_air: Option<DVec3>,
}

/// Running sums of the pass over whole triangles, per lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WholeSums {
    pub buoyancy_force: V4,
    pub buoyancy_torque: V4,
    pub slamming_force: V4,
    pub slamming_torque: V4,
    pub volume: F4,
    pub volume_moment: V4,
    pub area: F4,
    pub area_moment: V4,
    pub air_force: V4,
    pub air_torque: V4,
    pub projected_area: F4,
    pub emerged_area: F4,
    pub emerged_moment: V4,
    /// Wholly wet triangles.
    pub wet_count: usize,
}

/// A chunk's wet triangles as the drag pass needs them; the other lanes have zero area
/// (and so no force).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WetChunk {
    /// The chunk's index in the hull: its triangles are `4 first .. 4 first + 3`.
    pub first: u32,
    pub centroid: V4,
    pub normal: V4,
    pub water_velocity: V4,
    pub area: F4,
    pub radius_squared: F4,
}

/// What slamming remembers of every triangle, four at a time.
#[derive(Clone, Debug, Default)]
pub(crate) struct History {
    chunks: Vec<HistoryChunk>,
}

#[derive(Clone, Copy, Debug, Default)]
struct HistoryChunk {
    area: F4,
    velocity: V4,
}

impl History {
    /// A blank history of `triangles` triangles.
    pub fn sized(triangles: usize) -> Self {
        Self {
            chunks: vec![HistoryChunk::default(); triangles.div_ceil(LANES)],
        }
    }

    pub fn get(&self, j: usize) -> SlammingHistory {
        let chunk = &self.chunks[j / LANES];
        SlammingHistory {
            area: chunk.area.0[j % LANES],
            velocity: chunk.velocity.lane(j % LANES),
        }
    }

    pub fn set(&mut self, j: usize, h: SlammingHistory) {
        let (chunk, i) = (&mut self.chunks[j / LANES], j % LANES);
        chunk.area.0[i] = h.area;
        chunk.velocity.x.0[i] = h.velocity.x;
        chunk.velocity.y.0[i] = h.velocity.y;
        chunk.velocity.z.0[i] = h.velocity.z;
    }
}

#[inline(always)]
fn masked(mask: M4, v: V4) -> V4 {
    V4::select(mask, v, V4::default())
}

#[inline(always)]
fn masked_f(mask: M4, v: F4) -> F4 {
    F4::select(mask, v, F4::splat(0.0))
}

#[inline(always)]
fn rotate(m: &[V4; 3], v: V4) -> V4 {
    m[0].scale(v.x) + m[1].scale(v.y) + m[2].scale(v.z)
}

/// Forces on every triangle wholly under or above the water; writes the slamming history
/// of those triangles, the wet chunks for [`drag_pass`], and the cut triangles to `cut`
/// (whose history the step writes after this).
#[multiversion(targets("x86_64+avx2"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn whole_pass<'a>(
    mesh: &Mesh<'a>,
    motion: &Motion,
    params: &WholeParams,
    prior: &History,
    history: &mut History,
    wet_chunks: &mut Vec<WetChunk>,
    cut: &mut Vec<u32>,
) -> WholeSums {
    let mut sums = WholeSums::default();
    wet_chunks.clear();
    cut.clear();
    let columns = [mesh.rotation.x_axis, mesh.rotation.y_axis, mesh.rotation.z_axis].map(V4::splat);
    let com = V4::splat(motion.com);
    let (v_com, omega) = (V4::splat(motion.velocity), V4::splat(motion.angular_velocity));
    let third = F4::splat(1.0 / 3.0);
    let (zero, half) = (F4::splat(0.0), F4::splat(0.5));
    for (k, chunk) in mesh.chunks.iter().enumerate() {
        let real = M4::from_fn(|i| k * LANES + i < mesh.triangle_count);
        let [a, b, c] = chunk.corners.map(|p| rotate(&columns, p));
        let h = match mesh.flat {
            Some((origin, level)) => [a.y, b.y, c.y].map(|y| (y + origin) - level),
            None => chunk.indices.map(|ix| F4::from_fn(|i| mesh.heights[ix[i] as usize])),
        };
        let wet = h[0].lt(zero).and(h[1].lt(zero)).and(h[2].lt(zero)).and(real);
        let dry = zero.gt(h[0]).or(zero.gt(h[1])).or(zero.gt(h[2]));
        let dry = real.and_not(dry).and_not(wet);
        let cutting = real.and_not(wet).and_not(dry);
        if cutting.any() {
            for i in 0..LANES {
                if cutting.lane(i) {
                    cut.push((k * LANES + i) as u32);
                }
            }
        }
        let water = match mesh.water_velocities {
            Some(w) => {
                let u = |c: usize| V4::from_fn(|i| w[chunk.indices[c][i] as usize]);
                (u(0) + u(1) + u(2)).scale(third)
            }
            None => V4::default(),
        };
        let area = chunk.area;
        let scaled = (b - a).cross(c - a);
        let normal = scaled.scale(F4::splat(1.0) / (area * 2.0));
        let centroid = (a + b + c).scale(third);
        let arm = centroid - com;
        let spin = omega.cross(arm);
        let velocity = v_com + spin - water;
        let wetted = masked_f(wet, area);
        history.chunks[k] = HistoryChunk { area: wetted, velocity };

        if wet.any() {
            sums.wet_count += wet.count();
            let [da, db, dc] = h.map(|x| -x);
            let depth_sum = da + db + dc;
            if params.pressure != Pressure::Off {
                let mut force = scaled.scale(depth_sum * (-params.rho_g / 6.0));
                let point = match params.pressure {
                    // Edge midpoints weighted by their depths (forces::buoyancy::pressure).
                    // (Lanes not wet divide by 1: an infinite point times a zero force is NaN.)
                    Pressure::Exact => ((a + b).scale(da + db) + (b + c).scale(db + dc) + (c + a).scale(dc + da))
                        .scale(F4::splat(1.0) / F4::select(wet, depth_sum * 4.0, F4::splat(1.0))),
                    _ => centroid,
                };
                if params.vertical_only {
                    force.x = zero;
                    force.z = zero;
                }
                let force = masked(wet, force);
                sums.buoyancy_force += force;
                sums.buoyancy_torque += (point - com).cross(force);
            }

            // forces::buoyancy::SubmergedVolume::add.
            let area_y = masked_f(wet, scaled.y * 0.5);
            sums.volume += -(area_y * depth_sum * third);
            let mids = [(a + b).scale(half), (b + c).scale(half), (c + a).scale(half)];
            let depths = [(da + db) * 0.5, (db + dc) * 0.5, (dc + da) * 0.5];
            let (mut mx, mut mz, mut my) = (zero, zero, zero);
            for m in 0..3 {
                mx += mids[m].x * depths[m];
                mz += mids[m].z * depths[m];
                my += -(depths[m] * mids[m].y + depths[m] * depths[m] * 0.5);
            }
            let w = area_y * third;
            sums.volume_moment += V4 {
                x: -(w * mx),
                y: w * my,
                z: -(w * mz),
            };

            sums.area += wetted;
            sums.area_moment += centroid.scale(wetted);

            if let Some((slam, dt)) = &params.slamming {
                let before = &prior.chunks[k];
                let force = slamming_force_lanes(velocity, wetted, before.area, before.velocity, normal, *dt, slam);
                let force = masked(wet, force);
                sums.slamming_force += force;
                sums.slamming_torque += arm.cross(force);
            }

            let radius_squared = (a - centroid)
                .length_squared()
                .max((b - centroid).length_squared())
                .max((c - centroid).length_squared());
            wet_chunks.push(WetChunk {
                first: k as u32,
                centroid,
                normal,
                water_velocity: water,
                area: wetted,
                radius_squared: masked_f(wet, radius_squared),
            });
        }

        if dry.any() && (params.air.is_some() || params.lumped_air.is_some()) {
            let area = masked_f(dry, area);
            if let Some((density, coefficient, wind)) = params.air {
                let relative = v_com + spin - V4::splat(wind);
                let force = masked(dry, air_force_lanes(relative, normal, area, density, coefficient));
                sums.air_force += force;
                sums.air_torque += arm.cross(force);
            }
            if let Some(relative) = params.lumped_air {
                let speed = relative.length();
                if speed > 0.0 {
                    let facing = normal.dot(V4::splat(relative / speed)).max(zero);
                    sums.projected_area += area * facing;
                }
                sums.emerged_area += area;
                sums.emerged_moment += centroid.scale(area);
            }
        }
    }
    sums
}

/// What the drag pass computes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DragParams {
    /// Water density and friction coefficient, when viscous resistance is on.
    pub viscous: Option<(f64, f64)>,
    /// Pressure drag coefficients, when pressure drag is on.
    pub pressure: Option<DragCoefficients>,
}

/// Running sums of the drag pass, per lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DragSums {
    pub viscous: V4,
    pub pressure: V4,
    pub torque: V4,
}

/// Viscous and pressure drag on the wet chunks at `motion`, by the one-point rule; the
/// triangles that need the three-point rule go to `three_points` instead.
#[multiversion(targets("x86_64+avx2"))]
pub(crate) fn drag_pass(
    chunks: &[WetChunk],
    motion: &Motion,
    params: &DragParams,
    three_points: &mut Vec<u32>,
) -> DragSums {
    let mut sums = DragSums::default();
    let com = V4::splat(motion.com);
    let (v, omega) = (V4::splat(motion.velocity), V4::splat(motion.angular_velocity));
    let omega_squared = motion.angular_velocity.length_squared();
    let zero = F4::splat(0.0);
    let spread = F4::splat(ONE_POINT_SPREAD * ONE_POINT_SPREAD);
    for chunk in chunks {
        let arm = chunk.centroid - com;
        let u = v + omega.cross(arm) - chunk.water_velocity;
        let speed_squared = u.length_squared();
        let three = (chunk.radius_squared * omega_squared).gt(speed_squared * spread);
        let mut area = chunk.area;
        if three.any() {
            for i in 0..LANES {
                if three.lane(i) {
                    three_points.push(chunk.first * LANES as u32 + i as u32);
                }
            }
            area = F4::select(three, zero, area);
        }
        let speed = speed_squared.sqrt();
        let mut total = V4::default();
        if let Some((density, cf)) = params.viscous {
            let f = viscous_force_lanes(u, speed, chunk.normal, area, density, cf);
            sums.viscous += f;
            total += f;
        }
        if let Some(c) = &params.pressure {
            let f = pressure_drag_force_lanes(u, speed, chunk.normal, area, c);
            sums.pressure += f;
            total += f;
        }
        sums.torque += arm.cross(total);
    }
    sums
}
