//! Small bodies stepped eight at a time, one in each vector lane ([`crate::loops::lanes`]): the
//! stages of [`Body::run`] for a group of bodies that share a lane key
//! ([`Body::lane_key`]), each body's numbers in its own lane.

use std::sync::Arc;

use glam::{DMat3, DVec3};

use super::Environment;
use super::after_pass_one::{Middle, after_pass_one};
use super::finish::finish;
use super::inertia::inverse_hull_inertias;
use super::pass_one::{PassOne, Sum};
use crate::body::{Body, BodyForces, BodyState, Conditions, Derived, Discard, KeptReplay, StepDesc, StepInputs};
use crate::error::Result;
use crate::forces::air::air_factor;
use crate::forces::buoyancy;
use crate::forces::limiter::{self, MotionLanes};
use crate::forces::slamming::SlammingParams;
use crate::forces::{FORCE_AIR, FORCE_DAMPING, FORCE_SLAMMING, damping};
use crate::hull::Hull;
use crate::loops::lanes::{
    self, DragLanes, Group, LANES, LaneHistory, LaneMotion, LaneScratch, LaneVectors, LoneScratch, NarrowHistory,
    PassOneConstants, PassOneSums, Single,
};
use crate::loops::whole::{DragConstants, DragParams, Motion, narrow};
use crate::runtime::profile::{self, Section};
use crate::water::Water;

/// Steps one to eight bodies for which [`Body::can_step_in_lanes`] holds and which share
/// one [`Body::lane_key`], each after a successful [`Body::prepare`] with its state:
/// [`crate::loops::lanes`], compiled for the processor at hand. Each body's numbers are
/// computed in its own lane, with no arithmetic across lanes: its forces are the same
/// bits whichever bodies share the group, and whether it has any company (the spare
/// lanes repeat the first body, and their results are dropped). The first
/// `bodies.len()` results are the bodies'. Returns whether the water cut the bodies
/// alike ([`lanes::cut_alike`]; a body alone, or none: yes).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(crate) fn step_in_lanes<'w>(
    bodies: &mut [Option<&mut Body>],
    states: &[&BodyState],
    dt: f64,
    env: &Environment<'w>,
    results: &mut [Result<BodyForces>],
) -> bool {
    step_in_lanes_here(bodies, states, dt, env, results)
}

/// The group's step: its vertices and histories gathered lane by lane, the passes, and
/// each body's forces, limited and committed.
#[inline(always)]
fn step_in_lanes_here(
    bodies: &mut [Option<&mut Body>],
    states: &[&BodyState],
    dt: f64,
    env: &Environment<'_>,
    results: &mut [Result<BodyForces>],
) -> bool {
    // The bodies up to the first missing one.
    let count = bodies
        .iter()
        .take_while(|b| b.is_some())
        .count()
        .min(states.len())
        .min(LANES);
    let bodies = &mut bodies[..count];
    let Some(Some(first)) = bodies.first() else {
        return true;
    };
    let _timer = profile::time(Section::Compute);
    let hull = Arc::clone(&first.hull);
    // What the lanes share (the lane key's fields); the rest is each body's.
    let lanes = Lanes {
        hull: &hull,
        shared: first.desc,
        conditions: first.conditions(env),
        had_history: first.has_history,
        // Alone, a body's triangles go in the lanes instead (the same bits).
        alone: count == 1,
        vertical: moves_only_vertically(env),
        dt,
    };
    let mut scratch = GroupScratch::take();
    {
        let GroupScratch { lanes: to, middles, .. } = &mut *scratch;
        let LaneMiddles {
            rotations, end, mass, ..
        } = middles;
        lanes.gather(bodies, states, to, (end, mass, rotations));
    }
    let GroupScratch {
        lanes:
            LaneScratch {
                vertices,
                water,
                prior,
                history,
                kinds,
                lone,
                narrowed,
            },
        middles,
        one,
        drag,
    } = &mut *scratch;
    let group = Group {
        vertices,
        water: lanes.conditions.water_moves.then_some(&water[..]),
        vertical: lanes.vertical,
        half: count <= lanes::HALF,
    };
    let passes = profile::time(Section::LanePasses);
    // (The motion at the start of the step is `end` until `after_pass_one` moves it on.)
    let (motion, mass) = (&middles.end, &middles.mass);
    lanes.pass_one(bodies, states, &group, motion, mass, (prior, history, kinds), lone, one);
    // Kept in the thread's scratch (a group's 4.8 kB were cleared at each step): each body's
    // numbers are written by `after_pass_one` before they are read, and those of the spare
    // lanes are never read; the motion and the viscous factors are every lane's.
    middles.viscous_factor = [0.0; LANES];
    lanes.after_pass_one(bodies, states, one, middles);
    let drag_on = lanes.pass_two(bodies, &group, kinds, lone, middles, drag);
    passes.stop();
    write_histories(bodies, history, narrowed);
    lanes.finish(bodies, states, one, middles, drag_on.then_some(&*drag), results);
    let alike = lanes::cut_alike(kinds);
    GroupScratch::give_back(scratch);
    alike
}

