//! Imperfect meshes as artists make them, and extreme states: everything floats sensibly
//! or is refused with a reason, and no force is ever NaN, infinite or beyond physics.

mod common;

use common::sim::RigidBody;
use common::{Mesh, Rng, boat_hull, bunny, info_of, simple_box, uv_sphere, world};
use glam::{DQuat, DVec2, DVec3, Vec3};
use keel::forces::{FORCE_ALL, FORCE_LUMPED_RESISTANCE, FORCE_PER_TRIANGLE_RESISTANCE};
use keel::{BodyDesc, BodyForces, BodyState, GerstnerWater, GerstnerWave, HullInfo, Water, World};

const RHO_G: f64 = 1000.0 * 9.81;

/// The largest force the physics allows on a body: the buoyancy of its whole bounding
/// box, and dissipative forces that at most stop its motion within the step (the
/// limiter's promise) while gravity and buoyancy act.
fn force_bound(info: &HullInfo, mass: f64, state: &BodyState, dt: f64, wind: f64) -> f64 {
    let size = info.bounds_max - info.bounds_min;
    let buoyancy = RHO_G * size.x * size.y * size.z;
    let reach = size.length();
    let speed = state.linear_velocity.length() + state.angular_velocity.length() * reach + wind;
    2.0 * buoyancy + 4.0 * mass * (9.81 + speed / dt)
}

fn check(forces: &BodyForces, bound: f64, what: &str) {
    let vectors = [
        forces.force,
        forces.torque,
        forces.buoyancy_force,
        forces.viscous_force,
        forces.pressure_drag_force,
        forces.slamming_force,
        forces.air_force,
        forces.damping_force,
        forces.center_of_buoyancy,
    ];
    assert!(
        vectors.iter().all(|v| v.is_finite()),
        "{what}: non-finite forces {forces:?}"
    );
    assert!(
        forces.submerged_volume.is_finite() && forces.wetted_ratio.is_finite(),
        "{what}: {forces:?}"
    );
    assert!(
        forces.force.length() <= bound,
        "{what}: force {} beyond the physical bound {bound}",
        forces.force
    );
}

/// Drops `mesh` (mass `mass`) into calm water and checks that it comes to rest with
/// bounded forces all the way.
fn floats_sensibly(name: &str, mesh: &Mesh, mass: f64) -> (RigidBody, BodyForces) {
    let mut w = world();
    let hull = w.create_hull(&mesh.desc()).unwrap();
    let info = w.hull_info(hull).unwrap();
    let id = w
        .create_body(&BodyDesc {
            hull,
            mass,
            ..BodyDesc::default()
        })
        .unwrap();
    let inertia = w.body(id).unwrap().hull().unit_inertia() * mass;
    let mut body = RigidBody {
        mass,
        inertia,
        com_local: info.centroid,
        position: DVec3::new(0.0, 1.0 - info.bounds_min.y, 0.0),
        rotation: DQuat::from_rotation_x(0.1),
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };
    let dt = 1.0 / 60.0;
    let mut last = BodyForces::default();
    for step in 0..(40.0 / dt) as usize {
        let state = body.state();
        let forces = w.step_body(id, &state, dt).unwrap();
        check(
            &forces,
            force_bound(&info, mass, &state, dt, 0.0),
            &format!("{name} at step {step}"),
        );
        body.integrate(forces.force, forces.torque, 9.81, dt);
        assert!(body.is_finite(), "the body blew up: {body:?}");
        last = forces;
    }
    assert!(
        body.velocity.length() < 0.02 && body.angular_velocity.length() < 0.05,
        "{name} must come to rest: {} m/s, {} rad/s",
        body.velocity.length(),
        body.angular_velocity.length()
    );
    (body, last)
}

#[test]
fn the_bunny_closed_and_with_holes_cut_into_it_floats_and_comes_to_rest() {
    // The shipped bunny is closed (every edge has two triangles, despite its comment):
    // cut its bottom off and punch a few holes to get the open mesh artists make.
    let whole = bunny(0.1);
    let mut w = world();
    let info = info_of(&mut w, &whole.desc());
    assert!(info.is_closed && info.volume > 0.1, "{info:?}");
    floats_sensibly("bunny", &whole, 60.0);
    let mut open = whole.clone();
    let keep: Vec<u32> = open
        .indices
        .chunks(3)
        .enumerate()
        .filter(|(t, tri)| t % 97 != 0 && tri.iter().any(|&i| open.vertices[i as usize].y > 0.05))
        .flat_map(|(_, tri)| tri.to_vec())
        .collect();
    open.indices = keep;
    let info = info_of(&mut w, &open.desc());
    assert!(!info.is_closed && info.volume == 0.0);
    let (body, forces) = floats_sensibly("open bunny", &open, 60.0);
    assert!(forces.submerged_area > 0.0 && body.position.y.is_finite());
}

