//! The fast paths (vectorised loops, lanes) against the one-at-a-time code, undoing,
//! replays and the checks of states and forces.

use std::sync::Arc;

use glam::{DQuat, DVec3};

use super::*;
use crate::body::*;
use crate::error::Result;
use crate::forces::pressure_drag::pressure_drag_force;
use crate::forces::*;
use crate::hull::Hull;
use crate::hull::{HullDesc, box_mesh};
use crate::loops::lanes::LANES;
use crate::loops::whole::Motion;
use crate::runtime::team::Team;
use crate::step::pass_two::drag_rule;
use crate::step::step_in_lanes;
use crate::water::FlatWater;
use crate::water::Water;

fn env(water: &Water) -> Environment<'_> {
    Environment {
        water,
        time: 0.0,
        gravity: 9.81,
        water_density: 1000.0,
        air_density: 1.225,
        water_viscosity: 1e-6,
        wind: DVec3::ZERO,
        current: DVec3::ZERO,
        water_offset: DVec3::ZERO,
        share_triangles: true,
        helper: None,
        tasks: None,
        pool: None,
    }
}

fn state(y: f64, vy: f64) -> BodyState {
    BodyState {
        position: DVec3::new(0.0, y, 0.0),
        linear_velocity: DVec3::new(0.3, vy, 0.0),
        angular_velocity: DVec3::new(0.1, 0.0, 0.2),
        ..BodyState::default()
    }
}

fn detail(body: &mut Body) -> (Vec<[DVec3; 3]>, Vec<PointForce>) {
    (body.submerged_triangles().collect(), body.triangle_forces().collect())
}

/// The last step again through the one-triangle-at-a-time code (what detail uses),
/// deriving everything from its own sums.
fn reference_forces(body: &mut Body) -> BodyForces {
    let replay = Replay {
        derived: None,
        ..body.replay().unwrap()
    };
    let prior = std::mem::take(&mut body.prior_history);
    let mut scratch = Output::sized(body.hull.triangles.len(), body.hull.columns.len());
    body.sample_sets[body.sampled as usize].turn(&body.hull.positions, &replay.state);
    let (forces, _) = body.run(&replay, &prior, &mut scratch, &mut Detail::default(), Team::Alone);
    body.prior_history = prior;
    forces
}

/// A small deterministic generator (the crate has no rand dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    fn vec(&mut self, scale: f64) -> DVec3 {
        DVec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }
}

fn hull_of(vertices: &[glam::Vec3], indices: &[u32]) -> Arc<Hull> {
    Arc::new(
        Hull::new(&HullDesc {
            vertices,
            indices,
            flip_winding: false,
        })
        .unwrap(),
    )
}

fn close(a: DVec3, b: DVec3, scale: f64) -> bool {
    (a - b).length() <= 1e-9 * scale
}

