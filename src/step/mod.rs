//! A step, stage by stage (docs/ARCHITECTURE.md draws it):
//!
//! 1. validate: the world checks `dt` and the state ([`crate::body::BodyState::validated`]);
//! 2. sample the water ([`sample`]): the hull turned into world axes, each vertex's height
//!    above the water and the water's velocity there (`Body::prepare`, the only stage
//!    that can fail and the only one that calls the host's water);
//! 3. pass one ([`pass_one`], [`cut`]): every triangle clipped at the waterline, the
//!    hydrostatic, slamming and air forces summed (whole triangles in vector loops, cut
//!    ones eight at a time in lanes or one at a time);
//! 4. after pass one ([`after_pass_one`]): the volume models, the centre of buoyancy and
//!    the motion at the end of the step under buoyancy and gravity;
//! 5. pass two ([`pass_two`]): drag on the wet pieces at that motion;
//! 6. finish ([`finish`]): damping, the lumped resistance, the limiter, added mass;
//! 7. commit ([`commit`]): the new slamming history and samples replace the old only now.
//!
//! `Body::run` strings stages 3 to 6 together for one body; [`group`] takes the same
//! stages for up to eight small bodies at once, one in each vector lane; [`replay`] runs
//! a body's last step again for the detail getters.

pub(crate) mod after_pass_one;
pub(crate) mod commit;
pub(crate) mod cut;
pub(crate) mod finish;
pub(crate) mod group;
pub(crate) mod inertia;
pub(crate) mod pass_one;
pub(crate) mod pass_two;
pub(crate) mod replay;
pub(crate) mod sample;
#[cfg(test)]
mod tests;

use glam::{DMat3, DVec3};

pub(crate) use group::step_in_lanes;
use sample::sample_water_for_cpu;

use crate::body::{
    Body, BodyForces, BodyState, BuoyancyModel, Conditions, Derived, Discard, Output, Replay, Samples, Sink, StepDesc,
};
use crate::error::Result;
use crate::forces::air::air_factor;
use crate::forces::slamming::SlammingParams;
use crate::forces::{
    FORCE_AIR, FORCE_DAMPING, FORCE_LUMPED_RESISTANCE, FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS,
};
use crate::hull::Hull;
use crate::loops::lanes::{PassOneConstants, Single};
use crate::loops::whole::{ChunkOutput, History, Mesh, Motion, Pressure, WetTriangles, WholeParams, is_fast_power};
use crate::runtime::profile::{self, Section};
use crate::runtime::team::{Helper, Team};
use crate::water::Water;

/// What a step needs from the world.
#[derive(Clone, Copy, Debug)]
pub struct Environment<'a> {
    /// The water surface.
    pub water: &'a Water,
    /// Water animation time, s.
    pub time: f64,
    /// Gravity, m/s^2 (> 0, along -Y).
    pub gravity: f64,
    /// Water density, kg/m^3.
    pub water_density: f64,
    /// Air density, kg/m^3.
    pub air_density: f64,
    /// Kinematic viscosity of the water, m^2/s.
    pub water_viscosity: f64,
    /// Wind velocity, m/s: air resistance is relative to it.
    pub wind: DVec3,
    /// Uniform current, m/s, added to the water's particle velocity.
    pub current: DVec3,
    /// Where the water's frame is from the world's: the water is asked at world
    /// positions plus this ([`crate::World::set_origin`]).
    pub water_offset: DVec3,
    /// Whether a big hull may share its triangles among the threads of the pool the step
    /// runs on (not when the batch has a body for every thread already).
    pub share_triangles: bool,
    /// The world's helper thread, for a big hull stepped on its own on this thread (then
    /// it takes the place of the pool).
    pub(crate) helper: Option<&'a Helper>,
    /// The host's job system, for a big hull stepped on its own (a world given one has no
    /// pool and no helper).
    pub(crate) tasks: Option<&'a dyn crate::runtime::tasks::TaskSystem>,
    /// The world's own pool: a big hull shares its triangles among its threads when the
    /// step runs on one of them (never on another rayon pool, a host's, that happens to
    /// run the step).
    pub(crate) pool: Option<&'a rayon::ThreadPool>,
}

