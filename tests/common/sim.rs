//! A body run in a world as a host engine would run it: keel's forces integrated by the
//! crate's host integrator ([`keel::host::RigidBody`]).

use keel::{BodyForces, BodyId, World};

/// The crate's one host integrator (semi-implicit Euler with the gyroscopic term).
pub use keel::host::RigidBody;

/// Steps `body` in `world` for `steps` steps of `dt`, calling `each` after every step.
pub fn run(
    world: &mut World,
    id: BodyId,
    body: &mut RigidBody,
    dt: f64,
    steps: usize,
    mut each: impl FnMut(usize, &RigidBody, &BodyForces),
) {
    for i in 0..steps {
        let forces = world.step_body(id, &body.state(), dt).unwrap();
        assert!(
            forces.force.is_finite() && forces.torque.is_finite(),
            "step {i}: {forces:?}"
        );
        body.integrate(forces.force, forces.torque, world.desc().gravity, dt);
        assert!(body.is_finite(), "step {i}: the body blew up: {body:?}");
        each(i, body, &forces);
    }
}