#[test]
fn whole_triangles_in_loops_give_the_forces_of_the_one_at_a_time_code() {
    let mut rng = Rng(7);
    // A sphere (many whole triangles, every lane count), a box (the volume models),
    // and a soup of random triangles (slivers, both windings).
    let (bv, bi) = box_mesh(glam::Vec3::new(2.0, 1.0, 3.0));
    let mut sv = Vec::new();
    let (rings, segments) = (9, 14);
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            sv.push(glam::Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            ));
        }
    }
    let mut si = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * segments + s, r * segments + (s + 1) % segments);
            let (c, d) = (a + segments, b + segments);
            si.extend([a, b, c, b, d, c].map(|i| i as u32));
        }
    }
    let soup_v: Vec<glam::Vec3> = (0..40).map(|_| rng.vec(1.5).as_vec3()).collect();
    let soup_i: Vec<u32> = (0..3 * 60).map(|_| (rng.next() * 40.0) as u32).collect();
    // A sphere of more triangles than two chunks of rows.
    let (rings, segments) = (40, 36);
    let mut fine_v = Vec::new();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            fine_v.push(glam::Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            ));
        }
    }
    let mut fine_i = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * segments + s, r * segments + (s + 1) % segments);
            let (c, d) = (a + segments, b + segments);
            fine_i.extend([a, b, c, b, d, c].map(|i| i as u32));
        }
    }
    let hulls = [
        hull_of(&sv, &si),
        hull_of(&bv, &bi),
        hull_of(&soup_v, &soup_i),
        hull_of(&fine_v, &fine_i),
    ];
    assert!(hulls[3].columns.len() > 2 * crate::loops::whole::CHUNK_ROWS);
    let waters = [
        Water::Flat(FlatWater { level: 0.2 }),
        Water::Gerstner(
            crate::water::GerstnerWater::new(
                &[crate::water::GerstnerWave {
                    amplitude: 0.3,
                    wavelength: 4.0,
                    direction: glam::DVec2::new(1.0, 0.4),
                    steepness: 0.5,
                    phase: 0.3,
                }],
                0.0,
                9.81,
            )
            .unwrap(),
        ),
    ];
    let models = [
        BuoyancyModel::Pressure,
        BuoyancyModel::PressureCentroid,
        BuoyancyModel::Volume,
        BuoyancyModel::AreaRatio,
        BuoyancyModel::None,
    ];
    let mut compared = 0;
    // (Still water draws from its own generator: the other cases keep their numbers.)
    let mut still_rng = Rng(11);
    for (h, hull) in hulls.iter().enumerate() {
        // Flat water with a current, waves, and still flat water after a step in the
        // waves (buffers kept from step to step must not carry their velocities over).
        for (w, water) in [&waters[0], &waters[1], &waters[0]].into_iter().enumerate() {
            let mut env = env(water);
            env.wind = DVec3::new(4.0, 0.0, -3.0);
            if w < 2 {
                env.current = DVec3::new(0.5, 0.0, 0.2);
            }
            let mut moving = self::env(&waters[1]);
            moving.current = DVec3::new(0.5, 0.0, 0.2);
            let rng = if w == 2 { &mut still_rng } else { &mut rng };
            for case in 0..40 {
                let forces = match case % 4 {
                    0 => FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
                    1 => FORCE_LUMPED_RESISTANCE | FORCE_SLAMMING | FORCE_DAMPING,
                    2 => (rng.next() * 32.0) as u32 & !FORCE_LUMPED_RESISTANCE,
                    _ => FORCE_DEFAULT,
                };
                let buoyancy = models[case % models.len()];
                let desc = BodyDesc {
                    forces,
                    buoyancy: if h == 1 { buoyancy } else { BuoyancyModel::Pressure },
                    vertical_buoyancy_only: case % 3 == 0,
                    linear_damping: 100.0,
                    angular_damping: 50.0,
                    // The limiter at its extremes: a body of no mass, a heavy one.
                    mass: [1000.0, 1.2e-38, 1000.0, 1e12][case % 4],
                    pressure_falloff: [0.5, 1.0, 0.3, 2.0, 0.0][case % 5],
                    suction_falloff: [0.5, 2.0, 1.0, 0.0][case % 4],
                    slamming_power: [2.0, 1.0, 1.5, 0.5, 0.0][case % 5],
                    slamming_max_acceleration: [0.0, 0.0, 40.0][case % 3],
                    ..BodyDesc::default()
                };
                let mut body = Body::new(desc, hull.clone());
                let mut state = BodyState {
                    position: DVec3::new(rng.range(-3.0, 3.0), rng.range(-0.8, 0.8), rng.range(-3.0, 3.0)),
                    rotation: DQuat::from_scaled_axis(rng.vec(1.5)),
                    linear_velocity: rng.vec(4.0),
                    // Slow and fast turns: the one-point and the three-point drag rule.
                    angular_velocity: rng.vec([0.05, 3.0][case % 2]),
                    ..BodyState::default()
                };
                state.center_of_mass = state.position + rng.vec(0.2);
                // (Not for the limiter's extreme masses: their forces after a step
                // in waves can overflow, an error these cases do not test.)
                if w == 2 && desc.mass == 1000.0 {
                    body.step(&state, 0.02, &moving).unwrap();
                }
                for _ in 0..3 {
                    let fast = body.step(&state, 0.02, &env).unwrap();
                    let slow = reference_forces(&mut body);
                    let scale = 1.0 + fast.force.length() + fast.torque.length() + slow.force.length();
                    let pairs = [
                        (fast.force, slow.force),
                        (fast.torque, slow.torque),
                        (fast.buoyancy_force, slow.buoyancy_force),
                        (fast.viscous_force, slow.viscous_force),
                        (fast.pressure_drag_force, slow.pressure_drag_force),
                        (fast.slamming_force, slow.slamming_force),
                        (fast.air_force, slow.air_force),
                        (fast.damping_force, slow.damping_force),
                        (fast.center_of_buoyancy, slow.center_of_buoyancy),
                    ];
                    for (k, (a, b)) in pairs.into_iter().enumerate() {
                        assert!(
                            close(a, b, scale),
                            "hull {h} case {case} field {k}: {a} vs {b}\n{desc:?}"
                        );
                    }
                    assert!(
                        (fast.submerged_volume - slow.submerged_volume).abs() <= 1e-9 * (1.0 + slow.submerged_volume)
                    );
                    assert!((fast.submerged_area - slow.submerged_area).abs() <= 1e-9 * (1.0 + slow.submerged_area));
                    assert_eq!(fast.submerged_triangle_count, slow.submerged_triangle_count);
                    compared += 1;
                    state.position.y -= 0.1;
                    state.linear_velocity.y -= 0.5;
                }
            }
        }
    }
    assert_eq!(compared, 4 * 3 * 40 * 3);
}