impl<'a> Environment<'a> {
    /// Who shares a big hull's step with this thread.
    fn team(&self) -> Team<'a> {
        match self.helper {
            Some(helper) => Team::Helper(helper),
            None if let Some(tasks) = self.tasks => Team::Host(tasks),
            // Only on the world's own pool, never rayon's global one or a host's, which the
            // host did not hand keel.
            None if self.share_triangles && self.pool.is_some_and(|p| p.current_thread_index().is_some()) => Team::Pool,
            None => Team::Alone,
        }
    }
}

impl Body {
    /// A whole step: [`Body::prepare`], then [`Body::compute`].
    pub(crate) fn step(&mut self, state: &BodyState, dt: f64, env: &Environment<'_>) -> Result<BodyForces> {
        self.prepare(state, env)?;
        self.compute(state, dt, env)
    }

    /// Whether this step needs the water's velocity: it moves (waves, a current) and a
    /// force depends on the velocity relative to it.
    pub(crate) fn needs_water_velocity(&self, env: &Environment<'_>) -> bool {
        let relative = FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_DAMPING | FORCE_LUMPED_RESISTANCE;
        (!env.water.is_still() || env.current != DVec3::ZERO) && self.desc.forces & relative != 0
    }

    /// First half of a step: transforms the hull and samples the water under it. The only
    /// part that can fail (the host's water may answer garbage) and the only part that
    /// calls the host's water, so a batch runs it on the caller's thread for such water.
    /// On failure the body is as it was.
    pub(crate) fn prepare(&mut self, state: &BodyState, env: &Environment<'_>) -> Result<()> {
        let _timer = profile::time(Section::Prepare);
        let velocities = self.needs_water_velocity(env);
        let sampled = sample_water_for_cpu(self, state, env, velocities);
        if sampled.is_ok() {
            self.sampled = !self.sampled;
        }
        sampled
    }

    /// Second half of a step, after a successful [`Body::prepare`] with the same state.
    /// Fails, with the body as it was before `prepare`, when the forces would not be
    /// finite (inputs at the edge of what f64 can carry).
    pub(crate) fn compute(&mut self, state: &BodyState, dt: f64, env: &Environment<'_>) -> Result<BodyForces> {
        // A small hull alone in the lanes: the same bits as in a batch's group.
        if self.can_step_in_lanes() {
            let mut forces = [Ok(BodyForces::default())];
            step_in_lanes(&mut [Some(self)], &[state], dt, env, &mut forces);
            let [forces] = forces;
            return forces;
        }
        let _timer = profile::time(Section::Compute);
        compute_for_cpu(self, state, dt, env)
    }

    #[inline(always)]
    pub(crate) fn compute_here(&mut self, state: &BodyState, dt: f64, env: &Environment<'_>) -> Result<BodyForces> {
        let conditions = self.conditions(env);
        let mut replay = Replay {
            desc: self.desc,
            host_inertia: self.host_inertia().copied(),
            state: *state,
            dt,
            conditions,
            had_history: self.has_history,
            derived: None,
        };
        let prior = std::mem::take(&mut self.committed);
        let (pieces, sources) = std::mem::take(&mut self.pieces);
        let mut out = Output {
            pieces,
            sources,
            history: std::mem::take(&mut self.spare),
        };
        let (forces, derived) = self.run(&replay, &prior, &mut out, &mut Discard, env.team());
        replay.derived = Some(derived);
        self.pieces = (out.pieces, out.sources);
        self.committed = prior;
        self.spare = out.history;
        self.commit(forces, replay.kept())
    }

    /// The world's constants for this body's step.
    pub(crate) fn conditions(&self, env: &Environment<'_>) -> Conditions {
        Conditions {
            gravity: env.gravity,
            water_density: env.water_density,
            air_density: env.air_density,
            water_viscosity: env.water_viscosity,
            wind: env.wind,
            water_moves: self.needs_water_velocity(env),
        }
    }

