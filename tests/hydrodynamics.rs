//! Hydrodynamic forces in motion: bodies integrated by a small rigid-body integrator, as
//! a host engine would, checked against physics (Archimedes, metacentric stability, the
//! ITTC line, virtual mass) and against the behaviour the thesis shows.

mod common;

use common::sim::{RigidBody, run};
use common::{boat_hull, simple_box, world};
use glam::{DQuat, DVec3, Vec3};
use keel::{BodyDesc, BodyId, BuoyancyModel, World};

const DT: f64 = 1.0 / 60.0;

/// A box body in `w` with `desc` (hull filled in) and its rigid body at `position`.
fn box_body(
    w: &mut World,
    size: DVec3,
    mass: f64,
    desc: BodyDesc,
    position: DVec3,
    rotation: DQuat,
) -> (BodyId, RigidBody) {
    let mesh = simple_box(size.as_vec3(), Vec3::ZERO);
    let hull = w.create_hull(&mesh.desc()).unwrap();
    let id = w.create_body(&BodyDesc { hull, mass, ..desc }).unwrap();
    (id, RigidBody::homogeneous_box(size, mass, position, rotation))
}

const RAFT: DVec3 = DVec3::new(2.0, 0.5, 2.0);

#[test]
fn a_raft_dropped_from_3_m_settles_level_at_its_draft_within_20_s() {
    let mut w = world();
    let start = DVec3::new(0.0, 3.0 + RAFT.y / 2.0, 0.0);
    let (id, mut raft) = box_body(&mut w, RAFT, 1000.0, BodyDesc::default(), start, DQuat::IDENTITY);
    let mut highest_after_entry = f64::NEG_INFINITY;
    let mut touched = false;
    run(&mut w, id, &mut raft, DT, (20.0 / DT) as usize, |_, b, f| {
        assert!(
            b.position.y <= start.y + 1e-9,
            "the raft rose above its release height: {}",
            b.position.y
        );
        if f.submerged_volume > 0.0 {
            touched = true;
        }
        if touched {
            highest_after_entry = highest_after_entry.max(b.position.y);
        }
    });
    let draft = RAFT.y / 2.0 - raft.position.y;
    eprintln!(
        "draft {draft:.4}, speed {:.5}, tilt {:.3} deg, highest after entry {highest_after_entry:.3}",
        raft.velocity.length(),
        raft.tilt_degrees()
    );
    assert!((draft - 0.25).abs() < 0.01, "draft {draft}");
    assert!(
        raft.velocity.length() < 0.01,
        "still moving at {}",
        raft.velocity.length()
    );
    assert!(raft.tilt_degrees() < 1.0, "tilted {}", raft.tilt_degrees());
}

/// Final tilt of a homogeneous box of `size` and density ratio `ratio`, released at rest
/// at its draft with an initial heel of `heel` degrees about z, after `seconds`.
fn final_tilt(size: DVec3, ratio: f64, heel: f64, seconds: f64) -> (f64, RigidBody) {
    let mut w = world();
    let mass = ratio * 1000.0 * size.x * size.y * size.z;
    let draft = ratio * size.y;
    let position = DVec3::new(0.0, size.y / 2.0 - draft, 0.0);
    let rotation = DQuat::from_rotation_z(heel.to_radians());
    let (id, mut body) = box_body(&mut w, size, mass, BodyDesc::default(), position, rotation);
    run(&mut w, id, &mut body, DT, (seconds / DT) as usize, |_, _, _| {});
    (body.tilt_degrees(), body)
}

#[test]
fn a_half_density_cube_is_unstable_upright_and_floats_tilted() {
    // GM = T/2 + B^2/(12 T) - H/2 = 0.25 + 1/6 - 0.5 < 0 for a unit cube at T = 0.5.
    let (tilt, cube) = final_tilt(DVec3::ONE, 0.5, 1.0, 40.0);
    eprintln!(
        "half-density cube: tilt {tilt:.2} deg, speed {:.4}",
        cube.velocity.length()
    );
    assert!(tilt > 20.0, "the cube must roll away from upright, ended at {tilt} deg");
    assert!(cube.angular_velocity.length() < 0.05, "and come to rest tilted");
    // The raft (GM = 0.125 + 4 / 3 - 0.25 > 0) stays level from the same heel.
    let (raft_tilt, _) = final_tilt(RAFT, 0.5, 1.0, 40.0);
    assert!(raft_tilt < 0.2, "the raft must right itself, ended at {raft_tilt} deg");
}