#[test]
fn bodies_in_lanes_get_the_forces_of_the_one_at_a_time_code_whatever_their_company() {
    let mut rng = Rng(23);
    let (bv, bi) = box_mesh(glam::Vec3::new(2.0, 1.0, 3.0));
    // Random triangles: slivers, both windings, vertices shared in every way.
    let soup_v: Vec<glam::Vec3> = (0..30).map(|_| rng.vec(1.5).as_vec3()).collect();
    let soup_i: Vec<u32> = (0..3 * 50).map(|_| (rng.next() * 30.0) as u32).collect();
    let hulls = [hull_of(&bv, &bi), hull_of(&soup_v, &soup_i)];
    let waters = [
        Water::Flat(FlatWater { level: 0.2 }),
        // Moving water: the water's velocity at the vertices.
        Water::Gerstner(
            crate::water::GerstnerWater::new(
                &[crate::water::GerstnerWave {
                    amplitude: 0.3,
                    wavelength: 4.0,
                    direction: glam::DVec2::new(1.0, 0.4),
                    steepness: 0.5,
                    phase: 0.3,
                }],
                0.0,
                9.81,
            )
            .unwrap(),
        ),
        // Perlin waves move only up and down: with no horizontal current the lanes
        // average the vertical velocity alone (`Group::vertical`), with one all three.
        Water::Perlin(Box::new(
            crate::water::PerlinWater::new(0.1, 0.3, 0.7, 0.6, false).unwrap(),
        )),
        Water::Perlin(Box::new(
            crate::water::PerlinWater::new(0.1, 0.3, 0.7, 0.6, true).unwrap(),
        )),
    ];
    let (mut compared, mut slammed, mut aired) = (0, 0, 0);
    for (h, hull) in hulls.iter().enumerate() {
        for (w, water) in waters.iter().enumerate() {
            let mut env = env(water);
            env.wind = DVec3::new(4.0, 0.0, -3.0);
            env.time = 1.3;
            // A current along x and z, and on the first Perlin water one straight up.
            env.current = if w == 2 {
                DVec3::new(-0.0, 0.3, 0.0)
            } else {
                DVec3::new(0.5, 0.0, 0.2)
            };
            for case in 0..12 {
                let forces = match case % 3 {
                    0 => FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
                    1 => (rng.next() * 32.0) as u32 & !FORCE_LUMPED_RESISTANCE,
                    _ => FORCE_DEFAULT,
                };
                let shared = BodyDesc {
                    forces,
                    vertical_buoyancy_only: case % 5 == 4,
                    linear_damping: 100.0,
                    angular_damping: 50.0,
                    slamming_power: [2.0, 1.0, 0.5, 0.0][case % 4],
                    slamming_max_acceleration: [0.0, 0.0, 40.0][case % 3],
                    ..BodyDesc::default()
                };
                // Each body its own mass (the limiter at its extremes too).
                let masses = [1000.0, 1.2e-38, 300.0, 1e12, 50.0, 2000.0, 1.0, 700.0];
                let mut grouped: Vec<Body> = masses
                    .iter()
                    .map(|&mass| Body::new(BodyDesc { mass, ..shared }, hull.clone()))
                    .collect();
                let mut alone: Vec<Body> = masses
                    .iter()
                    .map(|&mass| Body::new(BodyDesc { mass, ..shared }, hull.clone()))
                    .collect();
                // The same bodies in smaller groups: four and three (half the lanes
                // computed), and one.
                let mut parted: Vec<Body> = masses
                    .iter()
                    .map(|&mass| Body::new(BodyDesc { mass, ..shared }, hull.clone()))
                    .collect();
                assert!(grouped.iter().all(Body::can_step_in_lanes));
                assert!(grouped.iter().all(|b| b.lane_key() == grouped[0].lane_key()));
                // Every fourth case level (turned about the vertical only) and cut by the
                // water at every step: a box's sides then have the same corners under the
                // water in every lane, the kernels that know the lone corner.
                let level = case % 4 == 3;
                let mut states: Vec<BodyState> = (0..LANES)
                    .map(|_| {
                        let y = if level {
                            rng.range(0.0, 0.5)
                        } else {
                            rng.range(-0.8, 0.8)
                        };
                        let position = DVec3::new(rng.range(-3.0, 3.0), y, rng.range(-3.0, 3.0));
                        BodyState {
                            position,
                            rotation: if level {
                                DQuat::from_rotation_y(rng.range(-3.0, 3.0))
                            } else {
                                DQuat::from_scaled_axis(rng.vec(1.5))
                            },
                            linear_velocity: rng.vec(4.0),
                            // Slow and fast turns: the one-point and the three-point rule.
                            angular_velocity: rng.vec([0.05, 3.0][case % 2]),
                            center_of_mass: position + rng.vec(0.2),
                        }
                    })
                    .collect();
                for _ in 0..3 {
                    for (b, state) in grouped.iter_mut().zip(&states) {
                        b.prepare(state, &env).unwrap();
                    }
                    let state_refs: Vec<&BodyState> = states.iter().collect();
                    let mut lanes: Vec<Option<&mut Body>> = grouped.iter_mut().map(Some).collect();
                    let mut in_lanes: Vec<Result<BodyForces>> = vec![Ok(BodyForces::default()); LANES];
                    step_in_lanes(&mut lanes, &state_refs, 0.02, &env, &mut in_lanes);
                    let mut in_parts: Vec<Result<BodyForces>> = vec![Ok(BodyForces::default()); LANES];
                    let mut first = 0;
                    for size in [4, 3, 1] {
                        let part = first..first + size;
                        for (b, state) in parted[part.clone()].iter_mut().zip(&states[part.clone()]) {
                            b.prepare(state, &env).unwrap();
                        }
                        let mut lanes: Vec<Option<&mut Body>> = parted[part.clone()].iter_mut().map(Some).collect();
                        let results = &mut in_parts[part.clone()];
                        step_in_lanes(&mut lanes, &state_refs[part], 0.02, &env, results);
                        first += size;
                    }
                    assert_eq!(first, LANES);
                    for l in 0..LANES {
                        // In a smaller group: the same bits.
                        match (&in_lanes[l], &in_parts[l]) {
                            (Ok(a), Ok(b)) => assert_eq!(a.to_bits(), b.to_bits(), "hull {h} case {case} lane {l}"),
                            (Err(_), Err(_)) => {}
                            (a, b) => panic!("hull {h} case {case} lane {l}: {a:?} vs {b:?}"),
                        }
                        // Alone (one body in the lanes): the same bits as in company.
                        let single = alone[l].step(&states[l], 0.02, &env);
                        match (&in_lanes[l], &single) {
                            (Ok(a), Ok(b)) => assert_eq!(a.to_bits(), b.to_bits(), "hull {h} case {case} lane {l}"),
                            (Err(_), Err(_)) => continue,
                            _ => panic!("hull {h} case {case} lane {l}: {:?} vs {single:?}", in_lanes[l]),
                        }
                        let fast = in_lanes[l].clone().unwrap();
                        let slow = reference_forces(&mut grouped[l]);
                        let scale = 1.0 + fast.force.length() + fast.torque.length() + slow.force.length();
                        let pairs = [
                            (fast.force, slow.force),
                            (fast.torque, slow.torque),
                            (fast.buoyancy_force, slow.buoyancy_force),
                            (fast.viscous_force, slow.viscous_force),
                            (fast.pressure_drag_force, slow.pressure_drag_force),
                            (fast.slamming_force, slow.slamming_force),
                            (fast.air_force, slow.air_force),
                            (fast.damping_force, slow.damping_force),
                            (fast.center_of_buoyancy, slow.center_of_buoyancy),
                        ];
                        for (k, (a, b)) in pairs.into_iter().enumerate() {
                            assert!(
                                close(a, b, scale),
                                "hull {h} case {case} lane {l} field {k}: {a} vs {b}\n{:?}",
                                grouped[l].desc
                            );
                        }
                        assert!(
                            (fast.submerged_volume - slow.submerged_volume).abs()
                                <= 1e-9 * (1.0 + slow.submerged_volume)
                        );
                        assert!(
                            (fast.submerged_area - slow.submerged_area).abs() <= 1e-9 * (1.0 + slow.submerged_area)
                        );
                        assert_eq!(fast.submerged_triangle_count, slow.submerged_triangle_count);
                        compared += 1;
                        slammed += usize::from(slow.slamming_force != DVec3::ZERO);
                        aired += usize::from(slow.air_force != DVec3::ZERO);
                    }
                    for state in &mut states {
                        state.position.y -= 0.1;
                        state.linear_velocity.y -= 0.5;
                    }
                }
            }
        }
    }
    assert!(compared > 2 * 4 * 12 * 3 * LANES / 2, "{compared} compared");
    assert!(slammed > 50 && aired > 50, "slamming {slammed}, air {aired}");
}

