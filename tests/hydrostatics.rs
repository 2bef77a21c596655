//! `keel::hydrostatics` against naval architecture's closed forms: the box barge's
//! displacement, KB, BM and GM (about the waterplane's principal axes, whatever the
//! heading and whichever way the box is long, upright and upside down), the stable
//! attitudes of half-density cubes and logs, and the rest pose a simulated bunny comes to.

mod common;

use common::sim::{self, RigidBody};
use common::{Mesh, boat_hull, bunny, simple_box, world};
use glam::{DQuat, DVec2, DVec3, EulerRot, Vec3};
use keel::hydrostatics::{Loading, Pose, attitude, find_body_equilibrium, find_equilibrium, hydrostatics, submerged};
use keel::{BodyDesc, Hull};

const RHO: f64 = 1000.0;
const G: f64 = 9.81;

fn hull(mesh: &Mesh) -> Hull {
    Hull::new(&mesh.desc()).unwrap()
}

fn load(mass: f64, com_local: DVec3) -> Loading {
    Loading {
        mass,
        com_local,
        water_density: RHO,
        gravity: G,
        level: 0.0,
    }
}

fn upright(position: DVec3) -> Pose {
    Pose {
        position,
        rotation: DQuat::IDENTITY,
    }
}

fn close(what: &str, got: f64, want: f64, relative: f64) {
    assert!(
        (got - want).abs() <= relative * want.abs().max(1e-12),
        "{what}: got {got}, want {want} (within {}%)",
        relative * 100.0
    );
}

/// A barge of length `l` (Z), beam `b` (X) and depth `d`, its bottom at y = 0.
fn barge(l: f32, b: f32, d: f32) -> Mesh {
    simple_box(Vec3::new(b, d, l), Vec3::new(0.0, d / 2.0, 0.0))
}

#[test]
fn a_box_barge_floats_at_its_draft_with_the_textbook_kb_bm_and_gm() {
    let (l, b, d, t) = (20.0, 6.0, 4.0, 1.5);
    let hull = hull(&barge(l as f32, b as f32, d as f32));
    let kg = 1.2;
    let mass = RHO * l * b * t;
    let load = load(mass, DVec3::new(0.0, kg, 0.0));
    let eq = find_equilibrium(&hull, &load, &upright(DVec3::new(3.0, 2.0, -4.0))).unwrap();
    close("draft", -eq.pose.position.y, t, 1e-9);
    assert!(eq.heel.abs() < 1e-9 && eq.trim.abs() < 1e-9, "{eq:?}");
    let r = hydrostatics(&hull, &load, &eq.pose, None).unwrap();
    close("V = LBT", r.volume, l * b * t, 1e-9);
    close("KB = T/2", r.kb, t / 2.0, 1e-9);
    close("BM_T = B^2/(12T)", r.bm_t, b * b / (12.0 * t), 1e-9);
    close("BM_L = L^2/(12T)", r.bm_l, l * l / (12.0 * t), 1e-9);
    close("GM_T", r.gm_t, t / 2.0 + b * b / (12.0 * t) - kg, 0.01);
    close("GM_L", r.gm_l, t / 2.0 + l * l / (12.0 * t) - kg, 0.01);
    close("A_wp = LB", r.waterplane_area, l * b, 1e-9);
    close(
        "heave period",
        r.heave_period,
        std::f64::consts::TAU * (t / G).sqrt(),
        1e-9,
    );
    // The hull at uniform density: the box's own inertia about its long axis.
    let i_roll = mass * (b * b + d * d) / 12.0 + mass * (d / 2.0 - kg).powi(2);
    close("roll inertia", r.roll_inertia, i_roll, 1e-6);
    let gm = t / 2.0 + b * b / (12.0 * t) - kg;
    close(
        "roll period",
        r.roll_period,
        std::f64::consts::TAU * (i_roll / (mass * G * gm)).sqrt(),
        1e-6,
    );
    assert!((r.center_of_buoyancy - DVec3::new(3.0, -t / 2.0, -4.0)).length() < 1e-9);
}

