//! What a step leaves to be asked about later: its by-products' sink, the replay that
//! runs the step again into a [`Detail`] when a host asks for per-triangle geometry and
//! forces, and the getters that answer from it.

use glam::DVec3;

use super::desc::{BodyDesc, HostInertia, StepDesc};
use super::state::{BodyState, PointForce};
use super::store::{Body, Output};
use crate::team::Team;

/// Forces of a step with the points where they act, relative to the body origin, kept
/// apart by kind so that each kind can be scaled as a whole.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointForces {
    /// Buoyancy (and the added-mass gravity correction).
    hydrostatic: Vec<PointForce>,
    /// Viscous, pressure drag, slamming, damping and lumped water resistance.
    water: Vec<PointForce>,
    /// Air resistance.
    air: Vec<PointForce>,
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
    /// [`crate::whole_triangles`].
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
/// unless the host has changed it since ([`Body::set_desc`] then keeps the old one aside).
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

impl<'a> StepInputs<'a> {
    /// A first run of a step of `body` from `state` (nothing derived yet).
    #[inline(always)]
    pub(crate) fn first(body: &'a Body, state: &'a BodyState, dt: f64, conditions: &'a Conditions) -> Self {
        Self {
            desc: &body.desc,
            state,
            dt,
            conditions,
            derived: None,
        }
    }
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
    fn with_desc(self, desc: BodyDesc) -> Replay {
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

impl Body {
    /// The last step's detail, replaying the step into buffers the first time it is asked
    /// for: same inputs, same code, same numbers.
    pub(crate) fn detail(&mut self) -> Option<&Detail> {
        if self.detail.is_none() {
            let replay = self.replay()?;
            let t = self.hull.triangles.len();
            let mut detail = Detail {
                submerged: Vec::new(),
                emerged: Vec::with_capacity(2 * t),
                waterline: Vec::with_capacity(t),
                forces: PointForces::default(),
            };
            let prior = std::mem::take(&mut self.prior_history);
            // Not the spare set: right after a step it holds what undoing the step needs.
            let mut scratch = Output::sized(t, self.hull.columns.len());
            self.samples.turn(&self.hull.positions, &replay.state);
            self.run(&replay, &prior, &mut scratch, &mut detail, Team::Alone);
            detail.submerged = scratch.pieces;
            self.prior_history = prior;
            self.detail = Some(Box::new(detail));
        }
        self.detail.as_deref()
    }

    /// Where the last step's body origin was (world), if there was a step.
    pub(crate) fn origin(&self) -> DVec3 {
        self.replays[self.latest].map_or(DVec3::ZERO, |r| r.state.position)
    }

    /// The last step's replay, with the description it used.
    pub(crate) fn replay(&self) -> Option<Replay> {
        let k = self.latest;
        let desc = if self.replay_desc_kept[k] {
            self.replay_descs[k]
        } else {
            self.whole_desc
        };
        Some(self.replays[k]?.with_desc(desc))
    }

    /// The submerged pieces of the last step, world coordinates, outward winding.
    pub fn submerged_triangles(&mut self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        let o = self.origin();
        self.detail()
            .map_or(&[][..], |d| &d.submerged[..])
            .iter()
            .map(move |t| t.map(|p| p + o))
    }

    /// The emerged pieces of the last step, world coordinates, outward winding.
    pub fn emerged_triangles(&mut self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        let o = self.origin();
        self.detail()
            .map_or(&[][..], |d| &d.emerged[..])
            .iter()
            .map(move |t| t.map(|p| p + o))
    }

    /// The waterline of the last step as segments, world coordinates. On a closed hull
    /// the segments chain into loops along the edge of the wetted surface.
    pub fn waterline(&mut self) -> impl ExactSizeIterator<Item = [DVec3; 2]> + '_ {
        let o = self.origin();
        self.detail()
            .map_or(&[][..], |d| &d.waterline[..])
            .iter()
            .map(move |s| s.map(|p| p + o))
    }

    /// The forces of the last step with their points of application, world coordinates;
    /// their sum and moment reproduce the step's force and torque, apart from the
    /// angular-damping couple.
    pub fn triangle_forces(&mut self) -> impl ExactSizeIterator<Item = PointForce> + '_ {
        let o = self.origin();
        let (h, w, a): (&[PointForce], &[PointForce], &[PointForce]) = match self.detail() {
            Some(d) => (&d.forces.hydrostatic, &d.forces.water, &d.forces.air),
            None => (&[], &[], &[]),
        };
        let all = h.iter().chain(w).chain(a);
        ExactIter {
            len: h.len() + w.len() + a.len(),
            inner: all,
        }
        .map(move |f| PointForce {
            point: f.point + o,
            force: f.force,
        })
    }
}

/// An iterator of known length (chains of slices are not `ExactSizeIterator`).
struct ExactIter<I> {
    len: usize,
    inner: I,
}

impl<I: Iterator> Iterator for ExactIter<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.len -= 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<I: Iterator> ExactSizeIterator for ExactIter<I> {}