/// Drag on a triangle in a rigid motion by the three-point rule or by the one point the
/// rule takes at `spread` (checked), against a fine quadrature, over
/// random triangles whose rotation spreads the velocity by `spread` across them:
/// (mean, worst) error as a fraction of the drag scale `A (C1 |u| + C2 |u|^2)`.
/// Two boxes of the same triangles, cut the same way by the water but of different sizes,
/// stepped alone in turn on one thread: each gets its own hull's forces, the bits a group
/// gives it. (A body alone keeps its chunks' rows, areas and corner indices from the last
/// lone step while its hull and the triangles' sorts repeat: the other hull's would be
/// wrong. Two bodies of each hull in turn: the second finds the first's kept.)
#[test]
fn boxes_stepped_alone_in_turn_get_their_own_hulls_forces() {
    let water = Water::Flat(FlatWater { level: 0.2 });
    let env = env(&water);
    let hulls = [glam::Vec3::new(2.0, 1.0, 3.0), glam::Vec3::new(1.0, 1.0, 1.5)].map(|size| {
        let (v, i) = box_mesh(size);
        hull_of(&v, &i)
    });
    let desc = BodyDesc {
        forces: FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
        ..BodyDesc::default()
    };
    let mut alone: Vec<[Body; 2]> = hulls
        .iter()
        .map(|h| [Body::new(desc, h.clone()), Body::new(desc, h.clone())])
        .collect();
    let mut pairs: Vec<[Body; 2]> = hulls
        .iter()
        .map(|h| [Body::new(desc, h.clone()), Body::new(desc, h.clone())])
        .collect();
    for step in 0..4 {
        let s = state(0.0, -0.2 + 0.05 * step as f64);
        let mut got = Vec::new();
        for (bodies, pair) in alone.iter_mut().zip(&mut pairs) {
            let [first, second] = bodies;
            let single = first.step(&s, 0.02, &env).unwrap();
            let again = second.step(&s, 0.02, &env).unwrap();
            assert_eq!(single.to_bits(), again.to_bits(), "step {step}");
            for b in pair.iter_mut() {
                b.prepare(&s, &env).unwrap();
            }
            let [a, b] = pair;
            let mut lanes = vec![Some(a), Some(b)];
            let mut grouped = vec![Ok(BodyForces::default()); 2];
            step_in_lanes(&mut lanes, &[&s, &s], 0.02, &env, &mut grouped);
            let grouped = grouped[0].clone().unwrap();
            assert_eq!(single.to_bits(), grouped.to_bits(), "step {step}");
            got.push(single);
        }
        // (Different hulls, different forces: the comparison above can tell them apart.)
        assert_ne!(got[0].to_bits(), got[1].to_bits(), "step {step}");
    }
}

