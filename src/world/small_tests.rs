//! Small bodies' fixed costs (issue 35): hulls shared by their geometry, flat water that
//! samples nothing.

use super::*;
use crate::hull::box_mesh;
use crate::water::{FlatWater, GerstnerWater, GerstnerWave, HeightfieldWater, PerlinWater, SAMPLED};

fn one_thread() -> World {
    World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap()
}

/// A hull from buffers of its own (as a host with a `Mesh` object per body makes them).
fn hull_from_copies(world: &mut World, size: Vec3, flip_winding: bool) -> Result<HullId> {
    let (vertices, indices) = box_mesh(size);
    let (vertices, indices) = (vertices.to_vec(), indices.to_vec());
    world.create_hull(&HullDesc {
        vertices: &vertices,
        indices: &indices,
        flip_winding,
    })
}

/// Bodies on `hulls`, one each, stepped three times in a batch and then each alone;
/// every answer, in order, as text (`Debug` of f64 prints every bit that matters).
fn forces(world: &mut World, hulls: &[HullId]) -> Vec<String> {
    let ids: Vec<BodyId> = hulls
        .iter()
        .map(|&hull| {
            world
                .create_body(&BodyDesc {
                    hull,
                    mass: 400.0,
                    ..BodyDesc::default()
                })
                .unwrap()
        })
        .collect();
    let states: Vec<BodyState> = (0..ids.len())
        .map(|i| {
            let x = 3.0 * i as f64;
            BodyState {
                position: DVec3::new(x, -0.15, 0.5),
                rotation: DQuat::from_rotation_z(0.2),
                linear_velocity: DVec3::new(0.4, -0.3, 0.1),
                angular_velocity: DVec3::new(0.2, -0.1, 0.3),
                center_of_mass: DVec3::new(x, -0.15, 0.5),
            }
        })
        .collect();
    let mut answers = Vec::new();
    let mut out = vec![BodyForces::default(); ids.len()];
    for _ in 0..3 {
        world
            .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
        answers.extend(out.iter().map(|f| format!("{f:?}")));
    }
    for (id, state) in ids.iter().zip(&states) {
        answers.push(format!("{:?}", world.step_body(*id, state, 0.02).unwrap()));
    }
    answers
}

#[test]
fn hulls_of_one_geometry_are_one_hull_behind_distinct_handles() {
    let size = Vec3::new(1.0, 0.6, 1.4);
    let mut world = one_thread();
    let a = hull_from_copies(&mut world, size, false).unwrap();
    let b = hull_from_copies(&mut world, size, false).unwrap();
    assert_ne!(a, b, "each creation gets a handle of its own");
    assert_eq!((world.hull_count(), world.unique_hull_count()), (2, 1));
    assert!(Arc::ptr_eq(&world.hull(a).unwrap(), &world.hull(b).unwrap()));
    assert_eq!(world.hull_info(a).unwrap(), world.hull_info(b).unwrap());

    // Their bodies are stepped together (one lane key), with the forces of bodies of one
    // handle: the same bits as a world that made the hull once.
    let shared = forces(&mut world, &[a, b]);
    let ids: Vec<BodyId> = world.bodies().map(|(id, _)| id).collect();
    assert_eq!(
        world.body(ids[0]).unwrap().lane_key(),
        world.body(ids[1]).unwrap().lane_key()
    );
    let mut once = one_thread();
    let only = hull_from_copies(&mut once, size, false).unwrap();
    assert_eq!(shared, forces(&mut once, &[only, only]));

    // Destroying one handle (with its body) keeps the other's hull and body working,
    // with the same forces as before.
    world.destroy_body(ids[0]).unwrap();
    world.destroy_hull(a).unwrap();
    assert!(world.hull_info(a).is_err(), "a destroyed handle must stay destroyed");
    assert_eq!((world.hull_count(), world.unique_hull_count()), (1, 1));
    let state = BodyState {
        position: DVec3::new(3.0, -0.15, 0.5),
        rotation: DQuat::from_rotation_z(0.2),
        linear_velocity: DVec3::new(0.4, -0.3, 0.1),
        angular_velocity: DVec3::new(0.2, -0.1, 0.3),
        center_of_mass: DVec3::new(3.0, -0.15, 0.5),
    };
    let again = world.step_body(ids[1], &state, 0.02).unwrap();
    let once_ids: Vec<BodyId> = once.bodies().map(|(id, _)| id).collect();
    assert_eq!(
        format!("{again:?}"),
        format!("{:?}", once.step_body(once_ids[1], &state, 0.02).unwrap())
    );
    // A hull still used is not destroyed, shared or not.
    assert!(world.destroy_hull(b).is_err());
    world.destroy_body(ids[1]).unwrap();
    world.destroy_hull(b).unwrap();
    assert_eq!((world.hull_count(), world.unique_hull_count()), (0, 0));
    // The geometry comes back as a hull of its own.
    let c = hull_from_copies(&mut world, size, false).unwrap();
    assert_eq!((world.hull_count(), world.unique_hull_count()), (1, 1));
    assert!(world.hull(c).is_ok());
}

