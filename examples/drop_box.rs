//! Drops a 2 m x 0.5 m x 2 m raft of 1000 kg into flat water and prints how it bobs,
//! integrating the forces keel returns with a semi-implicit Euler step, as an engine would
//! (keel's host integrator, `keel::host::RigidBody`).
//!
//! Run with `cargo run --release --example drop_box`: slamming brakes the raft as it
//! meets the water, drag damps its bobbing, and it settles at its draft of 0.25 m.

use glam::{DQuat, DVec3, Vec3};
use keel::host::RigidBody;
use keel::{BodyDesc, World, WorldDesc};

fn main() -> keel::Result<()> {
    let mut world = World::new(&WorldDesc::default())?;
    // A box hull: 8 corners, 12 triangles wound so that cross(b - a, c - a) points out.
    let (vertices, indices) = keel::hull::box_mesh(Vec3::new(2.0, 0.5, 2.0));
    let hull = world.create_hull(&keel::HullDesc {
        vertices: &vertices,
        indices: &indices,
        flip_winding: false,
    })?;
    let info = world.hull_info(hull)?;
    let mass = 1000.0;
    let body = world.create_body(&BodyDesc {
        hull,
        mass,
        ..BodyDesc::default()
    })?;
    println!(
        "hull: {} triangles, closed: {}, volume {:.3} m^3",
        info.triangle_count, info.is_closed, info.volume
    );
    println!("expected draft: {:.3} m", mass / (1000.0 * 4.0));

    let dt = 1.0 / 60.0;
    let mut raft = RigidBody::homogeneous_box(
        DVec3::new(2.0, 0.5, 2.0),
        mass,
        DVec3::new(0.0, 1.0, 0.0),
        DQuat::IDENTITY,
    );
    for step in 0..=900 {
        let forces = world.step_body(body, &raft.state(), dt)?;
        raft.integrate(forces.force, forces.torque, 9.81, dt);
        if step % 60 == 0 {
            println!(
                "t = {:4.1} s  draft {:6.3} m  speed {:6.3} m/s  buoyancy {:8.1} N  drag {:8.1} N  slamming {:8.1} N",
                step as f64 * dt,
                0.25 - raft.position.y,
                raft.velocity.length(),
                forces.buoyancy_force.y,
                forces.pressure_drag_force.y + forces.viscous_force.y,
                forces.slamming_force.y
            );
        }
    }
    Ok(())
}