#[test]
fn a_box_barge_rights_itself_and_a_tall_box_capsizes_to_a_stable_attitude() {
    // Barge 4 m beam, 1.5 m high, 10 m long at T = 0.5: GM = 0.25 + 16 / 6 - 0.75 = 2.17 m.
    let (tilt, barge) = final_tilt(DVec3::new(4.0, 1.5, 10.0), 1.0 / 3.0, 20.0, 30.0);
    eprintln!("barge: tilt {tilt:.3} deg");
    assert!(tilt < 1.0, "the barge must right itself from 20 deg, ended at {tilt}");
    assert!(barge.angular_velocity.length() < 0.01);
    // Tall box 1 x 3 x 1 at half density: GM = 0.75 + 1 / 18 - 1.5 < 0.
    let (tilt, tall) = final_tilt(DVec3::new(1.0, 3.0, 1.0), 0.5, 5.0, 40.0);
    eprintln!("tall box: tilt {tilt:.2} deg");
    assert!(tilt > 60.0, "the tall box must capsize, ended at {tilt}");
    assert!(
        tall.angular_velocity.length() < 0.02,
        "and settle: {}",
        tall.angular_velocity.length()
    );
}

const PLATE: DVec3 = DVec3::new(2.0, 0.1, 2.0);

/// A thin plate of density 600 flat (`edge_first == false`) or standing on an edge.
fn plate(w: &mut World, edge_first: bool, centre: DVec3) -> (BodyId, RigidBody) {
    let rotation = if edge_first {
        DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2)
    } else {
        DQuat::IDENTITY
    };
    let mass = 600.0 * PLATE.x * PLATE.y * PLATE.z;
    box_body(w, PLATE, mass, BodyDesc::default(), centre, rotation)
}

#[test]
fn a_flat_plate_is_braked_harder_on_entry_and_an_edge_first_plate_rises_faster() {
    // Figure 20: dropped from 3 m. Compare the speed each keeps 0.25 s after it touches.
    let entry_speed = |edge_first: bool| {
        let mut w = world();
        let half = if edge_first { PLATE.x / 2.0 } else { PLATE.y / 2.0 };
        let (id, mut body) = plate(&mut w, edge_first, DVec3::new(0.0, 3.0 + half, 0.0));
        let mut touched_at = None;
        let mut kept = 0.0;
        let mut impact = 0.0;
        run(&mut w, id, &mut body, DT, 200, |i, b, f| {
            if touched_at.is_none() && f.submerged_volume > 0.0 {
                touched_at = Some(i);
                impact = -b.velocity.y;
            }
            if touched_at == Some(i.saturating_sub(15)) && i >= 15 {
                kept = -b.velocity.y;
            }
        });
        kept / impact
    };
    let (flat, edge) = (entry_speed(false), entry_speed(true));
    eprintln!("speed kept 0.25 s after entry: flat {flat:.3}, edge first {edge:.3}");
    assert!(
        flat < edge - 0.2,
        "the flat plate must be braked harder: flat keeps {flat}, edge {edge}"
    );

    // Figure 21: released at rest 3 m under water; compare the rising speed after 1 s.
    let rising = |edge_first: bool| {
        let mut w = world();
        let (id, mut body) = plate(&mut w, edge_first, DVec3::new(0.0, -3.0, 0.0));
        run(&mut w, id, &mut body, DT, 60, |_, _, _| {});
        body.velocity.y
    };
    let (flat, edge) = (rising(false), rising(true));
    eprintln!("rising speed after 1 s: flat {flat:.3}, edge first {edge:.3}");
    assert!(
        edge > 1.5 * flat && flat > 0.0,
        "edge first {edge} must rise faster than flat {flat}"
    );
}