/// Each lane's rotation matrix, by column and component.
type Rotations = [[[f64; LANES]; 3]; 3];

/// What the bodies of a group share.
struct Lanes<'h> {
    hull: &'h Arc<Hull>,
    /// The first body's description: the lane key's fields are the group's.
    shared: StepDesc,
    conditions: Conditions,
    had_history: bool,
    /// One body alone: its triangles go eight at a time in the lanes instead.
    alone: bool,
    /// The water's velocity is vertical at every vertex ([`moves_only_vertically`]).
    vertical: bool,
    dt: f64,
}

/// Whether the water's velocity at every vertex is `(+0, vy, +0)`: Perlin waves only move
/// up and down (`PerlinWater`'s velocity is `(0, dy/dt, 0)`, with no decay below the
/// surface), and a current without a horizontal part adds `+-0` to those zeros, which
/// leaves `+0`. The lanes then gather and average the vertical component alone: the
/// others' averages, `(0 + 0 + 0) / 3`, are the zeros they start from, to the bit.
fn moves_only_vertically(env: &Environment<'_>) -> bool {
    matches!(env.water, Water::Perlin(_)) && env.current.x == 0.0 && env.current.z == 0.0
}

/// A thread's buffers for its groups, kept from one step to the next.
#[derive(Default)]
struct GroupScratch {
    lanes: LaneScratch,
    middles: LaneMiddles,
    /// Pass one's sums (returned, their 1.7 kB were copied at each group; a body alone's
    /// in lane 0 only) ...
    one: PassOneSums,
    /// ... and pass two's (returned, 576 bytes copied twice; the same lanes written).
    drag: DragLanes,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Box<GroupScratch>>> = const { std::cell::Cell::new(None) };
}

impl GroupScratch {
    /// This thread's buffers (new ones the first time), lent until
    /// [`GroupScratch::give_back`]: a pointer moved, not the buffers. (Not a closure run
    /// with them: closures are compiled for the baseline processor only, not for the one
    /// the step's code was chosen for.)
    fn take() -> Box<GroupScratch> {
        SCRATCH.with(|s| s.take()).unwrap_or_default()
    }

    fn give_back(scratch: Box<GroupScratch>) {
        SCRATCH.with(|s| s.set(Some(scratch)));
    }
}

/// What each body of a group has between the passes.
struct LaneMiddles {
    totals: [PassOne; LANES],
    middles: [Option<Middle>; LANES],
    inverse_inertias: [DMat3; LANES],
    /// The same by column and component, then lane (a group's, not a body alone's).
    inverse_inertia_lanes: [[f64; LANES]; 9],
    /// Each lane's rotation (a group's, not a body alone's), written by `gather` (kept
    /// here: returned with the motion, it was copied twice, about 200 instructions a step).
    rotations: Rotations,
    /// The motion at the start of the step, gathered in place (returned, it was copied
    /// twice, about 180 instructions a group), at which pass one computes; then, from
    /// `after_pass_one` on, the motion at the end of the step, at which pass two computes
    /// drag (the centres of mass stay the start's).
    end: LaneMotion,
    /// Each lane's body's mass.
    mass: [f64; LANES],
    viscous_factor: [f64; LANES],
}