#[test]
fn the_waterplane_of_a_turned_barge_has_the_same_moments_about_its_own_axes() {
    let (l, b) = (12.0, 3.0);
    let hull = hull(&barge(l as f32, b as f32, 2.0));
    let pose = Pose {
        position: DVec3::new(0.0, -0.5, 0.0),
        rotation: DQuat::from_rotation_y(0.7),
    };
    let plane = submerged(&hull, &pose, 0.0).waterplane;
    close("area", plane.area, l * b, 1e-9);
    let r = hydrostatics(&hull, &load(RHO * l * b * 0.5, DVec3::new(0.0, 0.5, 0.0)), &pose, None).unwrap();
    close("I_T = L B^3 / 12", r.i_t, l * b.powi(3) / 12.0, 1e-9);
    close("I_L = B L^3 / 12", r.i_l, b * l.powi(3) / 12.0, 1e-9);
}

#[test]
fn a_stable_barge_started_heeled_and_trimmed_returns_upright_with_its_heading() {
    let hull = hull(&barge(10.0, 4.0, 2.0));
    let load = load(RHO * 10.0 * 4.0 * 0.8, DVec3::new(0.0, 0.7, 0.0));
    let heading = DQuat::from_rotation_y(0.6);
    let start = Pose {
        position: DVec3::new(1.0, 0.3, 2.0),
        rotation: heading * DQuat::from_rotation_x(-0.1) * DQuat::from_rotation_z(0.4),
    };
    let com_before = start.apply(load.com_local);
    let eq = find_equilibrium(&hull, &load, &start).unwrap();
    let up = eq.pose.rotation * DVec3::Y;
    assert!(up.dot(DVec3::Y) > 1.0 - 1e-9, "not upright: {up}");
    assert!(
        eq.pose.rotation.angle_between(heading) < 1e-6,
        "heading lost: {:?}",
        eq.pose.rotation
    );
    close("draft", -eq.pose.position.y, 0.8, 1e-9);
    assert!((eq.center_of_mass.x - com_before.x).abs() < 1e-9);
    assert!((eq.center_of_mass.z - com_before.z).abs() < 1e-9);
}

#[test]
fn a_half_density_square_log_floats_edge_up_heeled_45_degrees() {
    // The classic two-dimensional result: a square log of relative density 1/2 is
    // unstable flat (GM = a/4 + a/6 - a/2 = -a/12) and rests with a diagonal vertical.
    let a = 1.0;
    let hull = hull(&simple_box(Vec3::new(1.0, 1.0, 6.0), Vec3::ZERO));
    let load = load(0.5 * RHO * a * a * 6.0, DVec3::ZERO);
    let r = hydrostatics(&hull, &load, &upright(DVec3::ZERO), None).unwrap();
    close("flat GM", r.gm_t, -a / 12.0, 1e-9);
    // A nudge off the symmetric saddle: the solver must tip it.
    let start = Pose {
        position: DVec3::ZERO,
        rotation: DQuat::from_rotation_z(0.02),
    };
    let eq = find_equilibrium(&hull, &load, &start).unwrap();
    close("heel", eq.heel.abs().to_degrees(), 45.0, 1e-4);
    assert!(eq.trim.abs() < 1e-6, "trim {}", eq.trim);
    let r = hydrostatics(&hull, &load, &eq.pose, None).unwrap();
    assert!(r.gm_t > 0.0, "the rest pose must be stable: GM_T = {}", r.gm_t);
    // Half of a centrally symmetric body under water: the plane runs through the centre.
    assert!(eq.center_of_mass.y.abs() < 1e-9);
}

#[test]
fn a_half_density_cube_started_flat_rests_with_a_corner_up() {
    // With half the cube under water the waterline plane runs through the centre, and the
    // energy m g (y_G - y_B) is m g E|x . n| over the cube, n the up direction in body
    // axes. E|x . n| is 1/4 for a face normal, 1/(3 sqrt 2) = 0.2357 for an edge diagonal
    // and 0.40625 / sqrt 3 = 0.2345 for a body diagonal (the sum of three uniform
    // variables): the corner-up attitude has the least energy, and the minimum the solver
    // finds from a slightly disturbed flat start must be it (or beat it).
    let hull = hull(&simple_box(Vec3::ONE, Vec3::ZERO));
    let load = load(0.5 * RHO, DVec3::ZERO);
    let start = Pose {
        position: DVec3::ZERO,
        rotation: DQuat::from_rotation_z(0.03) * DQuat::from_rotation_x(0.05),
    };
    let eq = find_equilibrium(&hull, &load, &start).unwrap();
    let up = eq.pose.rotation.inverse() * DVec3::Y;
    let corner = 1.0 / 3f64.sqrt();
    for k in 0..3 {
        assert!((up[k].abs() - corner).abs() < 1e-4, "not corner up: {up}");
    }
    assert!(eq.center_of_mass.y.abs() < 1e-9);
    let r = hydrostatics(&hull, &load, &eq.pose, None).unwrap();
    close("energy", r.kg - r.kb, 0.40625 / 3f64.sqrt(), 1e-6);
}

