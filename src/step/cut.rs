//! Stage 3, pass one's triangles cut by the water: eight at a time through the lanes'
//! code (one triangle in each lane) when it computes this body's forces, otherwise one
//! at a time through Kerner's clipping ([`crate::hull::clip`]), their pieces gathered into
//! blocks for the whole triangles' loop when there are enough of them.
//!
//! Every function here is `#[inline(always)]`, where this code used to be a macro: the
//! step is compiled for the processor at hand (`compute_for_cpu`, each stage inlined into
//! each version), a function left out of line only once, for the baseline one (100
//! boxes: 8 % more instructions). Sums are returned, not borrowed: sums a function
//! borrowed would live in memory on the one-thread path (100 boxes: 1.6 % more
//! instructions).

use glam::DVec3;

use super::Step;
use super::pass_one::{CutSums, Sum};
use crate::body::{BuoyancyModel, Kind, Sink};
use crate::forces::slamming::{SlammingBlock, SlammingHistory, SlammingParams};
use crate::forces::{air, buoyancy, slamming};
use crate::hull::clip::{self, Tri};
use crate::loops::lanes::{self, LANES, LaneMotion, LaneVectors};
use crate::loops::whole::{PiecePass, Scratch};
use crate::runtime::profile::{self, Section};

/// Cut triangles from which a step runs their pieces through the whole triangles' loop.
const MIN_CUT_FOR_PIECE_PASS: usize = 16;

/// What the cut triangles write besides their sums: per triangle its unit normal and the
/// water's velocity at it (for pass two), and the submerged pieces with the triangle each
/// comes from.
pub(crate) struct Found<'b> {
    pub normals: &'b mut [DVec3],
    pub water_velocities: &'b mut [DVec3],
    pub pieces: &'b mut Vec<[DVec3; 3]>,
    pub sources: &'b mut Vec<u32>,
}

/// The pieces of the cut triangles on their way through the whole triangles' loop, when
/// there are enough of them.
type Pieces = Option<(PiecePass, Box<Scratch>)>;

/// A vector of the lanes' sums, one body's (or one list's) in lane 0.
#[inline(always)]
fn lane_sum(v: &LaneVectors) -> DVec3 {
    DVec3::new(v[0][0], v[1][0], v[2][0])
}

/// A vector in every lane.
#[inline(always)]
pub(crate) fn in_lanes(v: DVec3) -> [[f64; LANES]; 3] {
    v.to_array().map(|x| [x; LANES])
}

