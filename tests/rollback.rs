//! Rollback and replay (issue 30): a snapshot restored, the same frames stepped again,
//! the same bits; the state hash agrees; snapshots of another hull, version or length are
//! refused.

mod common;

use common::sim::RigidBody;
use common::{bunny, simple_box};
use glam::{DQuat, DVec2, DVec3};
use keel::forces::{FORCE_ALL, FORCE_DAMPING, FORCE_LUMPED_RESISTANCE, FORCE_SLAMMING};
use keel::{BodyDesc, BodyForces, BodyId, ErrorKind, GerstnerWater, GerstnerWave, HullId, Water, World, WorldDesc};

const DT: f64 = 1.0 / 60.0;

/// A Gerstner sea with a current and a wind, every force on: boxes (stepped in the
/// lanes), a box with the lumped resistance (out of them) and a bunny (the whole-triangle
/// path and the water patch), each with the host's rigid body that integrates it.
struct Scene {
    world: World,
    ids: Vec<BodyId>,
    hosts: Vec<RigidBody>,
    box_hull: HullId,
    bunny_hull: HullId,
}

fn scene(threads: u32, boxes: usize) -> Scene {
    let mut world = World::new(&WorldDesc {
        thread_count: threads,
        ..WorldDesc::default()
    })
    .unwrap();
    let waves = [
        GerstnerWave {
            amplitude: 0.6,
            wavelength: 14.0,
            direction: DVec2::new(1.0, 0.3),
            steepness: 0.5,
            phase: 0.0,
        },
        GerstnerWave {
            amplitude: 0.25,
            wavelength: 5.0,
            direction: DVec2::new(-0.2, 1.0),
            steepness: 0.4,
            phase: 1.0,
        },
    ];
    world.set_water(Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).unwrap()));
    world.set_time(3.0).unwrap();
    world.set_wind(DVec3::new(8.0, 0.0, -3.0)).unwrap();
    world.set_current(DVec3::new(0.4, 0.0, 0.2)).unwrap();
    let size = DVec3::new(2.0, 0.8, 1.2);
    let box_hull = world
        .create_hull(&simple_box(size.as_vec3(), glam::Vec3::ZERO).desc())
        .unwrap();
    let bunny_hull = world.create_hull(&bunny(0.1).desc()).unwrap();
    // Every force (the lumped resistance replaces the per-triangle resistances).
    let every_lane_force = FORCE_ALL & !FORCE_LUMPED_RESISTANCE;
    let lumped_forces = FORCE_SLAMMING | FORCE_DAMPING | FORCE_LUMPED_RESISTANCE;
    let mut ids = Vec::new();
    let mut hosts = Vec::new();
    for i in 0..boxes {
        let lumped = i % 5 == 4;
        let desc = BodyDesc {
            hull: box_hull,
            mass: 600.0,
            forces: if lumped { lumped_forces } else { every_lane_force },
            ..BodyDesc::default()
        };
        ids.push(world.create_body(&desc).unwrap());
        let x = i as f64;
        // Dropped from a little height, tilted: slamming has entries to remember.
        let mut host = RigidBody::homogeneous_box(
            size,
            600.0,
            DVec3::new(4.0 * x, 0.6 + 0.05 * x, -2.0 * x),
            DQuat::from_rotation_z(0.2) * DQuat::from_rotation_x(0.1 * x),
        );
        host.velocity = DVec3::new(0.5, -1.5, 0.0);
        hosts.push(host);
    }
    let desc = BodyDesc {
        hull: bunny_hull,
        mass: 40.0,
        forces: every_lane_force,
        ..BodyDesc::default()
    };
    assert_ne!(desc.forces & FORCE_DAMPING, 0);
    ids.push(world.create_body(&desc).unwrap());
    let mut host = RigidBody::homogeneous_box(
        DVec3::splat(0.8),
        40.0,
        DVec3::new(-5.0, 0.4, 3.0),
        DQuat::from_rotation_y(0.7),
    );
    host.velocity = DVec3::new(0.0, -2.0, 0.3);
    hosts.push(host);
    Scene {
        world,
        ids,
        hosts,
        box_hull,
        bunny_hull,
    }
}

impl Scene {
    /// One frame: every body stepped (in a batch, or one at a time), integrated, and the
    /// water's time moved on. Returns the forces' bits and the state hash after.
    fn frame(&mut self, batch: bool) -> (Vec<[u64; 31]>, u64) {
        let states: Vec<_> = self.hosts.iter().map(RigidBody::state).collect();
        let forces = if batch {
            let mut out = vec![BodyForces::default(); self.ids.len()];
            self.world
                .step_bodies(&self.ids, &states, DT, &mut out, |s| *s, |f, o| *o = *f)
                .unwrap();
            out
        } else {
            self.ids
                .iter()
                .zip(&states)
                .map(|(id, s)| self.world.step_body(*id, s, DT).unwrap())
                .collect()
        };
        let gravity = self.world.desc().gravity;
        for (host, f) in self.hosts.iter_mut().zip(&forces) {
            host.integrate(f.force, f.torque, gravity, DT);
        }
        let time = self.world.time();
        self.world.set_time(time + DT).unwrap();
        (
            forces.iter().map(BodyForces::to_bits).collect(),
            self.world.state_hash(),
        )
    }