#[test]
fn a_boat_comes_to_rest_with_a_positive_gm_and_its_centre_of_buoyancy_under_its_mass() {
    let hull = hull(&boat_hull(8.0, 2.5, 0.8, 0.6, 24, 12));
    let volume = hull.info().volume;
    let com = hull.info().centroid - DVec3::new(0.0, 0.2, 0.0);
    let load = load(0.4 * RHO * volume, com);
    let start = Pose {
        position: DVec3::ZERO,
        rotation: DQuat::from_rotation_z(0.3),
    };
    let eq = find_equilibrium(&hull, &load, &start).unwrap();
    let r = hydrostatics(&hull, &load, &eq.pose, None).unwrap();
    close("displacement", r.displacement, load.mass, 1e-9);
    let lever = r.center_of_buoyancy - r.center_of_mass;
    assert!(lever.x.hypot(lever.z) < 1e-6, "B not under G: {lever}");
    assert!(r.gm_t > 0.0 && r.gm_l > r.gm_t, "{r:?}");
    // The quads of the lofted hull are split along the same diagonal on both sides, so
    // port and starboard differ a little: nearly, not exactly, upright.
    assert!(eq.heel.abs() < 1e-3, "a near-symmetric hull rests upright: {}", eq.heel);
}

#[test]
fn the_bunny_settles_in_simulation_where_find_equilibrium_puts_it() {
    let mesh = bunny(0.1);
    let mut world = world();
    let h = world.create_hull(&mesh.desc()).unwrap();
    let info = world.hull_info(h).unwrap();
    let mass = 0.45 * RHO * info.volume;
    let com_local = info.centroid;
    let desc = BodyDesc {
        hull: h,
        mass,
        linear_damping: 0.5 * mass,
        angular_damping: 0.5 * mass,
        forces: BodyDesc::default().forces | keel::forces::FORCE_DAMPING,
        ..BodyDesc::default()
    };
    let id = world.create_body(&desc).unwrap();
    let start = Pose {
        position: DVec3::new(0.0, 0.2, 0.0),
        rotation: DQuat::from_rotation_x(0.2),
    };
    let eq = find_body_equilibrium(&world, id, com_local, &start).unwrap();

    let inertia = world.body(id).unwrap().hull().unit_inertia() * mass;
    let mut body = RigidBody {
        mass,
        inertia,
        com_local,
        position: start.position,
        rotation: start.rotation,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };
    sim::run(&mut world, id, &mut body, 0.02, 2000, |_, _, _| {});
    assert!(body.kinetic_energy() < 1e-6 * mass, "still moving: {body:?}");
    // World up in body axes: a floating body may turn about the vertical at no cost.
    let (up_sim, up_eq) = (
        body.rotation.inverse() * DVec3::Y,
        eq.pose.rotation.inverse() * DVec3::Y,
    );
    let angle = up_sim.angle_between(up_eq).to_degrees();
    assert!(
        angle < 1.0,
        "simulated up {up_sim} vs equilibrium {up_eq}: {angle} degrees"
    );
    let dy = body.com().y - eq.center_of_mass.y;
    assert!(dy.abs() < 0.005, "simulated centre of mass {dy} m off");
}

#[test]
fn what_cannot_float_is_refused() {
    let hull = hull(&simple_box(Vec3::ONE, Vec3::ZERO));
    let start = upright(DVec3::ZERO);
    let err = find_equilibrium(&hull, &load(1001.0, DVec3::ZERO), &start).unwrap_err();
    assert!(err.to_string().contains("cannot float"), "{err}");
    assert!(find_equilibrium(&hull, &load(-1.0, DVec3::ZERO), &start).is_err());
    assert!(find_equilibrium(&hull, &load(f64::NAN, DVec3::ZERO), &start).is_err());
    let mut open = simple_box(Vec3::ONE, Vec3::ZERO);
    open.indices.truncate(30);
    let open = Hull::new(&open.desc()).unwrap();
    let err = find_equilibrium(&open, &load(100.0, DVec3::ZERO), &start).unwrap_err();
    assert!(err.to_string().contains("open"), "{err}");
}