fn drag_rule_error(spread: f64, three_points: bool) -> (f64, f64) {
    let mut rng = Rng(11);
    let c = StepDesc::of(&BodyDesc::default()).drag_coefficients();
    let drag = |u: DVec3, n: DVec3, area: f64| {
        pressure_drag_force(u, n, area, &c) + viscous::viscous_force(u, n, area, 1000.0, 0.004)
    };
    let (mut sum, mut worst) = (0.0f64, 0.0f64);
    let trials = 200;
    for _ in 0..trials {
        let [a, b, cc] = [rng.vec(1.0), rng.vec(1.0), rng.vec(1.0)];
        let s = (b - a).cross(cc - a);
        let (normal, area) = (s.normalize(), 0.5 * s.length());
        let centroid = (a + b + cc) / 3.0;
        let radius = [a, b, cc]
            .map(|p| (p - centroid).length())
            .into_iter()
            .fold(0.0, f64::max);
        let u_c = rng.vec(2.0);
        let omega = rng.vec(1.0).normalize() * spread * u_c.length() / radius;
        let motion = Motion {
            com: centroid,
            velocity: u_c,
            angular_velocity: omega,
        };
        let velocity = |p: DVec3| u_c + omega.cross(p - centroid);
        let n = 24;
        let (mut reference, mut count) = (DVec3::ZERO, 0);
        for i in 0..n {
            for j in 0..n - i {
                let mut at = |s: f64, t: f64| {
                    let p = a + (b - a) * s + (cc - a) * t;
                    reference += drag(velocity(p), normal, area);
                    count += 1;
                };
                at((i as f64 + 1.0 / 3.0) / n as f64, (j as f64 + 1.0 / 3.0) / n as f64);
                if i + j < n - 1 {
                    at((i as f64 + 2.0 / 3.0) / n as f64, (j as f64 + 2.0 / 3.0) / n as f64);
                }
            }
        }
        let reference = reference / count as f64;
        let points: Vec<_> = drag_rule([a, b, cc], normal, DVec3::ZERO, &motion, three_points).collect();
        if !three_points && spread < crate::loops::whole::ONE_POINT_SPREAD {
            assert_eq!(points.len(), 1, "the rule takes one point at spread {spread}");
        }
        let rule: DVec3 = if three_points || points.len() == 1 {
            points.iter().map(|&(p, share)| drag(velocity(p), normal, share)).sum()
        } else {
            drag(velocity(centroid), normal, area)
        };
        let speed = u_c.length();
        let scale = area * (c.pressure_linear * speed + c.pressure_quadratic * speed * speed);
        let error = (rule - reference).length() / scale;
        sum += error;
        worst = worst.max(error);
    }
    (sum / trials as f64, worst)
}