#[test]
fn hulls_of_different_geometry_are_never_shared() {
    let mut world = one_thread();
    let a = hull_from_copies(&mut world, Vec3::new(1.0, 0.6, 1.4), false).unwrap();
    // Another size; the same box by one float's last bit; the same box from another
    // vertex order (the same welded shape, other triangles of the mesh passed in).
    let b = hull_from_copies(&mut world, Vec3::new(1.0, 0.6, 1.5), false).unwrap();
    let c = hull_from_copies(
        &mut world,
        Vec3::new(1.0, 0.6, f32::from_bits(1.4f32.to_bits() + 1)),
        false,
    )
    .unwrap();
    let (vertices, indices) = box_mesh(Vec3::new(1.0, 0.6, 1.4));
    let mut reordered = indices.to_vec();
    reordered.rotate_left(3);
    let d = world
        .create_hull(&HullDesc {
            vertices: &vertices,
            indices: &reordered,
            flip_winding: false,
        })
        .unwrap();
    assert_eq!((world.hull_count(), world.unique_hull_count()), (4, 4));
    for (x, y) in [(a, b), (a, c), (a, d), (b, c)] {
        assert!(!Arc::ptr_eq(&world.hull(x).unwrap(), &world.hull(y).unwrap()));
    }
    // A mesh refused shares nothing and counts nothing.
    assert!(
        world
            .create_hull(&HullDesc {
                vertices: &vertices,
                indices: &[0, 1],
                flip_winding: false,
            })
            .is_err()
    );
    assert_eq!((world.hull_count(), world.unique_hull_count()), (4, 4));
}

fn flat_waters(level: f64) -> Vec<(&'static str, Water)> {
    let still = |amplitude: f64, steepness: f64| GerstnerWave {
        amplitude,
        wavelength: 9.0,
        direction: glam::DVec2::new(1.0, 0.3),
        steepness,
        phase: 0.4,
    };
    vec![
        (
            "Perlin of no height",
            Water::Perlin(Box::new(PerlinWater::new(level, 0.3, 0.7, 0.0, false).unwrap())),
        ),
        (
            "Perlin of no height, only x",
            Water::Perlin(Box::new(PerlinWater::new(level, 0.3, 0.7, 0.0, true).unwrap())),
        ),
        (
            "a sea of no waves",
            Water::Gerstner(GerstnerWater::new(&[], level, 9.81).unwrap()),
        ),
        (
            "a sea of still waves",
            Water::Gerstner(GerstnerWater::new(&[still(0.0, 0.0), still(0.0, 0.0)], level, 9.81).unwrap()),
        ),
        (
            "a heightfield of one height",
            Water::Heightfield(Box::new(
                HeightfieldWater::new(&[level as f32; 12], 4, 3, -5.0, -5.0, 2.0, false).unwrap(),
            )),
        ),
    ]
}

