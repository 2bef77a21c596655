//! Stage 5, pass two: viscous and pressure drag on the wet pieces at the motion the body
//! will have at the end of the step under buoyancy and gravity (after pass one). Whole
//! triangles' rows go through the drag loop by chunks (shared with the step's team for a
//! big hull), the cut triangles' pieces eight at a time in lanes or in blocks.

use glam::DVec3;

use super::after_pass_one::Middle;
use super::cut::in_lanes;
use super::{Rows, Step};
use crate::body::{Kind, Output, Sink};
use crate::forces::drag::{centroid_and_radius, drag_points, needs_three_points};
use crate::forces::pressure_drag::pressure_drag_force;
use crate::forces::row::{dot, point_velocity, sub};
use crate::forces::viscous;
use crate::loops::lanes::{self, LANES, LaneMotion};
use crate::loops::whole::{
    ChunkOutput, DragConstants, DragParams, DragSums, Motion, PARALLEL_ROWS, Scratch, WetRows, chunk_ranges, drag_pass,
    drag_pieces,
};
use crate::runtime::profile::{self, Section};
use crate::runtime::team::Team;

impl Step<'_> {
    /// Pass two: the viscous force, the pressure drag and their moment about the centre
    /// of mass (zero when neither force is on).
    #[inline(always)]
    pub(crate) fn pass_two<S: Sink + Send>(
        &self,
        middle: &Middle,
        rows: &mut Rows<'_>,
        out: &Output,
        sink: &mut S,
        team: Team<'_>,
    ) -> (DVec3, DVec3, DVec3) {
        let (mut viscous_force, mut pressure_force, mut drag_torque) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
        let Some(drag) = middle.drag else {
            return (viscous_force, pressure_force, drag_torque);
        };
        let end = Motion {
            com: self.motion.com,
            velocity: middle.v_end,
            angular_velocity: middle.omega_end,
        };
        let mut add = |(fv, fd, torque): (DVec3, DVec3, DVec3)| {
            viscous_force += fv;
            pressure_force += fd;
            drag_torque += torque;
        };
        if !self.loops {
            for (piece, &j) in out.pieces.iter().zip(out.sources.iter()) {
                let j = j as usize;
                let (normal, water) = (rows.normals[j], rows.water_velocities[j]);
                add(piece_drag(*piece, normal, water, &end, &drag, sink));
            }
            return (viscous_force, pressure_force, drag_torque);
        }
        let mesh = self.mesh();
        let pass = |((range, chunk), wet): ((std::ops::Range<usize>, &mut ChunkOutput), WetRows<'_>)| {
            chunk.drag = drag_pass(&mesh, range, &wet, &end, &drag, &mut chunk.packed);
        };
        let Rows {
            cut,
            wet,
            chunks,
            normals,
            water_velocities,
            ..
        } = rows;
        let (cut, normals, waters): (&[u32], &[DVec3], &[DVec3]) = (cut, normals, water_velocities);
        let count = self.hull.columns.len();
        let timer = profile::time(Section::DragPass);
        let each = chunk_ranges(count).zip(chunks.iter_mut()).zip(wet.chunks());
        let piece_sums = if team.is_shared() && count > PARALLEL_ROWS {
            // This thread's share begins with the pieces, the others' with the chunks.
            team.share(|| self.cut_drag(&end, &drag, cut, out, normals, waters), each, pass)
        } else {
            each.for_each(pass);
            self.cut_drag(&end, &drag, cut, out, normals, waters)
        };
        timer.stop();
        let mut sums = DragSums::default();
        for chunk in chunks.iter() {
            sums += chunk.drag;
        }
        add((sums.viscous, sums.pressure, sums.torque));
        add((piece_sums.viscous, piece_sums.pressure, piece_sums.torque));
        (viscous_force, pressure_force, drag_torque)
    }

    /// The drag on the pieces of the cut triangles `cut` (kept in `out`), their sums
    /// from zero: eight triangles at a time in lanes, or a block of pieces at a time.
    #[inline(always)]
    fn cut_drag(
        &self,
        end: &Motion,
        drag: &DragParams,
        cut: &[u32],
        out: &Output,
        normals: &[DVec3],
        waters: &[DVec3],
    ) -> DragSums {
        if self.lanes_cut {
            let motion = LaneMotion {
                com: in_lanes(end.com),
                velocity: in_lanes(end.velocity),
                angular_velocity: in_lanes(end.angular_velocity),
            };
            let viscous = [drag.viscous.map_or(0.0, |(rho, cf)| -0.5 * rho * cf); LANES];
            let still = Motion {
                com: DVec3::ZERO,
                velocity: DVec3::ZERO,
                angular_velocity: DVec3::ZERO,
            };
            let shared = DragConstants::new(&still, drag);
            let d = lanes::pass_two_listed(self.hull, &self.single, cut, &motion, &viscous, &shared);
            let sum = |v: &lanes::LaneVectors| DVec3::new(v[0][0], v[1][0], v[2][0]);
            return DragSums {
                viscous: sum(&d.viscous),
                pressure: sum(&d.pressure),
                torque: sum(&d.torque),
            };
        }
        let mut sums = DragSums::default();
        let mut scratch = Scratch::take();
        for (piece, &j) in out.pieces.iter().zip(out.sources.iter()) {
            let j = j as usize;
            if scratch.pieces.push(*piece, normals[j], waters[j]) {
                sums += drag_pieces(&mut scratch, end, drag);
            }
        }
        if !scratch.pieces.is_empty() {
            sums += drag_pieces(&mut scratch, end, drag);
        }
        // (Given back before this thread takes a chunk: a thread lends its buffers to one
        // taker at a time.)
        Scratch::give_back(scratch);
        sums
    }
}

