//! Stage 4, between the passes: the volume models' buoyancy, the centre of buoyancy, and
//! the motion at the end of the step under buoyancy and gravity alone, at which pass two
//! computes drag.

use glam::{DMat3, DVec3};

use super::pass_one::PassOne;
use crate::body::{BuoyancyModel, Kind, Sink, StepInputs};
use crate::forces::viscous;
use crate::forces::{FORCE_LUMPED_RESISTANCE, FORCE_PRESSURE_DRAG, FORCE_VISCOUS};
use crate::loops::whole::DragParams;
use crate::water::FroudeKrylov;

/// What the step derives between its two passes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Middle {
    /// Velocity and angular velocity at the end of the step under buoyancy and gravity.
    pub v_end: DVec3,
    pub omega_end: DVec3,
    /// The end velocity relative to the mean water under the hull.
    pub relative_end: DVec3,
    pub centre_of_buoyancy: Option<DVec3>,
    /// The water particles' acceleration at the centre of buoyancy (zero where the water
    /// gives none: every sea but a Gerstner one's orbits, or the correction off), for the
    /// added mass.
    pub water_acceleration: DVec3,
    pub wetted_ratio: f64,
    /// The hull's length for the friction line.
    pub length: f64,
    /// What the second pass computes, when any of its forces is on.
    pub drag: Option<DragParams>,
}

/// From the first pass's sums to what the second needs: the volume models' buoyancy
/// (added to `totals`), the centre of buoyancy, and the motion at the end of the step under
/// buoyancy and gravity alone, at which the second pass computes drag.
#[inline(always)]
pub(crate) fn after_pass_one<S: Sink>(
    inputs: StepInputs<'_>,
    info: &crate::hull::HullInfo,
    totals: &mut PassOne,
    (water_mean, froude_krylov): (DVec3, &FroudeKrylov),
    inverse_inertia: &DMat3,
    sink: &mut S,
) -> Middle {
    let StepInputs {
        desc,
        state,
        dt,
        conditions: env,
        derived,
    } = inputs;
    let on = |bit: u32| desc.forces & bit != 0;
    let lumped = on(FORCE_LUMPED_RESISTANCE);
    let (viscous_on, drag_on) = (on(FORCE_VISCOUS) && !lumped, on(FORCE_PRESSURE_DRAG) && !lumped);
    let com = state.center_of_mass - state.position;
    let (v_com, omega) = (state.linear_velocity, state.angular_velocity);
    let rho = env.water_density;
    let rho_g = rho * env.gravity;
    let area_centroid = (totals.wetted_area > 0.0).then(|| totals.wetted_moment / totals.wetted_area);
    let volume_buoyancy = match desc.buoyancy {
        BuoyancyModel::Volume => totals.volume.centroid().map(|c| (totals.volume.volume, c)),
        BuoyancyModel::AreaRatio => area_centroid.map(|c| (info.volume * totals.wetted_area / info.area, c)),
        _ => None,
    };
    if let Some((displaced, point)) = volume_buoyancy {
        let force = DVec3::new(0.0, rho_g * displaced, 0.0);
        totals.buoyancy.add(point - com, force);
        sink.force(Kind::Hydrostatic, point, force);
    }
    let centre_of_buoyancy = match desc.buoyancy {
        BuoyancyModel::AreaRatio => area_centroid,
        _ => totals.volume.centroid().or(area_centroid),
    };
    // The water's inertia the drawn surface's pressure misses (nothing unless a Gerstner
    // sea's): the Froude-Krylov force on the submerged volume, at its centre, with the
    // water's acceleration decayed to that centre's depth below the mean surface.
    let mut water_acceleration = DVec3::ZERO;
    if let (Some(point), false) = (centre_of_buoyancy, froude_krylov.is_zero()) {
        let depth = froude_krylov.height - point.y;
        let volume = totals.volume.volume.max(0.0);
        let force = rho * volume * froude_krylov.at_depth(depth);
        totals.buoyancy.add(point - com, force);
        sink.force(Kind::Hydrostatic, point, force);
        water_acceleration = froude_krylov.acceleration_at_depth(depth);
        // The water under a crest falls faster than under the body's other end: the
        // vertical part's moment, as a couple of two vertical forces half the hull's
        // extent either side of the centre (so that the point forces keep adding up to
        // the torque).
        let moment = rho * volume * froude_krylov.moment_at_depth(depth);
        let size = moment.length();
        if size > 0.0 && size.is_finite() {
            let half = 0.5 * (info.bounds_max - info.bounds_min).max_element().max(1e-3);
            let lever = DVec3::new(moment.z, 0.0, -moment.x) * (half / size);
            let lift = DVec3::new(0.0, size / (2.0 * half), 0.0);
            for (at, f) in [(point + lever, lift), (point - lever, -lift)] {
                totals.buoyancy.add(at - com, f);
                sink.force(Kind::Hydrostatic, at, f);
            }
        }
    }
    let wetted_ratio = (totals.wetted_area / info.area).min(1.0);

    // The motion at the end of the step under buoyancy and gravity alone.
    let gravity = DVec3::new(0.0, -env.gravity, 0.0);
    let (v_end, omega_end) = match derived {
        Some(d) => (d.end_velocity, d.end_angular_velocity),
        None => {
            let omega_end = omega + *inverse_inertia * totals.buoyancy.torque * dt;
            (
                v_com + (totals.buoyancy.force / desc.mass + gravity) * dt,
                if omega_end.is_finite() { omega_end } else { omega },
            )
        }
    };
    let relative_end = v_end - water_mean;
    let length = if desc.hull_length > 0.0 {
        desc.hull_length
    } else {
        info.bounds_max.z - info.bounds_min.z
    };

    // (No closures: they are compiled for the baseline processor only, and left out of
    // line.)
    let drag = if viscous_on || drag_on {
        let viscous = if viscous_on {
            Some((
                rho,
                viscous::friction_coefficient(relative_end.length(), length, env.water_viscosity),
            ))
        } else {
            None
        };
        let pressure = if drag_on { Some(desc.drag_coefficients()) } else { None };
        Some(DragParams { viscous, pressure })
    } else {
        None
    };
    Middle {
        v_end,
        omega_end,
        relative_end,
        centre_of_buoyancy,
        water_acceleration,
        wetted_ratio,
        length,
        drag,
    }
}
