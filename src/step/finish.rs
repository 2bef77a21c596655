//! Stage 6, the step's forces from both passes' sums: damping, Bourg's lumped
//! resistance, the limiter (dissipative forces never put energy back in nor reverse the
//! motion), and the added mass.

use glam::{DMat3, DVec3};

use super::after_pass_one::Middle;
use super::pass_one::{PassOne, Sum};
use crate::body::{BodyForces, Derived, Kind, Sink, StepInputs};
use crate::forces::{FORCE_DAMPING, FORCE_LUMPED_RESISTANCE, added_mass, damping, limiter, lumped, viscous};

/// The step's forces from both passes' sums: damping, the lumped resistance, the limiter
/// on the dissipative forces, and the added mass.
#[inline(always)]
pub(crate) fn finish<S: Sink>(
    inputs: StepInputs<'_>,
    totals: &PassOne,
    middle: &Middle,
    (mut viscous_force, mut pressure_force, mut drag_torque): (DVec3, DVec3, DVec3),
    submerged_count: usize,
    inverse_inertia: &DMat3,
    sink: &mut S,
) -> (BodyForces, Derived) {
    let StepInputs {
        desc,
        state,
        dt,
        conditions: env,
        derived,
    } = inputs;
    let on = |bit: u32| desc.forces & bit != 0;
    let lumped = on(FORCE_LUMPED_RESISTANCE);
    let origin = state.position;
    let com = state.center_of_mass - origin;
    let (v_com, omega) = (state.linear_velocity, state.angular_velocity);
    let air_relative = v_com - env.wind;
    let inverse_inertia = *inverse_inertia;
    let Middle {
        v_end,
        omega_end,
        relative_end,
        centre_of_buoyancy,
        water_acceleration,
        wetted_ratio,
        ..
    } = *middle;
    let PassOne {
        buoyancy: buoyancy_sum,
        slamming,
        mut air,
        volume,
        wetted_area,
        ..
    } = *totals;

    let (mut damping_force, mut damping_couple) = (DVec3::ZERO, DVec3::ZERO);
    if on(FORCE_DAMPING) {
        (damping_force, damping_couple) = damping::damping(
            relative_end,
            omega_end,
            wetted_ratio,
            desc.linear_damping,
            desc.angular_damping,
        );
        sink.force(Kind::Water, com, damping_force);
    }
    if lumped {
        let drag = (&mut viscous_force, &mut pressure_force, &mut drag_torque);
        lumped_resistance(&inputs, totals, middle, drag, &mut air, sink);
    }

    // Dissipative forces must not reverse the motion they oppose within the step.
    // (No closures, nor `map_or_else`: either may be left out of line, compiled for the
    // baseline processor, with the limiter in it.)
    let (water_scale, air_scale) = match derived {
        Some(d) => (d.water_scale, d.air_scale),
        None => {
            let water = limiter::Motion {
                velocity: relative_end,
                angular_velocity: omega_end,
                mass: desc.mass,
                inverse_inertia,
            };
            let air_motion = limiter::Motion {
                velocity: air_relative,
                angular_velocity: omega,
                ..water
            };
            (
                limiter::limit(
                    viscous_force + pressure_force + slamming.force + damping_force,
                    drag_torque + slamming.torque + damping_couple,
                    &water,
                    dt,
                ),
                limiter::limit(air.force, air.torque, &air_motion, dt),
            )
        }
    };

    // Bourg's virtual mass: everything divided by 1 + x, plus a gravity correction, and
    // the added mass's share of the water's own acceleration (`added_mass`'s docs). It is
    // the water's: a body with nothing wet has none (and falls at g, not g / (1 + x)).
    let added = if wetted_area > 0.0 { desc.added_mass_ratio } else { 0.0 };
    let virtual_scale = added_mass::scale(added);
    let mut hydrostatic = buoyancy_sum;
    hydrostatic.force *= virtual_scale;
    hydrostatic.torque *= virtual_scale;
    sink.scale(Kind::Hydrostatic, virtual_scale);
    if added > 0.0 {
        let correction = added_mass::gravity_correction(added, desc.mass, env.gravity);
        hydrostatic.force += correction;
        sink.force(Kind::Hydrostatic, com, correction);
        if let Some(point) = centre_of_buoyancy.filter(|_| water_acceleration != DVec3::ZERO) {
            let push = added_mass::water_push(added, desc.mass, water_acceleration);
            hydrostatic.add(point - com, push);
            sink.force(Kind::Hydrostatic, point, push);
        }
    }
    let water = water_scale * virtual_scale;
    let air_factor = air_scale * virtual_scale;
    sink.scale(Kind::Water, water);
    sink.scale(Kind::Air, air_factor);

    let mut out = BodyForces {
        buoyancy_force: hydrostatic.force,
        viscous_force: viscous_force * water,
        pressure_drag_force: pressure_force * water,
        slamming_force: slamming.force * water,
        damping_force: damping_force * water,
        air_force: air.force * air_factor,
        center_of_buoyancy: origin + centre_of_buoyancy.unwrap_or(com),
        submerged_volume: volume.volume.max(0.0),
        submerged_area: wetted_area,
        wetted_ratio,
        submerged_triangle_count: submerged_count as u32,
        ..BodyForces::default()
    };
    out.force = out.buoyancy_force
        + out.viscous_force
        + out.pressure_drag_force
        + out.slamming_force
        + out.damping_force
        + out.air_force;
    out.torque =
        hydrostatic.torque + (drag_torque + slamming.torque + damping_couple) * water + air.torque * air_factor;
    let derived = Derived {
        end_velocity: v_end,
        end_angular_velocity: omega_end,
        water_scale,
        air_scale,
    };
    (out, derived)
}

/// Bourg's lumped resistance (in place of the per-triangle drag and air forces): the
/// water's at the centre of buoyancy, added to the drag, and the air's at the emerged
/// area's centroid, added to `air`.
#[inline(always)]
fn lumped_resistance<S: Sink>(
    inputs: &StepInputs<'_>,
    totals: &PassOne,
    middle: &Middle,
    (viscous_force, pressure_force, drag_torque): (&mut DVec3, &mut DVec3, &mut DVec3),
    air: &mut Sum,
    sink: &mut S,
) {
    let StepInputs {
        desc,
        state,
        conditions: env,
        ..
    } = *inputs;
    let com = state.center_of_mass - state.position;
    if let Some(point) = middle.centre_of_buoyancy {
        let relative_end = middle.relative_end;
        let cf = viscous::friction_coefficient(relative_end.length(), middle.length, env.water_viscosity);
        let (friction, residual) = lumped::water_resistance(
            relative_end,
            totals.wetted_area,
            env.water_density,
            cf,
            desc.residual_resistance,
        );
        *viscous_force += friction;
        *pressure_force += residual;
        *drag_torque += (point - com).cross(friction + residual);
        sink.force(Kind::Water, point, friction + residual);
    }
    if totals.emerged_area > 0.0 {
        let point = totals.emerged_moment / totals.emerged_area;
        let air_relative = state.linear_velocity - env.wind;
        let force = lumped::air_resistance(
            air_relative,
            totals.projected_area,
            env.air_density,
            desc.air_drag_coefficient,
        );
        air.add(point - com, force);
        sink.force(Kind::Air, point, force);
    }
}