/// The bodies' answers on `water`, and how many points were asked of any water on this
/// thread meanwhile (a one-thread world steps on the caller's).
fn on(water: Water, hulls: usize) -> (Vec<String>, usize) {
    let mut world = one_thread();
    world.set_water(water);
    world.set_time(2.5).unwrap();
    let hull = hull_from_copies(&mut world, Vec3::new(1.0, 0.6, 1.4), false).unwrap();
    let before = SAMPLED.with(|n| n.get());
    let answers = forces(&mut world, &vec![hull; hulls]);
    (answers, SAMPLED.with(|n| n.get()) - before)
}

#[test]
fn water_that_is_flat_is_stepped_as_flat_water_and_samples_nothing() {
    // 0.25 is a float; the heightfield's f32 height is the same number.
    let level = 0.25;
    let (flat, asked) = on(Water::Flat(FlatWater { level }), 11);
    assert_eq!(asked, 0, "bodies on flat water asked the water about {asked} points");
    for (name, water) in flat_waters(level) {
        assert_eq!(water.as_flat(), Some(FlatWater { level }), "{name}");
        let (answers, asked) = on(water, 11);
        assert_eq!(asked, 0, "{name}: {asked} points sampled");
        assert!(answers == flat, "{name}: not flat water's bits");
    }
    // The counter counts: waves that are not flat are sampled.
    let waves = Water::Perlin(Box::new(PerlinWater::new(level, 0.3, 0.7, 0.2, false).unwrap()));
    assert_eq!(waves.as_flat(), None);
    let (answers, asked) = on(waves, 11);
    assert!(asked > 0, "Perlin waves were never sampled");
    assert!(answers != flat);
}

#[test]
fn water_that_moves_is_not_taken_for_flat() {
    let wave = |amplitude: f64, steepness: f64| GerstnerWave {
        amplitude,
        wavelength: 9.0,
        direction: glam::DVec2::X,
        steepness,
        phase: 0.0,
    };
    let mut heights = [0.5f32; 12];
    heights[7] = 0.5000001;
    let moving = [
        // No amplitude, but the water still goes round its orbits.
        Water::Gerstner(GerstnerWater::new(&[wave(0.0, 0.3)], 0.0, 9.81).unwrap()),
        Water::Gerstner(GerstnerWater::new(&[wave(0.0, 0.0), wave(1e-9, 0.0)], 0.0, 9.81).unwrap()),
        Water::Perlin(Box::new(PerlinWater::new(0.0, 0.3, 0.7, 1e-300, false).unwrap())),
        Water::Heightfield(Box::new(
            HeightfieldWater::new(&heights, 4, 3, 0.0, 0.0, 1.0, true).unwrap(),
        )),
    ];
    for water in moving {
        assert_eq!(water.as_flat(), None, "{water:?}");
        let mut world = one_thread();
        world.set_water(water);
        assert!(world.flat_water.is_none(), "a world took water that moves for flat");
    }
}