impl Default for LaneMiddles {
    fn default() -> Self {
        LaneMiddles {
            totals: [PassOne::default(); LANES],
            middles: [None; LANES],
            inverse_inertias: [DMat3::ZERO; LANES],
            rotations: [[[0.0; LANES]; 3]; 3],
            inverse_inertia_lanes: [[0.0; LANES]; 9],
            end: LaneMotion::default(),
            mass: [0.0; LANES],
            viscous_factor: [0.0; LANES],
        }
    }
}

/// Body `l`'s vector of a group's sums.
#[inline(always)]
fn lane_vector(v: &LaneVectors, l: usize) -> DVec3 {
    DVec3::new(v[0][l], v[1][l], v[2][l])
}

impl Lanes<'_> {
    /// Each body's motion and mass in its lane (every lane written: the spare ones
    /// repeat the last body's), and (with company) the group's rotations, vertices, water
    /// and last slamming history, lane by lane, in `scratch`.
    #[inline(always)]
    fn gather(
        &self,
        bodies: &[Option<&mut Body>],
        states: &[&BodyState],
        scratch: &mut LaneScratch,
        (motion, mass, rotations): (&mut LaneMotion, &mut [f64; LANES], &mut Rotations),
    ) {
        let hull = self.hull;
        let count = bodies.len();
        let (vertex_count, triangle_count) = if self.alone {
            (0, 0)
        } else {
            (hull.positions.len(), hull.triangles.len())
        };
        scratch.vertices.resize(vertex_count, [[0.0; LANES]; 4]);
        scratch.water.resize(
            if self.conditions.water_moves { vertex_count } else { 0 },
            [[0.0; LANES]; 3],
        );
        scratch.prior.resize(triangle_count, [[0.0; LANES]; 3]);
        scratch.history.resize(triangle_count, [[0.0; LANES]; 3]);
        scratch.narrowed.resize(triangle_count, [[0.0; LANES]; 3]);
        scratch.kinds.resize(triangle_count, 0);
        // Each lane's rotation by axis and component, and where its numbers are.
        let mut heights: [&[f64]; LANES] = [&[]; LANES];
        let mut water: [&[DVec3]; LANES] = [&[]; LANES];
        let mut priors: [[&[f32]; 3]; LANES] = [[&[]; 3]; LANES];
        // The bodies' lanes, then the spare ones copied from the last body's (each one's
        // numbers worked out again from its state cost a body alone, whose lanes are all
        // spare but one, a few hundred instructions).
        for (l, (body, &state)) in bodies.iter().zip(states).enumerate().take(LANES) {
            let Some(body) = body else {
                continue;
            };
            let com = state.center_of_mass - state.position;
            for axis in 0..3 {
                motion.com[axis][l] = com[axis];
                motion.velocity[axis][l] = state.linear_velocity[axis];
                motion.angular_velocity[axis][l] = state.angular_velocity[axis];
            }
            mass[l] = body.desc.mass;
            if self.alone {
                // Every lane a triangle of this body: its numbers in all at once (copied lane
                // by lane below, about 150 instructions a step).
                for axis in 0..3 {
                    motion.com[axis] = [com[axis]; LANES];
                    motion.velocity[axis] = [state.linear_velocity[axis]; LANES];
                    motion.angular_velocity[axis] = [state.angular_velocity[axis]; LANES];
                }
                *mass = [body.desc.mass; LANES];
                // (Nothing else to gather: its triangles go in the lanes instead.)
                return;
            }
            let samples = body.samples();
            // Turned here rather than read: `prepare` leaves them (`Samples::turned`).
            let rotation = DMat3::from_quat(state.rotation);
            for (k, axis) in [rotation.x_axis, rotation.y_axis, rotation.z_axis].iter().enumerate() {
                for c in 0..3 {
                    rotations[k][c][l] = axis[c];
                }
            }
            heights[l] = &samples.heights;
            water[l] = &samples.velocities;
            priors[l] = body.committed.first().swept;
        }
        let last = count.clamp(1, LANES) - 1;
        for l in count..LANES {
            for axis in 0..3 {
                motion.com[axis][l] = motion.com[axis][last];
                motion.velocity[axis][l] = motion.velocity[axis][last];
                motion.angular_velocity[axis][l] = motion.angular_velocity[axis][last];
            }
            mass[l] = mass[last];
            for axis in rotations.iter_mut() {
                for component in axis {
                    component[l] = component[last];
                }
            }
            heights[l] = heights[last];
            water[l] = water[last];
            priors[l] = priors[last];
        }
        // Vertex by vertex and row by row, each lane group built from the eight bodies'
        // numbers and stored whole: lane by lane, the compiler scattered every vertex's and
        // row's numbers into their groups. (`DMat3 * DVec3`'s arithmetic, lane by lane.)
        let [x_axis, y_axis, z_axis] = &*rotations;
        for (v, (column, local)) in scratch.vertices.iter_mut().zip(&hull.positions).enumerate() {
            for c in 0..3 {
                column[c] =
                    std::array::from_fn(|l| x_axis[c][l] * local.x + y_axis[c][l] * local.y + z_axis[c][l] * local.z);
            }
            column[3] = std::array::from_fn(|l| heights[l][v]);
        }
        for (v, column) in scratch.water.iter_mut().enumerate() {
            column[1] = std::array::from_fn(|l| water[l][v][1]);
            // (Water moving only up and down: its vertical velocity alone, `Group::vertical`.)
            if !self.vertical {
                column[0] = std::array::from_fn(|l| water[l][v][0]);
                column[2] = std::array::from_fn(|l| water[l][v][2]);
            }
        }
        // Body by body and column by column: no index to check per number (row by row, each
        // of the eight bodies' columns was indexed, and checked, for every row).
        for (l, [x, y, z]) in priors.iter().enumerate() {
            let rows = scratch.prior.iter_mut().zip(x.iter().zip(y.iter()).zip(z.iter()));
            for (before, ((&x, &y), &z)) in rows {
                before[0][l] = f64::from(x);
                before[1][l] = f64::from(y);
                before[2][l] = f64::from(z);
            }
        }
    }

    /// Pass one for the group (a body alone: its own triangles, eight at a time).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pass_one(
        &self,
        bodies: &mut [Option<&mut Body>],
        states: &[&BodyState],
        group: &Group<'_>,
        motion: &LaneMotion,
        mass: &[f64; LANES],
        (prior, history, kinds): (&[LaneHistory], &mut [LaneHistory], &mut [u8]),
        lone: &mut LoneScratch,
        sums: &mut PassOneSums,
    ) {
        let (hull, shared, conditions) = (&**self.hull, &self.shared, &self.conditions);
        let slam = SlammingParams {
            power: shared.slamming_power,
            max_acceleration: shared.slamming_max_acceleration,
            fade_speed: shared.reference_speed,
            multiplier: shared.slamming_multiplier,
            mass: 0.0,
            hull_area: hull.info.area,
        };
        let constants = PassOneConstants {
            rho_g: conditions.water_density * conditions.gravity,
            vertical_only: shared.vertical_buoyancy_only,
            slamming: (shared.on(FORCE_SLAMMING) && self.had_history).then_some((slam, self.dt)),
            air: shared.on(FORCE_AIR).then_some((
                air_factor(conditions.air_density, shared.air_drag_coefficient),
                conditions.wind.to_array(),
            )),
        };
        match &mut bodies[0] {
            Some(body) if self.alone => {
                let Body {
                    sample_sets,
                    sampled,
                    committed,
                    spare,
                    ..
                } = &mut **body;
                let samples = &mut sample_sets[*sampled as usize];
                samples.turn(&hull.positions, states[0]);
                let single = Single {
                    vertices: &samples.vertices,
                    heights: &samples.heights,
                    water: conditions.water_moves.then_some(&samples.velocities[..]),
                };
                lanes::pass_one_single(
                    self.hull,
                    &single,
                    motion,
                    mass,
                    &constants,
                    &committed.first(),
                    &mut spare.first_mut(),
                    lone,
                    sums,
                );
            }
            _ => lanes::pass_one(hull, group, motion, mass, &constants, prior, history, kinds, sums),
        }
    }

    /// Each body's sums of pass one, and what it derives from them (its own description
    /// and state, read where they are: no replay is copied per body, nor an array of
    /// replays; the body's kept replay is built at commit).
    #[inline(always)]
    fn after_pass_one(
        &self,
        bodies: &[Option<&mut Body>],
        states: &[&BodyState],
        one: &PassOneSums,
        m: &mut LaneMiddles,
    ) {
        // The inertias' inverses eight at a time in lanes, the same bits as body by body
        // (the lone body's rotation is not gathered: its one inverse is taken alone).
        let hull = &**self.hull;
        if !self.alone {
            let hull_inertia = (&hull.unit_inertia, hull.info.centroid);
            let (rotations, com, mass) = (&m.rotations, &m.end.com, &m.mass);
            let out = (&mut m.inverse_inertias, &mut m.inverse_inertia_lanes);
            if bodies.len() <= lanes::HALF {
                inverse_hull_inertias::<{ lanes::HALF }>(rotations, com, mass, hull_inertia, out);
            } else {
                inverse_hull_inertias::<LANES>(rotations, com, mass, hull_inertia, out);
            }
        }
        for (l, (body, state)) in bodies.iter().zip(states).enumerate() {
            let Some(body) = body else {
                continue;
            };
            let com = state.center_of_mass - state.position;
            m.totals[l] = PassOne {
                buoyancy: Sum {
                    force: lane_vector(&one.buoyancy_force, l),
                    torque: lane_vector(&one.buoyancy_torque, l),
                },
                slamming: Sum {
                    force: lane_vector(&one.slamming_force, l),
                    torque: lane_vector(&one.slamming_torque, l),
                },
                air: Sum {
                    force: lane_vector(&one.air_force, l),
                    torque: lane_vector(&one.air_torque, l),
                },
                volume: buoyancy::SubmergedVolume {
                    volume: one.volume[l],
                    moment: lane_vector(&one.volume_moment, l),
                },
                wetted_area: one.area[l],
                wetted_moment: lane_vector(&one.area_moment, l),
                ..PassOne::default()
            };
            if self.alone || body.host_inertia().is_some() {
                m.inverse_inertias[l] = body.inertia(body.host_inertia(), body.desc.mass, state, com).inverse();
            }
            let middle = after_pass_one(
                StepInputs::first(body, state, self.dt, &self.conditions),
                &self.hull.info,
                &mut m.totals[l],
                (body.samples().mean_velocity, &body.samples().froude_krylov),
                &m.inverse_inertias[l],
                &mut Discard,
            );
            for axis in 0..3 {
                m.end.velocity[axis][l] = middle.v_end[axis];
                m.end.angular_velocity[axis][l] = middle.omega_end[axis];
            }
            if let Some(DragParams {
                viscous: Some((rho, cf)),
                ..
            }) = middle.drag
            {
                m.viscous_factor[l] = -0.5 * rho * cf;
            }
            m.middles[l] = Some(middle);
        }
    }

    /// Pass two for the group, when a drag force is on (the first body's: the group
    /// shares its forces).
    #[inline(always)]
    fn pass_two(
        &self,
        bodies: &[Option<&mut Body>],
        group: &Group<'_>,
        kinds: &[u8],
        lone: &mut LoneScratch,
        m: &mut LaneMiddles,
        drag: &mut DragLanes,
    ) -> bool {
        // (Not in a closure: closures are compiled for the baseline processor only.)
        let Some(Some(params)) = m.middles[0].map(|m| m.drag) else {
            return false;
        };
        let hull = &**self.hull;
        let shared = DragConstants::new(
            &Motion {
                com: DVec3::ZERO,
                velocity: DVec3::ZERO,
                angular_velocity: DVec3::ZERO,
            },
            &params,
        );
        match &bodies[0] {
            Some(_) if self.alone => {
                // Every lane holds a triangle of this body, at its motion; its triangles are
                // where pass one gathered them.
                for axis in 0..3 {
                    m.end.velocity[axis] = [m.end.velocity[axis][0]; LANES];
                    m.end.angular_velocity[axis] = [m.end.angular_velocity[axis][0]; LANES];
                }
                m.viscous_factor = [m.viscous_factor[0]; LANES];
                lanes::pass_two_single(lone, &m.end, &m.viscous_factor, &shared, drag);
            }
            _ => lanes::pass_two(hull, group, kinds, &m.end, &m.viscous_factor, &shared, drag),
        }
        true
    }

    /// Each body's forces from its sums, and its step committed.
    #[inline(always)]
    fn finish(
        &self,
        bodies: &mut [Option<&mut Body>],
        states: &[&BodyState],
        one: &PassOneSums,
        m: &LaneMiddles,
        drag: Option<&DragLanes>,
        results: &mut [Result<BodyForces>],
    ) {
        // Both limiters' factors for the group in lanes (a body alone: in `finish`).
        let mut scales = ([1.0; LANES], [1.0; LANES]);
        if !self.alone {
            if bodies.len() <= lanes::HALF {
                self.limit_in_lanes::<{ lanes::HALF }>(bodies, states, one, m, drag, &mut scales);
            } else {
                self.limit_in_lanes::<LANES>(bodies, states, one, m, drag, &mut scales);
            }
        }
        for (l, (body, state)) in bodies.iter_mut().zip(states).enumerate() {
            // (Borrowed: a copy of each body's `Middle` cost more than the rest of the loop's
            // bookkeeping.)
            let (Some(body), Some(middle)) = (body, &m.middles[l]) else {
                continue;
            };
            // (Matched by reference: `map_or` took, and copied, the group's sums per body.)
            let drag = match drag {
                Some(d) => (
                    lane_vector(&d.viscous, l),
                    lane_vector(&d.pressure, l),
                    lane_vector(&d.torque, l),
                ),
                None => (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO),
            };
            // The limiters' factors as a replay passes them (the rest of `Derived` is the
            // end motion `finish` reads from `middle`).
            let derived = (!self.alone).then_some(Derived {
                end_velocity: middle.v_end,
                end_angular_velocity: middle.omega_end,
                water_scale: scales.0[l],
                air_scale: scales.1[l],
            });
            let inputs = StepInputs {
                derived,
                ..StepInputs::first(body, state, self.dt, &self.conditions)
            };
            let (forces, derived) = finish(
                inputs,
                &m.totals[l],
                middle,
                drag,
                one.pieces[l] as usize,
                &m.inverse_inertias[l],
                &mut Discard,
            );
            if let Some(result) = results.get_mut(l) {
                let replay = KeptReplay {
                    state: **state,
                    dt: self.dt,
                    conditions: self.conditions,
                    had_history: self.had_history,
                    derived: Some(derived),
                };
                *result = body.commit(forces, replay);
            }
        }
    }
}