#[test]
fn one_point_drag_is_close_where_it_is_used_and_three_points_take_over_where_it_is_not() {
    // Just under the spread where the rule switches: one point, within a few per cent
    // at worst (faces nearly tangent to the flow, where cos^(1/2) has no derivative and
    // the three-point rule errs about as much) and far better on average.
    let (mean, worst) = drag_rule_error(0.099, false);
    let (mean3, worst3) = drag_rule_error(0.099, true);
    assert!(
        mean < 0.005 && worst < 0.07,
        "one point at 0.1: mean {mean}, worst {worst}"
    );
    assert!(
        worst < 1.5 * worst3 + 0.01,
        "worst {worst} vs three-point {worst3} (mean {mean3})"
    );
    // A face spinning about its own centroid: one point misses most of the drag,
    // three points do not, and the rule takes three.
    let (mean, _) = drag_rule_error(3.0, false);
    let (mean3, _) = drag_rule_error(3.0, true);
    assert!(
        mean > 0.2 && mean3 < 0.5 * mean,
        "spin: one point {mean}, three {mean3}"
    );
    let motion = Motion {
        com: DVec3::ZERO,
        velocity: DVec3::X,
        angular_velocity: DVec3::new(0.0, 30.0, 0.0),
    };
    let piece = [DVec3::new(0.0, 0.0, 0.1), DVec3::new(0.1, 0.0, 0.0), DVec3::ZERO];
    assert_eq!(drag_rule(piece, DVec3::Y, DVec3::ZERO, &motion, false).count(), 3);
    let slow = Motion {
        angular_velocity: DVec3::new(0.0, 0.1, 0.0),
        ..motion
    };
    assert_eq!(drag_rule(piece, DVec3::Y, DVec3::ZERO, &slow, false).count(), 1);
}

#[test]
fn an_undone_step_leaves_the_body_exactly_as_before_it() {
    let (v, i) = box_mesh(glam::Vec3::new(2.0, 0.5, 2.0));
    let hull = Arc::new(
        Hull::new(&HullDesc {
            vertices: &v,
            indices: &i,
            flip_winding: false,
        })
        .unwrap(),
    );
    let water = Water::Flat(FlatWater { level: 0.0 });
    let env = env(&water);
    let (mut a, mut b) = (
        Body::new(BodyDesc::default(), hull.clone()),
        Body::new(BodyDesc::default(), hull),
    );
    for body in [&mut a, &mut b] {
        body.step(&state(0.4, -2.0), 0.02, &env).unwrap();
        body.step(&state(0.1, -2.0), 0.02, &env).unwrap();
    }
    let before = detail(&mut a);
    // A step into the water, undone as a failing batch would undo it.
    a.step(&state(-0.2, -3.0), 0.02, &env).unwrap();
    assert_ne!(detail(&mut a), before);
    a.undo_step();
    assert_eq!(detail(&mut a), before);
    // And what follows is what follows for a body that never took that step.
    let next = state(0.0, -1.0);
    assert_eq!(a.step(&next, 0.02, &env).unwrap(), b.step(&next, 0.02, &env).unwrap());
    assert_eq!(detail(&mut a), detail(&mut b));
}

