//! The detail getters of a body's last step: they replay the step (same inputs, same
//! code, same numbers) into a [`Detail`] the first time they are asked.

use glam::DVec3;

use crate::body::{Body, BodyState, Conditions, Detail, Output, PointForce, PointForces, Replay, StepInputs};
use crate::runtime::team::Team;

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
            let (hull, samples) = (&self.hull, &mut self.sample_sets[self.sampled as usize]);
            samples.turn(&hull.positions, &replay.state);
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