impl Lanes<'_> {
    /// Each body's factors of [`limiter::limit`] for the water's and the air's
    /// dissipative forces, as `finish` works them out body by body (the same sums of the
    /// same forces, damping's included), `N` bodies at once in lanes.
    #[inline(always)]
    fn limit_in_lanes<const N: usize>(
        &self,
        bodies: &[Option<&mut Body>],
        states: &[&BodyState],
        one: &PassOneSums,
        m: &LaneMiddles,
        drag: Option<&DragLanes>,
        (water_scale, air_scale): &mut ([f64; LANES], [f64; LANES]),
    ) {
        let zero = [[0.0; N]; 3];
        let mut water = MotionLanes::<N> {
            force: zero,
            torque: zero,
            velocity: zero,
            angular_velocity: zero,
            mass: [0.0; N],
        };
        let mut air = water;
        for (l, (body, state)) in bodies.iter().zip(states).enumerate().take(N) {
            let (Some(body), Some(middle)) = (body, &m.middles[l]) else {
                continue;
            };
            let desc = &body.desc;
            let (mut damping_force, mut damping_couple) = (DVec3::ZERO, DVec3::ZERO);
            if desc.forces & FORCE_DAMPING != 0 {
                (damping_force, damping_couple) = damping::damping(
                    middle.relative_end,
                    middle.omega_end,
                    middle.wetted_ratio,
                    desc.linear_damping,
                    desc.angular_damping,
                );
            }
            let (viscous, pressure, torque) = match drag {
                Some(d) => (
                    lane_vector(&d.viscous, l),
                    lane_vector(&d.pressure, l),
                    lane_vector(&d.torque, l),
                ),
                None => (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO),
            };
            let slamming = &m.totals[l].slamming;
            let force = viscous + pressure + slamming.force + damping_force;
            let torque = torque + slamming.torque + damping_couple;
            let air_velocity = state.linear_velocity - self.conditions.wind;
            for c in 0..3 {
                water.force[c][l] = force[c];
                water.torque[c][l] = torque[c];
                water.velocity[c][l] = middle.relative_end[c];
                water.angular_velocity[c][l] = middle.omega_end[c];
                air.force[c][l] = one.air_force[c][l];
                air.torque[c][l] = one.air_torque[c][l];
                air.velocity[c][l] = air_velocity[c];
                air.angular_velocity[c][l] = state.angular_velocity[c];
            }
            water.mass[l] = desc.mass;
            air.mass[l] = desc.mass;
        }
        let mut inverse_inertia = [[0.0; N]; 9];
        for (to, from) in inverse_inertia.iter_mut().zip(&m.inverse_inertia_lanes) {
            to.copy_from_slice(&from[..N]);
        }
        let mut scale = [0.0; N];
        limiter::limit_lanes(&water, &inverse_inertia, self.dt, &mut scale);
        water_scale[..N].copy_from_slice(&scale);
        limiter::limit_lanes(&air, &inverse_inertia, self.dt, &mut scale);
        air_scale[..N].copy_from_slice(&scale);
    }
}