    /// The step itself, from the sampled water. Two passes. The first clips every
    /// triangle and sums the hydrostatic forces, slamming (which compares with the last
    /// step) and air resistance. The second computes the velocity-dependent water forces
    /// (viscous, pressure drag, damping) at the velocity the body will have at the end of
    /// the step under buoyancy and gravity alone, and the limiter keeps them from removing
    /// more than that velocity: drag is then implicit against the stiff buoyancy of a light
    /// body, which otherwise leaves the water faster than any drag evaluated at the start
    /// of the step can hold it. Every stage is `#[inline(always)]`: the step is compiled
    /// for the processor at hand (`compute_for_cpu`), and a stage left out of line would be
    /// compiled for the baseline one only.
    #[inline(always)]
    pub(crate) fn run<S: Sink + Send>(
        &mut self,
        replay: &Replay,
        prior: &History,
        out: &mut Output,
        sink: &mut S,
        team: Team<'_>,
    ) -> (BodyForces, Derived) {
        let state = &replay.state;
        let com = state.center_of_mass - state.position;
        // Inverted once: the end-of-step motion and both limiters use the inverse.
        let inverse_inertia = self
            .inertia(replay.host_inertia.as_ref(), replay.desc.mass, state, com)
            .inverse();
        let Body {
            hull,
            sample_sets,
            sampled,
            cut,
            cut_history,
            wet,
            chunks,
            normals,
            triangle_water_velocities,
            ..
        } = self;
        let samples = &sample_sets[*sampled as usize];
        let step = Step::new(replay, hull, samples, prior, !S::DETAILED);
        let mut rows = Rows {
            cut,
            cut_history,
            wet,
            chunks,
            normals,
            water_velocities: triangle_water_velocities,
        };
        let (mut totals, submerged) = step.pass_one(&mut rows, out, sink, team);
        let middle = after_pass_one::after_pass_one(
            replay.inputs(),
            &hull.info,
            &mut totals,
            (samples.mean_velocity, &samples.froude_krylov),
            &inverse_inertia,
            sink,
        );
        let drag = step.pass_two(&middle, &mut rows, out, sink, team);
        finish::finish(
            replay.inputs(),
            &totals,
            &middle,
            drag,
            out.pieces.len() + submerged,
            &inverse_inertia,
            sink,
        )
    }
}

/// What the passes of one body's step read: its inputs, its hull and samples, and what
/// is worked out from them once for both passes.
pub(crate) struct Step<'a> {
    pub desc: &'a StepDesc,
    pub dt: f64,
    pub conditions: &'a Conditions,
    pub hull: &'a Hull,
    pub samples: &'a Samples,
    /// The slamming history this step compares with.
    pub prior: &'a History,
    /// The rotation, as the loops turn the hull's corners (the same arithmetic as
    /// [`sample`]'s, for the same bits).
    pub rotation: DMat3,
    /// The motion at the start of the step, about the centre of mass relative to the
    /// body origin.
    pub motion: Motion,
    pub rho_g: f64,
    pub slam: SlammingParams,
    /// What the whole triangles' loops compute.
    pub params: WholeParams,
    /// What the lanes compute for the cut triangles (when `lanes_cut`).
    pub lane_constants: PassOneConstants,
    pub single: Single<'a>,
    /// Whether whole triangles go through the vectorised loops: not when the sink wants
    /// every piece, nor for powers other than 0, 1/2, 1 and 2 (which need powf, and the
    /// loops leave it out).
    pub loops: bool,
    /// Whether the cut triangles go eight at a time through the lanes' code.
    pub lanes_cut: bool,
    pub lumped: bool,
    pub air_on: bool,
    /// Slamming is on and has a last step to compare with.
    pub slamming: bool,
    /// The velocity of the centre of mass relative to the wind.
    pub air_relative: DVec3,
}

