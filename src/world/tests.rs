//! Batches against single steps, reuse of a batch's checks, outputs in place.

#[path = "../../tests/skip/mod.rs"]
mod skip;
use super::batch::PARALLEL_WRITE_FROM;
use super::*;
use crate::error::ErrorKind;
use crate::hull::box_mesh;

/// A two-thread world's batch is shared with its helper thread (the caller takes
/// groups from the front, the helper from the back), and gives each body the forces
/// it gets stepped on its own, to the bit.
#[test]
fn a_two_thread_batch_is_shared_with_the_helper_and_gives_single_steps_forces() {
    let scene = |threads: u32| {
        let mut world = World::new(&WorldDesc {
            thread_count: threads,
            ..WorldDesc::default()
        })
        .unwrap();
        let (vertices, indices) = box_mesh(glam::Vec3::new(1.0, 0.8, 1.5));
        let hull = world
            .create_hull(&HullDesc {
                vertices: &vertices,
                indices: &indices,
                flip_winding: false,
            })
            .unwrap();
        let mut ids = Vec::new();
        let mut states = Vec::new();
        for i in 0..40 {
            ids.push(
                world
                    .create_body(&BodyDesc {
                        hull,
                        mass: 300.0 + 10.0 * i as f64,
                        ..BodyDesc::default()
                    })
                    .unwrap(),
            );
            let x = i as f64;
            states.push(BodyState {
                position: DVec3::new(3.0 * x, -0.2 + 0.01 * x, 0.0),
                linear_velocity: DVec3::new(0.1 * x, -0.5, 0.2),
                angular_velocity: DVec3::new(0.3, 0.02 * x, -0.1),
                center_of_mass: DVec3::new(3.0 * x, -0.2 + 0.01 * x, 0.0),
                ..BodyState::default()
            });
        }
        (world, ids, states)
    };
    let (mut batched, ids, states) = scene(2);
    let (mut single, single_ids, _) = scene(1);
    let mut out = vec![BodyForces::default(); ids.len()];
    for _ in 0..3 {
        batched
            .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
        for ((id, state), batch) in single_ids.iter().zip(&states).zip(&out) {
            let alone = single.step_body(*id, state, 0.02).unwrap();
            assert_eq!(format!("{alone:?}"), format!("{batch:?}"));
        }
    }
    assert!(out.iter().all(|f| f.buoyancy_force.y > 0.0), "the boxes must float");
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        skip::skipped("this process may use one processor only, so no helper thread is started");
    } else {
        assert!(batched.helper.is_some(), "the batch did not start the helper");
    }
}

/// A batch of the same ids as the last reuses its checks and groups: what changes a
/// body's lane key or ends it since must be seen (forces compared to the bit with
/// each body stepped on its own in a twin world, as API.md requires of any batch).
#[test]
fn a_batch_of_the_last_ids_sees_every_change_since() {
    // One thread, and two (the batch shared with the helper, each thread checking its
    // own groups' states).
    for threads in [1, 2] {
        the_last_ids_again(threads);
    }
}