/// `count` boxes of one hull stepped three times in a batch by a world of `threads`
/// threads: their forces as text, and on which of the world's pool threads the third step
/// read each state (a batch of the last batch's ids reads them where it steps them;
/// `None`: the caller's thread).
fn boxes_thrice(threads: u32, count: usize) -> (Vec<String>, Vec<Option<usize>>) {
    let mut world = World::new(&WorldDesc {
        thread_count: threads,
        ..WorldDesc::default()
    })
    .unwrap();
    let (vertices, indices) = box_mesh(Vec3::new(1.0, 0.6, 0.8));
    let hull = world
        .create_hull(&HullDesc {
            vertices: &vertices,
            indices: &indices,
            flip_winding: false,
        })
        .unwrap();
    let ids: Vec<BodyId> = (0..count)
        .map(|_| {
            world
                .create_body(&BodyDesc {
                    hull,
                    mass: 300.0,
                    ..BodyDesc::default()
                })
                .unwrap()
        })
        .collect();
    let states: Vec<BodyState> = (0..count)
        .map(|i| {
            let at = DVec3::new(2.0 * i as f64, -0.1, 0.0);
            BodyState {
                position: at,
                rotation: DQuat::from_rotation_x(0.1 * i as f64),
                linear_velocity: DVec3::new(0.2, -0.1, 0.0),
                angular_velocity: DVec3::new(0.0, 0.1, 0.2),
                center_of_mass: at,
            }
        })
        .collect();
    let mut out = vec![BodyForces::default(); count];
    // (From the third step on, every body has a history and the batch's checks are reused.)
    for _ in 0..2 {
        world
            .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
    }
    let read_on = Mutex::new(Vec::new());
    world
        .step_bodies(
            &ids,
            &states,
            0.02,
            &mut out,
            |s| {
                read_on.lock().unwrap().push(rayon::current_thread_index());
                *s
            },
            |f, o| *o = *f,
        )
        .unwrap();
    let forces = out.iter().map(|f| format!("{f:?}")).collect();
    (forces, read_on.into_inner().unwrap())
}

#[test]
fn one_group_of_small_bodies_is_stepped_on_the_callers_thread_with_its_bits() {
    // Up to eight boxes of one hull are one group: one thread's work, handed to no pool.
    let (alone, _) = boxes_thrice(1, 6);
    let (pooled, read_on) = boxes_thrice(4, 6);
    assert_eq!(pooled, alone);
    assert_eq!(read_on, vec![None; 6], "a one-group batch went to the pool");
    // Two groups are shared among the pool's threads, with the same bits.
    let (alone, _) = boxes_thrice(1, 12);
    let (pooled, read_on) = boxes_thrice(4, 12);
    assert_eq!(pooled, alone);
    assert_eq!(read_on.len(), 12);
}

/// `count` one-metre boxes of one hull with their centres at the surface of flat water,
/// box `i` turned by `turn(i)`, in a one-thread world.
fn turned_boxes(count: usize, turn: impl Fn(usize) -> DQuat) -> (World, Vec<BodyId>, Vec<BodyState>) {
    let mut world = one_thread();
    let (vertices, indices) = box_mesh(Vec3::ONE);
    let desc = HullDesc {
        vertices: &vertices,
        indices: &indices,
        flip_winding: false,
    };
    let hull = world.create_hull(&desc).unwrap();
    let desc = BodyDesc {
        hull,
        mass: 500.0,
        ..BodyDesc::default()
    };
    let ids: Vec<BodyId> = (0..count).map(|_| world.create_body(&desc).unwrap()).collect();
    let states = (0..count).map(|i| turned_state(i, turn(i))).collect();
    (world, ids, states)
}

/// Box `i`'s state: 3 m from the last, its centre at the surface, turned by `rotation`.
fn turned_state(i: usize, rotation: DQuat) -> BodyState {
    let at = DVec3::new(3.0 * i as f64, 0.0, 0.0);
    BodyState {
        position: at,
        rotation,
        linear_velocity: DVec3::new(0.2, -0.1, 0.1),
        angular_velocity: DVec3::new(0.1, 0.2, -0.1),
        center_of_mass: at,
    }
}

/// Two ways to turn a box that the water cuts differently: nearly upright (its four
/// bottom corners under) and onto an edge (two corners under, two on the surface's
/// other side than upright).
fn upright_or_on_edge(i: usize) -> DQuat {
    if i.is_multiple_of(2) {
        DQuat::from_rotation_z(0.05)
    } else {
        DQuat::from_rotation_x(0.8) * DQuat::from_rotation_z(0.1)
    }
}

