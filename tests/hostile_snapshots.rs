//! A hostile snapshot changes nothing (issue 34): keel_body_restore and keel_world_restore
//! check every value they read (the slamming history finite, padding rows zero, reserved
//! words zero, the world's time, wind, current and origin finite and in range) before
//! anything is applied, and refuse with KEEL_ERROR_INVALID_ARGUMENT and a message that
//! names what is wrong. Two worlds are built and stepped alike; one is sent every
//! corruption, and its next steps must give the bits of the other's.

mod common;

use std::ffi::c_char;

use common::bunny;
use keel::ffi::*;

/// Offsets in a body snapshot (docs/SNAPSHOT.md).
const BODY_FLAGS: usize = 12;
const BODY_ROWS: usize = 24;
const BODY_RESERVED: usize = 28;
const BODY_HISTORY: usize = 32;
/// Offsets in a world snapshot: time, wind, current, origin; bodies from 96.
const WORLD_TIME: usize = 16;
const WORLD_WIND: usize = 24;
const WORLD_CURRENT: usize = 48;
const WORLD_ORIGIN: usize = 72;
const WORLD_BODIES: usize = 96;

fn last_error() -> String {
    let mut buf = [0 as c_char; 512];
    // SAFETY: a buffer of its stated capacity.
    unsafe { keel_last_error_message(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: keel writes a NUL-terminated string into the buffer.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn ok(status: KeelStatus) {
    assert_eq!(status, KeelStatus::KEEL_OK, "{}", last_error());
}

/// A world with a box and the bunny (a big hull: the whole-triangle loops, six padding
/// rows) on a Gerstner sea, both falling into it fast so that slamming remembers.
struct Scene {
    world: KeelWorld,
    bodies: [KeelBody; 2],
}

impl Scene {
    fn new() -> Self {
        let mut world = 0;
        // SAFETY: valid pointers throughout; the descriptions are filled by their
        // defaults (zeroed first: every field is a number or a nullable pointer).
        unsafe {
            let mut desc = std::mem::zeroed::<KeelWorldDesc>();
            keel_world_desc_default(&mut desc);
            desc.thread_count = 1;
            ok(keel_world_create(&desc, &mut world));
            let wave = KeelGerstnerWave {
                amplitude: 0.3,
                wavelength: 9.0,
                direction_x: 1.0,
                direction_z: 0.2,
                steepness: 0.3,
                phase: 0.0,
            };
            ok(keel_water_set_gerstner(world, &wave, 1, 0.0));
            let mut cube = 0;
            ok(keel_hull_create_box(
                world,
                KeelVec3 { x: 1.0, y: 0.5, z: 1.0 },
                &mut cube,
            ));
            let mesh = bunny(0.1);
            let hull_desc = KeelHullDesc {
                vertices: mesh.vertices.as_ptr().cast(),
                vertex_count: mesh.vertices.len() as u32,
                indices: mesh.indices.as_ptr(),
                index_count: mesh.indices.len() as u32,
                flip_winding: false,
            };
            let mut rabbit = 0;
            ok(keel_hull_create(world, &hull_desc, &mut rabbit));
            let mut bodies = [0; 2];
            for (body, hull) in bodies.iter_mut().zip([cube, rabbit]) {
                let mut d = std::mem::zeroed::<KeelBodyDesc>();
                keel_body_desc_default(&mut d);
                d.hull = hull;
                d.mass = 200.0;
                ok(keel_body_create(world, &d, body));
            }
            Self { world, bodies }
        }
    }

    fn state(i: usize, frame: usize) -> KeelBodyState {
        // (The bunny's origin is at its feet.)
        let y = if i == 1 { -0.3 } else { 0.3 } - 0.05 * frame as f32;
        let position = KeelVec3 {
            x: 4.0 * i as f32,
            y,
            z: 0.0,
        };
        KeelBodyState {
            position,
            rotation: KeelQuat {
                x: 0.05,
                y: 0.0,
                z: 0.02,
                w: 1.0,
            },
            linear_velocity: KeelVec3 {
                x: 0.5,
                y: -3.0,
                z: 0.0,
            },
            angular_velocity: KeelVec3 { x: 0.3, y: 0.2, z: 0.0 },
            center_of_mass: position,
        }
    }

    /// One batch of both bodies at `frame`: every force's bits.
    fn step(&self, frame: usize) -> Vec<u32> {
        let states = [Self::state(0, frame), Self::state(1, frame)];
        let mut out = [KeelBodyForces::default(); 2];
        // SAFETY: arrays of the stated count.
        ok(unsafe {
            keel_world_step(
                self.world,
                self.bodies.as_ptr(),
                states.as_ptr(),
                2,
                1.0 / 60.0,
                out.as_mut_ptr(),
            )
        });
        out.iter()
            .flat_map(|f| {
                [f.force, f.torque, f.slamming_force]
                    .into_iter()
                    .flat_map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
            })
            .collect()
    }

    fn body_snapshot(&self, body: usize) -> Vec<u8> {
        let mut size = 0;
        // SAFETY: out == NULL asks for the size only.
        ok(unsafe { keel_body_snapshot(self.world, self.bodies[body], std::ptr::null_mut(), 0, &mut size) });
        let mut bytes = vec![0u8; size as usize];
        // SAFETY: a buffer of `size` bytes.
        ok(unsafe { keel_body_snapshot(self.world, self.bodies[body], bytes.as_mut_ptr(), size, &mut size) });
        bytes
    }

    fn world_snapshot(&self) -> Vec<u8> {
        let mut size = 0;
        // SAFETY: out == NULL asks for the size only.
        ok(unsafe { keel_world_snapshot(self.world, std::ptr::null_mut(), 0, &mut size) });
        let mut bytes = vec![0u8; size as usize];
        // SAFETY: a buffer of `size` bytes.
        ok(unsafe { keel_world_snapshot(self.world, bytes.as_mut_ptr(), size, &mut size) });
        bytes
    }

    fn hash(&self) -> u64 {
        let mut hash = 0;
        // SAFETY: a valid output.
        ok(unsafe { keel_world_get_state_hash(self.world, &mut hash) });
        hash
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        keel_world_destroy(self.world);
    }
}

fn put_f32(bytes: &mut [u8], at: usize, x: f32) {
    bytes[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

fn put_u32(bytes: &mut [u8], at: usize, x: u32) {
    bytes[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

fn put_f64(bytes: &mut [u8], at: usize, x: f64) {
    bytes[at..at + 8].copy_from_slice(&x.to_le_bytes());
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Body `snapshot`'s rows and how many of them are triangles (the rest pad).
fn rows(snapshot: &[u8], triangles: usize) -> (usize, usize) {
    let rows = u32_at(snapshot, BODY_ROWS) as usize;
    assert_eq!(snapshot.len(), BODY_HISTORY + 12 * rows);
    assert!(
        rows > triangles,
        "the test needs padding rows: {rows} rows, {triangles} triangles"
    );
    (rows, triangles)
}

/// The byte offset of `row`'s `axis` in a body snapshot of `rows` rows.
fn cell(rows: usize, row: usize, axis: usize) -> usize {
    BODY_HISTORY + 4 * (axis * rows + row)
}

/// Every way a body snapshot is corrupted here: a name, the bytes, and a word the refusal
/// must say.
fn body_corruptions(good: &[u8], triangles: usize) -> Vec<(String, Vec<u8>, &'static str)> {
    let (rows, triangles) = rows(good, triangles);
    let mut cases = Vec::new();
    let mut with = |name: String, edit: &dyn Fn(&mut Vec<u8>), says: &'static str| {
        let mut bytes = good.to_vec();
        edit(&mut bytes);
        cases.push((name, bytes, says));
    };
    for (value, says) in [
        (f32::NAN, "NaN"),
        (f32::from_bits(0x7f80_0001), "NaN"),
        (f32::from_bits(0xffc0_1234), "NaN"),
        (f32::INFINITY, "inf"),
        (f32::NEG_INFINITY, "-inf"),
    ] {
        for (row, axis) in [(0, 0), (triangles / 2, 1), (triangles - 1, 2)] {
            with(
                format!("{value} in row {row}, axis {axis}"),
                &|b| put_f32(b, cell(rows, row, axis), value),
                says,
            );
        }
        // Padding rows are refused for not being zero before they are looked at for NaN.
        with(
            format!("{value} in the last padding row"),
            &|b| put_f32(b, cell(rows, rows - 1, 2), value),
            says,
        );
    }
    for (row, axis, value) in [
        (triangles, 0, 1.0f32),
        (rows - 1, 2, -1e-30),
        (triangles, 1, f32::MIN_POSITIVE / 2.0),
    ] {
        with(
            format!("{value} in padding row {row}"),
            &|b| put_f32(b, cell(rows, row, axis), value),
            "padding",
        );
    }
    for reserved in [1u32, 0x8000_0000, u32::MAX] {
        with(
            format!("reserved word {reserved:#x}"),
            &|b| put_u32(b, BODY_RESERVED, reserved),
            "reserved",
        );
    }
    with("flags 2".into(), &|b| put_u32(b, BODY_FLAGS, 3), "flags");
    with("one byte short".into(), &|b| b.truncate(b.len() - 1), "cut short");
    with("one byte more".into(), &|b| b.push(0), "more than its contents");
    with(
        "rows off by one".into(),
        &|b| put_u32(b, BODY_ROWS, rows as u32 - 1),
        "",
    );
    cases
}

fn refused(status: KeelStatus, says: &str, what: &str) {
    let message = last_error();
    assert_eq!(status, KeelStatus::KEEL_ERROR_INVALID_ARGUMENT, "{what}: {message}");
    assert!(
        message.contains(says),
        "{what}: the message must say {says:?}: {message}"
    );
}

#[test]
fn every_corrupted_body_snapshot_is_refused_and_changes_nothing() {
    let (target, twin) = (Scene::new(), Scene::new());
    for frame in 0..3 {
        assert_eq!(target.step(frame), twin.step(frame));
    }
    let triangle_counts = [12, 3674];
    let mut refusals = 0;
    for (body, &triangles) in triangle_counts.iter().enumerate() {
        let good = target.body_snapshot(body);
        let history = &good[BODY_HISTORY..];
        assert!(
            history
                .chunks_exact(4)
                .any(|x| f32::from_le_bytes(x.try_into().unwrap()) != 0.0),
            "body {body}: slamming must remember something for the test to mean anything"
        );
        // The snapshot keel wrote is restored (its padding rows are zero).
        // SAFETY: the buffer's own length.
        ok(unsafe { keel_body_restore(target.world, target.bodies[body], good.as_ptr(), good.len() as u32) });
        ok(unsafe { keel_body_restore(twin.world, twin.bodies[body], good.as_ptr(), good.len() as u32) });
        for (what, bytes, says) in body_corruptions(&good, triangles) {
            let before = target.body_snapshot(body);
            // SAFETY: the buffer's own length.
            let status =
                unsafe { keel_body_restore(target.world, target.bodies[body], bytes.as_ptr(), bytes.len() as u32) };
            refused(status, says, &format!("body {body}: {what}"));
            assert_eq!(
                before,
                target.body_snapshot(body),
                "body {body}: {what}: the body changed"
            );
            refusals += 1;
        }
    }
    assert!(refusals > 40);
    assert_eq!(target.hash(), twin.hash());
    for frame in 3..6 {
        assert_eq!(target.step(frame), twin.step(frame), "frame {frame}");
    }
}

#[test]
fn every_corrupted_world_snapshot_is_refused_and_changes_nothing() {
    let (target, twin) = (Scene::new(), Scene::new());
    for frame in 0..3 {
        assert_eq!(target.step(frame), twin.step(frame));
    }
    let good = target.world_snapshot();
    // The second body (the bunny) is the last record: a corruption there is found after
    // the first body was read, which must not be restored either.
    let box_len = target.body_snapshot(0).len();
    let bunny_at = WORLD_BODIES + 8 + box_len + 8;
    let bunny = &good[bunny_at..];
    let mut cases: Vec<(String, Vec<u8>, &str)> = Vec::new();
    for (what, body_bytes, says) in body_corruptions(bunny, 3674) {
        if what.contains("byte") {
            continue;
        }
        let mut bytes = good[..bunny_at].to_vec();
        bytes.extend_from_slice(&body_bytes);
        cases.push((format!("the bunny's record: {what}"), bytes, says));
    }
    let mut with = |name: &str, at: usize, value: f64, says: &'static str| {
        let mut bytes = good.clone();
        put_f64(&mut bytes, at, value);
        cases.push((format!("{name} = {value}"), bytes, says));
    };
    for value in [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::from_bits(0x7ff0_0000_0000_0001),
    ] {
        with("time", WORLD_TIME, value, "time");
        for axis in 0..3 {
            with("wind", WORLD_WIND + 8 * axis, value, "wind");
            with("current", WORLD_CURRENT + 8 * axis, value, "current");
            with("origin", WORLD_ORIGIN + 8 * axis, value, "origin");
        }
    }
    // Finite but beyond what the setters take.
    with("time", WORLD_TIME, 2e12, "time");
    with("time", WORLD_TIME, -2e12, "time");
    with("wind", WORLD_WIND, 2e4, "wind");
    with("origin", WORLD_ORIGIN + 8, 5e9, "origin");
    let mut bytes = good.clone();
    put_u32(&mut bytes, 12, 3);
    cases.push(("a body count of 3".into(), bytes, "3 bodies"));
    let mut bytes = good.clone();
    bytes[WORLD_BODIES] ^= 1;
    cases.push(("another body's id".into(), bytes, "created or destroyed"));
    let before = target.world_snapshot();
    for (what, bytes, says) in &cases {
        // SAFETY: the buffer's own length.
        let status = unsafe { keel_world_restore(target.world, bytes.as_ptr(), bytes.len() as u32) };
        refused(status, says, what);
        assert_eq!(before, target.world_snapshot(), "{what}: the world changed");
    }
    assert!(cases.len() > 60, "{}", cases.len());
    assert_eq!(target.hash(), twin.hash());
    for frame in 3..6 {
        assert_eq!(target.step(frame), twin.step(frame), "frame {frame}");
    }
}

/// What the check lets through is what a step can write: every rate finite, as large as
/// f32 holds. Such a history is restored, and the body steps with finite forces
/// (slamming's ratio is clamped to 1), so no value a restore accepts can jam a body.
#[test]
fn the_largest_finite_history_is_accepted_and_the_body_still_steps() {
    let scene = Scene::new();
    scene.step(0);
    for (body, triangles) in [(0usize, 12usize), (1, 3674)] {
        let mut bytes = scene.body_snapshot(body);
        let (rows, triangles) = rows(&bytes, triangles);
        for row in 0..triangles {
            for axis in 0..3 {
                let sign = if (row + axis) % 2 == 0 { 1.0 } else { -1.0 };
                put_f32(&mut bytes, cell(rows, row, axis), sign * f32::MAX);
            }
        }
        // A zero of either sign pads.
        put_f32(&mut bytes, cell(rows, rows - 1, 0), -0.0);
        // SAFETY: the buffer's own length.
        ok(unsafe { keel_body_restore(scene.world, scene.bodies[body], bytes.as_ptr(), bytes.len() as u32) });
    }
    let forces = scene.step(1);
    assert!(
        forces.iter().all(|&bits| f32::from_bits(bits).is_finite()),
        "{forces:?}"
    );
}