/// Every triangle with vertices of its own, as some exporters write meshes.
fn unshared(mesh: &Mesh) -> Mesh {
    let vertices: Vec<Vec3> = mesh.indices.iter().map(|&i| mesh.vertices[i as usize]).collect();
    Mesh {
        indices: (0..vertices.len() as u32).collect(),
        vertices,
    }
}

#[test]
fn duplicated_vertices_slivers_and_flipped_triangles_are_repaired_and_float_like_the_clean_box() {
    let clean = simple_box(Vec3::new(2.0, 0.5, 2.0), Vec3::ZERO);
    let mut dirty = unshared(&clean);
    // Three triangles wound the wrong way.
    for t in [1, 4, 9] {
        dirty.indices.swap(3 * t + 1, 3 * t + 2);
    }
    // A zero-area triangle and a sliver along an edge of the top face.
    let base = dirty.vertices.len() as u32;
    dirty.vertices.extend([
        Vec3::new(-1.0, 0.25, -1.0),
        Vec3::new(1.0, 0.25, -1.0),
        Vec3::new(0.0, 0.25, -1.0 + 1e-9),
    ]);
    dirty.indices.extend([base, base, base + 1, base, base + 1, base + 2]);
    let mut w = world();
    let info = info_of(&mut w, &dirty.desc());
    assert!(info.is_closed, "{info:?}");
    assert_eq!(info.reoriented_count, 3);
    assert_eq!(info.degenerate_count, 2);
    assert!((info.volume - 2.0).abs() < 1e-9);
    let (body, forces) = floats_sensibly("dirty raft", &dirty, 1000.0);
    assert!((forces.buoyancy_force.y - 9810.0).abs() < 0.005 * 9810.0, "{forces:?}");
    assert!(
        body.tilt_degrees() < 1.0,
        "tilt {} spin {}",
        body.tilt_degrees(),
        body.angular_velocity
    );
}

#[test]
fn t_junctions_and_a_non_manifold_edge_leave_the_mesh_open_but_archimedes_holds() {
    // The top face split into four quads while the sides are not: T-junctions.
    let mut mesh = simple_box(Vec3::new(2.0, 0.5, 2.0), Vec3::ZERO);
    let top: Vec<usize> = (0..mesh.indices.len() / 3)
        .filter(|&t| (0..3).all(|k| mesh.vertices[mesh.indices[3 * t + k] as usize].y > 0.2))
        .collect();
    assert_eq!(top.len(), 2);
    for t in top.iter().rev() {
        mesh.indices.drain(3 * t..3 * t + 3);
    }
    let base = mesh.vertices.len() as u32;
    for j in 0..3 {
        for i in 0..3 {
            mesh.vertices.push(Vec3::new(-1.0 + i as f32, 0.25, -1.0 + j as f32));
        }
    }
    for j in 0..2u32 {
        for i in 0..2u32 {
            let a = base + j * 3 + i;
            // Facing up: cross(b - a, c - a) = +y for (a, a + 3, a + 4).
            mesh.indices.extend([a, a + 3, a + 4, a, a + 4, a + 1]);
        }
    }
    // A small box touching the raft along one bottom edge only: four triangles meet
    // on that edge (non-manifold).
    let small = simple_box(Vec3::new(2.0, 0.2, 0.2), Vec3::new(0.0, -0.35, -1.1));
    let offset = mesh.vertices.len() as u32;
    mesh.vertices.extend(&small.vertices);
    mesh.indices.extend(small.indices.iter().map(|i| i + offset));
    let mut w = world();
    let info = info_of(&mut w, &mesh.desc());
    assert!(!info.is_closed);
    let mass = 1000.0 + 0.5 * 1000.0 * 0.08;
    let (_, forces) = floats_sensibly("T-junction raft", &mesh, mass);
    // Pressure integrates over the surface whatever its topology: still Archimedes.
    assert!((forces.buoyancy_force.y - mass * 9.81).abs() < 0.01 * mass * 9.81);
}

#[test]
fn a_catamaran_of_two_hulls_one_inside_out_floats_level() {
    let left = simple_box(Vec3::new(0.8, 0.6, 6.0), Vec3::new(-1.5, 0.0, 0.0));
    let right = simple_box(Vec3::new(0.8, 0.6, 6.0), Vec3::new(1.5, 0.0, 0.0)).reversed();
    let n = left.vertices.len() as u32;
    let mut mesh = left.clone();
    mesh.vertices.extend(&right.vertices);
    mesh.indices.extend(right.indices.iter().map(|i| i + n));
    let mut w = world();
    let info = info_of(&mut w, &mesh.desc());
    assert!(info.is_closed && info.winding_flipped, "{info:?}");
    assert!((info.volume - 2.0 * 0.8 * 0.6 * 6.0).abs() < 1e-5);
    let mass = 0.5 * 1000.0 * info.volume;
    let (body, forces) = floats_sensibly("catamaran", &mesh, mass);
    assert!(body.tilt_degrees() < 0.5, "tilted {}", body.tilt_degrees());
    assert!((forces.buoyancy_force.y - mass * 9.81).abs() < 0.01 * mass * 9.81);
}

