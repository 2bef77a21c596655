//! The end of a step: its results replace the body's only when the step is taken, and
//! a batch that fails for another body can undo it.

use crate::body::{Body, BodyForces, KeptReplay};
use crate::error::{Error, Result};

impl Body {
    /// Ends a step whose forces are `forces` and whose new slamming history is in
    /// `spare`, the one it compared with in `committed`: the step is taken if its forces
    /// are sound, undone otherwise. (Inlined: called, it took the forces and the replay,
    /// some 550 bytes, by copies, then copied them again into place.)
    #[inline(always)]
    pub(crate) fn commit(&mut self, forces: BodyForces, replay: KeptReplay) -> Result<BodyForces> {
        if !forces.is_sound() {
            self.undo_prepare();
            return Err(Error::argument(
                "the step's forces are not finite numbers: the body, its hull or the world are beyond what keel \
                 can compute with",
            ));
        }
        // The prior becomes the committed history, the output the committed set, and the
        // spare keeps what they replaced.
        std::mem::swap(&mut self.prior_history, &mut self.committed);
        std::mem::swap(&mut self.committed, &mut self.spare);
        self.had_history = self.has_history;
        self.has_history = true;
        self.latest ^= 1;
        self.replays[self.latest] = Some(replay);
        self.replay_desc_kept[self.latest] = false;
        self.detail = None;
        Ok(forces)
    }

    /// Undoes a successful [`Body::prepare`] whose step is not taken.
    pub(crate) fn undo_prepare(&mut self) {
        self.sampled = !self.sampled;
    }

    /// Undoes a whole successful step (a batch that fails for another body).
    pub(crate) fn undo_step(&mut self) {
        std::mem::swap(&mut self.committed, &mut self.spare);
        std::mem::swap(&mut self.prior_history, &mut self.committed);
        self.latest ^= 1;
        self.has_history = self.had_history;
        self.detail = None;
        self.undo_prepare();
    }
}