fn the_last_ids_again(threads: u32) {
    let scene = || {
        let mut world = World::new(&WorldDesc {
            thread_count: threads,
            ..WorldDesc::default()
        })
        .unwrap();
        let (vertices, indices) = box_mesh(glam::Vec3::new(1.0, 0.8, 1.5));
        let hull = world
            .create_hull(&HullDesc {
                vertices: &vertices,
                indices: &indices,
                flip_winding: false,
            })
            .unwrap();
        let mut ids = Vec::new();
        let mut states = Vec::new();
        for i in 0..20 {
            ids.push(
                world
                    .create_body(&BodyDesc {
                        hull,
                        mass: 300.0 + 10.0 * i as f64,
                        ..BodyDesc::default()
                    })
                    .unwrap(),
            );
            let x = i as f64;
            states.push(BodyState {
                position: DVec3::new(3.0 * x, -0.2 + 0.01 * x, 0.0),
                linear_velocity: DVec3::new(0.1 * x, -0.5, 0.2),
                angular_velocity: DVec3::new(0.3, 0.02 * x, -0.1),
                center_of_mass: DVec3::new(3.0 * x, -0.2 + 0.01 * x, 0.0),
                ..BodyState::default()
            });
        }
        (world, ids, states)
    };
    let (mut batched, mut ids, mut states) = scene();
    let (mut single, mut single_ids, _) = scene();
    fn agree(
        batched: &mut World,
        single: &mut World,
        ids: &[BodyId],
        single_ids: &[BodyId],
        states: &[BodyState],
    ) -> Vec<BodyForces> {
        let mut out = vec![BodyForces::default(); ids.len()];
        batched
            .step_bodies(ids, states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
        for ((id, state), batch) in single_ids.iter().zip(states).zip(&out) {
            let alone = single.step_body(*id, state, 0.02).unwrap();
            assert_eq!(format!("{alone:?}"), format!("{batch:?}"));
        }
        // And each body's detail replays its step in the batch (its triangles' forces
        // add up to the step's force).
        for (id, batch) in ids.iter().zip(&out) {
            let sum: DVec3 = batched.body(*id).unwrap().triangle_forces().map(|p| p.force).sum();
            assert!(
                (sum - batch.force).length() <= 1e-9 * batch.force.length(),
                "{sum} vs {}",
                batch.force
            );
        }
        out
    }
    let change = |world: &mut World, id: BodyId, f: &dyn Fn(BodyDesc) -> BodyDesc| {
        let desc = *world.body(id).unwrap().desc();
        world.set_body_desc(id, &f(desc)).unwrap();
    };
    for _ in 0..3 {
        agree(&mut batched, &mut single, &ids, &single_ids, &states);
    }
    // Out of the lanes (a buoyancy model they do not compute), ...
    let centroid = |d: BodyDesc| BodyDesc {
        buoyancy: crate::BuoyancyModel::PressureCentroid,
        ..d
    };
    for world in [(&mut batched, ids[3]), (&mut single, single_ids[3])] {
        change(world.0, world.1, &centroid);
    }
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    // ... back into them, and into a group of its own (other drag coefficients).
    let back = |d: BodyDesc| BodyDesc {
        buoyancy: crate::BuoyancyModel::Pressure,
        pressure_drag_linear: 2.0 * d.pressure_drag_linear,
        ..d
    };
    for world in [(&mut batched, ids[3]), (&mut single, single_ids[3])] {
        change(world.0, world.1, &back);
    }
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    // A body destroyed since is refused, and the batch changes nothing.
    let before = agree(&mut batched, &mut single, &ids, &single_ids, &states);
    let mut out = before.clone();
    batched.destroy_body(ids[7]).unwrap();
    let err = batched
        .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap_err();
    assert!(err.message.contains("bodies[7]"), "{}", err.message);
    assert_eq!(format!("{before:?}"), format!("{out:?}"));
    single.destroy_body(single_ids[7]).unwrap();
    for list in [&mut ids, &mut single_ids] {
        list.remove(7);
    }
    states.remove(7);
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    // A bad state in a batch of the last ids is still refused.
    let mut bad = states.clone();
    bad[2].linear_velocity.y = f64::NAN;
    let mut out = vec![BodyForces::default(); ids.len()];
    let err = batched
        .step_bodies(&ids, &bad, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap_err();
    assert!(err.message.contains("states[2]"), "{}", err.message);
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
    // Two, in other groups: the first is reported, the outputs are untouched, and the
    // bodies whose steps were taken before the refusal was known are as they were.
    // (The step before it elsewhere: a body whose step is wrongly undone would then
    // compare its next step with another history.)
    let lift = DVec3::new(0.0, 0.07, 0.0);
    let moved: Vec<BodyState> = states
        .iter()
        .map(|s| BodyState {
            position: s.position + lift,
            center_of_mass: s.center_of_mass + lift,
            linear_velocity: 1.5 * s.linear_velocity,
            ..*s
        })
        .collect();
    let before = agree(&mut batched, &mut single, &ids, &single_ids, &moved);
    let mut bad = moved.clone();
    bad[16].rotation = glam::DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    bad[9].angular_velocity.x = f64::INFINITY;
    let mut out = before.clone();
    let err = batched
        .step_bodies(&ids, &bad, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(err.message.starts_with("states[9]: "), "{}", err.message);
    assert_eq!(format!("{before:?}"), format!("{out:?}"));
    agree(&mut batched, &mut single, &ids, &single_ids, &states);
}

/// A host's water, asked from the calling thread (as a callback is).
#[derive(Debug)]
struct SlopedWater;

impl crate::water::WaterQuery for SlopedWater {
    fn query(
        &self,
        points: &[DVec3],
        _time: f64,
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        velocities: Option<&mut [DVec3]>,
    ) {
        for (h, p) in heights.iter_mut().zip(points) {
            *h = 0.01 * p.x;
        }
        normals.into_iter().flatten().for_each(|n| *n = DVec3::Y);
        velocities
            .into_iter()
            .flatten()
            .for_each(|v| *v = DVec3::new(0.1, 0.0, 0.0));
    }
}

/// A batch big enough to have its outputs written by every thread
/// ([`PARALLEL_WRITE_FROM`]) writes each body's forces to its own index, whatever the
/// order of its ids and groups: two hulls taken in an irregular order, bodies out of
/// the lanes among them, forces compared to the bit with single steps.
#[test]
fn a_big_batch_writes_each_output_where_it_belongs() {
    for threads in [1, 2, 3] {
        let scene = || {
            let mut world = World::new(&WorldDesc {
                thread_count: threads,
                ..WorldDesc::default()
            })
            .unwrap();
            let hulls: Vec<HullId> = [glam::Vec3::new(1.0, 0.8, 1.5), glam::Vec3::new(2.0, 1.0, 1.0)]
                .iter()
                .map(|&size| {
                    let (vertices, indices) = box_mesh(size);
                    world
                        .create_hull(&HullDesc {
                            vertices: &vertices,
                            indices: &indices,
                            flip_winding: false,
                        })
                        .unwrap()
                })
                .collect();
            let mut ids = Vec::new();
            let mut states = Vec::new();
            for i in 0..PARALLEL_WRITE_FROM + 37 {
                let buoyancy = if i % 97 == 5 {
                    crate::BuoyancyModel::PressureCentroid
                } else {
                    crate::BuoyancyModel::Pressure
                };
                let desc = BodyDesc {
                    hull: hulls[(i * 7 / 5) % 2],
                    mass: 300.0 + (i % 13) as f64,
                    buoyancy,
                    ..BodyDesc::default()
                };
                ids.push(world.create_body(&desc).unwrap());
                let x = i as f64;
                let position = DVec3::new(3.0 * x, -0.2 + 0.001 * (i % 50) as f64, 0.0);
                states.push(BodyState {
                    position,
                    linear_velocity: DVec3::new(0.01 * (i % 30) as f64, -0.5, 0.2),
                    angular_velocity: DVec3::new(0.3, 0.002 * (i % 40) as f64, -0.1),
                    center_of_mass: position,
                    ..BodyState::default()
                });
            }
            (world, ids, states)
        };
        let (mut batched, ids, states) = scene();
        let (mut single, single_ids, _) = scene();
        let mut out = vec![BodyForces::default(); ids.len()];
        // New ids, then the same ids again (reused checks and groups).
        for batch in 0..2 {
            batched
                .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
                .unwrap();
            for (i, ((id, state), written)) in single_ids.iter().zip(&states).zip(&out).enumerate() {
                let alone = single.step_body(*id, state, 0.02).unwrap();
                assert_eq!(
                    format!("{alone:?}"),
                    format!("{written:?}"),
                    "{threads} thread(s), batch {batch}, body {i}"
                );
            }
        }
    }
}

/// `state_of` is called once per body and batch, whichever way the batch goes (new
/// ids or the last ones, water asked from the calling thread or not, one thread or
/// two), so a host's `state_of` need not answer the same twice; and a refused state
/// in a batch of the last ids fails it with nothing changed, however its water is
/// asked.
#[test]
fn state_of_is_called_once_per_body_and_batch() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    for serial in [false, true] {
        for threads in [1, 2] {
            let scene = || {
                let mut world = World::new(&WorldDesc {
                    thread_count: threads,
                    ..WorldDesc::default()
                })
                .unwrap();
                if serial {
                    world.set_water(Water::Custom(Arc::new(SlopedWater)));
                }
                let (vertices, indices) = box_mesh(glam::Vec3::new(1.0, 0.8, 1.5));
                let hull = world
                    .create_hull(&HullDesc {
                        vertices: &vertices,
                        indices: &indices,
                        flip_winding: false,
                    })
                    .unwrap();
                let mut ids = Vec::new();
                let mut states = Vec::new();
                for i in 0..20 {
                    // One body out of the lanes, stepped alone in its group.
                    let buoyancy = if i == 6 {
                        crate::BuoyancyModel::PressureCentroid
                    } else {
                        crate::BuoyancyModel::Pressure
                    };
                    let desc = BodyDesc {
                        hull,
                        mass: 300.0 + 10.0 * i as f64,
                        buoyancy,
                        ..BodyDesc::default()
                    };
                    ids.push(world.create_body(&desc).unwrap());
                    let x = i as f64;
                    let position = DVec3::new(3.0 * x, -0.2 + 0.01 * x, 0.0);
                    states.push(BodyState {
                        position,
                        linear_velocity: DVec3::new(0.1 * x, -0.5, 0.2),
                        angular_velocity: DVec3::new(0.3, 0.02 * x, -0.1),
                        center_of_mass: position,
                        ..BodyState::default()
                    });
                }
                (world, ids, states)
            };
            let (mut batched, ids, states) = scene();
            let (mut single, single_ids, _) = scene();
            let calls: Vec<AtomicUsize> = (0..ids.len()).map(|_| AtomicUsize::new(0)).collect();
            let tagged: Vec<(usize, BodyState)> = states.iter().copied().enumerate().collect();
            let counted = |(i, s): &(usize, BodyState)| {
                calls[*i].fetch_add(1, Ordering::Relaxed);
                *s
            };
            let mut out = vec![BodyForces::default(); ids.len()];
            let case = format!("serial water {serial}, {threads} thread(s)");
            // New ids, then the same ids (reused checks and groups), twice.
            for batch in 1..=3 {
                batched
                    .step_bodies(&ids, &tagged, 0.02, &mut out, counted, |f, o| *o = *f)
                    .unwrap();
                for (i, c) in calls.iter().enumerate() {
                    assert_eq!(c.load(Ordering::Relaxed), batch, "{case}: batch {batch}, body {i}");
                }
                for ((id, state), batch) in single_ids.iter().zip(&states).zip(&out) {
                    let alone = single.step_body(*id, state, 0.02).unwrap();
                    assert_eq!(format!("{alone:?}"), format!("{batch:?}"), "{case}");
                }
            }
            // Two refused states in a batch of the last ids: the first is reported,
            // the outputs are untouched, and no body has changed.
            let mut bad = tagged.clone();
            bad[13].1.position.x = f64::NAN;
            bad[4].1.rotation = glam::DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
            let before = out.clone();
            let err = batched
                .step_bodies(&ids, &bad, 0.02, &mut out, counted, |f, o| *o = *f)
                .unwrap_err();
            assert!(err.message.starts_with("states[4]: "), "{case}: {}", err.message);
            assert_eq!(format!("{before:?}"), format!("{out:?}"), "{case}");
            assert!(calls.iter().all(|c| c.load(Ordering::Relaxed) <= 4), "{case}");
            for (id, single_id) in ids.iter().zip(&single_ids) {
                let detail = |w: &mut World, id: BodyId| {
                    format!("{:?}", w.body(id).unwrap().submerged_triangles().collect::<Vec<_>>())
                };
                assert_eq!(detail(&mut batched, *id), detail(&mut single, *single_id), "{case}");
            }
            batched
                .step_bodies(&ids, &tagged, 0.02, &mut out, counted, |f, o| *o = *f)
                .unwrap();
            for ((id, state), batch) in single_ids.iter().zip(&states).zip(&out) {
                let alone = single.step_body(*id, state, 0.02).unwrap();
                assert_eq!(format!("{alone:?}"), format!("{batch:?}"), "{case}");
            }
        }
    }
}