#[test]
fn a_200000_triangle_hull_is_accepted_and_exact() {
    let mesh = uv_sphere(2.0, 300, 334);
    assert!(mesh.indices.len() / 3 >= 200_000);
    let mut w = World::new(&keel::WorldDesc::default()).unwrap();
    let hull = w.create_hull(&mesh.desc()).unwrap();
    let info = w.hull_info(hull).unwrap();
    assert!(info.is_closed);
    let id = w
        .create_body(&BodyDesc {
            hull,
            mass: 20_000.0,
            ..BodyDesc::default()
        })
        .unwrap();
    let state = BodyState {
        position: DVec3::new(0.0, -10.0, 0.0),
        center_of_mass: DVec3::new(0.0, -10.0, 0.0),
        ..BodyState::default()
    };
    let f = w.step_body(id, &state, 1.0 / 60.0).unwrap();
    assert!((f.buoyancy_force.y - RHO_G * info.volume).abs() < 1e-6 * RHO_G * info.volume);
    assert!(f.torque.length() < 1e-6 * RHO_G * info.volume);
    let half = BodyState {
        position: DVec3::ZERO,
        ..state
    };
    let f = w.step_body(id, &half, 1.0 / 60.0).unwrap();
    check(
        &f,
        force_bound(&info, 20_000.0, &half, 1.0 / 60.0, 0.0),
        "half-submerged sphere",
    );
}

#[test]
fn extreme_states_give_finite_bounded_forces() {
    let mesh = boat_hull(8.0, 3.0, 1.0, 0.8, 16, 10);
    let waves: Vec<GerstnerWave> = (0..8)
        .map(|i| GerstnerWave {
            amplitude: 0.6 / (1.0 + i as f64),
            wavelength: 40.0 / (1.0 + i as f64),
            direction: DVec2::from_angle(i as f64),
            steepness: 0.1,
            phase: i as f64,
        })
        .collect();
    let waters = [
        Water::default(),
        Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).unwrap()),
    ];
    let mut rng = Rng::new(99);
    for water in waters {
        for forces in [
            FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
            (FORCE_ALL & !FORCE_PER_TRIANGLE_RESISTANCE),
        ] {
            let mut w = world();
            w.set_water(water.clone());
            w.set_wind(DVec3::new(30.0, 0.0, 10.0)).unwrap();
            w.set_time(1e6).unwrap();
            let mass = 3000.0;
            let desc = BodyDesc {
                mass,
                forces,
                linear_damping: 1e4,
                angular_damping: 1e4,
                ..BodyDesc::default()
            };
            let (hull, id) = common::body(&mut w, &mesh, desc);
            let info = w.hull_info(hull).unwrap();
            let cases: [(DVec3, DVec3, DVec3); 7] = [
                (DVec3::new(1e5, 0.0, -1e5), DVec3::ZERO, DVec3::ZERO),
                (DVec3::ZERO, DVec3::new(1000.0, -300.0, 200.0), DVec3::ZERO),
                (DVec3::ZERO, DVec3::ZERO, DVec3::new(50.0, -20.0, 30.0)),
                (DVec3::new(0.0, -1000.0, 0.0), DVec3::new(0.0, 5.0, 0.0), DVec3::ZERO),
                (
                    DVec3::new(0.0, 1000.0, 0.0),
                    DVec3::new(0.0, -50.0, 0.0),
                    DVec3::new(1.0, 2.0, 3.0),
                ),
                (
                    DVec3::new(1e5, -0.2, 1e5),
                    DVec3::new(1000.0, 1000.0, -1000.0),
                    DVec3::new(50.0, 50.0, 50.0),
                ),
                (DVec3::new(0.0, -0.3, 0.0), DVec3::new(0.0, -1000.0, 0.0), DVec3::ZERO),
            ];
            for (k, (position, velocity, spin)) in cases.iter().enumerate() {
                for dt in [1e-4, 1.0 / 240.0, 1.0 / 60.0, 0.1, 0.5] {
                    for _ in 0..3 {
                        let state = BodyState {
                            position: *position,
                            rotation: rng.rotation(),
                            linear_velocity: *velocity,
                            angular_velocity: *spin,
                            center_of_mass: *position + rng.vec3(0.5),
                        };
                        let f = w.step_body(id, &state, dt).unwrap();
                        let what = format!("case {k}, dt {dt}, forces {forces:#x}");
                        check(&f, force_bound(&info, mass, &state, dt, 32.0), &what);
                    }
                }
            }
        }
    }
}