#[test]
fn slamming_alone_slows_an_entry_but_never_reverses_it() {
    let size = DVec3::new(1.0, 1.0, 1.0);
    let slamming_only = BodyDesc {
        buoyancy: BuoyancyModel::None,
        forces: keel::forces::FORCE_SLAMMING,
        ..BodyDesc::default()
    };
    let corner_first = DQuat::from_rotation_arc(DVec3::new(1.0, 1.0, 1.0).normalize(), -DVec3::Y);
    for speed in [0.1, 1.0, 5.0, 30.0] {
        for (name, rotation, reach) in [("flat", DQuat::IDENTITY, 0.5), ("corner", corner_first, 0.75f64.sqrt())] {
            for dt in [1.0 / 240.0, 1.0 / 60.0, 1.0 / 20.0] {
                let mut w = world();
                // The lowest point one step above the water.
                let start = DVec3::new(0.0, reach + speed * dt, 0.0);
                let (id, mut body) = box_body(&mut w, size, 500.0, slamming_only, start, rotation);
                body.velocity = DVec3::new(0.0, -speed, 0.0);
                let mut slowed = false;
                // Thrown in: gravity and slamming only, until the box is 2 m under water.
                for step in 1..100_000 {
                    let f = w.step_body(id, &body.state(), dt).unwrap();
                    body.integrate(f.force, f.torque, 9.81, dt);
                    let v = body.velocity;
                    assert!(
                        v.y <= 0.0,
                        "{name} entry at {speed} m/s, dt {dt}: moving back up at {v}"
                    );
                    let free_fall = speed + 9.81 * dt * step as f64;
                    slowed |= -v.y < free_fall * (1.0 - 1e-9);
                    if body.position.y < -2.0 {
                        break;
                    }
                }
                assert!(slowed, "{name} entry at {speed} m/s, dt {dt}: slamming must slow it");
            }
        }
    }
}

#[test]
fn a_plate_towed_along_its_plane_feels_the_ittc_friction_and_face_on_mostly_pressure_drag() {
    // 2 m long (z), 1 m wide (x), 2 cm thick, fully submerged.
    let size = DVec3::new(1.0, 0.02, 2.0);
    let mut w = world();
    // Neutrally buoyant, so that buoyancy and gravity do not change its motion.
    let mass = 1000.0 * size.x * size.y * size.z;
    let (id, body) = box_body(
        &mut w,
        size,
        mass,
        BodyDesc::default(),
        DVec3::new(0.0, -2.0, 0.0),
        DQuat::IDENTITY,
    );
    for speed in [0.5, 2.0, 6.0] {
        let state = keel::BodyState {
            linear_velocity: DVec3::new(0.0, 0.0, speed),
            ..body.state()
        };
        let f = w.step_body(id, &state, DT).unwrap();
        // Wetted area in tangential flow: both faces and the two long edges.
        let area = 2.0 * size.x * size.z + 2.0 * size.y * size.z;
        let reynolds = speed * size.z / 1.0e-6;
        let cf = 0.075 / (reynolds.log10() - 2.0).powi(2);
        let expected = 0.5 * 1000.0 * cf * area * speed * speed;
        assert!(
            (f.viscous_force.z + expected).abs() < 0.01 * expected,
            "at {speed} m/s: viscous {} vs ITTC {expected}",
            f.viscous_force.z
        );
        assert!(f.viscous_force.x.abs() < 1e-9 * expected && f.viscous_force.y.abs() < 1e-9 * expected);
    }
    let mut previous = 0.0;
    for speed in [0.5, 1.0, 2.0, 4.0] {
        let state = keel::BodyState {
            linear_velocity: DVec3::new(0.0, speed, 0.0),
            ..body.state()
        };
        let f = w.step_body(id, &state, DT).unwrap();
        let drag = -f.pressure_drag_force.y;
        assert!(
            drag > 10.0 * f.viscous_force.length(),
            "face-on the pressure drag must dominate: {f:?}"
        );
        assert!(drag > previous, "and grow with speed: {drag} after {previous}");
        previous = drag;
    }
}

/// Kinetic-energy peaks of a body over time, one per swing.
fn energy_peaks(energies: &[f64]) -> Vec<f64> {
    energies
        .windows(3)
        .filter(|w| w[1] > w[0] && w[1] >= w[2])
        .map(|w| w[1])
        .collect()
}