#[test]
fn a_replay_keeps_the_description_its_step_used_across_changes_and_undoing() {
    let (v, i) = box_mesh(glam::Vec3::new(2.0, 0.5, 2.0));
    let hull = Arc::new(
        Hull::new(&HullDesc {
            vertices: &v,
            indices: &i,
            flip_winding: false,
        })
        .unwrap(),
    );
    let water = Water::Flat(FlatWater { level: 0.0 });
    let env = env(&water);
    let light = BodyDesc::default();
    let heavy = BodyDesc {
        mass: 4.0 * light.mass,
        linear_damping: 50.0,
        forces: light.forces | crate::forces::FORCE_DAMPING,
        ..light
    };
    // The last step's detail, replayed afresh: its forces add up to the step's.
    let replayed = |body: &mut Body, step: &BodyForces| {
        body.detail = None;
        let sum: DVec3 = body.triangle_forces().map(|p| p.force).sum();
        assert!(
            (sum - step.force).length() <= 1e-9 * step.force.length(),
            "{sum} vs {}",
            step.force
        );
        detail(body)
    };
    let mut body = Body::new(light, hull);
    let a = body.step(&state(0.4, -2.0), 0.02, &env).unwrap();
    let b = body.step(&state(0.3, -2.0), 0.02, &env).unwrap();
    let before_b = {
        let mut twin = Body::new(light, body.hull.clone());
        twin.step(&state(0.4, -2.0), 0.02, &env).unwrap();
        detail(&mut twin)
    };
    // Changed after two steps: each keeps the light description, the last...
    body.set_desc(heavy);
    replayed(&mut body, &b);
    // ... and the one before it, once the last is undone.
    body.undo_step();
    assert_eq!(replayed(&mut body, &a), before_b);
    // Steps as the heavy body replay as the heavy body, in both slots.
    for y in [0.2, 0.1, 0.0] {
        let step = body.step(&state(y, -2.0), 0.02, &env).unwrap();
        replayed(&mut body, &step);
    }
}

#[test]
fn a_state_out_of_range_is_refused_with_the_vector_and_the_reason() {
    let good = state(0.5, -1.0);
    assert!(good.validated().is_ok());
    type Field = fn(&mut BodyState) -> &mut DVec3;
    let fields: [(&str, Field, f64); 4] = [
        ("position", |s| &mut s.position, MAX_COORDINATE),
        ("center_of_mass", |s| &mut s.center_of_mass, MAX_COORDINATE),
        ("linear_velocity", |s| &mut s.linear_velocity, MAX_SPEED),
        ("angular_velocity", |s| &mut s.angular_velocity, MAX_SPEED),
    ];
    for (name, field, limit) in fields {
        for axis in 0..3 {
            for (value, reason) in [
                (f64::NAN, "must be finite"),
                (f64::INFINITY, "must be finite"),
                (-f64::INFINITY, "must be finite"),
                (limit * 1.5, "is beyond"),
                (-limit * 1.5, "is beyond"),
            ] {
                let mut bad = good;
                field(&mut bad)[axis] = value;
                let message = bad.validated().unwrap_err().to_string();
                assert!(
                    message.contains(&format!("state.{name}")) && message.contains(reason),
                    "{name}[{axis}] = {value}: {message}"
                );
            }
            // At the limit itself: accepted.
            let mut edge = good;
            field(&mut edge)[axis] = -limit;
            assert!(edge.validated().is_ok(), "{name}[{axis}] at the limit");
        }
    }
    for rotation in [
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        DQuat::from_xyzw(f64::NAN, 0.0, 0.0, 1.0),
        DQuat::from_xyzw(0.0, f64::INFINITY, 0.0, 1.0),
        DQuat::from_xyzw(0.0, 0.0, -f64::INFINITY, 0.0),
        // Finite, but its length overflows: divided by it, a zero rotation.
        DQuat::from_xyzw(1e200, 1e200, 0.0, 0.0),
        DQuat::from_xyzw(0.0, 0.0, 1e-7, 0.0),
    ] {
        let bad = BodyState { rotation, ..good };
        assert!(
            bad.validated().unwrap_err().to_string().contains("state.rotation"),
            "{rotation}"
        );
    }
    // A rotation of any finite, representable length is made unit.
    for rotation in [
        DQuat::from_xyzw(0.0, 3e-6, 0.0, 0.0),
        DQuat::from_xyzw(1e150, 0.0, 1e150, 0.0),
    ] {
        let unit = BodyState { rotation, ..good }.validated().unwrap().rotation;
        assert!((unit.length() - 1.0).abs() < 1e-15, "{rotation}: {unit}");
    }
}