/// Each body's new history: every lane's numbers narrowed at once, row by row (the same
/// [`narrow`] of each number), then copied body by body and column by column (no index to
/// check per number; narrowed body by body, one number at a time, and with a four-way
/// zip, they cost about 270 instructions a box).
#[inline(always)]
fn write_histories(bodies: &mut [Option<&mut Body>], history: &[LaneHistory], narrowed: &mut [NarrowHistory]) {
    // (One flat loop, which the compiler vectorises; row by row, it did not.)
    let from = history.as_flattened().as_flattened();
    for (to, &from) in narrowed.as_flattened_mut().as_flattened_mut().iter_mut().zip(from) {
        *to = narrow(from);
    }
    let rows = &narrowed[..narrowed.len().min(history.len())];
    for (l, body) in bodies.iter_mut().enumerate().take(LANES) {
        let Some(body) = body else {
            continue;
        };
        let [x, y, z] = body.spare.first_mut().swept;
        let n = rows.len().min(x.len()).min(y.len()).min(z.len());
        let (x, y, z, rows) = (&mut x[..n], &mut y[..n], &mut z[..n], &rows[..n]);
        for r in 0..n {
            x[r] = rows[r][0][l];
            y[r] = rows[r][1][l];
            z[r] = rows[r][2][l];
        }
    }
}