#[test]
fn a_disturbed_floating_box_calms_down_on_still_water_and_drifts_downwind() {
    let size = DVec3::new(1.0, 0.6, 1.5);
    let mass = 0.4 * 1000.0 * size.x * size.y * size.z;
    let draft = 0.4 * size.y;
    let at_rest = DVec3::new(0.0, size.y / 2.0 - draft, 0.0);
    let mut w = world();
    let (id, mut body) = box_body(
        &mut w,
        size,
        mass,
        BodyDesc::default(),
        at_rest,
        DQuat::from_rotation_x(0.3),
    );
    body.velocity = DVec3::new(0.5, 0.8, -0.3);
    body.angular_velocity = DVec3::new(0.4, 0.2, -0.5);
    let mut energies = Vec::new();
    run(&mut w, id, &mut body, DT, (30.0 / DT) as usize, |_, b, _| {
        energies.push(b.kinetic_energy())
    });
    // Peaks below a billionth of the start are rounding noise.
    let peaks: Vec<f64> = energy_peaks(&energies)
        .into_iter()
        .filter(|&p| p > 1e-9 * energies[0])
        .collect();
    eprintln!(
        "{} energy peaks: first {:.3}, last {:.3e}",
        peaks.len(),
        peaks[0],
        peaks[peaks.len() - 1]
    );
    assert!(peaks.len() >= 2);
    assert!(
        peaks.windows(2).all(|p| p[1] <= p[0] * 1.001),
        "the energy peaks must fall: {peaks:?}"
    );
    assert!(body.kinetic_energy() < 1e-6 * energies[0]);
    assert!(body.velocity.length() < 1e-3);

    // The same box, calm, in a 10 m/s wind along +x, drifts downwind.
    w.set_wind(DVec3::new(10.0, 0.0, 0.0)).unwrap();
    let start = body.position;
    run(&mut w, id, &mut body, DT, (30.0 / DT) as usize, |_, _, _| {});
    eprintln!("drift in 30 s: {}, speed {}", body.position - start, body.velocity);
    assert!(
        body.position.x - start.x > 1.0 && body.velocity.x > 0.05,
        "the wind must push it: {}",
        body.velocity
    );
    assert!((body.position.z - start.z).abs() < 0.15 * (body.position.x - start.x));
}

#[test]
fn foam_dropped_into_water_does_not_launch_into_the_air() {
    for (size, height) in [
        (DVec3::splat(0.5), 2.0),
        (DVec3::new(2.0, 0.3, 1.0), 5.0),
        (DVec3::splat(0.2), 1.0),
    ] {
        let mass = 20.0 * size.x * size.y * size.z;
        for dt in [1.0 / 120.0, 1.0 / 60.0, 1.0 / 30.0] {
            let mut w = world();
            let start = DVec3::new(0.0, height + size.y / 2.0, 0.0);
            let rotation = DQuat::from_rotation_x(0.2);
            let (id, mut body) = box_body(&mut w, size, mass, BodyDesc::default(), start, rotation);
            let mut touched = false;
            let mut highest = f64::NEG_INFINITY;
            run(&mut w, id, &mut body, dt, (10.0 / dt) as usize, |_, b, f| {
                touched |= f.submerged_volume > 0.0;
                if touched {
                    highest = highest.max(b.position.y - size.y / 2.0);
                }
            });
            eprintln!("foam {size} from {height} m, dt {dt:.4}: bottom rose at most to {highest:.3} m");
            assert!(highest < 0.1 * height, "foam launched: its bottom rose to {highest} m");
            assert!(body.velocity.length() < 0.05, "and it must settle: {}", body.velocity);
        }
    }
}

/// Heave period of the raft (buoyancy only) released 5 cm below its equilibrium.
fn heave_period(added_mass_ratio: f64) -> f64 {
    let mut w = world();
    let desc = BodyDesc {
        forces: 0,
        added_mass_ratio,
        ..BodyDesc::default()
    };
    let equilibrium = RAFT.y / 2.0 - 0.25;
    let (id, mut raft) = box_body(
        &mut w,
        RAFT,
        1000.0,
        desc,
        DVec3::new(0.0, equilibrium - 0.05, 0.0),
        DQuat::IDENTITY,
    );
    let dt = 1.0 / 1000.0;
    let mut crossings = Vec::new();
    let mut below = true;
    run(&mut w, id, &mut raft, dt, 10_000, |i, b, _| {
        let now_below = b.position.y < equilibrium;
        if below && !now_below {
            crossings.push(i as f64 * dt);
        }
        below = now_below;
    });
    let n = crossings.len() - 1;
    (crossings[n] - crossings[0]) / n as f64
}