/// One field of a step's forces, to spoil.
type Field<T> = fn(&mut BodyForces) -> &mut T;

#[test]
fn forces_that_are_not_finite_or_beyond_the_bound_are_not_sound() {
    let good = BodyForces {
        force: DVec3::new(1.0, 2.0, 3.0),
        torque: DVec3::splat(-MAX_FORCE),
        ..BodyForces::default()
    };
    assert!(good.is_sound());
    for value in [
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        MAX_FORCE * 2.0,
        -MAX_FORCE * 2.0,
    ] {
        // Every vector the step returns, each axis.
        let vectors: [(&str, Field<DVec3>); 8] = [
            ("force", |f| &mut f.force),
            ("torque", |f| &mut f.torque),
            ("buoyancy_force", |f| &mut f.buoyancy_force),
            ("viscous_force", |f| &mut f.viscous_force),
            ("pressure_drag_force", |f| &mut f.pressure_drag_force),
            ("slamming_force", |f| &mut f.slamming_force),
            ("air_force", |f| &mut f.air_force),
            ("damping_force", |f| &mut f.damping_force),
        ];
        for (name, field) in vectors {
            for axis in 0..3 {
                let mut bad = good;
                field(&mut bad)[axis] = value;
                assert!(!bad.is_sound(), "{name}[{axis}] = {value}");
            }
        }
    }
    // The centre of buoyancy and the scalars need only be finite.
    for value in [f64::NAN, f64::INFINITY, -f64::INFINITY] {
        for axis in 0..3 {
            let mut bad = good;
            bad.center_of_buoyancy[axis] = value;
            assert!(!bad.is_sound(), "center_of_buoyancy[{axis}] = {value}");
        }
        let scalars: [(&str, Field<f64>); 3] = [
            ("submerged_volume", |f| &mut f.submerged_volume),
            ("submerged_area", |f| &mut f.submerged_area),
            ("wetted_ratio", |f| &mut f.wetted_ratio),
        ];
        for (name, field) in scalars {
            let mut bad = good;
            *field(&mut bad) = value;
            assert!(!bad.is_sound(), "{name} = {value}");
        }
    }
    let far = BodyForces {
        center_of_buoyancy: DVec3::splat(MAX_FORCE * 10.0),
        ..good
    };
    assert!(far.is_sound(), "a finite centre of buoyancy is sound however far");
}

/// The inertia a step uses follows the description as it is set and reset: the host's
/// principal moments about their axes (worked out when the description is set), or, with
/// none given, the hull's at uniform density (a 2 x 1 x 3 m box: `m (b^2 + c^2) / 12`).
#[test]
fn the_step_takes_the_inertia_of_the_description_last_set() {
    let (bv, bi) = box_mesh(glam::Vec3::new(2.0, 1.0, 3.0));
    let hull = hull_of(&bv, &bi);
    let mass = 600.0;
    let uniform = BodyDesc {
        mass,
        ..BodyDesc::default()
    };
    let host = BodyDesc {
        inertia: DVec3::new(1.0, 2.0, 3.0),
        // Principal axes turned a quarter turn about Y (x and z swap), not normalised.
        inertia_rotation: DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2) * 2.0,
        ..uniform
    };
    let state = BodyState::default();
    let close = |a: glam::DMat3, b: glam::DMat3| (a - b).to_cols_array().iter().all(|x| x.abs() < 1e-9);
    let box_inertia = glam::DMat3::from_diagonal(DVec3::new(
        mass * (1.0 + 9.0) / 12.0,
        mass * (4.0 + 9.0) / 12.0,
        mass * (4.0 + 1.0) / 12.0,
    ));
    let host_inertia = glam::DMat3::from_diagonal(DVec3::new(3.0, 2.0, 1.0));

    let mut body = Body::new(uniform, hull);
    let inertia = |body: &Body| body.inertia(body.host_inertia(), body.desc.mass, &state, DVec3::ZERO);
    assert!(body.host_inertia().is_none());
    assert!(close(inertia(&body), box_inertia), "{}", inertia(&body));
    body.set_desc(host);
    assert!(close(inertia(&body), host_inertia), "{}", inertia(&body));
    assert_eq!(*body.desc(), host);
    body.set_desc(uniform);
    assert!(body.host_inertia().is_none());
    assert!(close(inertia(&body), box_inertia), "{}", inertia(&body));
    assert_eq!(body.desc, StepDesc::of(&uniform));
}