    fn frames(&mut self, n: usize, batch: bool) -> Vec<(Vec<[u64; 31]>, u64)> {
        (0..n).map(|_| self.frame(batch)).collect()
    }
}

fn slamming_of(frames: &[(Vec<[u64; 31]>, u64)]) -> bool {
    // Bits 15..18 are the slamming force.
    frames
        .iter()
        .any(|(f, _)| f.iter().any(|b| b[15..18].iter().any(|&x| f64::from_bits(x) != 0.0)))
}

#[test]
fn a_world_restored_steps_the_same_frames_to_the_same_bits() {
    for (threads, batch) in [(1, false), (1, true), (2, true), (3, true)] {
        let case = format!("{threads} thread(s), batch {batch}");
        let mut s = scene(threads, 11);
        s.frames(4, batch);
        let mut snapshot = vec![0u8; s.world.snapshot_size()];
        assert_eq!(s.world.snapshot(&mut snapshot).unwrap(), snapshot.len());
        let hash = s.world.state_hash();
        let (hosts, time) = (s.hosts.clone(), s.world.time());
        let first = s.frames(12, batch);
        assert!(slamming_of(&first), "{case}: the scene must slam");
        assert!(first.iter().all(|(_, h)| *h != hash), "{case}: a step changes the hash");
        // The host's bodies back, keel's not: the history of twelve frames later shows.
        s.hosts.clone_from(&hosts);
        s.world.set_time(time).unwrap();
        let unrestored = s.frames(1, batch);
        assert_ne!(unrestored[0].0, first[0].0, "{case}: the restore must matter");
        // Then keel's too: the same bits, frame after frame, and the same hashes.
        s.hosts.clone_from(&hosts);
        s.world.set_time(99.0).unwrap();
        s.world.restore(&snapshot).unwrap();
        assert_eq!(s.world.time(), time, "{case}");
        assert_eq!(s.world.state_hash(), hash, "{case}");
        let again = s.frames(12, batch);
        assert_eq!(first, again, "{case}");
    }
}

#[test]
fn a_body_restored_alone_steps_to_the_same_bits() {
    for batch in [false, true] {
        let mut s = scene(2, 6);
        s.frames(3, batch);
        let snapshots: Vec<Vec<u8>> = s
            .ids
            .iter()
            .map(|id| {
                let mut bytes = vec![0u8; s.world.body_snapshot_size(*id).unwrap()];
                s.world.snapshot_body(*id, &mut bytes).unwrap();
                bytes
            })
            .collect();
        let (hosts, time, hash) = (s.hosts.clone(), s.world.time(), s.world.state_hash());
        let first = s.frames(8, batch);
        s.hosts = hosts;
        s.world.set_time(time).unwrap();
        for (id, bytes) in s.ids.iter().zip(&snapshots) {
            s.world.restore_body(*id, bytes).unwrap();
        }
        assert_eq!(s.world.state_hash(), hash);
        assert_eq!(first, s.frames(8, batch), "batch {batch}");
    }
}

/// A batch of the same bodies as the last one reuses its checks and groups, which are
/// keyed on whether each body has a last step: a restore to before the first step must
/// end that reuse.
#[test]
fn a_restore_to_before_the_first_step_ends_the_reuse_of_a_batchs_groups() {
    let mut s = scene(1, 17);
    let mut fresh = vec![0u8; s.world.snapshot_size()];
    s.world.snapshot(&mut fresh).unwrap();
    let (hosts, time, hash) = (s.hosts.clone(), s.world.time(), s.world.state_hash());
    let first = s.frames(4, true);
    s.hosts = hosts;
    s.world.set_time(time).unwrap();
    s.world.restore(&fresh).unwrap();
    assert_eq!(s.world.state_hash(), hash);
    assert_eq!(first, s.frames(4, true));
}

#[test]
fn two_worlds_of_the_same_bodies_in_the_same_state_have_the_same_hash() {
    let mut a = scene(1, 5);
    let mut b = scene(2, 5);
    assert_eq!(a.world.state_hash(), b.world.state_hash());
    // One world steps in batches, the other one body at a time (a box then has no
    // company in the lanes): the same forces, and the same hash.
    let (fa, fb) = (a.frames(20, true), b.frames(20, false));
    assert_eq!(fa, fb);
    // One body nudged in one world: a desync, seen at the next frame.
    b.hosts[2].velocity.y += 0.01;
    assert_ne!(a.frame(true).1, b.frame(true).1);
}