#[test]
fn added_mass_stretches_the_heave_period_by_the_square_root_of_one_plus_x() {
    // Heave of a box: T = 2 pi sqrt(draft / g), 1.003 s at 0.25 m.
    let plain = heave_period(0.0);
    let expected = std::f64::consts::TAU * (0.25f64 / 9.81).sqrt();
    assert!(
        (plain - expected).abs() < 0.01 * expected,
        "heave period {plain} vs {expected}"
    );
    for x in [0.5, 1.0, 3.0] {
        let ratio = heave_period(x) / plain;
        assert!(
            (ratio - (1.0 + x).sqrt()).abs() < 0.01,
            "x = {x}: ratio {ratio} vs {}",
            (1.0 + x).sqrt()
        );
    }
}

/// Added mass is the water's: a body out of it falls at g whatever its ratio (Bourg's
/// form alone pulled it up by x m g / (1 + x), half its weight at x = 1, so that a crate
/// thrown off a crest fell at g / 2), and once in the water it moves as if heavier.
#[test]
fn added_mass_is_the_waters_a_body_out_of_it_falls_at_g() {
    let mut w = world();
    let desc = BodyDesc {
        forces: 0,
        added_mass_ratio: 1.0,
        ..BodyDesc::default()
    };
    let start = DVec3::new(0.0, 5.0, 0.0);
    let (id, mut body) = box_body(&mut w, DVec3::ONE, 400.0, desc, start, DQuat::IDENTITY);
    let mut falling = 0;
    let mut landed = None;
    run(&mut w, id, &mut body, DT, (3.0 / DT) as usize, |i, b, f| {
        if f.submerged_volume == 0.0 && f.submerged_area == 0.0 {
            falling += 1;
            assert_eq!(
                f.force,
                DVec3::ZERO,
                "step {i}, at y = {}: out of the water",
                b.position.y
            );
            assert_eq!(f.torque, DVec3::ZERO, "step {i}: out of the water");
        } else if landed.is_none() {
            landed = Some(i);
        }
    });
    // Free fall from 4.5 m (the bottom's height) takes 0.96 s, at g / 2 it took 1.35 s.
    let landed = landed.expect("the box reached the water");
    assert!(falling > 30, "it fell for {falling} steps");
    let seconds = landed as f64 * DT;
    assert!(
        (seconds - (2.0 * 4.5 / 9.81f64).sqrt()).abs() < 2.0 * DT,
        "landed after {seconds} s"
    );
}

#[test]
fn the_parts_sum_to_the_force_and_the_point_forces_reproduce_force_and_torque() {
    use keel::forces::*;
    let waves = [keel::GerstnerWave {
        amplitude: 0.4,
        wavelength: 12.0,
        direction: glam::DVec2::new(1.0, 0.4),
        steepness: 0.4,
        phase: 0.0,
    }];
    for forces in [
        FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_AIR | FORCE_DAMPING,
        FORCE_LUMPED_RESISTANCE | FORCE_SLAMMING | FORCE_DAMPING,
    ] {
        for added_mass_ratio in [0.0, 0.7] {
            let mut w = world();
            w.set_water(keel::Water::Gerstner(
                keel::GerstnerWater::new(&waves, 0.0, 9.81).unwrap(),
            ));
            w.set_wind(DVec3::new(6.0, 0.0, -2.0)).unwrap();
            // No angular damping: its couple is the one thing point forces cannot carry.
            let desc = BodyDesc {
                forces,
                added_mass_ratio,
                linear_damping: 300.0,
                ..BodyDesc::default()
            };
            let (id, mut body) = box_body(
                &mut w,
                DVec3::new(1.5, 0.8, 3.0),
                900.0,
                desc,
                DVec3::new(0.3, 0.5, 0.1),
                DQuat::from_rotation_x(0.2),
            );
            body.velocity = DVec3::new(1.0, -2.0, 0.5);
            body.angular_velocity = DVec3::new(0.3, -0.2, 0.6);
            for step in 0..40 {
                w.set_time(step as f64 * DT).unwrap();
                let f = w.step_body(id, &body.state(), DT).unwrap();
                let parts = f.buoyancy_force
                    + f.viscous_force
                    + f.pressure_drag_force
                    + f.slamming_force
                    + f.air_force
                    + f.damping_force;
                let scale = 1.0 + f.force.length();
                assert!(
                    (parts - f.force).length() < 1e-9 * scale,
                    "parts {parts} vs {}",
                    f.force
                );
                let mut b = w.body(id).unwrap();
                let com = body.com();
                let (sum, moment) = b.triangle_forces().fold((DVec3::ZERO, DVec3::ZERO), |(s, m), p| {
                    (s + p.force, m + (p.point - com).cross(p.force))
                });
                assert!(
                    (sum - f.force).length() < 1e-9 * scale,
                    "point forces {sum} vs {}",
                    f.force
                );
                assert!(
                    (f.torque - moment).length() < 1e-9 * scale,
                    "torque {} vs moment {moment}",
                    f.torque
                );
                drop(b);
                body.integrate(f.force, f.torque, 9.81, DT);
            }
        }
    }
}