impl Step<'_> {
    /// The cut triangles `cut`: their sums, each one's slamming history given to
    /// `record` (with `aside`, where the lanes put theirs, to be written once the whole
    /// triangles' pass, which writes every row's, is done).
    #[inline(always)]
    pub(crate) fn cut_triangles<S: Sink>(
        &self,
        cut: &[u32],
        aside: &mut Vec<(u32, DVec3)>,
        found: &mut Found<'_>,
        record: impl FnMut(&mut Vec<(u32, DVec3)>, usize, DVec3),
        sink: &mut S,
    ) -> CutSums {
        let _timer = profile::time(Section::CutTriangles);
        if self.lanes_cut {
            self.cut_in_lanes(cut, aside)
        } else {
            self.cut_one_at_a_time(cut, aside, found, record, sink)
        }
    }

    /// The cut triangles eight at a time, one in each lane.
    #[inline(always)]
    fn cut_in_lanes(&self, cut: &[u32], aside: &mut Vec<(u32, DVec3)>) -> CutSums {
        let m = &self.motion;
        let motion = LaneMotion {
            com: in_lanes(m.com),
            velocity: in_lanes(m.velocity),
            angular_velocity: in_lanes(m.angular_velocity),
        };
        let mass = [self.desc.mass; LANES];
        let one = lanes::pass_one_listed(
            self.hull,
            &self.single,
            cut,
            &motion,
            &mass,
            &self.lane_constants,
            self.prior,
            aside,
        );
        CutSums {
            buoyancy: Sum {
                force: lane_sum(&one.buoyancy_force),
                torque: lane_sum(&one.buoyancy_torque),
            },
            slamming: Sum {
                force: lane_sum(&one.slamming_force),
                torque: lane_sum(&one.slamming_torque),
            },
            air: Sum {
                force: lane_sum(&one.air_force),
                torque: lane_sum(&one.air_torque),
            },
            volume: buoyancy::SubmergedVolume {
                volume: one.volume[0],
                moment: lane_sum(&one.volume_moment),
            },
            wetted_area: one.area[0],
            wetted_moment: lane_sum(&one.area_moment),
            projected_area: 0.0,
            emerged_area: 0.0,
            emerged_moment: DVec3::ZERO,
            pieces: one.pieces[0] as usize,
        }
    }

    /// The cut triangles one at a time (every triangle, for a sink that wants every
    /// piece).
    #[inline(always)]
    fn cut_one_at_a_time<S: Sink>(
        &self,
        cut: &[u32],
        aside: &mut Vec<(u32, DVec3)>,
        found: &mut Found<'_>,
        mut record: impl FnMut(&mut Vec<(u32, DVec3)>, usize, DVec3),
        sink: &mut S,
    ) -> CutSums {
        let mut sums = CutSums::default();
        // Only for enough cut triangles to fill the loop's vectors: a few pieces (a box's)
        // cost less one at a time (100 cubes on Perlin water 6 % slower through the loop,
        // a bunny's 120 cut triangles 5 % faster). (The buffers are given back before
        // this thread works on any chunk of the whole triangles: a thread lends its
        // buffers to one taker at a time.)
        // The pieces of cut triangles then go through the same loop as whole ones, but for
        // slamming (the triangle's as a whole, below).
        let mut piece_pass: Pieces = (self.loops && cut.len() >= MIN_CUT_FOR_PIECE_PASS)
            .then(|| (PiecePass::new(&self.motion, &self.params), Scratch::take()));
        for &j in cut {
            self.cut_triangle(
                j as usize,
                &mut sums,
                &mut piece_pass,
                found,
                |j, now| record(aside, j, now),
                sink,
            );
        }
        // (Given back on the thread that took it: a thread lends its buffers to one
        // taker at a time.)
        if let Some((pass, mut scratch)) = piece_pass {
            add_slamming(
                &mut scratch.slams,
                self.dt,
                &self.slam,
                self.motion.com,
                &mut sums.slamming,
                sink,
            );
            let whole = pass.finish(&mut scratch);
            Scratch::give_back(scratch);
            sums.buoyancy.force += whole.buoyancy_force;
            sums.buoyancy.torque += whole.buoyancy_torque;
            sums.volume.volume += whole.volume;
            sums.volume.moment += whole.volume_moment;
            sums.air.force += whole.air_force;
            sums.air.torque += whole.air_torque;
            sums.projected_area += whole.projected_area;
            sums.emerged_area += whole.emerged_area;
            sums.emerged_moment += whole.emerged_moment;
        }
        sums
    }

    /// Triangle `j`: clipped, its wet pieces' hydrostatics, its slamming as a whole, its
    /// dry pieces' air resistance.
    #[inline(always)]
    fn cut_triangle<S: Sink>(
        &self,
        j: usize,
        sums: &mut CutSums,
        piece_pass: &mut Pieces,
        found: &mut Found<'_>,
        record: impl FnOnce(usize, DVec3),
        sink: &mut S,
    ) {
        let (hull, samples) = (self.hull, self.samples);
        let tri = &hull.triangles[j];
        let [a, b, c] = tri.map(|i| samples.vertices[i as usize]);
        let heights = tri.map(|i| samples.heights[i as usize]);
        let scaled = (b - a).cross(c - a);
        let normal = scaled / (2.0 * hull.areas[j]);
        found.normals[j] = normal;
        let water_velocity = if self.conditions.water_moves {
            (samples.velocities[tri[0] as usize]
                + samples.velocities[tri[1] as usize]
                + samples.velocities[tri[2] as usize])
                / 3.0
        } else {
            DVec3::ZERO
        };
        found.water_velocities[j] = water_velocity;

        let whole = Tri {
            v: [a, b, c],
            height: heights,
        };
        let under = heights.iter().filter(|&&h| h < 0.0).count();
        // Most triangles are wholly under or above the water: no clipping needed.
        let clipped = if under == 0 || under == 3 {
            None
        } else {
            Some(clip::clip(&whole))
        };
        let submerged: &[Tri] = match (&clipped, under) {
            (Some(c), _) => c.submerged(),
            (None, 3) => std::slice::from_ref(&whole),
            _ => &[],
        };
        let (area, moment) = self.wet_pieces(j, submerged, under == 3, scaled, normal, sums, piece_pass, found, sink);
        sums.wetted_area += area;
        sums.wetted_moment += moment;

        let m = &self.motion;
        let centre = (a + b + c) / 3.0;
        let now = SlammingHistory {
            area,
            velocity: m.velocity + m.angular_velocity.cross(centre - m.com) - water_velocity,
        };
        if self.slamming {
            self.slam_triangle(j, now, normal, moment / area, sums, piece_pass, sink);
        }
        record(j, now.swept());

        let emerged: &[Tri] = match (&clipped, under) {
            (Some(c), _) => c.emerged(),
            (None, 0) => std::slice::from_ref(&whole),
            _ => &[],
        };
        for e in emerged {
            sink.emerged(&e.v);
            if self.air_on || self.lumped {
                let area = if under == 0 {
                    hull.areas[j]
                } else {
                    0.5 * e.scaled_normal().dot(normal)
                };
                self.dry_piece(e, normal, area, sums, piece_pass, sink);
            }
        }
        if let Some(segment) = clipped.and_then(|c| c.waterline) {
            sink.waterline(segment);
        }
    }

    /// The pieces of triangle `j` under the water (`whole`: the triangle itself, of
    /// scaled normal `scaled`): kept, and their hydrostatics summed. Returns their area
    /// and its moment.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn wet_pieces<S: Sink>(
        &self,
        j: usize,
        submerged: &[Tri],
        whole: bool,
        scaled: DVec3,
        normal: DVec3,
        sums: &mut CutSums,
        piece_pass: &mut Pieces,
        found: &mut Found<'_>,
        sink: &mut S,
    ) -> (f64, DVec3) {
        let (desc, com) = (self.desc, self.motion.com);
        let (mut area_j, mut moment_j) = (0.0, DVec3::ZERO);
        for sub in submerged {
            found.pieces.push(sub.v);
            found.sources.push(j as u32);
            let (sn, area) = if whole {
                (scaled, self.hull.areas[j])
            } else {
                let sn = sub.scaled_normal();
                (sn, 0.5 * sn.dot(normal))
            };
            area_j += area;
            let centroid = sub.centroid();
            moment_j += area * centroid;
            if let Some((pass, scratch)) = piece_pass {
                pass.add_wet(scratch, sub, normal, area, centroid);
                continue;
            }
            sums.volume.add(sub, sn);
            let at_centroid = match desc.buoyancy {
                BuoyancyModel::Pressure => Some(false),
                BuoyancyModel::PressureCentroid => Some(true),
                _ => None,
            };
            if let Some(at_centroid) = at_centroid {
                let vertical = desc.vertical_buoyancy_only;
                let (force, torque, point) = buoyancy::pressure_about(sub, sn, self.rho_g, com, vertical, at_centroid);
                sums.buoyancy.force += force;
                sums.buoyancy.torque += torque;
                sink.force(Kind::Hydrostatic, point, force);
            }
        }
        (area_j, moment_j)
    }

    /// Slamming on triangle `j` as a whole, at the centroid `point` of its wet part.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn slam_triangle<S: Sink>(
        &self,
        j: usize,
        now: SlammingHistory,
        normal: DVec3,
        point: DVec3,
        sums: &mut CutSums,
        piece_pass: &mut Pieces,
        sink: &mut S,
    ) {
        let before = self.prior.get(j);
        let area = self.hull.areas[j];
        if let Some((_, scratch)) = piece_pass {
            // A block at a time (the same numbers, added in the same order).
            if scratch.slams.push(now, before, area, normal, point) {
                add_slamming(
                    &mut scratch.slams,
                    self.dt,
                    &self.slam,
                    self.motion.com,
                    &mut sums.slamming,
                    sink,
                );
            }
        } else {
            let force = slamming::slamming_force_from_swept(now, before, area, normal, self.dt, &self.slam);
            if force != DVec3::ZERO {
                sums.slamming.add(point - self.motion.com, force);
                sink.force(Kind::Water, point, force);
            }
        }
    }

    /// Air resistance on a piece above the water (per piece, or its area and moment for
    /// the lumped resistance).
    #[inline(always)]
    fn dry_piece<S: Sink>(
        &self,
        e: &Tri,
        normal: DVec3,
        area: f64,
        sums: &mut CutSums,
        piece_pass: &mut Pieces,
        sink: &mut S,
    ) {
        let centroid = e.centroid();
        if let Some((pass, scratch)) = piece_pass {
            pass.add_dry(scratch, e, normal, area, centroid);
            return;
        }
        let (m, env) = (&self.motion, self.conditions);
        if self.air_on {
            let v = m.velocity + m.angular_velocity.cross(centroid - m.com) - env.wind;
            let force = air::air_force(v, normal, area, env.air_density, self.desc.air_drag_coefficient);
            sums.air.add(centroid - m.com, force);
            sink.force(Kind::Air, centroid, force);
        } else {
            let speed = self.air_relative.length();
            if speed > 0.0 {
                sums.projected_area += area * (normal.dot(self.air_relative) / speed).max(0.0);
            }
            sums.emerged_area += area;
            sums.emerged_moment += area * centroid;
        }
    }
}

/// The slamming forces of the cut triangles gathered in `block`, added to `slamming` in
/// the order they were gathered (as one at a time); empties the block.
#[inline(always)]
fn add_slamming<S: Sink>(
    block: &mut SlammingBlock,
    dt: f64,
    params: &SlammingParams,
    com: DVec3,
    slamming: &mut Sum,
    sink: &mut S,
) {
    if block.len == 0 {
        return;
    }
    let forces = block.forces(dt, params);
    for (i, &point) in block.point.iter().enumerate().take(block.len) {
        let force = DVec3::new(forces[0][i], forces[1][i], forces[2][i]);
        if force != DVec3::ZERO {
            slamming.add(point - com, force);
            sink.force(Kind::Water, point, force);
        }
    }
    block.len = 0;
}