#[test]
fn snapshots_of_another_hull_version_or_length_are_refused_with_nothing_changed() {
    let mut s = scene(1, 3);
    s.frames(3, false);
    let (boxed, bunny) = (s.ids[0], *s.ids.last().unwrap());
    let snap = |w: &World, id| {
        let mut bytes = vec![0u8; w.body_snapshot_size(id).unwrap()];
        w.snapshot_body(id, &mut bytes).unwrap();
        bytes
    };
    let box_bytes = snap(&s.world, boxed);
    let bunny_bytes = snap(&s.world, bunny);
    let hash = s.world.state_hash();
    let refused = |w: &mut World, id, bytes: &[u8], words: &str| {
        let err = w.restore_body(id, bytes).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArgument, "{}", err.message);
        assert!(err.message.contains(words), "{:?} lacks {words:?}", err.message);
    };
    refused(&mut s.world, bunny, &box_bytes, "another hull");
    refused(&mut s.world, boxed, &bunny_bytes, "another hull");
    let mut newer = box_bytes.clone();
    newer[4] += 1;
    refused(&mut s.world, boxed, &newer, "format version");
    refused(&mut s.world, boxed, &box_bytes[..box_bytes.len() - 1], "cut short");
    refused(&mut s.world, boxed, &box_bytes[..3], "cut short");
    let mut longer = box_bytes.clone();
    longer.push(0);
    refused(&mut s.world, boxed, &longer, "more than its contents");
    refused(&mut s.world, boxed, &[], "cut short");
    let mut world_bytes = vec![0u8; s.world.snapshot_size()];
    s.world.snapshot(&mut world_bytes).unwrap();
    refused(&mut s.world, boxed, &world_bytes, "not a body's");
    // A body of another hull of the same geometry takes it.
    let twin = s
        .world
        .create_hull(&simple_box(glam::Vec3::new(2.0, 0.8, 1.2), glam::Vec3::ZERO).desc())
        .unwrap();
    assert_ne!(twin, s.box_hull);
    let other = s
        .world
        .create_body(&BodyDesc {
            hull: twin,
            ..BodyDesc::default()
        })
        .unwrap();
    s.world.restore_body(other, &box_bytes).unwrap();
    assert_eq!(snap(&s.world, other), box_bytes);
    // A world snapshot: short buffers, another world's bodies.
    let mut short = vec![0u8; world_bytes.len() - 1];
    let err = s.world.snapshot(&mut short).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BufferTooSmall);
    assert!(short.iter().all(|&b| b == 0), "nothing written");
    let err = s.world.snapshot_body(boxed, &mut [0u8; 31]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BufferTooSmall);
    // (Taken before `other` was created: one body fewer.)
    let hash_with_other = s.world.state_hash();
    assert_ne!(hash_with_other, hash);
    let err = s.world.restore(&world_bytes).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    assert!(err.message.contains("bodies"), "{}", err.message);
    s.world.destroy_body(other).unwrap();
    assert_eq!(s.world.state_hash(), hash);
    let err = s.world.restore(&world_bytes[..world_bytes.len() - 5]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument);
    // A body of the snapshot's destroyed and another created in its place.
    let mut t = scene(1, 3);
    let err = t.world.restore(&world_bytes).unwrap_err();
    assert!(err.message.contains("created or destroyed"), "{}", err.message);
    // One body's history changed in the snapshot's bytes: restored, and seen in the hash.
    // (The last body is a bunny: its last triangle's z, before the padding rows, which
    // must hold zeros: tests/hostile_snapshots.rs.)
    s.world.restore(&world_bytes).unwrap();
    assert_eq!(s.world.state_hash(), hash);
    let triangles = s.world.hull_info(s.bunny_hull).unwrap().triangle_count as usize;
    let padding = triangles.next_multiple_of(8) - triangles;
    let last = world_bytes.len() - 4 * padding - 4;
    world_bytes[last] ^= 0x40;
    s.world.restore(&world_bytes).unwrap();
    assert_ne!(s.world.state_hash(), hash);
}

#[test]
fn a_restored_body_has_no_last_step_to_detail_until_it_steps() {
    let mut s = scene(1, 2);
    let id = s.ids[0];
    let mut fresh = vec![0u8; s.world.body_snapshot_size(id).unwrap()];
    s.world.snapshot_body(id, &mut fresh).unwrap();
    s.frames(2, false);
    assert!(s.world.body(id).unwrap().triangle_forces().len() > 0);
    s.world.restore_body(id, &fresh).unwrap();
    assert_eq!(s.world.body(id).unwrap().triangle_forces().len(), 0);
    s.frames(1, false);
    assert!(s.world.body(id).unwrap().triangle_forces().len() > 0);
}