#[test]
fn lumped_resistance_matches_bourg_and_a_lumped_raft_settles_at_the_same_draft() {
    use keel::forces::*;
    // A box barge 10 m long, 4 m beam, 1.5 m high, floating at 0.5 m, towed along z.
    let size = DVec3::new(4.0, 1.5, 10.0);
    let mass = 1000.0 * 4.0 * 10.0 * 0.5;
    let mut w = world();
    let lumped = BodyDesc {
        forces: FORCE_LUMPED_RESISTANCE,
        ..BodyDesc::default()
    };
    let (id, barge) = box_body(&mut w, size, mass, lumped, DVec3::new(0.0, 0.25, 0.0), DQuat::IDENTITY);
    for speed in [1.0, 3.0, 6.0] {
        let state = keel::BodyState {
            linear_velocity: DVec3::new(0.0, 0.0, speed),
            ..barge.state()
        };
        let f = w.step_body(id, &state, DT).unwrap();
        let wetted = 4.0 * 10.0 + 2.0 * 0.5 * (4.0 + 10.0);
        let cf = 0.075 / ((speed * 10.0 / 1.0e-6).log10() - 2.0).powi(2);
        let expected = 0.5 * 1000.0 * speed * speed * wetted * (cf + 0.002);
        let resistance = -(f.viscous_force.z + f.pressure_drag_force.z);
        assert!(
            (resistance - expected).abs() < 0.01 * expected,
            "at {speed} m/s: {resistance} vs Bourg {expected}"
        );
    }
    // The raft with the lumped resistance (and damping to settle it) instead.
    let mut w = world();
    let desc = BodyDesc {
        forces: FORCE_LUMPED_RESISTANCE | FORCE_SLAMMING | FORCE_DAMPING,
        linear_damping: 3000.0,
        angular_damping: 3000.0,
        ..BodyDesc::default()
    };
    let (id, mut raft) = box_body(&mut w, RAFT, 1000.0, desc, DVec3::new(0.0, 3.25, 0.0), DQuat::IDENTITY);
    run(&mut w, id, &mut raft, DT, (20.0 / DT) as usize, |_, _, _| {});
    let draft = RAFT.y / 2.0 - raft.position.y;
    assert!(
        (draft - 0.25).abs() < 0.01 && raft.velocity.length() < 0.01,
        "draft {draft}, speed {}",
        raft.velocity.length()
    );
}

#[test]
fn default_forces_settle_everyday_objects_from_a_crate_to_a_30_m_boat() {
    // (mesh, mass, drop height of the lowest point, seconds allowed)
    let cases = [
        (
            "0.2 m crate",
            simple_box(Vec3::splat(0.2), Vec3::ZERO),
            0.5 * 1000.0 * 0.008,
            1.0,
            20.0,
        ),
        ("1 m crate", simple_box(Vec3::ONE, Vec3::ZERO), 300.0, 2.0, 20.0),
        ("5 m boat", boat_hull(5.0, 1.8, 0.5, 0.5, 20, 12), 0.0, 1.0, 40.0),
        // A big hull's roll is damped by its drag alone (slamming fades below the reference
        // speed, and a 1 degree roll moves its sides at a few cm/s): two minutes.
        ("30 m boat", boat_hull(30.0, 8.0, 3.0, 2.0, 30, 16), 0.0, 2.0, 120.0),
    ];
    for (name, mesh, mass, drop, seconds) in cases {
        let mut w = world();
        let hull = w.create_hull(&mesh.desc()).unwrap();
        let info = w.hull_info(hull).unwrap();
        // Boats weigh 40 % of their displacement when full.
        let mass = if mass > 0.0 { mass } else { 0.4 * 1000.0 * info.volume };
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
            position: DVec3::new(0.0, drop - info.bounds_min.y, 0.0),
            rotation: DQuat::from_rotation_z(0.05),
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
        };
        let mut last = None;
        run(&mut w, id, &mut body, DT, (seconds / DT) as usize, |_, _, f| {
            last = Some(*f)
        });
        let f = last.unwrap();
        let weight = mass * 9.81;
        eprintln!(
            "{name}: buoyancy/weight {:.4}, speed {:.2e}, spin {:.2e}, tilt {:.2}",
            f.buoyancy_force.y / weight,
            body.velocity.length(),
            body.angular_velocity.length(),
            body.tilt_degrees()
        );
        assert!(
            (f.buoyancy_force.y - weight).abs() < 0.01 * weight,
            "{name} must float at its draft"
        );
        assert!(
            body.velocity.length() < 0.01 && body.angular_velocity.length() < 0.01,
            "{name} must come to rest"
        );
    }
}