#[test]
fn from_random_starts_the_rest_pose_is_a_stable_minimum_with_b_under_g() {
    let mut rng = common::Rng::new(28);
    let hulls = [
        ("box", hull(&simple_box(Vec3::new(2.0, 1.0, 3.0), Vec3::ZERO)), 0.3),
        ("boat", hull(&boat_hull(8.0, 2.5, 0.8, 0.6, 24, 12)), 0.35),
        ("bunny", hull(&bunny(0.1)), 0.6),
    ];
    for (name, hull, density) in &hulls {
        let load = load(density * RHO * hull.info().volume, hull.info().centroid);
        let size = (hull.info().bounds_max - hull.info().bounds_min).length();
        for _ in 0..4 {
            let start = Pose {
                position: rng.vec3(2.0),
                rotation: rng.rotation(),
            };
            let eq = find_equilibrium(hull, &load, &start).unwrap();
            let r = hydrostatics(hull, &load, &eq.pose, None).unwrap();
            let lever = r.center_of_buoyancy - r.center_of_mass;
            assert!(lever.x.hypot(lever.z) < 1e-6 * size, "{name}: B not under G: {lever}");
            close(&format!("{name}: displacement"), r.displacement, load.mass, 1e-9);
            // The energy m g (y_G - y_B) of every attitude a few degrees away, floated at its
            // own draft, is higher: a minimum, not a saddle.
            let energy = |pose: &Pose| {
                let r = hydrostatics(hull, &load, pose, None).unwrap();
                r.center_of_mass.y - r.center_of_buoyancy.y
            };
            let at_rest = energy(&eq.pose);
            for axis in [DVec3::X, DVec3::Z, DVec3::new(1.0, 0.0, 1.0).normalize()] {
                for angle in [-0.03, 0.03] {
                    let turn = DQuat::from_axis_angle(axis, angle);
                    let tilted = Pose {
                        position: eq.center_of_mass - turn * eq.pose.rotation * load.com_local,
                        rotation: turn * eq.pose.rotation,
                    };
                    let floated = keel::hydrostatics::float_level(hull, &load, &tilted).unwrap();
                    assert!(
                        energy(&floated) > at_rest,
                        "{name}: turning the rest pose by {angle} rad about {axis} lowers the energy"
                    );
                }
            }
        }
    }
}

/// A box `x` by `z` in plan and `d` deep, bottom at y = 0, its centre of mass at height
/// `kg`, turned to `heading`, floats upright at draft `t = m / (rho x z)` with, by hand,
/// `GM = t/2 + b^2 / (12 t) - kg` about its longer side (roll, `b` the shorter side) and
/// `t/2 + l^2 / (12 t) - kg` about its shorter one (pitch, `l` the longer side).
fn box_upright_case(x: f64, z: f64, heading: f64) {
    let (d, t, kg) = (1.0, 0.4, 0.3);
    let hull = hull(&simple_box(
        Vec3::new(x as f32, d as f32, z as f32),
        Vec3::new(0.0, d as f32 / 2.0, 0.0),
    ));
    let load = load(RHO * x * z * t, DVec3::new(0.0, kg, 0.0));
    let start = Pose {
        position: DVec3::new(1.0, 0.5, -2.0),
        rotation: DQuat::from_rotation_y(heading),
    };
    let eq = find_equilibrium(&hull, &load, &start).unwrap();
    let r = hydrostatics(&hull, &load, &eq.pose, None).unwrap();
    let (l, b) = (x.max(z), x.min(z));
    let what = format!("{x} x {z} box at heading {heading}");
    close(&format!("{what}: draft"), r.draft, t, 1e-9);
    close(
        &format!("{what}: GM_T"),
        r.gm_t,
        t / 2.0 + b * b / (12.0 * t) - kg,
        1e-9,
    );
    close(
        &format!("{what}: GM_L"),
        r.gm_l,
        t / 2.0 + l * l / (12.0 * t) - kg,
        1e-9,
    );
    close(&format!("{what}: I_T"), r.i_t, l * b.powi(3) / 12.0, 1e-9);
    // The roll axis is the longer side's world direction.
    let long_local = if x > z { DVec3::X } else { DVec3::Z };
    let long = eq.pose.rotation * long_local;
    let cross = r.roll_axis.perp_dot(DVec2::new(long.x, long.z));
    assert!(cross.abs() < 1e-9, "{what}: roll axis {} not along {long}", r.roll_axis);
    // The box's own inertia about that side, for the roll period.
    let i_roll = load.mass * (b * b + d * d) / 12.0 + load.mass * (d / 2.0 - kg).powi(2);
    close(&format!("{what}: roll inertia"), r.roll_inertia, i_roll, 1e-9);
    let a = attitude(eq.pose.rotation);
    assert!(
        a.heel.abs() < 1e-9 && a.trim.abs() < 1e-9 && !a.upside_down(),
        "{what}: {a:?}"
    );
}

