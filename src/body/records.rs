//! What a step leaves to be asked about later: its by-products' sink, the [`Detail`] a
//! replay fills, and the [`Replay`] a body keeps so that the step can run again when a
//! host asks for per-triangle geometry and forces (the step's `replay.rs` runs it and
//! answers the getters).

use glam::DVec3;

use super::desc::{BodyDesc, HostInertia, StepDesc};
use super::state::{BodyState, PointForce};

/// Forces of a step with the points where they act, relative to the body origin, kept
/// apart by kind so that each kind can be scaled as a whole.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointForces {
    /// Buoyancy (and the added-mass gravity correction).
    pub hydrostatic: Vec<PointForce>,
    /// Viscous, pressure drag, slamming, damping and lumped water resistance.
    pub water: Vec<PointForce>,
    /// Air resistance.
    pub air: Vec<PointForce>,
}

impl PointForces {
    fn list(&mut self, kind: Kind) -> &mut Vec<PointForce> {
        match kind {
            Kind::Hydrostatic => &mut self.hydrostatic,
            Kind::Water => &mut self.water,
            Kind::Air => &mut self.air,
        }
    }
}

/// The kinds of force, each scaled as a whole at the end of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Hydrostatic,
    Water,
    Air,
}

/// Where a step's by-products go. A step sends them nowhere; when the host asks for
/// the detail of the last step, the step is replayed into a [`Detail`]. Steps stay free of
/// the memory traffic of debug geometry nobody looks at.
pub(crate) trait Sink {
    /// Whether the sink wants every piece and point force, which takes every triangle
    /// through the one-at-a-time code; otherwise whole triangles go through the vectorised loops of
    /// [`crate::loops::whole`].
    const DETAILED: bool;
    fn emerged(&mut self, _piece: &[DVec3; 3]) {}
    fn waterline(&mut self, _segment: [DVec3; 2]) {}
    fn force(&mut self, _kind: Kind, _point: DVec3, _force: DVec3) {}
    fn scale(&mut self, _kind: Kind, _factor: f64) {}
}

/// A step's by-products thrown away.
pub(crate) struct Discard;

impl Sink for Discard {
    const DETAILED: bool = false;
}

/// The detail of a body's last step, relative to its origin (world axes).
#[derive(Clone, Debug, Default)]
pub(crate) struct Detail {
    pub submerged: Vec<[DVec3; 3]>,
    pub emerged: Vec<[DVec3; 3]>,
    pub waterline: Vec<[DVec3; 2]>,
    pub forces: PointForces,
}

impl Sink for Detail {
    const DETAILED: bool = true;

    fn emerged(&mut self, piece: &[DVec3; 3]) {
        self.emerged.push(*piece);
    }

    fn waterline(&mut self, segment: [DVec3; 2]) {
        self.waterline.push(segment);
    }

    fn force(&mut self, kind: Kind, point: DVec3, force: DVec3) {
        self.forces.list(kind).push(PointForce { point, force });
    }

    fn scale(&mut self, kind: Kind, factor: f64) {
        if factor != 1.0 {
            self.forces.list(kind).iter_mut().for_each(|f| f.force *= factor);
        }
    }
}

/// The world's constants a step used, kept so that it can be replayed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conditions {
    pub gravity: f64,
    pub water_density: f64,
    pub air_density: f64,
    pub water_viscosity: f64,
    pub wind: DVec3,
    /// Whether the water's velocity was sampled (it moves and a force needs it).
    pub water_moves: bool,
}

/// What the last step saw: enough to replay it exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Replay {
    /// The description the step used (the host may change it before asking for detail) ...
    pub desc: StepDesc,
    /// ... and its inertia.
    pub host_inertia: Option<HostInertia>,
    pub state: BodyState,
    pub dt: f64,
    pub conditions: Conditions,
    /// Whether slamming had a previous step to compare with.
    pub had_history: bool,
    /// What the step derived from its sums, once it has: a replay reuses it rather than
    /// deriving it again from its own sums. Those differ from the step's in the last bits
    /// (the step adds whole triangles in vectorised loops, the replay one at a time), and
    /// some inputs amplify that: a buoyancy that cancels to rounding on a body of 1e-30 kg
    /// gives an end-of-step velocity of any size, a nearly singular inertia (a centre of
    /// mass far outside a tiny hull) a different limiter factor. Both found by the fuzzer.
    pub derived: Option<Derived>,
}

/// A [`Replay`] as a body keeps it: without the description, which is the body's own
/// unless the host has changed it since ([`Body::set_desc`](super::Body::set_desc) then keeps the old one aside).
/// 160 bytes fewer to write per step, which 10000 small bodies feel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeptReplay {
    pub state: BodyState,
    pub dt: f64,
    pub conditions: Conditions,
    pub had_history: bool,
    pub derived: Option<Derived>,
}

impl Replay {
    pub(crate) fn kept(&self) -> KeptReplay {
        KeptReplay {
            state: self.state,
            dt: self.dt,
            conditions: self.conditions,
            had_history: self.had_history,
            derived: self.derived,
        }
    }
}

/// What [`crate::step::after_pass_one`] and [`crate::step::finish`] read of a step: a [`Replay`]'s, borrowed (the
/// lanes lend each body's own description and state rather than copying them into a
/// replay of their own).
#[derive(Clone, Copy)]
pub(crate) struct StepInputs<'a> {
    pub desc: &'a StepDesc,
    pub state: &'a BodyState,
    pub dt: f64,
    pub conditions: &'a Conditions,
    pub derived: Option<Derived>,
}

impl Replay {
    pub(crate) fn inputs(&self) -> StepInputs<'_> {
        StepInputs {
            desc: &self.desc,
            state: &self.state,
            dt: self.dt,
            conditions: &self.conditions,
            derived: self.derived,
        }
    }
}

impl KeptReplay {
    pub(crate) fn with_desc(self, desc: BodyDesc) -> Replay {
        Replay {
            desc: StepDesc::of(&desc),
            host_inertia: HostInertia::of(&desc),
            state: self.state,
            dt: self.dt,
            conditions: self.conditions,
            had_history: self.had_history,
            derived: self.derived,
        }
    }
}

/// The numbers a step derives from its sums of forces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Derived {
    /// Velocity and angular velocity at the end of the step under buoyancy and gravity.
    pub end_velocity: DVec3,
    pub end_angular_velocity: DVec3,
    /// The limiter's factors for the water's and the air's dissipative forces.
    pub water_scale: f64,
    pub air_scale: f64,
}