#[test]
fn slamming_brakes_a_fast_entry_and_spares_a_slow_one() {
    // A sphere (no flat face) of 300 kg and 1 m radius, slamming alone, no gravity.
    let mesh = common::uv_sphere(1.0, 16, 24);
    let fraction_kept = |speed: f64| {
        let mut w = world();
        let desc = BodyDesc {
            buoyancy: BuoyancyModel::None,
            forces: keel::forces::FORCE_SLAMMING,
            ..BodyDesc::default()
        };
        let (_, id) = common::body(&mut w, &mesh, BodyDesc { mass: 300.0, ..desc });
        let mut body = RigidBody::homogeneous_box(
            DVec3::splat(1.4),
            300.0,
            DVec3::new(0.0, 1.0 + speed * DT, 0.0),
            DQuat::IDENTITY,
        );
        body.velocity = DVec3::new(0.0, -speed, 0.0);
        while body.position.y > 0.0 {
            let f = w.step_body(id, &body.state(), DT).unwrap();
            body.integrate(f.force, f.torque, 1e-12, DT);
        }
        -body.velocity.y / speed
    };
    let (slow, fast) = (fraction_kept(0.3), fraction_kept(10.0));
    eprintln!("speed kept through half the sphere's entry: slow {slow:.3}, fast {fast:.3}");
    assert!(slow > 0.9, "a slow entry must hardly be braked: keeps {slow}");
    assert!(
        fast < slow - 0.1,
        "a fast entry must be braked harder: keeps {fast} vs {slow}"
    );
}

#[test]
fn a_raft_rocking_about_its_diagonal_is_damped_like_one_rocking_about_an_edge() {
    // The raft's faces are two triangles split along a diagonal: drag taken at triangle
    // centroids alone sees no motion when the raft rocks about that diagonal.
    for spin in [
        DVec3::new(0.3, 0.0, -0.3),
        DVec3::new(0.3, 0.0, 0.3),
        DVec3::new(0.42, 0.0, 0.0),
    ] {
        let mut w = world();
        let (id, mut raft) = box_body(&mut w, RAFT, 1000.0, BodyDesc::default(), DVec3::ZERO, DQuat::IDENTITY);
        raft.angular_velocity = spin;
        let start = raft.kinetic_energy();
        run(&mut w, id, &mut raft, DT, (5.0 / DT) as usize, |_, _, _| {});
        let left = raft.kinetic_energy() / start;
        eprintln!("spin {spin}: {left:.2e} of the energy left after 5 s");
        assert!(
            left < 1e-3,
            "rocking about {spin} must die out: {left} of the energy left"
        );
    }
}

#[test]
fn the_detail_of_a_step_stays_that_steps_after_the_description_changes() {
    let mut w = world();
    let (id, mut raft) = box_body(
        &mut w,
        RAFT,
        1000.0,
        BodyDesc::default(),
        DVec3::new(0.0, 0.1, 0.0),
        DQuat::IDENTITY,
    );
    raft.velocity = DVec3::new(1.0, -0.5, 0.3);
    let f = w.step_body(id, &raft.state(), DT).unwrap();
    let hull = w.body(id).unwrap().desc().hull;
    let heavier = BodyDesc {
        hull,
        mass: 5000.0,
        forces: keel::forces::FORCE_DAMPING,
        linear_damping: 1e4,
        ..BodyDesc::default()
    };
    w.set_body_desc(id, &heavier).unwrap();
    let sum: DVec3 = w.body(id).unwrap().triangle_forces().map(|p| p.force).sum();
    assert!(
        (sum - f.force).length() < 1e-9 * f.force.length(),
        "{sum} vs {}",
        f.force
    );
}