#[test]
fn gm_is_about_the_waterplanes_principal_axes_whatever_the_heading_and_the_long_side() {
    for heading in [0.0, 0.5, -2.0] {
        box_upright_case(2.0, 5.0, heading);
        // Long across the body's local X: GM_T is still about the long side.
        box_upright_case(5.0, 2.0, heading);
    }
}

#[test]
fn a_centre_of_mass_above_the_deck_rests_upside_down_and_reads_heel_180() {
    // Upside down the old deck is the keel, so KG = d - c (negative: G hangs below the
    // water, under the new keel), KB = t/2 and GM_T = t/2 + b^2 / (12 t) - (d - c).
    let (l, b, d, t, c) = (4.0, 2.0, 1.0, 0.3, 5.0);
    let hull = hull(&barge(l as f32, b as f32, d as f32));
    let load = load(RHO * l * b * t, DVec3::new(0.0, c, 0.0));
    let level = hydrostatics(
        &hull,
        &load,
        &keel::hydrostatics::float_level(&hull, &load, &upright(DVec3::ZERO)).unwrap(),
        None,
    )
    .unwrap();
    assert!(level.gm_t < 0.0, "upright must be unstable: {level:?}");
    let eq = find_equilibrium(&hull, &load, &upright(DVec3::ZERO)).unwrap();
    let a = attitude(eq.pose.rotation);
    assert!(a.upside_down(), "{a:?}");
    close("heel", a.heel.abs().to_degrees(), 180.0, 1e-6);
    assert!(a.trim.abs() < 1e-6, "trim {}", a.trim);
    close("tilt", a.tilt.to_degrees(), 180.0, 1e-6);
    assert_eq!((eq.heel, eq.trim), (a.heel, a.trim));
    let r = hydrostatics(&hull, &load, &eq.pose, None).unwrap();
    close("draft", r.draft, t, 1e-9);
    close("KG", r.kg, d - c, 1e-9);
    close("GM_T upside down", r.gm_t, t / 2.0 + b * b / (12.0 * t) - (d - c), 1e-9);
    close("GM_L upside down", r.gm_l, t / 2.0 + l * l / (12.0 * t) - (d - c), 1e-9);
}

#[test]
fn attitude_undoes_heading_trim_and_heel_composed_in_that_order() {
    let mut rng = common::Rng::new(34);
    for _ in 0..200 {
        let heading = rng.range(-3.1, 3.1);
        let trim = rng.range(-1.5, 1.5);
        let heel = rng.range(-3.1, 3.1);
        let q = DQuat::from_euler(EulerRot::YXZ, heading, trim, heel);
        let a = attitude(q);
        for (what, got, want) in [
            ("heading", a.heading, heading),
            ("trim", a.trim, trim),
            ("heel", a.heel, heel),
        ] {
            assert!((got - want).abs() < 1e-9, "{what}: got {got}, want {want}");
        }
        let up = q * DVec3::Y;
        assert!((a.tilt - up.y.clamp(-1.0, 1.0).acos()).abs() < 1e-12);
    }
    // The quarter-turn cases by hand: bow down, +X side up, upside down.
    let deg = |r: f64| r.to_degrees();
    let a = attitude(DQuat::from_rotation_x(0.3));
    assert!((deg(a.trim) - deg(0.3)).abs() < 1e-9 && a.heel.abs() < 1e-12, "{a:?}");
    let a = attitude(DQuat::from_rotation_z(0.3));
    assert!((deg(a.heel) - deg(0.3)).abs() < 1e-9 && a.trim.abs() < 1e-12, "{a:?}");
    let a = attitude(DQuat::from_rotation_z(std::f64::consts::PI));
    assert!((deg(a.heel) - 180.0).abs() < 1e-9 && a.upside_down(), "{a:?}");
}