/// How the water cut body `id` at its last step.
fn sides(world: &World, id: BodyId) -> u64 {
    crate::body::sides_of(&lock(world.bodies.get(id.0).unwrap()).samples().heights)
}

fn step(world: &mut World, ids: &[BodyId], states: &[BodyState]) -> Vec<String> {
    let mut out = vec![BodyForces::default(); ids.len()];
    world
        .step_bodies(ids, states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap();
    out.iter().map(|f| format!("{f:?}")).collect()
}

/// Every group of the last batch has members the water cuts alike.
fn groups_are_alike(world: &World, ids: &[BodyId]) -> bool {
    world.batch.lane_groups().iter().all(|g| {
        let first = sides(world, ids[g[0] as usize]);
        g.iter().all(|&i| sides(world, ids[i as usize]) == first)
    })
}

#[test]
fn bodies_the_water_cuts_alike_are_grouped_together_with_their_bits() {
    // Upright and edge-on boxes in turn: grouped in the order of the batch, every group
    // would hold both, and their triangles would take the general kernel.
    let (mut world, ids, states) = turned_boxes(16, upright_or_on_edge);
    let mut batch = Vec::new();
    for _ in 0..3 {
        batch.push(step(&mut world, &ids, &states));
    }
    assert_ne!(
        sides(&world, ids[0]),
        sides(&world, ids[1]),
        "the two ways are cut alike"
    );
    let evens: Vec<u32> = (0..16).step_by(2).collect();
    let odds: Vec<u32> = (1..16).step_by(2).collect();
    let mut groups = world.batch.lane_groups();
    groups.sort();
    assert_eq!(groups, vec![evens, odds]);
    assert!(groups_are_alike(&world, &ids));
    // Pure groups are kept: the next batch reuses its checks and groups.
    assert!(world.batch.reusable);
    // The same bits as each body stepped alone.
    let (mut alone, ids, states) = turned_boxes(16, upright_or_on_edge);
    for answers in &batch {
        let each: Vec<String> = ids
            .iter()
            .zip(&states)
            .map(|(&id, s)| format!("{:?}", alone.step_body(id, s, 0.02).unwrap()))
            .collect();
        assert_eq!(&each, answers);
    }
}

#[test]
fn groups_follow_bodies_that_turn() {
    let (mut world, ids, mut states) = turned_boxes(16, upright_or_on_edge);
    for _ in 0..3 {
        step(&mut world, &ids, &states);
    }
    assert!(groups_are_alike(&world, &ids));
    // Half the boxes of each group turn over, upright onto an edge and back: the groups
    // are now mixed, and the next batch groups the bodies again, by how the water cuts
    // them now.
    for (i, state) in states.iter_mut().enumerate().take(8) {
        *state = turned_state(i, upright_or_on_edge(i + 1));
    }
    step(&mut world, &ids, &states);
    assert!(!groups_are_alike(&world, &ids));
    assert!(!world.batch.reusable, "mixed groups were kept");
    step(&mut world, &ids, &states);
    assert!(groups_are_alike(&world, &ids), "{:?}", world.batch.lane_groups());
    let mut groups = world.batch.lane_groups();
    groups.sort();
    assert_eq!(
        groups,
        vec![vec![0, 2, 4, 6, 9, 11, 13, 15], vec![1, 3, 5, 7, 8, 10, 12, 14]]
    );
    assert!(world.batch.reusable);
}

#[test]
fn groups_that_cannot_be_alike_are_kept() {
    // Six upright and six edge-on boxes: some group holds both however they are grouped.
    // The batch keeps its groups (and its checks) rather than making them again each step.
    let (mut world, ids, states) = turned_boxes(12, |i| upright_or_on_edge(usize::from(i >= 6)));
    for _ in 0..2 {
        step(&mut world, &ids, &states);
    }
    assert!(!groups_are_alike(&world, &ids));
    for _ in 0..3 {
        step(&mut world, &ids, &states);
        assert!(world.batch.reusable);
    }
}
