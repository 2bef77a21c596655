//! Keel's answer as what a `PhysicsDirectBodyState3D` takes.
//!
//! Keel returns the total force and the torque about the centre of mass. Godot's
//! `apply_central_force` acts at the centre of mass and `apply_torque` adds a torque, so
//! the two pass through unchanged. The trap is `apply_force(force, position)`:
//! `position` is the offset from the body's *origin* in *global axes* (not a world point,
//! not an offset from the centre of mass), and Godot adds the torque
//! `(position - center_of_mass) x force` with `center_of_mass` the state's own offset.
//! [`force_offset`] turns a world point into that offset, for point forces such as the
//! debug views' or a script's.

use glam::DVec3;
use keel::BodyForces;

/// What a body's `_integrate_forces` applies this step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Application {
    /// For `apply_central_force`, N.
    pub central_force: DVec3,
    /// For `apply_torque`, N m, world axes.
    pub torque: DVec3,
}

/// The application of keel's forces: its force at the centre of mass and its torque
/// about it.
pub fn application(forces: &BodyForces) -> Application {
    Application {
        central_force: forces.force,
        torque: forces.torque,
    }
}

/// The `position` argument of Godot's `apply_force` for a force acting at the world
/// point `point` on a body whose origin is `body_origin`.
pub fn force_offset(point: DVec3, body_origin: DVec3) -> DVec3 {
    point - body_origin
}

#[cfg(test)]
mod tests {
    use glam::{DQuat, Vec3};
    use keel::hull::box_mesh;
    use keel::{BodyDesc, BodyState, BuoyancyModel, HullDesc, World, WorldDesc};

    use super::*;

    /// Godot's accumulation of forces as its documentation states it (GodotBody3D:
    /// `apply_force` adds `(position - center_of_mass) x force` to the torque, with
    /// `center_of_mass` the offset from the origin in global axes).
    #[derive(Default)]
    struct GodotAccumulator {
        center_of_mass_offset: DVec3,
        force: DVec3,
        torque: DVec3,
    }

    impl GodotAccumulator {
        fn apply_central_force(&mut self, f: DVec3) {
            self.force += f;
        }
        fn apply_force(&mut self, f: DVec3, position: DVec3) {
            self.force += f;
            self.torque += (position - self.center_of_mass_offset).cross(f);
        }
        fn apply_torque(&mut self, t: DVec3) {
            self.torque += t;
        }
    }

    /// A 1 m cube of 500 kg, heeled and far from the world origin, with its centre of
    /// mass 0.2 m off its origin: keel's buoyancy alone, Nurnberg's volume model (the
    /// force acts exactly at the centre of buoyancy).
    fn heeled_cube() -> (BodyState, BodyForces) {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let (vertices, indices): (Vec<Vec3>, Vec<u32>) = box_mesh(Vec3::ONE);
        let hull = world
            .create_hull(&HullDesc {
                vertices: &vertices,
                indices: &indices,
                flip_winding: false,
            })
            .unwrap();
        let body = world
            .create_body(&BodyDesc {
                hull,
                mass: 500.0,
                buoyancy: BuoyancyModel::Volume,
                forces: 0,
                ..BodyDesc::default()
            })
            .unwrap();
        let rotation = DQuat::from_rotation_z(0.3);
        let position = DVec3::new(40.0, 0.1, -25.0);
        let state = BodyState {
            position,
            rotation,
            center_of_mass: position + rotation * DVec3::new(0.2, -0.1, 0.0),
            ..BodyState::default()
        };
        let forces = world.step_body(body, &state, 1.0 / 60.0).unwrap();
        (state, forces)
    }

    #[test]
    fn torque_about_the_centre_of_mass_comes_out_unchanged() {
        let (state, forces) = heeled_cube();
        assert!(
            forces.torque.length() > 10.0,
            "the heeled cube must feel a righting torque"
        );
        let mut godot = GodotAccumulator {
            center_of_mass_offset: state.center_of_mass - state.position,
            ..Default::default()
        };
        let a = application(&forces);
        godot.apply_central_force(a.central_force);
        godot.apply_torque(a.torque);
        assert!((godot.force - forces.force).length() < 1e-9);
        assert!((godot.torque - forces.torque).length() < 1e-9);
    }

    #[test]
    fn a_force_at_the_centre_of_buoyancy_gives_keels_torque() {
        let (state, forces) = heeled_cube();
        // Archimedes: the buoyancy is the weight of the displaced water, acting upward
        // through the centre of buoyancy; its moment about the centre of mass is keel's
        // torque (no other force is on).
        let weight = 1000.0 * 9.81 * forces.submerged_volume;
        assert!((forces.buoyancy_force - DVec3::Y * weight).length() < 1e-6 * weight);
        let mut godot = GodotAccumulator {
            center_of_mass_offset: state.center_of_mass - state.position,
            ..Default::default()
        };
        godot.apply_force(
            forces.buoyancy_force,
            force_offset(forces.center_of_buoyancy, state.position),
        );
        let scale = forces.torque.length();
        assert!(
            (godot.torque - forces.torque).length() < 1e-6 * scale,
            "{} vs {}",
            godot.torque,
            forces.torque
        );
        // Passing the world point itself, the classic mistake, gives another torque.
        let mut wrong = GodotAccumulator {
            center_of_mass_offset: state.center_of_mass - state.position,
            ..Default::default()
        };
        wrong.apply_force(forces.buoyancy_force, forces.center_of_buoyancy);
        assert!((wrong.torque - forces.torque).length() > 0.1 * scale);
    }
}