impl<'a> Step<'a> {
    /// The step of `replay` over `samples`; `fast` unless a sink wants every piece.
    #[inline(always)]
    fn new(replay: &'a Replay, hull: &'a Hull, samples: &'a Samples, prior: &'a History, fast: bool) -> Self {
        let Replay {
            ref desc,
            ref state,
            dt,
            conditions: ref env,
            had_history,
            ..
        } = *replay;
        let lumped = desc.on(FORCE_LUMPED_RESISTANCE);
        let air_on = desc.on(FORCE_AIR) && !lumped;
        let slamming = desc.on(FORCE_SLAMMING) && had_history;
        let motion = Motion {
            com: state.center_of_mass - state.position,
            velocity: state.linear_velocity,
            angular_velocity: state.angular_velocity,
        };
        let rho_g = env.water_density * env.gravity;
        let slam = SlammingParams {
            power: desc.slamming_power,
            max_acceleration: desc.slamming_max_acceleration,
            fade_speed: desc.reference_speed,
            multiplier: desc.slamming_multiplier,
            mass: desc.mass,
            hull_area: hull.info.area,
        };
        let air_relative = motion.velocity - env.wind;
        let loops = fast
            && [desc.pressure_falloff, desc.suction_falloff, desc.slamming_power]
                .into_iter()
                .all(is_fast_power);
        let params = WholeParams {
            rho_g,
            pressure: match desc.buoyancy {
                BuoyancyModel::Pressure => Pressure::Exact,
                BuoyancyModel::PressureCentroid => Pressure::Centroid,
                _ => Pressure::Off,
            },
            vertical_only: desc.vertical_buoyancy_only,
            slamming: slamming.then_some((slam, dt)),
            air: air_on.then_some((env.air_density, desc.air_drag_coefficient, env.wind)),
            lumped_air: lumped.then_some(air_relative),
        };
        // A big hull's cut triangles go eight at a time through the code that steps small
        // hulls in lanes (`crate::loops::lanes`, one triangle in each lane) when it computes this
        // body's forces: one at a time, with their pieces gathered into blocks, they cost
        // six times a whole triangle (a floating bunny: 120 of 3674 triangles, a sixth of
        // its step).
        let lanes_cut = loops
            && samples.turned
            && desc.buoyancy == BuoyancyModel::Pressure
            && !lumped
            && desc.pressure_falloff == 0.5
            && desc.suction_falloff == 0.5;
        let lane_constants = PassOneConstants {
            rho_g,
            vertical_only: desc.vertical_buoyancy_only,
            slamming: slamming.then_some((SlammingParams { mass: 0.0, ..slam }, dt)),
            air: air_on.then_some((
                air_factor(env.air_density, desc.air_drag_coefficient),
                env.wind.to_array(),
            )),
        };
        let single = Single {
            vertices: &samples.vertices,
            heights: &samples.heights,
            water: env.water_moves.then_some(&samples.velocities[..]),
        };
        Self {
            desc,
            dt,
            conditions: env,
            hull,
            samples,
            prior,
            rotation: DMat3::from_quat(state.rotation),
            motion,
            rho_g,
            slam,
            params,
            lane_constants,
            single,
            loops,
            lanes_cut,
            lumped,
            air_on,
            slamming,
            air_relative,
        }
    }

    /// The hull's rows as the whole triangles' loops read them.
    #[inline(always)]
    fn mesh(&self) -> Mesh<'a> {
        let samples = self.samples;
        Mesh {
            columns: &self.hull.columns,
            rotation: self.rotation,
            heights: &samples.heights,
            flat: samples.flat,
            water_velocities: self.conditions.water_moves.then_some(&samples.velocities[..]),
        }
    }
}

/// The body's buffers a step's passes write, borrowed apart.
pub(crate) struct Rows<'b> {
    /// The triangles cut by the water ...
    pub cut: &'b mut Vec<u32>,
    /// ... and their slamming history, kept aside while the whole triangles' pass writes
    /// every row's.
    pub cut_history: &'b mut Vec<(u32, DVec3)>,
    pub wet: &'b mut WetTriangles,
    pub chunks: &'b mut Vec<ChunkOutput>,
    /// Per cut triangle: its outward unit normal and the water velocity at it.
    pub normals: &'b mut Vec<DVec3>,
    pub water_velocities: &'b mut Vec<DVec3>,
}

/// [`Body::compute`] compiled for the processor at hand: the step's scalar code (cut
/// triangles, sums, the limiter) then uses its instructions too.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn compute_for_cpu<'w>(body: &mut Body, state: &BodyState, dt: f64, env: &Environment<'w>) -> Result<BodyForces> {
    body.compute_here(state, dt, env)
}