/// Viscous and pressure drag on one submerged piece of unit normal `normal` in water
/// moving at `water`, by the one-point rule or, when the rotation spreads the velocity
/// across the piece, the three-point rule
/// ([`crate::loops::whole`]). Returns the viscous force, the pressure drag and their
/// moment about the centre of mass.
fn piece_drag<S: Sink>(
    piece: [DVec3; 3],
    normal: DVec3,
    water: DVec3,
    motion: &Motion,
    drag: &DragParams,
    sink: &mut S,
) -> (DVec3, DVec3, DVec3) {
    let (mut fv_sum, mut fd_sum, mut torque) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    for (point, share) in drag_rule(piece, normal, water, motion, false) {
        let v = motion.velocity + motion.angular_velocity.cross(point - motion.com) - water;
        let fv = drag.viscous.map_or(DVec3::ZERO, |(rho, cf)| {
            viscous::viscous_force(v, normal, share, rho, cf)
        });
        let fd = drag
            .pressure
            .as_ref()
            .map_or(DVec3::ZERO, |c| pressure_drag_force(v, normal, share, c));
        fv_sum += fv;
        fd_sum += fd;
        torque += (point - motion.com).cross(fv + fd);
        sink.force(Kind::Water, point, fv + fd);
    }
    (fv_sum, fd_sum, torque)
}

/// The points and area shares of a piece's drag: its centroid with all its area, or,
/// when the rotation spreads the velocity across the piece or `three_points` is set, its
/// edge midpoints with a third each: the rule of [`crate::forces::drag`], for one piece.
pub(crate) fn drag_rule(
    [a, b, c]: [DVec3; 3],
    normal: DVec3,
    water: DVec3,
    motion: &Motion,
    three_points: bool,
) -> impl Iterator<Item = (DVec3, f64)> {
    let corners = [a, b, c].map(|p| p.to_array());
    let area = 0.5 * (b - a).cross(c - a).dot(normal);
    let (centroid, radius_squared) = centroid_and_radius(corners);
    let arm = sub(centroid, motion.com.to_array());
    let u = point_velocity(
        motion.velocity.to_array(),
        motion.angular_velocity.to_array(),
        arm,
        water.to_array(),
    );
    let three = three_points || needs_three_points(motion.angular_velocity.length_squared(), radius_squared, dot(u, u));
    drag_points(corners, centroid, area, three)
        .into_iter()
        .take(if three { 3 } else { 1 })
        .map(|(point, share)| (DVec3::from_array(point), share))
}
