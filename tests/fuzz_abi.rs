//! A long random-call test of the C ABI (issue 6, hardening).
//!
//! Every function of `include/keel.h` is called in random order on several worlds with
//! random handles (live, destroyed, forged, bit-flipped, of another world or of another
//! kind), random meshes, body descriptions, states, time steps, water (flat, Perlin,
//! Gerstner, spectra, heightfields, and host callbacks that behave, answer garbage or call
//! keel back), winds, currents and times, NaN, infinities, huge and tiny numbers, NULL
//! pointers with non-zero counts and misaligned pointers, but only ever real buffers of
//! the stated sizes (a buffer smaller than its stated size is undefined behaviour that no
//! library can check).
//!
//! Extreme but finite inputs may be refused with KEEL_ERROR_INVALID_ARGUMENT (and nothing
//! written or changed) or accepted with finite results: either is right. A call that
//! succeeds with a number that is not finite, fails with another status although its
//! handles and pointers were good, or fails and changes something, is not.
//!
//! After every call: the status is a value of `KeelStatus` (the functions are declared
//! again here with a plain `uint32_t` result, as C sees them) and not
//! `KEEL_ERROR_INTERNAL`; a call with an argument that the header says is invalid did not
//! succeed; a failed call wrote nothing (outputs are filled with a sentinel first) and
//! left a last error message that names the function; outputs of a successful call are
//! finite and nothing was written past the stated count. Every few hundred calls a fresh
//! body in a live world must step, so a world stays usable whatever was done to it.
//! A second test runs threads on shared and on their own worlds at once, under a
//! watchdog.
//!
//! The run is deterministic for a seed: KEEL_FUZZ_SEED and KEEL_FUZZ_OPS choose it, and
//! docs/HARDENING.md says how to run it longer and how to replay a failure.

mod common;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::{CStr, c_char, c_void};
use std::fmt::Write as _;
use std::marker::PhantomData;
use std::mem::{align_of, offset_of, size_of};
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use glam::Vec3;
use keel::ffi::{
    KEEL_ABI_VERSION, KEEL_BUOYANCY_AREA_RATIO, KEEL_BUOYANCY_NONE, KEEL_BUOYANCY_VOLUME, KEEL_FORCE_AIR,
    KEEL_FORCE_LUMPED_RESISTANCE, KEEL_FORCE_PRESSURE_DRAG, KEEL_FORCE_SLAMMING, KEEL_FORCE_VISCOUS, KeelBody,
    KeelBodyDesc, KeelBodyForces, KeelBodyState, KeelGerstnerWave, KeelHull, KeelHullDesc, KeelHullInfo,
    KeelPerlinWaterDesc, KeelQuat, KeelSpectrum, KeelStatus, KeelTaskFn, KeelTriangleForce, KeelVec3, KeelWaterQuery,
    KeelWorld, KeelWorldCounts, KeelWorldDesc, keel_abi_version, keel_body_desc_default, keel_last_error_message,
    keel_perlin_water_desc_default, keel_version_string, keel_world_desc_default,
};

// ---------------------------------------------------------------------------------------
// The ABI as C sees it

/// Declares every status-returning function again with a `uint32_t` result, so that a
/// status outside the enum is seen instead of being undefined behaviour in Rust. The
/// `const` items stop the build if a declaration here drifts from keel's own.
macro_rules! status_functions {
    ($($name:ident($($arg:ident: $ty:ty),* $(,)?);)*) => {
        mod raw {
            use std::ffi::c_void;

            use keel::ffi::{
                KeelBody, KeelBodyDesc, KeelBodyForces, KeelBodyState, KeelGerstnerWave, KeelHull, KeelHullDesc,
                KeelHullInfo, KeelPerlinWaterDesc, KeelQuat, KeelSpectrum, KeelTriangleForce, KeelVec3, KeelWaterQuery,
                KeelWorld, KeelWorldCounts, KeelWorldDesc,
            };
            unsafe extern "C" {
                $(pub fn $name($($arg: $ty),*) -> u32;)*
            }
        }
        $(const _: unsafe extern "C" fn($($ty),*) -> KeelStatus = keel::ffi::$name;)*
    };
}

status_functions! {
    keel_world_create(desc: *const KeelWorldDesc, out_world: *mut KeelWorld);
    keel_world_destroy(world: KeelWorld);
    keel_world_get_counts(world: KeelWorld, out_counts: *mut KeelWorldCounts);
    keel_world_set_time(world: KeelWorld, seconds: f64);
    keel_world_set_wind(world: KeelWorld, velocity: KeelVec3);
    keel_world_set_current(world: KeelWorld, velocity: KeelVec3);
    keel_water_set_flat(world: KeelWorld, level: f32);
    keel_water_set_perlin(world: KeelWorld, desc: *const KeelPerlinWaterDesc);
    keel_water_set_gerstner(world: KeelWorld, waves: *const KeelGerstnerWave, count: u32, level: f32);
    keel_water_sample(
        world: KeelWorld,
        points: *const KeelVec3,
        count: u32,
        out_heights: *mut f32,
        out_normals: *mut KeelVec3,
        out_velocities: *mut KeelVec3,
    );
    keel_water_set_heightfield(
        world: KeelWorld,
        heights: *const f32,
        count_x: u32,
        count_z: u32,
        origin_x: f32,
        origin_z: f32,
        cell_size: f32,
    );
    keel_water_set_tiled_heightfield(
        world: KeelWorld,
        heights: *const f32,
        count_x: u32,
        count_z: u32,
        origin_x: f32,
        origin_z: f32,
        cell_size: f32,
    );
    keel_water_set_callback(world: KeelWorld, query: KeelWaterQuery, user_data: *mut c_void);
    keel_water_set_spectrum(
        world: KeelWorld,
        spectrum: KeelSpectrum,
        wind_speed: f32,
        direction_x: f32,
        direction_z: f32,
        wave_count: u32,
        seed: u64,
    );
    keel_hull_create(world: KeelWorld, desc: *const KeelHullDesc, out_hull: *mut KeelHull);
    keel_hull_get_info(world: KeelWorld, hull: KeelHull, out_info: *mut KeelHullInfo);
    keel_hull_create_box(world: KeelWorld, size: KeelVec3, out_hull: *mut KeelHull);
    keel_hull_get_inertia(
        world: KeelWorld,
        hull: KeelHull,
        mass: f32,
        out_principal: *mut KeelVec3,
        out_rotation: *mut KeelQuat,
    );
    keel_hull_destroy(world: KeelWorld, hull: KeelHull);
    keel_body_create(world: KeelWorld, desc: *const KeelBodyDesc, out_body: *mut KeelBody);
    keel_body_set_desc(world: KeelWorld, body: KeelBody, desc: *const KeelBodyDesc);
    keel_body_get_desc(world: KeelWorld, body: KeelBody, out_desc: *mut KeelBodyDesc);
    keel_body_find_equilibrium(
        world: KeelWorld,
        body: KeelBody,
        center_of_mass_local: KeelVec3,
        in_out_state: *mut KeelBodyState,
    );
    keel_body_destroy(world: KeelWorld, body: KeelBody);
    keel_body_step(
        world: KeelWorld,
        body: KeelBody,
        state: *const KeelBodyState,
        dt: f32,
        out_forces: *mut KeelBodyForces,
    );
    keel_world_step(
        world: KeelWorld,
        bodies: *const KeelBody,
        states: *const KeelBodyState,
        count: u32,
        dt: f32,
        out_forces: *mut KeelBodyForces,
    );
    keel_body_get_triangle_forces(
        world: KeelWorld,
        body: KeelBody,
        out: *mut KeelTriangleForce,
        capacity: u32,
        out_count: *mut u32,
    );
    keel_body_get_submerged_triangles(
        world: KeelWorld,
        body: KeelBody,
        out_vertices: *mut KeelVec3,
        capacity: u32,
        out_count: *mut u32,
    );
    keel_body_get_emerged_triangles(
        world: KeelWorld,
        body: KeelBody,
        out_vertices: *mut KeelVec3,
        capacity: u32,
        out_count: *mut u32,
    );
    keel_body_get_waterline(
        world: KeelWorld,
        body: KeelBody,
        out_points: *mut KeelVec3,
        capacity: u32,
        out_count: *mut u32,
    );
    keel_body_snapshot(world: KeelWorld, body: KeelBody, out: *mut u8, capacity: u32, out_size: *mut u32);
    keel_body_restore(world: KeelWorld, body: KeelBody, data: *const u8, size: u32);
    keel_world_snapshot(world: KeelWorld, out: *mut u8, capacity: u32, out_size: *mut u32);
    keel_world_restore(world: KeelWorld, data: *const u8, size: u32);
    keel_world_get_state_hash(world: KeelWorld, out_hash: *mut u64);
    keel_world_set_origin(world: KeelWorld, x: f64, y: f64, z: f64);
    keel_world_shift_origin(world: KeelWorld, dx: f64, dy: f64, dz: f64);
    keel_world_get_origin(world: KeelWorld, out_x: *mut f64, out_y: *mut f64, out_z: *mut f64);
}

const OK: u32 = KeelStatus::KEEL_OK as u32;
const NULL_POINTER: u32 = KeelStatus::KEEL_ERROR_NULL_POINTER as u32;
const INVALID_HANDLE: u32 = KeelStatus::KEEL_ERROR_INVALID_HANDLE as u32;
const INVALID_ARGUMENT: u32 = KeelStatus::KEEL_ERROR_INVALID_ARGUMENT as u32;
const BUFFER_TOO_SMALL: u32 = KeelStatus::KEEL_ERROR_BUFFER_TOO_SMALL as u32;
const INTERNAL: u32 = KeelStatus::KEEL_ERROR_INTERNAL as u32;
const STATUS_NAMES: [&str; 7] = [
    "KEEL_OK",
    "KEEL_ERROR_NULL_POINTER",
    "KEEL_ERROR_INVALID_HANDLE",
    "KEEL_ERROR_INVALID_ARGUMENT",
    "KEEL_ERROR_INVALID_MESH",
    "KEEL_ERROR_BUFFER_TOO_SMALL",
    "KEEL_ERROR_INTERNAL",
];

fn status_name(status: u32) -> String {
    STATUS_NAMES
        .get(status as usize)
        .map_or_else(|| format!("{status} (not a KeelStatus)"), |s| s.to_string())
}

type DetailFn<T> = unsafe extern "C" fn(KeelWorld, KeelBody, *mut T, u32, *mut u32) -> u32;

// ---------------------------------------------------------------------------------------
// Configuration

/// Operations of the single-threaded test: about 25 s in a debug build on 2 cores.
const DEFAULT_OPS: u64 = 150_000;
/// Seconds of the concurrent test.
const DEFAULT_SECONDS: f64 = 4.0;
const DEFAULT_SEED: u64 = 0x6b65_656c_0006;
/// A fresh body must step in a live world this often (in operations).
const PROBE_EVERY: u64 = 256;
const MAX_HULLS: usize = 10;
const MAX_BODIES: usize = 16;

#[derive(Clone, Debug)]
struct Config {
    seed: u64,
    ops: u64,
    seconds: f64,
    threads: usize,
    trace_from: Option<u64>,
    tolerate: Vec<String>,
    fail_fast: bool,
    stall: Duration,
}

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim().replace('_', "");
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number (decimal or 0x hex)")))
}

impl Config {
    fn from_env() -> Self {
        let seconds = std::env::var("KEEL_FUZZ_SECONDS").ok().map_or(DEFAULT_SECONDS, |s| {
            s.trim()
                .parse()
                .unwrap_or_else(|_| panic!("KEEL_FUZZ_SECONDS={s:?} is not a number"))
        });
        Self {
            seed: env_number("KEEL_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            ops: env_number("KEEL_FUZZ_OPS").unwrap_or(DEFAULT_OPS),
            seconds,
            threads: env_number("KEEL_FUZZ_THREADS").map_or(4, |n| n.max(1) as usize),
            trace_from: env_number("KEEL_FUZZ_TRACE_FROM"),
            tolerate: std::env::var("KEEL_FUZZ_TOLERATE")
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            fail_fast: std::env::var("KEEL_FUZZ_FAIL_FAST").is_ok_and(|v| v != "0"),
            stall: Duration::from_secs(env_number("KEEL_FUZZ_STALL_SECONDS").unwrap_or(60)),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random numbers

/// SplitMix64: small, fast, and the same on every machine. `tame`: no weird numbers
/// (for worlds shared between threads, where a finding must not depend on what another
/// thread set).
#[derive(Clone, Debug)]
struct Rng(u64, bool);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Time for a weird number, with probability `p` unless tame.
    fn wild(&mut self, p: f64) -> bool {
        !self.1 && self.chance(p)
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit() as f32
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A number a careless or hostile host might pass.
    fn weird_f32(&mut self) -> f32 {
        const WEIRD: [f32; 22] = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1e30,
            -1e30,
            1e-30,
            -1e-30,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1e-45,
            -1.0,
            1e7,
            -1e7,
            1e6,
            1e-9,
            1e20,
            -1e20,
            f32::EPSILON,
            3.0e38,
        ];
        if self.chance(0.15) {
            f32::from_bits(self.next() as u32)
        } else {
            self.pick(&WEIRD)
        }
    }

    /// Usually a value in [lo, hi]; with probability `p` a weird one, and then `extreme`.
    fn num(&mut self, lo: f32, hi: f32, p: f64, extreme: &mut bool) -> f32 {
        if self.wild(p) {
            *extreme = true;
            self.weird_f32()
        } else {
            self.range(lo, hi)
        }
    }

    fn unit_quat(&mut self) -> KeelQuat {
        loop {
            let q = [0; 4].map(|_| self.range(-1.0, 1.0));
            let l = q.iter().map(|c| c * c).sum::<f32>().sqrt();
            if l > 0.1 && l <= 1.0 {
                return KeelQuat {
                    x: q[0] / l,
                    y: q[1] / l,
                    z: q[2] / l,
                    w: q[3] / l,
                };
            }
        }
    }
}

fn v3(x: f32, y: f32, z: f32) -> KeelVec3 {
    KeelVec3 { x, y, z }
}

fn positive(x: f32) -> bool {
    x.is_finite() && x > 0.0
}

fn vec_finite(v: KeelVec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// Outputs whose numbers must all be finite.
trait Finite {
    fn finite(&self) -> bool;

    /// The element as a triangle force, if it is one.
    fn triangle_force(&self) -> Option<KeelTriangleForce> {
        None
    }
}

impl Finite for f32 {
    fn finite(&self) -> bool {
        self.is_finite()
    }
}

impl Finite for KeelVec3 {
    fn finite(&self) -> bool {
        vec_finite(*self)
    }
}

impl Finite for KeelTriangleForce {
    fn finite(&self) -> bool {
        vec_finite(self.point) && vec_finite(self.force)
    }

    fn triangle_force(&self) -> Option<KeelTriangleForce> {
        Some(*self)
    }
}

impl Finite for KeelBodyForces {
    fn finite(&self) -> bool {
        [
            self.force,
            self.torque,
            self.buoyancy_force,
            self.viscous_force,
            self.pressure_drag_force,
            self.slamming_force,
            self.air_force,
            self.damping_force,
            self.center_of_buoyancy,
        ]
        .into_iter()
        .all(vec_finite)
            && self.submerged_volume.is_finite()
            && self.submerged_area.is_finite()
            && self.wetted_ratio.is_finite()
    }
}

impl Finite for KeelHullInfo {
    fn finite(&self) -> bool {
        self.area.is_finite()
            && self.volume.is_finite()
            && [self.centroid, self.bounds_min, self.bounds_max]
                .into_iter()
                .all(vec_finite)
    }
}

// ---------------------------------------------------------------------------------------
// Buffers: always real memory of the stated size, passed valid, NULL or misaligned

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ptr {
    Valid,
    Null,
    Misaligned,
}

/// Spare elements after an output's stated size: the library must not touch them.
const GUARD: usize = 2;

/// An output of `len` elements of `T` (plus guard elements), filled with a sentinel byte,
/// in memory aligned for every ABI type.
struct Out<T> {
    words: Vec<u64>,
    mode: Ptr,
    fill: u8,
    _t: PhantomData<T>,
}

impl<T: Copy> Out<T> {
    fn new(len: usize, mode: Ptr, fill: u8) -> Self {
        let bytes = (len + GUARD) * size_of::<T>() + 8;
        let mut words = vec![0u64; bytes.div_ceil(8)];
        // SAFETY: the buffer holds words.len() * 8 bytes.
        unsafe { ptr::write_bytes(words.as_mut_ptr().cast::<u8>(), fill, words.len() * 8) };
        Self {
            words,
            mode,
            fill,
            _t: PhantomData,
        }
    }

    fn ptr(&mut self) -> *mut T {
        match self.mode {
            Ptr::Valid => self.words.as_mut_ptr().cast(),
            Ptr::Null => ptr::null_mut(),
            Ptr::Misaligned => self.words.as_mut_ptr().cast::<u8>().wrapping_add(1).cast(),
        }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: every byte was initialised by write_bytes; the library writes whole values.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 8) }
    }

    /// Nothing was written anywhere in the buffer.
    fn untouched(&self) -> bool {
        self.bytes().iter().all(|&b| b == self.fill)
    }

    /// Nothing was written after the first `n` elements (valid pointers only).
    fn untouched_from(&self, n: usize) -> bool {
        self.bytes()[n * size_of::<T>()..].iter().all(|&b| b == self.fill)
    }

    /// Element `i` as written by the library (valid pointers only, after success).
    fn get(&self, i: usize) -> T {
        // SAFETY: in bounds and aligned; the library wrote a whole T there.
        unsafe { ptr::read(self.words.as_ptr().cast::<T>().add(i)) }
    }

    /// The bytes at `offsets` of element 0 are valid bools (before reading a struct with
    /// bools that the library might not have written).
    fn bools_valid(&self, offsets: &[usize]) -> bool {
        offsets.iter().all(|&o| self.bytes()[o] <= 1)
    }
}

/// An input array copied into memory of its own, passed valid, NULL or misaligned.
struct In {
    words: Vec<u64>,
    mode: Ptr,
}

impl In {
    fn new<T: Copy>(data: &[T], mode: Ptr) -> Self {
        let size = std::mem::size_of_val(data);
        let mut words = vec![0u64; (size + 16).div_ceil(8)];
        let offset = usize::from(mode == Ptr::Misaligned);
        // SAFETY: size + offset bytes fit in the buffer; T is plain data.
        unsafe {
            ptr::copy_nonoverlapping(
                data.as_ptr().cast::<u8>(),
                words.as_mut_ptr().cast::<u8>().add(offset),
                size,
            )
        };
        Self { words, mode }
    }

    fn ptr<T>(&self) -> *const T {
        match self.mode {
            Ptr::Valid => self.words.as_ptr().cast(),
            Ptr::Null => ptr::null(),
            Ptr::Misaligned => self.words.as_ptr().cast::<u8>().wrapping_add(1).cast(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Findings: every kind of misbehaviour, counted, with its first occurrence

// Which accepted inputs of a call were out of the ordinary (1e30, 1e-30, 1e300 s, 1e7 m,
// a subnormal dt, ...): bits of `Inputs::Extreme`.
const X_WORLD: u16 = 1;
const X_WATER: u16 = 2;
const X_TIME: u16 = 4;
const X_WIND: u16 = 8;
const X_MESH: u16 = 16;
const X_BODY: u16 = 32;
const X_STATE: u16 = 64;
const X_DT: u16 = 128;
const X_LAST: u16 = 256;
const X_ARGS: u16 = 512;
const X_CURRENT: u16 = 1024;
const X_NAMES: [&str; 11] = [
    "world constants",
    "water",
    "time",
    "wind",
    "mesh",
    "body description",
    "state",
    "dt",
    "previous step",
    "arguments",
    "current",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Inputs {
    /// Every number in the ordinary range of its quantity.
    Ordinary,
    /// Some accepted values were extreme: `X_*` bits.
    Extreme(u16),
    /// A world shared with other threads, whose water and bodies are not known here.
    Shared,
}

impl Inputs {
    fn text(self) -> String {
        match self {
            Inputs::Ordinary => "ordinary inputs".into(),
            Inputs::Extreme(0) => "ordinary inputs".into(),
            Inputs::Extreme(bits) => {
                let names: Vec<&str> = (0..X_NAMES.len())
                    .filter(|&k| bits & (1 << k) != 0)
                    .map(|k| X_NAMES[k])
                    .collect();
                format!("extreme but accepted: {}", names.join(", "))
            }
            Inputs::Shared => "shared world".into(),
        }
    }
}

#[derive(Debug)]
struct Finding {
    count: u64,
    /// For each set of extreme inputs (`X_*` bits) seen: how often, and the first occurrence.
    examples: BTreeMap<u16, (u64, String)>,
}

#[derive(Default)]
struct Findings {
    map: BTreeMap<String, Finding>,
    stats: BTreeMap<&'static str, [u64; 8]>,
    /// How often each check that is not a call's status ran.
    checked: BTreeMap<&'static str, u64>,
    ops: u64,
    calls: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where a thread is, for the watchdog.
#[derive(Default)]
struct Progress {
    calls: AtomicU64,
    current: Mutex<(&'static str, u64)>,
}

/// Worlds, hulls and bodies shared by the threads of the concurrent test.
#[derive(Default)]
struct Pool {
    worlds: Mutex<Vec<KeelWorld>>,
    hulls: Mutex<Vec<(KeelWorld, KeelHull)>>,
    bodies: Mutex<Vec<(KeelWorld, KeelBody)>>,
}

const POOL_CAP: usize = 48;

fn pool_push(list: &Mutex<Vec<(u64, u64)>>, item: (u64, u64), rng: &mut Rng) {
    let mut list = lock(list);
    if list.len() >= POOL_CAP {
        let i = rng.below(list.len());
        list.swap_remove(i);
    }
    list.push(item);
}

// ---------------------------------------------------------------------------------------
// The host's water: callbacks that behave and callbacks that do not

/// What a water callback of this test does when keel asks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CbKind {
    /// A level plane: heights, and normals and velocities when the pointers are not NULL.
    Flat,
    /// A travelling sine wave with its true normals and a particle velocity.
    Sine,
    /// Flat, after calling keel on its own world (each call must fail with
    /// KEEL_ERROR_INVALID_ARGUMENT, and not deadlock) and on an invalid one.
    Reentrant,
    /// Flat at a huge but finite height (1e20 m to f32::MAX): extreme.
    Huge,
    /// Heights only, never normals or velocities, even when asked for them.
    HeightsOnly,
    /// NaN heights.
    NanHeights,
    /// Infinite heights at every other point.
    InfHeights,
    /// Writes nothing: keel's buffers keep the NaN keel put there.
    Silent,
    /// NaN heights where x > split, good answers elsewhere: in a batch, some bodies are
    /// answered well before one is not.
    NanWhere,
    /// Good heights and velocities, NaN normals.
    NanNormals,
}

const CB_KINDS: [CbKind; 10] = [
    CbKind::Flat,
    CbKind::Sine,
    CbKind::Reentrant,
    CbKind::Huge,
    CbKind::HeightsOnly,
    CbKind::NanHeights,
    CbKind::InfHeights,
    CbKind::Silent,
    CbKind::NanWhere,
    CbKind::NanNormals,
];

/// A callback's parameters, passed to keel as its user data. Leaked on purpose: a world
/// may call it until the world is destroyed, which in the concurrent test can happen
/// after the thread that set it is done. Each thread makes at most 32 of each kind.
#[derive(Debug)]
struct CbCtx {
    kind: CbKind,
    level: f32,
    amplitude: f32,
    kx: f32,
    kz: f32,
    split: f32,
    calls: AtomicU64,
}

impl CbCtx {
    /// A well-behaved answer at (x, z): height, unit normal, particle velocity.
    fn surface(&self, x: f32, z: f32) -> (f32, KeelVec3, KeelVec3) {
        let up = v3(0.0, 1.0, 0.0);
        if self.kind != CbKind::Sine || !(x.is_finite() && z.is_finite()) {
            return (self.level, up, v3(0.0, 0.0, 0.0));
        }
        let (s, c) = (self.kx * x + self.kz * z).sin_cos();
        let (gx, gz) = (self.amplitude * self.kx * c, self.amplitude * self.kz * c);
        let l = (gx * gx + gz * gz + 1.0).sqrt();
        let k = (self.kx * self.kx + self.kz * self.kz).sqrt();
        // Deep water: the particle speed is a * omega, omega^2 = g k.
        let speed = self.amplitude * (9.81 * k).sqrt();
        (
            self.level + self.amplitude * s,
            v3(-gx / l, 1.0 / l, -gz / l),
            v3(speed * c * self.kx / k, speed * s, speed * c * self.kz / k),
        )
    }

    /// For reports: what it answers (its call counter left out, which keeps changing).
    fn describe(&self) -> String {
        format!(
            "{:?} (level {:e}, amplitude {:e}, k ({:e}, {:e}), split x {:e})",
            self.kind, self.level, self.amplitude, self.kx, self.kz, self.split
        )
    }

    /// Whether its answers are complete and finite, so that keel_water_sample returns them.
    fn answers_all(&self) -> bool {
        matches!(
            self.kind,
            CbKind::Flat | CbKind::Sine | CbKind::Reentrant | CbKind::Huge
        )
    }
}

/// What the water callbacks did during the current keel call on this thread.
#[derive(Debug, Default)]
struct CbLog {
    calls: u32,
    /// Why an answer was unusable (not finite, or not written where asked), if one was.
    garbage: Option<String>,
    /// The last error message of a re-entrant call that failed.
    inner_message: Option<Vec<u8>>,
    /// Misbehaviour of keel seen from inside a callback: (what, detail).
    violations: Vec<(&'static str, String)>,
}

thread_local! {
    /// The world this thread is calling: the only one whose callback may run on it.
    static CURRENT_WORLD: Cell<u64> = const { Cell::new(0) };
    static CB_LOG: RefCell<CbLog> = RefCell::new(CbLog::default());
}

/// Misbehaviour seen by callbacks that ran on a thread making no keel call (a worker).
static FOREIGN_CALLBACKS: Mutex<Vec<(&'static str, String)>> = Mutex::new(Vec::new());
/// Worlds whose callback is running: keel must never run one twice at once.
static RUNNING_CALLBACKS: Mutex<Vec<u64>> = Mutex::new(Vec::new());

fn cb_log(f: impl FnOnce(&mut CbLog)) {
    CB_LOG.with(|log| {
        if let Ok(mut log) = log.try_borrow_mut() {
            f(&mut log)
        }
    });
}

fn take_cb_log() -> CbLog {
    CB_LOG.with(|log| {
        log.try_borrow_mut()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default()
    })
}

fn violation(what: &'static str, detail: String) {
    if CURRENT_WORLD.get() == 0 {
        lock(&FOREIGN_CALLBACKS).push((what, detail));
    } else {
        cb_log(|log| log.violations.push((what, detail)));
    }
}

/// The `KeelWaterQuery` of this test. `user_data` is a `CbCtx`, or NULL for a flat sea
/// at height 0.
unsafe extern "C" fn fuzz_water(
    user_data: *mut c_void,
    points: *const KeelVec3,
    count: u32,
    out_heights: *mut f32,
    out_normals: *mut KeelVec3,
    out_velocities: *mut KeelVec3,
) {
    // A panic must not unwind into keel's frames (the process would abort): report it.
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
        water_query(user_data, points, count, out_heights, out_normals, out_velocities)
    }));
    if let Err(panic) = answered {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        violation("the water callback of this test panicked", message);
    }
}

/// # Safety
/// Called by keel with the arrays it documents.
unsafe fn water_query(
    user_data: *mut c_void,
    points: *const KeelVec3,
    count: u32,
    out_heights: *mut f32,
    out_normals: *mut KeelVec3,
    out_velocities: *mut KeelVec3,
) {
    let world = CURRENT_WORLD.get();
    if world == 0 {
        let thread = thread::current();
        violation(
            "the water callback ran on a thread that is not making a keel call",
            format!("thread {:?}", thread.name()),
        );
    } else {
        let mut running = lock(&RUNNING_CALLBACKS);
        if running.contains(&world) {
            violation(
                "the water callback was entered while it was running",
                format!("world {world:#x}"),
            );
        }
        running.push(world);
    }
    cb_log(|log| log.calls += 1);
    unsafe {
        answer(
            world,
            user_data,
            points,
            count,
            out_heights,
            out_normals,
            out_velocities,
        )
    };
    if world != 0 {
        let mut running = lock(&RUNNING_CALLBACKS);
        if let Some(i) = running.iter().position(|&w| w == world) {
            running.swap_remove(i);
        }
    }
}

/// # Safety
/// As [`water_query`].
unsafe fn answer(
    world: u64,
    user_data: *mut c_void,
    points: *const KeelVec3,
    count: u32,
    out_heights: *mut f32,
    out_normals: *mut KeelVec3,
    out_velocities: *mut KeelVec3,
) {
    let n = count as usize;
    if n == 0 {
        return;
    }
    let aligned = |p: usize, a: usize| p.is_multiple_of(a);
    if points.is_null() || out_heights.is_null() {
        let what = "keel passed its water callback a NULL points or heights array";
        violation(what, format!("{count} points"));
        return;
    }
    if !aligned(points as usize, align_of::<KeelVec3>())
        || !aligned(out_heights as usize, align_of::<f32>())
        || !aligned(out_normals as usize, align_of::<KeelVec3>())
        || !aligned(out_velocities as usize, align_of::<KeelVec3>())
    {
        violation(
            "keel passed its water callback a misaligned array",
            format!("{count} points"),
        );
        return;
    }
    // SAFETY: keel documents `count` elements for each array that is not NULL.
    let (points, heights) = unsafe {
        (
            std::slice::from_raw_parts(points, n),
            std::slice::from_raw_parts_mut(out_heights, n),
        )
    };
    let mut normals = (!out_normals.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(out_normals, n) });
    let mut velocities =
        (!out_velocities.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(out_velocities, n) });
    // SAFETY: user data is NULL or a leaked CbCtx.
    let Some(ctx) = (unsafe { user_data.cast::<CbCtx>().as_ref() }) else {
        heights.fill(0.0);
        normals.iter_mut().for_each(|n| n.fill(v3(0.0, 1.0, 0.0)));
        velocities.iter_mut().for_each(|v| v.fill(v3(0.0, 0.0, 0.0)));
        return;
    };
    let call = ctx.calls.fetch_add(1, Ordering::Relaxed);
    if ctx.kind == CbKind::Reentrant && world != 0 {
        reenter(world, call, user_data);
    }
    let mut write_all = |heights: &mut [f32]| {
        for (i, p) in points.iter().enumerate() {
            let (h, normal, velocity) = ctx.surface(p.x, p.z);
            heights[i] = h;
            if let Some(n) = normals.as_deref_mut() {
                n[i] = normal;
            }
            if let Some(v) = velocities.as_deref_mut() {
                v[i] = velocity;
            }
        }
    };
    let nan = f32::NAN;
    let garbage = match ctx.kind {
        CbKind::Flat | CbKind::Sine | CbKind::Reentrant | CbKind::Huge => {
            write_all(heights);
            None
        }
        CbKind::HeightsOnly => {
            heights.fill(ctx.level);
            (normals.is_some() || velocities.is_some()).then(|| "no normals or velocities where asked".to_string())
        }
        CbKind::NanHeights => {
            heights.fill(nan);
            Some("NaN heights".to_string())
        }
        CbKind::InfHeights => {
            for (i, h) in heights.iter_mut().enumerate() {
                *h = [f32::INFINITY, ctx.level, f32::NEG_INFINITY, ctx.level][i % 4];
            }
            Some("infinite heights".to_string())
        }
        CbKind::Silent => Some("nothing at all".to_string()),
        CbKind::NanWhere => {
            write_all(heights);
            let mut any = false;
            for (p, h) in points.iter().zip(heights.iter_mut()) {
                if p.x > ctx.split || p.x.is_nan() {
                    *h = nan;
                    any = true;
                }
            }
            any.then(|| format!("NaN heights where x > {:e}", ctx.split))
        }
        CbKind::NanNormals => {
            write_all(heights);
            normals.map(|n| {
                n.fill(v3(nan, nan, nan));
                "NaN normals".to_string()
            })
        }
    };
    if let Some(garbage) = garbage {
        cb_log(|log| {
            log.garbage.get_or_insert(garbage);
        });
    }
}

/// Calls keel on the callback's own world, which is busy in the call that asked: each
/// call must fail with KEEL_ERROR_INVALID_ARGUMENT, write nothing, and not deadlock.
fn reenter(world: u64, call: u64, user_data: *mut c_void) {
    let sentinel = f32::from_bits(0x7fc0_dead);
    let point = [v3(1.0, 0.0, 2.0)];
    let mut height = [sentinel];
    let vertices = [
        v3(0.0, 0.0, 0.0),
        v3(1.0, 0.0, 0.0),
        v3(0.0, 1.0, 0.0),
        v3(0.0, 0.0, 1.0),
    ];
    let indices = [0u32, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
    let hull_desc = KeelHullDesc {
        vertices: vertices.as_ptr(),
        vertex_count: 4,
        indices: indices.as_ptr(),
        index_count: 12,
        flip_winding: false,
    };
    let mut hull: KeelHull = 0xA5A5_A5A5_A5A5_A5A5;
    let zero = v3(0.0, 0.0, 0.0);
    // SAFETY: every pointer is valid for the counts passed.
    let (function, status) = unsafe {
        match call % 10 {
            0 => ("keel_world_set_time", raw::keel_world_set_time(world, 1.0)),
            1 => ("keel_world_set_wind", raw::keel_world_set_wind(world, zero)),
            2 => ("keel_world_set_current", raw::keel_world_set_current(world, zero)),
            3 => ("keel_water_set_flat", raw::keel_water_set_flat(world, 0.0)),
            4 => (
                "keel_water_sample",
                raw::keel_water_sample(
                    world,
                    point.as_ptr(),
                    1,
                    height.as_mut_ptr(),
                    ptr::null_mut(),
                    ptr::null_mut(),
                ),
            ),
            5 => (
                "keel_world_step",
                raw::keel_world_step(world, ptr::null(), ptr::null(), 0, 1.0 / 60.0, ptr::null_mut()),
            ),
            6 => ("keel_world_destroy", raw::keel_world_destroy(world)),
            7 => (
                "keel_water_set_spectrum",
                raw::keel_water_set_spectrum(world, 0, 10.0, 1.0, 0.0, 8, call),
            ),
            8 => (
                "keel_water_set_callback",
                raw::keel_water_set_callback(world, Some(fuzz_water), user_data),
            ),
            _ => ("keel_hull_create", raw::keel_hull_create(world, &hull_desc, &mut hull)),
        }
    };
    inner_status(world, function, status, KeelStatus::KEEL_ERROR_INVALID_ARGUMENT as u32);
    if height[0].to_bits() != sentinel.to_bits() || hull != 0xA5A5_A5A5_A5A5_A5A5 {
        violation(
            "a re-entrant call wrote its output although it failed",
            format!("{function} on world {world:#x} from inside its water callback"),
        );
    }
    if call.is_multiple_of(4) {
        // Another world is not forbidden, but handle 0 is never one.
        let status = unsafe { raw::keel_world_set_time(0, 1.0) };
        inner_status(world, "keel_world_set_time", status, INVALID_HANDLE);
    }
}

/// Said of a re-entrant call that found its world gone: another thread may have destroyed
/// a shared world while its callback ran, which is no fault of keel's.
const INNER_WORLD_GONE: &str = "a call from inside a water callback found its own world gone";

fn inner_status(world: u64, function: &str, status: u32, expected: u32) {
    if status == INVALID_HANDLE && expected == INVALID_ARGUMENT {
        violation(
            INNER_WORLD_GONE,
            format!("{function} (world {world:#x} is the callback's) returned KEEL_ERROR_INVALID_HANDLE"),
        );
    } else if status != expected {
        violation(
            "a call from inside a water callback did not fail as documented",
            format!(
                "{function} (world {world:#x} is the callback's) returned {}, expected {}",
                status_name(status),
                status_name(expected)
            ),
        );
    }
    if status != OK {
        let len = unsafe { keel_last_error_message(ptr::null_mut(), 0) };
        let mut buf = vec![0u8; len + 1];
        let n = unsafe { keel_last_error_message(buf.as_mut_ptr().cast::<c_char>(), buf.len()) };
        buf.truncate(len.min(n));
        if !buf.starts_with(format!("{function}: ").as_bytes()) {
            violation(
                "last error message does not name the failing function",
                format!(
                    "{function} from inside a water callback: {:?}",
                    String::from_utf8_lossy(&buf)
                ),
            );
        }
        cb_log(|log| log.inner_message = Some(buf));
    }
}

/// What the water of a world is, as far as this thread knows it exactly.
#[derive(Clone, Copy, Debug)]
enum Surface {
    /// Flat at this level.
    Flat(f32),
    /// A heightfield whose samples are all within [min, max].
    Grid(f32, f32),
    /// A callback of this test; None: NULL user data, a flat sea at 0.
    Callback(Option<&'static CbCtx>),
    /// Waves that move with time: Perlin, Gerstner, a spectrum. false: Gerstner waves
    /// whose steepness adds up to more than 1, which the header warns against (the
    /// surface folds over, and its normals with it).
    Waves(bool),
}

// ---------------------------------------------------------------------------------------
// The model of what this thread created

#[derive(Clone, Debug)]
struct HullM {
    handle: KeelHull,
    /// Closed as the library said (true when unknown, so nothing is expected to fail).
    closed: bool,
    users: u32,
    extreme: bool,
}

#[derive(Clone, Debug)]
struct BodyM {
    handle: KeelBody,
    hull: KeelHull,
    desc: KeelBodyDesc,
    hull_extreme: bool,
    state: Option<KeelBodyState>,
    /// The last step had extreme inputs: slamming compares with it.
    last_extreme: bool,
    /// The last step had extreme inputs or followed one: its detail may show it.
    last_any: bool,
    /// Submerged triangles of the last step, when known.
    submerged: Option<u32>,
    /// The force of the last step, which its triangle forces must add up to, when known.
    last_force: Option<KeelVec3>,
}

impl BodyM {
    fn tags(&self) -> u16 {
        bit(desc_extreme(&self.desc), X_BODY) | bit(self.hull_extreme, X_MESH) | bit(self.last_extreme, X_LAST)
    }
}

#[derive(Clone, Debug)]
struct WorldM {
    handle: KeelWorld,
    /// Shared with other threads: handles in it may die at any time.
    shared: bool,
    hulls: Vec<HullM>,
    bodies: Vec<BodyM>,
    /// Mean water level, to put bodies near the surface.
    level: f32,
    desc_extreme: bool,
    water_extreme: bool,
    time_extreme: bool,
    wind_extreme: bool,
    current_extreme: bool,
    water: String,
    time: f64,
    wind: KeelVec3,
    current: KeelVec3,
    /// The world's origin in the water's frame.
    origin: [f64; 3],
    /// The water as far as known exactly (own worlds only).
    surface: Surface,
}

impl WorldM {
    fn new(handle: KeelWorld, shared: bool, desc_extreme: bool) -> Self {
        Self {
            handle,
            shared,
            hulls: Vec::new(),
            bodies: Vec::new(),
            level: 0.0,
            desc_extreme,
            water_extreme: false,
            time_extreme: false,
            wind_extreme: false,
            current_extreme: false,
            water: "flat 0".into(),
            time: 0.0,
            wind: v3(0.0, 0.0, 0.0),
            current: v3(0.0, 0.0, 0.0),
            origin: [0.0; 3],
            surface: Surface::Flat(0.0),
        }
    }

    fn tags(&self) -> u16 {
        bit(self.desc_extreme, X_WORLD)
            | bit(self.water_extreme, X_WATER)
            | bit(self.time_extreme, X_TIME)
            | bit(self.wind_extreme, X_WIND)
            | bit(self.current_extreme, X_CURRENT)
    }

    fn context(&self) -> String {
        let zero = v3(0.0, 0.0, 0.0);
        let mut moving = String::new();
        if self.wind != zero {
            let _ = write!(moving, ", wind {:?}", self.wind);
        }
        if self.current != zero {
            let _ = write!(moving, ", current {:?}", self.current);
        }
        format!(
            "world {:#x} (water {}, time {:e}{moving}{})",
            self.handle,
            self.water,
            self.time,
            if self.shared {
                " as this thread last set them; shared with other threads"
            } else {
                ""
            }
        )
    }
}

/// Why a call must fail: the first argument that the header says is invalid.
#[derive(Clone, Copy, Debug, Default)]
struct Bad(Option<&'static str>);

impl Bad {
    fn add(&mut self, cond: bool, why: &'static str) {
        if cond && self.0.is_none() {
            self.0 = Some(why);
        }
    }

    fn merge(&mut self, other: Bad) {
        if self.0.is_none() {
            self.0 = other.0;
        }
    }
}

fn default_body_desc() -> KeelBodyDesc {
    // SAFETY: KeelBodyDesc is plain numbers and bools, for which zero is valid.
    let mut d: KeelBodyDesc = unsafe { std::mem::zeroed() };
    unsafe { keel_body_desc_default(&mut d) };
    d
}

/// A host's job system for the fuzzed worlds: with user_context 0 it runs the task at
/// once, range by range, and returns NULL; with 1 it defers the task to finish_task, which
/// runs its ranges last to first.
unsafe extern "C" fn fuzz_enqueue(
    task: KeelTaskFn,
    item_count: u32,
    min_range: u32,
    task_context: *mut c_void,
    user_context: *mut c_void,
) -> *mut c_void {
    if user_context.is_null() {
        let step = min_range.max(1);
        let mut start = 0;
        while start < item_count {
            let end = start.saturating_add(step).min(item_count);
            // SAFETY: keel's task, with its context.
            unsafe { task.expect("a task")(start, end, 0, task_context) };
            start = end;
        }
        return ptr::null_mut();
    }
    Box::into_raw(Box::new((task, item_count, min_range, task_context))).cast()
}

unsafe extern "C" fn fuzz_finish(user_task: *mut c_void, _user_context: *mut c_void) {
    // SAFETY: what fuzz_enqueue boxed.
    let (task, count, min_range, context) =
        *unsafe { Box::from_raw(user_task.cast::<(KeelTaskFn, u32, u32, *mut c_void)>()) };
    let step = min_range.max(1);
    let starts: Vec<u32> = (0..count).step_by(step as usize).collect();
    for &start in starts.iter().rev() {
        // SAFETY: as above.
        unsafe { task.expect("a task")(start, start.saturating_add(step).min(count), 1, context) };
    }
}

fn default_world_desc() -> KeelWorldDesc {
    // SAFETY: as above.
    let mut d: KeelWorldDesc = unsafe { std::mem::zeroed() };
    unsafe { keel_world_desc_default(&mut d) };
    d
}

fn bit(on: bool, bit: u16) -> u16 {
    if on { bit } else { 0 }
}

/// Everyday upper ends of the coefficients, in the order of `coefficients`.
const COEFFICIENT_RANGE: [f32; 16] = [
    5.0, 1000.0, 1000.0, 1000.0, 500.0, 1.0, 1.0, 3.0, 3.0, 100.0, 5.0, 2.0, 500.0, 500.0, 1.0, 0.01,
];

/// A body description out of the ordinary: a mass or coefficient far from everyday values.
fn desc_extreme(d: &KeelBodyDesc) -> bool {
    !(1.0..=1e5).contains(&d.mass)
        || d.reference_speed < 0.01
        || coefficients(d)
            .iter()
            .zip(COEFFICIENT_RANGE)
            .any(|(&c, hi)| c.abs() > 10.0 * hi || (c != 0.0 && c.abs() < 1e-6 * hi))
}

fn dt_extreme(dt: f32) -> bool {
    !(1e-4..=1.0).contains(&dt)
}

/// The coefficients of a body description that must be finite.
fn coefficients(d: &KeelBodyDesc) -> [f32; 16] {
    [
        d.hull_length,
        d.pressure_drag_linear,
        d.pressure_drag_quadratic,
        d.suction_drag_linear,
        d.suction_drag_quadratic,
        d.pressure_falloff,
        d.suction_falloff,
        d.reference_speed,
        d.slamming_power,
        d.slamming_max_acceleration,
        d.slamming_multiplier,
        d.air_drag_coefficient,
        d.linear_damping,
        d.angular_damping,
        d.added_mass_ratio,
        d.residual_resistance,
    ]
}

fn coefficient_mut(d: &mut KeelBodyDesc, i: usize) -> &mut f32 {
    match i {
        0 => &mut d.hull_length,
        1 => &mut d.pressure_drag_linear,
        2 => &mut d.pressure_drag_quadratic,
        3 => &mut d.suction_drag_linear,
        4 => &mut d.suction_drag_quadratic,
        5 => &mut d.pressure_falloff,
        6 => &mut d.suction_falloff,
        7 => &mut d.reference_speed,
        8 => &mut d.slamming_power,
        9 => &mut d.slamming_max_acceleration,
        10 => &mut d.slamming_multiplier,
        11 => &mut d.air_drag_coefficient,
        12 => &mut d.linear_damping,
        13 => &mut d.angular_damping,
        14 => &mut d.added_mass_ratio,
        _ => &mut d.residual_resistance,
    }
}

/// What the header says of a body description, the hull aside.
fn body_desc_bad(d: &KeelBodyDesc) -> Bad {
    let mut bad = Bad::default();
    bad.add(!positive(d.mass), "mass is not finite and > 0");
    bad.add(d.buoyancy > KEEL_BUOYANCY_NONE, "unknown buoyancy model");
    bad.add(d.forces & !63 != 0, "unknown force bits");
    bad.add(
        d.forces & KEEL_FORCE_LUMPED_RESISTANCE != 0
            && d.forces & (KEEL_FORCE_VISCOUS | KEEL_FORCE_PRESSURE_DRAG | KEEL_FORCE_AIR) != 0,
        "LUMPED_RESISTANCE with VISCOUS, PRESSURE_DRAG or AIR",
    );
    bad.add(!positive(d.reference_speed), "reference_speed is not finite and > 0");
    bad.add(
        coefficients(d).iter().any(|c| !c.is_finite()),
        "a non-finite coefficient",
    );
    bad.add(d.added_mass_ratio < 0.0, "added_mass_ratio is negative");
    bad.add(d.residual_resistance < 0.0, "residual_resistance is negative");
    bad.add(d.water_patch_cells > 1024, "water_patch_cells is above 1024");
    let i = d.inertia;
    let unset = i.x == 0.0 && i.y == 0.0 && i.z == 0.0;
    bad.add(
        !unset && ![i.x, i.y, i.z].iter().all(|&m| m > 0.0 && m as f64 <= 1e18),
        "inertia is neither all zero nor three positive finite moments up to 1e18",
    );
    let q = d.inertia_rotation;
    let q_length = (q.x as f64).powi(2) + (q.y as f64).powi(2) + (q.z as f64).powi(2) + (q.w as f64).powi(2);
    bad.add(
        !(q_length >= 1e-12 && q_length.is_finite()),
        "inertia_rotation is zero or not finite",
    );
    bad
}

/// A state out of the ordinary: far away, fast, spinning, a rotation far from unit length.
fn state_extreme(s: &KeelBodyState) -> bool {
    let big = |v: KeelVec3, limit: f32| !(v.x.abs() <= limit && v.y.abs() <= limit && v.z.abs() <= limit);
    let q = s.rotation;
    let length = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
    let offset = v3(
        s.center_of_mass.x - s.position.x,
        s.center_of_mass.y - s.position.y,
        s.center_of_mass.z - s.position.z,
    );
    big(s.position, 1e5)
        || big(s.center_of_mass, 1e5)
        || big(offset, 1e3)
        || big(s.linear_velocity, 1e3)
        || big(s.angular_velocity, 1e2)
        || !(1e-2..=1e2).contains(&length)
}

fn state_bad(s: &KeelBodyState) -> Bad {
    let mut bad = Bad::default();
    let vectors = [s.position, s.linear_velocity, s.angular_velocity, s.center_of_mass];
    bad.add(!vectors.into_iter().all(vec_finite), "a non-finite state vector");
    let q = s.rotation;
    let q = [q.x, q.y, q.z, q.w];
    bad.add(q.iter().any(|c| !c.is_finite()), "a non-finite rotation");
    let length = q.iter().map(|&c| (c as f64) * (c as f64)).sum::<f64>().sqrt();
    bad.add(length < 1e-6, "a zero rotation");
    bad
}

/// Why triangle forces do not add up to the last step's `force`, if they do not.
fn force_sum_differs(forces: &[KeelTriangleForce], force: KeelVec3) -> Option<String> {
    let (mut sum, mut magnitude) = ([0.0f64; 3], 0.0f64);
    for f in forces {
        let c = [f.force.x as f64, f.force.y as f64, f.force.z as f64];
        magnitude += c.iter().map(|x| x * x).sum::<f64>().sqrt();
        sum.iter_mut().zip(c).for_each(|(s, x)| *s += x);
    }
    let expected = [force.x as f64, force.y as f64, force.z as f64];
    let length = |v: [f64; 3]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let error = length([sum[0] - expected[0], sum[1] - expected[1], sum[2] - expected[2]]);
    let tolerance = 1e-4 * (magnitude + length(expected)) + 1e-3;
    (error > tolerance || error.is_nan()).then(|| {
        format!(
            "{} triangle forces add up to {sum:?} (magnitudes {magnitude:e}), the last step's force is {force:?}",
            forces.len()
        )
    })
}

/// One answer of keel_water_sample; None where the output was not asked for.
struct Sample {
    point: KeelVec3,
    height: Option<f32>,
    normal: Option<KeelVec3>,
    velocity: Option<KeelVec3>,
}

/// A generated mesh and what is known of it.
struct MeshGen {
    vertices: Vec<KeelVec3>,
    indices: Vec<u32>,
    flip: bool,
    /// Invalid by construction (every triangle degenerate, every vertex at the origin).
    bad: Bad,
    extreme: bool,
    label: String,
    /// A closed mesh with one triangle turned against its neighbours, and nothing else wrong.
    one_turned: bool,
}

// ---------------------------------------------------------------------------------------
// The fuzzer

struct Fuzzer {
    rng: Rng,
    seed: u64,
    thread: usize,
    op: u64,
    calls: u64,
    worlds: Vec<WorldM>,
    /// Destroyed handles of every kind: never valid again (generations are unique).
    dead: Vec<u64>,
    pool: Option<Arc<Pool>>,
    findings: Arc<Mutex<Findings>>,
    progress: Arc<Progress>,
    trace_from: Option<u64>,
    fail_fast: bool,
    /// This thread's last error message, as it must read now.
    last_message: Vec<u8>,
    stats: BTreeMap<&'static str, [u64; 8]>,
    checked: BTreeMap<&'static str, u64>,
    max_worlds: usize,
    /// The water callbacks' parameters this thread made (leaked, see `CbCtx`).
    callbacks: Vec<&'static CbCtx>,
    /// The last successful `keel_world_step`'s world and bodies: often stepped again, as
    /// a game does every frame (keel then reuses the batch's checks and groups).
    last_step: Option<(KeelWorld, Vec<KeelBody>)>,
    /// Snapshots taken, for restores (the latest few).
    snapshots: Vec<Saved>,
}

/// A snapshot this thread took, with what the model knew when it was taken.
#[derive(Clone, Debug)]
struct Saved {
    bytes: Vec<u8>,
    /// The world it was taken of, and for a body's, the body and its hull.
    world: KeelWorld,
    body: Option<(KeelBody, KeelHull)>,
    /// The world's time, wind and current, and their extreme tags, and its origin and
    /// whether its water was extreme.
    conditions: (f64, KeelVec3, KeelVec3, [bool; 3]),
    origin: ([f64; 3], bool),
    /// Each body's `last_extreme` and `last_any` then, and its hull.
    bodies: Vec<(KeelBody, bool, bool, KeelHull)>,
    /// Of a world of this thread's own (its model is whole).
    exact: bool,
    /// The world's state hash then (own worlds), which a restore must bring back.
    hash: Option<u64>,
}

/// How many snapshots a thread keeps.
const SAVED: usize = 8;

impl Fuzzer {
    fn new(
        cfg: &Config,
        thread: usize,
        pool: Option<Arc<Pool>>,
        findings: Arc<Mutex<Findings>>,
        progress: Arc<Progress>,
    ) -> Self {
        let seed = cfg.seed ^ (thread as u64).wrapping_mul(0xA076_1D64_78BD_642F);
        Self {
            rng: Rng(seed, false),
            seed: cfg.seed,
            thread,
            op: 0,
            calls: 0,
            worlds: Vec::new(),
            dead: Vec::new(),
            max_worlds: if pool.is_some() { 3 } else { 5 },
            pool,
            findings,
            progress,
            trace_from: cfg.trace_from,
            fail_fast: cfg.fail_fast,
            last_message: Vec::new(),
            last_step: None,
            snapshots: Vec::new(),
            stats: BTreeMap::new(),
            checked: BTreeMap::new(),
            callbacks: Vec::new(),
        }
    }

    // ---- bookkeeping -------------------------------------------------------------------

    fn enter(&mut self, function: &'static str) {
        take_cb_log();
        self.calls += 1;
        *lock(&self.progress.current) = (function, self.op);
        self.progress.calls.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a check, for the report.
    fn checked(&mut self, what: &'static str) {
        *self.checked.entry(what).or_insert(0) += 1;
    }

    fn where_(&self) -> String {
        format!("seed {:#x}, thread {}, op {}", self.seed, self.thread, self.op)
    }

    fn finding(&mut self, what: &str, function: &str, inputs: Inputs, detail: String) {
        let class = match inputs {
            Inputs::Ordinary => "ordinary inputs",
            Inputs::Extreme(_) => "extreme but accepted inputs",
            Inputs::Shared => "shared world",
        };
        let key = format!("{what} in {function} ({class})");
        let mut text = format!("{}: {} ({})", self.where_(), detail, inputs.text());
        if text.len() > 6000 {
            let mut cut = 6000;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str(" ...");
        }
        if self.fail_fast {
            panic!("{key}\n  {text}");
        }
        let tags = match inputs {
            Inputs::Extreme(bits) => bits,
            _ => 0,
        };
        let mut findings = lock(&self.findings);
        let entry = findings.map.entry(key).or_insert_with(|| Finding {
            count: 0,
            examples: BTreeMap::new(),
        });
        entry.count += 1;
        entry.examples.entry(tags).or_insert((0, text)).0 += 1;
    }

    /// The thread's last error message, read as C would: length first, then the text.
    fn read_last_error(&mut self) -> Vec<u8> {
        let len = unsafe { keel_last_error_message(ptr::null_mut(), 0) };
        let mut buf = vec![0u8; len + 1];
        let n = unsafe { keel_last_error_message(buf.as_mut_ptr().cast::<c_char>(), buf.len()) };
        if n != len {
            let inputs = Inputs::Ordinary;
            self.finding(
                "last error message changed length between two reads",
                "keel_last_error_message",
                inputs,
                format!("{len} then {n}"),
            );
        }
        buf.truncate(len.min(n));
        buf
    }

    /// Checks the status of a call. `bad` says why the call must fail, `must` that it
    /// must succeed; `call` describes it for the report.
    fn check(
        &mut self,
        function: &'static str,
        status: u32,
        bad: Bad,
        must: bool,
        inputs: Inputs,
        call: &dyn Fn() -> String,
    ) -> u32 {
        self.check_status(function, status, bad, must, false, inputs, call)
    }

    /// [`Fuzzer::check`]; `argument_only`: the handles and pointers are known to be good, so
    /// the call may fail only with KEEL_ERROR_INVALID_ARGUMENT (a value out of range, forces
    /// that would not be finite, a water callback's bad answer) unless `bad` says otherwise.
    #[allow(clippy::too_many_arguments)]
    fn check_status(
        &mut self,
        function: &'static str,
        status: u32,
        bad: Bad,
        must: bool,
        argument_only: bool,
        inputs: Inputs,
        call: &dyn Fn() -> String,
    ) -> u32 {
        let log = take_cb_log();
        let foreign = std::mem::take(&mut *lock(&FOREIGN_CALLBACKS));
        if log.calls > 0 {
            self.checked("calls answered by a water callback");
        }
        if log.garbage.is_some() {
            self.checked("calls whose water callback answered garbage (must fail)");
        }
        if log.inner_message.is_some() {
            self.checked("calls whose water callback called keel on its own world");
        }
        for (what, detail) in log.violations.into_iter().chain(foreign) {
            if !(what == INNER_WORLD_GONE && inputs == Inputs::Shared) {
                self.finding(what, function, inputs, format!("{}\n  {detail}", call()));
            }
        }
        const ASKING: [&str; 4] = [
            "keel_body_step",
            "keel_world_step",
            "keel_water_sample",
            "keel_body_find_equilibrium",
        ];
        if log.calls > 0 && !ASKING.contains(&function) {
            self.finding(
                "the water callback was called by a function that does not ask the water",
                function,
                inputs,
                format!("{}\n  {} callback call(s)", call(), log.calls),
            );
        }
        // A callback that answered garbage fails the call that asked: nothing must succeed then.
        let must = must && log.garbage.is_none() && bad.0.is_none();
        if let (OK, Some(garbage)) = (status, &log.garbage) {
            self.finding(
                "succeeded although the water callback answered garbage",
                function,
                inputs,
                format!("{}\n  the callback answered {garbage}", call()),
            );
        }
        if let (OK, Some(message)) = (status, log.inner_message) {
            // A re-entrant call failed inside the callback; the outer call did not.
            self.last_message = message;
        }
        let argument_only = argument_only && bad.0.is_none();
        if argument_only && status != OK && status != INVALID_ARGUMENT && status != INTERNAL {
            self.finding(
                "failed with a status other than KEEL_ERROR_INVALID_ARGUMENT",
                function,
                inputs,
                format!(
                    "{}\n  status {} (handles and pointers were valid{})",
                    call(),
                    status_name(status),
                    log.garbage
                        .map_or(String::new(), |g| format!("; the callback answered {g}"))
                ),
            );
        }
        let slot = (status as usize).min(7);
        self.stats.entry(function).or_insert([0; 8])[slot] += 1;
        if self.trace_from.is_some_and(|from| self.op >= from) {
            println!("[{}] {function} -> {}: {}", self.where_(), status_name(status), call());
        }
        if status as usize >= STATUS_NAMES.len() {
            self.finding("status outside KeelStatus", function, inputs, call());
        }
        if status != OK {
            let message = self.read_last_error();
            let text = String::from_utf8_lossy(&message).into_owned();
            if status == INTERNAL {
                self.finding(
                    "KEEL_ERROR_INTERNAL",
                    function,
                    inputs,
                    format!("{}\n  last error: {text}", call()),
                );
            }
            if !text.starts_with(&format!("{function}: ")) {
                self.finding(
                    "last error message does not name the failing function",
                    function,
                    inputs,
                    format!("{}\n  status {}, message {text:?}", call(), status_name(status)),
                );
            }
            if must {
                self.finding(
                    "a valid call failed",
                    function,
                    inputs,
                    format!("{}\n  status {}, last error: {text}", call(), status_name(status)),
                );
            }
            self.last_message = message;
        } else if let Some(why) = bad.0 {
            self.finding(
                "an invalid call succeeded",
                function,
                inputs,
                format!("{}\n  invalid because: {why}", call()),
            );
        }
        status
    }

    fn inputs(&self, wi: Option<usize>, tags: u16) -> Inputs {
        let w = wi.map(|i| &self.worlds[i]);
        if w.is_some_and(|w| w.shared) {
            return Inputs::Shared;
        }
        match tags | w.map_or(0, WorldM::tags) {
            0 => Inputs::Ordinary,
            bits => Inputs::Extreme(bits),
        }
    }

    fn exact(&self, wi: Option<usize>) -> bool {
        wi.is_some_and(|i| !self.worlds[i].shared)
    }

    fn context(&self, wi: Option<usize>) -> String {
        wi.map_or_else(|| "an invalid world".into(), |i| self.worlds[i].context())
    }

    fn mode(&mut self, p_bad: f64) -> Ptr {
        if self.rng.chance(p_bad) {
            if self.rng.chance(0.6) {
                Ptr::Null
            } else {
                Ptr::Misaligned
            }
        } else {
            Ptr::Valid
        }
    }

    fn fill(&mut self) -> u8 {
        // Never 0 or 1, so that a sentinel cannot pass for a bool or a zero.
        2 + self.rng.below(250) as u8
    }

    fn bury(&mut self, handle: u64) {
        if self.dead.len() >= 512 {
            let i = self.rng.below(self.dead.len());
            self.dead[i] = handle;
        } else {
            self.dead.push(handle);
        }
    }

    // ---- handles -----------------------------------------------------------------------

    /// A live handle of this thread's own worlds (worlds, hulls or bodies).
    fn own_live_handle(&mut self) -> Option<u64> {
        let own: Vec<usize> = (0..self.worlds.len()).filter(|&i| !self.worlds[i].shared).collect();
        if own.is_empty() {
            return None;
        }
        let w = &self.worlds[own[self.rng.below(own.len())]];
        let mut all = vec![w.handle];
        all.extend(w.hulls.iter().map(|h| h.handle));
        all.extend(w.bodies.iter().map(|b| b.handle));
        Some(all[self.rng.below(all.len())])
    }

    /// A handle that cannot be live where it is looked up: in the world registry
    /// (`tables_of` None) or among the hulls and bodies of world `tables_of`. Destroyed
    /// (ids are never issued twice), zero, `u64::MAX`, random, or one bit off a live one of
    /// ours. A flipped id is never another live world (there is one table of worlds, and a
    /// generation belongs to one object), but it can be a live hull or body of another
    /// world's table: it is checked against the world it is passed to, which must be one
    /// whose objects are all known here.
    fn invalid_handle(&mut self, tables_of: Option<usize>) -> u64 {
        match self.rng.below(7) {
            0 | 1 if !self.dead.is_empty() => self.dead[self.rng.below(self.dead.len())],
            2 => 0,
            3 => u64::MAX,
            4 | 5 => {
                let known = tables_of.is_none_or(|i| !self.worlds[i].shared);
                match self.own_live_handle().filter(|_| known) {
                    Some(h) => {
                        let flipped = h ^ (1u64 << self.rng.below(64));
                        let live = tables_of.is_some_and(|i| {
                            let w = &self.worlds[i];
                            w.hulls.iter().any(|x| x.handle == flipped) || w.bodies.iter().any(|x| x.handle == flipped)
                        });
                        if live { 0 } else { flipped }
                    }
                    None => self.rng.next(),
                }
            }
            _ => self.rng.next(),
        }
    }

    /// A live handle of another kind than `kind` ("world", "hull", "body").
    fn other_kind(&mut self, kind: &str) -> Option<u64> {
        let mut all = Vec::new();
        for w in &self.worlds {
            if kind != "world" {
                all.push(w.handle);
            }
            if kind != "hull" {
                all.extend(w.hulls.iter().map(|h| h.handle));
            }
            if kind != "body" {
                all.extend(w.bodies.iter().map(|b| b.handle));
            }
        }
        (!all.is_empty()).then(|| all[self.rng.below(all.len())])
    }

    /// A world to call, or an invalid handle; the call's water callbacks may run for it.
    fn pick_world(&mut self, p_bad: f64) -> (Option<usize>, KeelWorld, Bad) {
        let picked = if self.worlds.is_empty() || self.rng.chance(p_bad) {
            let h = match self.other_kind("world").filter(|_| self.rng.chance(0.25)) {
                Some(h) => h,
                None => self.invalid_handle(None),
            };
            (None, h, Bad(Some("an invalid world handle")))
        } else {
            let i = self.rng.below(self.worlds.len());
            self.rng.1 = self.worlds[i].shared;
            (Some(i), self.worlds[i].handle, Bad::default())
        };
        CURRENT_WORLD.set(picked.1);
        picked
    }

    /// A hull of world `wi`, or an invalid one: of another world, destroyed, forged, of
    /// another kind.
    fn pick_hull(&mut self, wi: Option<usize>, p_bad: f64) -> (Option<usize>, KeelHull, Bad) {
        let n = wi.map_or(0, |i| self.worlds[i].hulls.len());
        if n > 0 && !self.rng.chance(p_bad) {
            let j = self.rng.below(n);
            let i = wi.unwrap_or_default();
            return (Some(j), self.worlds[i].hulls[j].handle, Bad::default());
        }
        let h = match self.rng.below(4) {
            0 => {
                let others: Vec<u64> = (0..self.worlds.len())
                    .filter(|&k| Some(k) != wi)
                    .flat_map(|k| self.worlds[k].hulls.iter().map(|h| h.handle))
                    .collect();
                if others.is_empty() {
                    self.invalid_handle(wi)
                } else {
                    others[self.rng.below(others.len())]
                }
            }
            1 => self.other_kind("hull").unwrap_or(0),
            _ => self.invalid_handle(wi),
        };
        (None, h, Bad(Some("an invalid hull handle")))
    }

    fn pick_body(&mut self, wi: Option<usize>, p_bad: f64) -> (Option<usize>, KeelBody, Bad) {
        let n = wi.map_or(0, |i| self.worlds[i].bodies.len());
        if n > 0 && !self.rng.chance(p_bad) {
            let j = self.rng.below(n);
            let i = wi.unwrap_or_default();
            return (Some(j), self.worlds[i].bodies[j].handle, Bad::default());
        }
        (None, self.invalid_body(wi), Bad(Some("an invalid body handle")))
    }

    fn invalid_body(&mut self, wi: Option<usize>) -> KeelBody {
        match self.rng.below(4) {
            0 => {
                let others: Vec<u64> = (0..self.worlds.len())
                    .filter(|&k| Some(k) != wi)
                    .flat_map(|k| self.worlds[k].bodies.iter().map(|b| b.handle))
                    .collect();
                if others.is_empty() {
                    self.invalid_handle(wi)
                } else {
                    others[self.rng.below(others.len())]
                }
            }
            1 => self.other_kind("body").unwrap_or(u64::MAX),
            _ => self.invalid_handle(wi),
        }
    }

    // ---- generators --------------------------------------------------------------------

    fn world_desc(&mut self, extreme: &mut bool) -> (KeelWorldDesc, Bad) {
        let mut d = default_world_desc();
        let r = &mut self.rng;
        if r.chance(0.5) {
            for _ in 0..1 + r.below(3) {
                match r.below(5) {
                    0 => d.gravity = r.num(1.0, 25.0, 0.3, extreme),
                    1 => d.water_density = r.num(500.0, 1500.0, 0.3, extreme),
                    2 => d.air_density = r.num(0.0, 3.0, 0.3, extreme),
                    3 => d.water_viscosity = r.num(1e-7, 1e-5, 0.3, extreme),
                    4 if r.chance(0.5) => {
                        // The host's job system: serial, or deferred to finish_task (in
                        // reverse order); now and then half of it, or no workers.
                        let deferred = r.chance(0.5);
                        d.enqueue_task = Some(fuzz_enqueue);
                        d.finish_task = Some(fuzz_finish);
                        d.user_task_context = usize::from(deferred) as *mut c_void;
                        d.worker_count = if r.chance(0.9) {
                            r.pick(&[1, 2, 3, 8])
                        } else {
                            r.pick(&[0, 257])
                        };
                        if r.chance(0.05) {
                            d.finish_task = None;
                        }
                    }
                    _ => {
                        d.thread_count = if r.chance(0.9) {
                            r.pick(&[0, 1, 1, 2, 3, 4])
                        } else if r.chance(0.02) {
                            256
                        } else {
                            r.pick(&[257, 1000, u32::MAX])
                        }
                    }
                }
            }
        }
        let mut bad = Bad::default();
        bad.add(!positive(d.gravity), "gravity is not finite and > 0");
        bad.add(!positive(d.water_density), "water_density is not finite and > 0");
        bad.add(
            !(d.air_density.is_finite() && d.air_density >= 0.0),
            "air_density is not finite and >= 0",
        );
        bad.add(!positive(d.water_viscosity), "water_viscosity is not finite and > 0");
        if d.enqueue_task.is_some() {
            bad.add(d.finish_task.is_none(), "enqueue_task without finish_task");
            bad.add(
                !(1..=256).contains(&d.worker_count),
                "worker_count is not 1 to 256 with a job system",
            );
        }
        (d, bad)
    }

    fn time(&mut self, extreme: &mut bool) -> f64 {
        if self.rng.1 || self.rng.chance(0.8) {
            self.rng.unit() * 1000.0
        } else {
            *extreme = true;
            self.rng.pick(&[
                1e300,
                -1e300,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MAX,
                f64::MIN,
                1e308,
                -1e308,
                5e-324,
                1e15,
                -0.0,
                1e9,
                -5.0,
            ])
        }
    }

    fn dt(&mut self, extreme: &mut bool) -> (f32, Bad) {
        let dt = match self.rng.below(if self.rng.1 { 8 } else { 10 }) {
            0..=4 => 1.0 / 60.0,
            5..=7 => self.rng.range(0.001, 0.1),
            _ => {
                *extreme = true;
                self.rng.pick(&[
                    -1.0 / 60.0,
                    0.0,
                    -0.0,
                    1e-9,
                    1e3,
                    f32::NAN,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    1e-30,
                    f32::MAX,
                    1e-45,
                    10.0,
                ])
            }
        };
        let mut bad = Bad::default();
        bad.add(!positive(dt), "dt is not finite and > 0");
        (dt, bad)
    }

    /// A state near the water for a body of world `wi`, often continuing its last one.
    fn state(
        &mut self,
        wi: Option<usize>,
        prev: Option<KeelBodyState>,
        p_weird: f64,
        extreme: &mut bool,
    ) -> KeelBodyState {
        let level = wi.map_or(0.0, |i| self.worlds[i].level);
        let level = if level.is_finite() && level.abs() < 1e6 {
            level
        } else {
            0.0
        };
        let r = &mut self.rng;
        let mut s = match prev {
            Some(p) if r.chance(0.6) && state_bad(&p).0.is_none() => {
                let mut s = p;
                let d = v3(r.range(-0.1, 0.1), r.range(-0.1, 0.1), r.range(-0.1, 0.1));
                s.position = v3(s.position.x + d.x, s.position.y + d.y, s.position.z + d.z);
                s.center_of_mass = v3(
                    s.center_of_mass.x + d.x,
                    s.center_of_mass.y + d.y,
                    s.center_of_mass.z + d.z,
                );
                s.linear_velocity.y += r.range(-0.5, 0.5);
                s.rotation.x += r.range(-0.02, 0.02);
                s
            }
            _ => {
                let position = v3(r.range(-20.0, 20.0), level + r.range(-4.0, 4.0), r.range(-20.0, 20.0));
                KeelBodyState {
                    position,
                    rotation: if r.chance(0.2) {
                        KeelQuat {
                            x: 0.0,
                            y: 0.0,
                            z: 0.0,
                            w: 1.0,
                        }
                    } else {
                        r.unit_quat()
                    },
                    linear_velocity: v3(r.range(-5.0, 5.0), r.range(-5.0, 5.0), r.range(-5.0, 5.0)),
                    angular_velocity: v3(r.range(-2.0, 2.0), r.range(-2.0, 2.0), r.range(-2.0, 2.0)),
                    center_of_mass: v3(
                        position.x + r.range(-0.3, 0.3),
                        position.y + r.range(-0.3, 0.3),
                        position.z + r.range(-0.3, 0.3),
                    ),
                }
            }
        };
        if r.wild(p_weird) {
            *extreme = true;
            match r.below(12) {
                0 => s.position.x = r.weird_f32(),
                1 => s.position.y = r.weird_f32(),
                2 => {
                    let far = v3(r.range(-1e7, 1e7), r.range(-1e7, 1e7), r.range(-1e7, 1e7));
                    s.position = far;
                    s.center_of_mass = far;
                }
                3 => {
                    s.rotation = KeelQuat {
                        x: 0.0,
                        y: 0.0,
                        z: 0.0,
                        w: 0.0,
                    }
                }
                4 => {
                    let k = r.pick(&[1e-7f32, 1e-30, 1e30, 1e-3, 1e3, 1e19]);
                    let q = s.rotation;
                    s.rotation = KeelQuat {
                        x: q.x * k,
                        y: q.y * k,
                        z: q.z * k,
                        w: q.w * k,
                    };
                }
                5 => s.rotation.w = r.weird_f32(),
                6 => s.linear_velocity = v3(r.range(-1e6, 1e6), r.range(-1e6, 1e6), r.range(-1e6, 1e6)),
                7 => s.angular_velocity = v3(r.range(-1e3, 1e3), r.range(-1e6, 1e6), r.range(-1e3, 1e3)),
                8 => s.linear_velocity.y = r.weird_f32(),
                9 => s.angular_velocity.x = r.weird_f32(),
                10 => s.center_of_mass.z = r.weird_f32(),
                _ => {
                    s.center_of_mass = v3(
                        s.position.x + r.range(-1e4, 1e4),
                        s.position.y + r.range(-1e4, 1e4),
                        s.position.z,
                    )
                }
            }
        }
        s
    }

    /// A body description for world `wi`: fresh, or `base` changed a little.
    /// Also says whether the hull is extreme.
    fn body_desc(&mut self, wi: Option<usize>, base: Option<KeelBodyDesc>) -> (KeelBodyDesc, Bad, bool) {
        let extreme = &mut false;
        let mut bad = Bad::default();
        let mut d = base.unwrap_or_else(default_body_desc);
        let mut hull_extreme = false;
        let mut hull_closed = true;
        if base.is_none() || self.rng.chance(0.2) {
            let (hi, hull, hbad) = self.pick_hull(wi, 0.12);
            d.hull = hull;
            bad.merge(hbad);
            if let (Some(i), Some(j)) = (wi, hi) {
                hull_extreme = self.worlds[i].hulls[j].extreme;
                hull_closed = self.worlds[i].hulls[j].closed;
            }
        } else if let Some(i) = wi
            && let Some(h) = self.worlds[i].hulls.iter().find(|h| h.handle == d.hull)
        {
            hull_extreme = h.extreme;
            hull_closed = h.closed;
        }
        let r = &mut self.rng;
        if base.is_none() {
            d.mass = r.range(10.0, 5000.0);
        }
        let changes = if base.is_some() { 1 + r.below(2) } else { r.below(4) };
        for _ in 0..changes {
            match r.below(8) {
                0 => d.mass = r.num(1.0, 20000.0, 0.25, extreme),
                6 => {
                    // The host's inertia: unset, plausible, or garbage.
                    d.inertia = match r.below(4) {
                        0 => v3(0.0, 0.0, 0.0),
                        1 | 2 => v3(
                            r.num(0.01, 1e5, 0.25, extreme),
                            r.num(0.01, 1e5, 0.25, extreme),
                            r.num(0.01, 1e5, 0.25, extreme),
                        ),
                        _ => {
                            *extreme = true;
                            v3(r.weird_f32(), 0.0, r.pick(&[1e20, 5.0, -1.0]))
                        }
                    };
                    let (x, y, z, w) = (
                        r.range(-1.0, 1.0),
                        r.range(-1.0, 1.0),
                        r.range(-1.0, 1.0),
                        r.range(-1.0, 1.0),
                    );
                    d.inertia_rotation = if r.chance(0.9) {
                        KeelQuat { x, y, z, w }
                    } else {
                        r.pick(&[
                            KeelQuat {
                                x: 0.0,
                                y: 0.0,
                                z: 0.0,
                                w: 0.0,
                            },
                            KeelQuat {
                                x: f32::NAN,
                                y: 0.0,
                                z: 0.0,
                                w: 1.0,
                            },
                            KeelQuat {
                                x: 0.0,
                                y: f32::INFINITY,
                                z: 0.0,
                                w: 1.0,
                            },
                        ])
                    };
                }
                1 => {
                    d.buoyancy = if r.chance(0.8) {
                        r.below(5) as u32
                    } else {
                        r.pick(&[5, 6, 9, 10, u32::MAX, 0x8000_0000])
                    }
                }
                2 => {
                    d.forces = if r.chance(0.9) {
                        r.below(64) as u32
                    } else {
                        r.next() as u32
                    }
                }
                3 => d.vertical_buoyancy_only = r.chance(0.5),
                4 => {
                    // Small patches, so that they are used on meshes with more vertices.
                    d.water_patch_cells = if r.chance(0.92) {
                        r.pick(&[0, 1, 2, 3, 4, 6, 8, 16, 33])
                    } else {
                        r.pick(&[1024, 1025, 4096, u32::MAX])
                    }
                }
                _ => {
                    let i = r.below(16);
                    let lo = if i == 7 { 0.1 } else { 0.0 };
                    *coefficient_mut(&mut d, i) = r.num(lo, COEFFICIENT_RANGE[i], 0.25, extreme);
                }
            }
        }
        if r.chance(0.05) {
            d.buoyancy = r.below(11) as u32;
        }
        bad.merge(body_desc_bad(&d));
        bad.add(
            (d.buoyancy == KEEL_BUOYANCY_VOLUME || d.buoyancy == KEEL_BUOYANCY_AREA_RATIO) && !hull_closed,
            "a volume buoyancy model on an open hull",
        );
        (d, bad, hull_extreme)
    }

    fn mesh(&mut self) -> MeshGen {
        let r = &mut self.rng;
        let mut bad = Bad::default();
        let mut extreme = false;
        let centre = Vec3::new(r.range(-1.0, 1.0), r.range(-1.0, 1.0), r.range(-1.0, 1.0));
        let (mesh, label) = if r.chance(0.02) {
            (common::uv_sphere(r.range(0.5, 3.0), 24, 48), "large uv sphere")
        } else {
            match r.below(10) {
                0 | 1 => {
                    let size = Vec3::new(r.range(0.2, 6.0), r.range(0.2, 3.0), r.range(0.2, 8.0));
                    (common::simple_box(size, centre), "box")
                }
                2 => (
                    common::uv_sphere(r.range(0.2, 3.0), 2 + r.below(8) as u32, 3 + r.below(12) as u32),
                    "uv sphere",
                ),
                3 => (
                    common::boat_hull(
                        r.range(2.0, 30.0),
                        r.range(0.5, 8.0),
                        r.range(0.2, 3.0),
                        r.range(0.1, 2.0),
                        1 + r.below(10) as u32,
                        1 + r.below(8) as u32,
                    ),
                    "boat",
                ),
                4 => {
                    let size = Vec3::new(r.range(0.2, 4.0), r.range(0.2, 4.0), r.range(0.2, 4.0));
                    (
                        common::subdivided_box(size, centre, 1 + r.below(3) as u32),
                        "subdivided box",
                    )
                }
                5 => {
                    let s = r.range(0.5, 5.0);
                    let vertices = vec![
                        Vec3::new(-s, 0.0, -s),
                        Vec3::new(s, 0.0, -s),
                        Vec3::new(s, 0.0, s),
                        Vec3::new(-s, 0.0, s),
                    ];
                    let indices = if r.chance(0.5) {
                        vec![0, 2, 1, 0, 3, 2]
                    } else {
                        vec![0, 2, 1]
                    };
                    (common::Mesh { vertices, indices }, "open plane")
                }
                6 => {
                    let s = r.range(0.5, 5.0);
                    let vertices = vec![
                        Vec3::new(-s, 0.0, -s),
                        Vec3::new(s, 0.0, -s),
                        Vec3::new(s, 0.0, s),
                        Vec3::new(-s, 0.0, s),
                    ];
                    let indices = vec![0, 2, 1, 0, 3, 2, 0, 1, 2, 0, 2, 3];
                    (common::Mesh { vertices, indices }, "double-sided sheet")
                }
                7 => {
                    let nv = 3 + r.below(28);
                    let vertices = (0..nv)
                        .map(|_| Vec3::new(r.range(-2.0, 2.0), r.range(-2.0, 2.0), r.range(-2.0, 2.0)))
                        .collect();
                    let indices = (0..3 * (1 + r.below(20))).map(|_| r.below(nv) as u32).collect();
                    (common::Mesh { vertices, indices }, "random soup")
                }
                8 => {
                    let size = Vec3::new(r.range(0.2, 4.0), r.range(0.2, 4.0), r.range(0.2, 4.0));
                    let b = common::simple_box(size, centre);
                    let vertices = b.indices.iter().map(|&i| b.vertices[i as usize]).collect();
                    let indices = (0..b.indices.len() as u32).collect();
                    (common::Mesh { vertices, indices }, "box with split vertices")
                }
                _ => {
                    let s = r.range(0.3, 3.0);
                    let vertices = vec![
                        Vec3::new(0.0, 0.0, 0.0),
                        Vec3::new(s, 0.0, 0.0),
                        Vec3::new(0.0, s, 0.0),
                        Vec3::new(0.0, 0.0, s),
                    ];
                    let mut indices = vec![0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
                    if r.chance(0.5) {
                        indices = indices.chunks(3).flat_map(|t| [t[0], t[2], t[1]]).collect();
                    }
                    (common::Mesh { vertices, indices }, "tetrahedron")
                }
            }
        };
        let mut vertices: Vec<KeelVec3> = mesh.vertices.iter().map(|p| v3(p.x, p.y, p.z)).collect();
        let mut indices = mesh.indices;
        let closed = matches!(
            label,
            "box" | "subdivided box" | "box with split vertices" | "tetrahedron"
        );
        let mut label = label.to_string();
        let mut changes = Vec::new();
        if r.chance(0.35) {
            for _ in 0..1 + r.below(2) {
                let nv = vertices.len();
                let change = r.below(13);
                changes.push(change);
                // Tame: none of the corruptions that make a valid but extreme mesh.
                match change {
                    3..=5 if r.1 => {}
                    0 => {
                        if !indices.is_empty() {
                            let i = r.below(indices.len());
                            indices[i] = r.pick(&[nv as u32, nv as u32 + 1, u32::MAX, nv as u32 + 1000]);
                            label.push_str(", index out of range");
                        }
                    }
                    1 => {
                        let k = 1 + r.below(2);
                        if indices.len() >= k {
                            indices.truncate(indices.len() - k);
                        } else {
                            indices.push(0);
                        }
                        label.push_str(", index count not a multiple of 3");
                    }
                    2 => {
                        if nv > 0 {
                            let i = r.below(nv);
                            let bad_value = r.pick(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
                            match r.below(3) {
                                0 => vertices[i].x = bad_value,
                                1 => vertices[i].y = bad_value,
                                _ => vertices[i].z = bad_value,
                            }
                            label.push_str(", a non-finite vertex");
                        }
                    }
                    3 => {
                        let k = r.pick(&[1e30f32, 1e20, 1e35, 1e10]);
                        for v in &mut vertices {
                            *v = v3(v.x * k, v.y * k, v.z * k);
                        }
                        extreme = true;
                        let _ = write!(label, ", scaled by {k:e}");
                    }
                    4 => {
                        let k = r.pick(&[1e-30f32, 1e-20, 1e-38, 1e-10]);
                        for v in &mut vertices {
                            *v = v3(v.x * k, v.y * k, v.z * k);
                        }
                        extreme = true;
                        let _ = write!(label, ", scaled by {k:e}");
                    }
                    5 => {
                        if nv > 0 {
                            let i = r.below(nv);
                            vertices[i] = v3(r.pick(&[1e30, -1e30, 3e38]), vertices[i].y, vertices[i].z);
                            extreme = true;
                            label.push_str(", one huge vertex");
                        }
                    }
                    6 => {
                        vertices.extend_from_within(..);
                        for i in indices.iter_mut() {
                            if (*i as usize) < nv && r.chance(0.5) {
                                *i += nv as u32;
                            }
                        }
                        label.push_str(", duplicate vertices");
                    }
                    7 => {
                        if nv >= 2 {
                            let (a, b) = (r.below(nv) as u32, r.below(nv) as u32);
                            vertices.push(vertices[a as usize]);
                            indices.extend_from_slice(&[a, a, b, a, nv as u32, b]);
                            label.push_str(", zero-area triangles");
                        }
                    }
                    8 => {
                        for t in indices.chunks_mut(3) {
                            let first = t[0];
                            t.fill(first);
                        }
                        if indices.len() >= 3 {
                            bad.add(true, "every triangle has zero area");
                        }
                        label.push_str(", every triangle degenerate");
                    }
                    9 => {
                        indices.clear();
                        label.push_str(", no indices");
                    }
                    10 => {
                        for v in &mut vertices {
                            *v = v3(0.0, 0.0, 0.0);
                        }
                        bad.add(true, "every vertex at the origin");
                        label.push_str(", every vertex at the origin");
                    }
                    11 => {
                        vertices.push(v3(1e30, -1e30, 1e-30));
                        vertices.push(v3(3e38, 0.0, 0.0));
                        label.push_str(", unused huge vertices");
                    }
                    _ => {
                        if indices.len() >= 3 {
                            let t = 3 * r.below(indices.len() / 3);
                            indices.swap(t + 1, t + 2);
                            label.push_str(", one triangle turned");
                        }
                    }
                }
            }
        }
        MeshGen {
            vertices,
            indices,
            flip: r.chance(0.3),
            bad,
            extreme,
            label,
            one_turned: closed && changes == [12],
        }
    }

    // ---- operations --------------------------------------------------------------------

    fn one_op(&mut self) {
        self.op += 1;
        self.rng.1 = false;
        if self.pool.is_some() && self.op % 64 == 1 {
            self.sync_shared();
        }
        if !self.worlds.iter().any(|w| !w.shared) {
            self.op_world_create();
            return;
        }
        if self.op.is_multiple_of(PROBE_EVERY) {
            let own: Vec<usize> = (0..self.worlds.len()).filter(|&i| !self.worlds[i].shared).collect();
            let i = own[self.rng.below(own.len())];
            self.probe(i);
            return;
        }
        match self.rng.below(1000) {
            0..=4 => self.op_world_create(),
            5..=8 => self.op_world_destroy(false),
            25..=49 => self.op_set_time(),
            50..=64 => self.op_set_wind(),
            65..=79 => self.op_water_flat(),
            80..=97 => self.op_water_perlin(),
            98..=124 => self.op_water_gerstner(),
            125..=164 => self.op_water_sample(),
            165..=209 => self.op_hull_create(),
            210..=229 => self.op_hull_info(),
            230..=249 => self.op_hull_destroy(),
            9..=24 | 250..=309 => self.op_body_create(),
            310..=344 => self.op_body_set_desc(),
            345..=364 => self.op_body_get_desc(),
            365..=384 => self.op_body_destroy(),
            385..=594 => self.op_body_step(),
            595..=709 => self.op_world_step(),
            710..=739 => self.detail::<KeelTriangleForce>(
                "keel_body_get_triangle_forces",
                raw::keel_body_get_triangle_forces,
                1,
                false,
            ),
            740..=769 => self.detail::<KeelVec3>(
                "keel_body_get_submerged_triangles",
                raw::keel_body_get_submerged_triangles,
                3,
                true,
            ),
            770..=794 => self.detail::<KeelVec3>(
                "keel_body_get_emerged_triangles",
                raw::keel_body_get_emerged_triangles,
                3,
                false,
            ),
            795..=819 => self.detail::<KeelVec3>("keel_body_get_waterline", raw::keel_body_get_waterline, 2, false),
            820..=849 => self.op_last_error(),
            850..=869 => self.op_defaults(),
            870..=874 => self.op_versions(),
            875..=884 => {
                let own: Vec<usize> = (0..self.worlds.len()).filter(|&i| !self.worlds[i].shared).collect();
                let i = own[self.rng.below(own.len())];
                self.probe(i);
            }
            885..=894 => self.op_set_current(),
            895..=912 => self.op_water_heightfield(),
            913..=932 => self.op_water_callback(),
            933..=947 => self.op_water_spectrum(),
            948..=957 => self.op_hull_box(),
            958..=967 => self.op_hull_inertia(),
            968..=975 => self.op_world_counts(),
            976..=979 => self.op_body_equilibrium(),
            980..=984 => self.op_snapshot(),
            985..=989 => self.op_restore(),
            990..=992 => self.op_state_hash(),
            993..=997 => self.op_origin(),
            _ => self.op_body_step(),
        }
    }

    fn create_world(&mut self, desc: &KeelWorldDesc, shared: bool) -> Option<KeelWorld> {
        let mut out = Out::<u64>::new(1, Ptr::Valid, 0xA5);
        self.enter("keel_world_create");
        let st = unsafe { raw::keel_world_create(desc, out.ptr()) };
        let desc = *desc;
        self.check("keel_world_create", st, Bad::default(), true, Inputs::Ordinary, &|| {
            format!("desc {desc:?} (shared: {shared})")
        });
        (st == OK).then(|| out.get(0))
    }

    fn op_world_create(&mut self) {
        let own = self.worlds.iter().filter(|w| !w.shared).count();
        if own >= self.max_worlds {
            self.op_world_destroy(true);
        }
        let mut extreme = false;
        let (desc, mut bad) = self.world_desc(&mut extreme);
        let (dmode, omode) = (self.mode(0.05), self.mode(0.05));
        bad.add(dmode != Ptr::Valid, "desc is NULL or misaligned");
        bad.add(omode != Ptr::Valid, "out_world is NULL or misaligned");
        let din = In::new(std::slice::from_ref(&desc), dmode);
        let fill = self.fill();
        let mut out = Out::<u64>::new(1, omode, fill);
        self.enter("keel_world_create");
        let st = unsafe { raw::keel_world_create(din.ptr(), out.ptr()) };
        let inputs = self.inputs(None, bit(extreme, X_WORLD));
        let call = || format!("desc {desc:?} ({dmode:?}), out_world {omode:?}");
        self.check("keel_world_create", st, bad, false, inputs, &call);
        if st == OK && omode == Ptr::Valid {
            let handle = out.get(0);
            if handle == 0 {
                self.finding("world handle 0 returned", "keel_world_create", inputs, call());
            }
            let mut w = WorldM::new(handle, false, extreme);
            w.water = "flat 0".into();
            self.worlds.push(w);
        } else if st != OK && !out.untouched() {
            self.finding("output written on failure", "keel_world_create", inputs, call());
        }
    }

    fn forget_world(&mut self, i: usize) {
        let w = self.worlds.swap_remove(i);
        self.bury(w.handle);
        for h in &w.hulls {
            self.bury(h.handle);
        }
        for b in &w.bodies {
            self.bury(b.handle);
        }
    }

    fn op_world_destroy(&mut self, own_only: bool) {
        let (wi, w, bad) = if own_only {
            let own: Vec<usize> = (0..self.worlds.len()).filter(|&i| !self.worlds[i].shared).collect();
            let i = own[self.rng.below(own.len())];
            (Some(i), self.worlds[i].handle, Bad::default())
        } else {
            self.pick_world(0.3)
        };
        let exact = self.exact(wi);
        // Keep one world of our own, and a shared one.
        if wi.is_some() && self.worlds.iter().filter(|x| x.shared != exact).count() <= 1 && !own_only {
            return;
        }
        self.enter("keel_world_destroy");
        let st = unsafe { raw::keel_world_destroy(w) };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        self.check("keel_world_destroy", st, bad, exact, inputs, &|| {
            format!("world {w:#x}: {context}")
        });
        let Some(i) = wi else { return };
        if st == OK {
            if let Some(pool) = self.pool.clone().filter(|_| !exact) {
                lock(&pool.worlds).retain(|&x| x != w);
                let desc = default_world_desc();
                if let Some(h) = self.create_world(&desc, true) {
                    lock(&pool.worlds).push(h);
                }
            }
            self.forget_world(i);
        } else if st == INVALID_HANDLE && !exact {
            self.worlds.swap_remove(i);
        }
    }

    fn op_set_time(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let t = self.time(&mut extreme);
        bad.add(!t.is_finite(), "time is not finite");
        self.enter("keel_world_set_time");
        let st = unsafe { raw::keel_world_set_time(w, t) };
        let inputs = self.inputs(wi, bit(extreme, X_TIME));
        let exact = self.exact(wi);
        self.check_status(
            "keel_world_set_time",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, {t:e} s"),
        );
        if let (OK, Some(i)) = (st, wi) {
            self.worlds[i].time = t;
            self.worlds[i].time_extreme = t.abs() > 1e7;
        }
    }

    fn op_set_wind(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let r = &mut self.rng;
        let v = v3(
            r.num(-20.0, 20.0, 0.08, &mut extreme),
            r.num(-5.0, 5.0, 0.08, &mut extreme),
            r.num(-20.0, 20.0, 0.08, &mut extreme),
        );
        bad.add(!vec_finite(v), "wind is not finite");
        self.enter("keel_world_set_wind");
        let st = unsafe { raw::keel_world_set_wind(w, v) };
        let inputs = self.inputs(wi, bit(extreme, X_WIND));
        let exact = self.exact(wi);
        self.check_status(
            "keel_world_set_wind",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, {v:?}"),
        );
        if let (OK, Some(i)) = (st, wi) {
            self.worlds[i].wind_extreme = extreme;
            self.worlds[i].wind = v;
        }
    }

    fn op_set_current(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let r = &mut self.rng;
        let v = if r.chance(0.1) {
            v3(0.0, 0.0, 0.0)
        } else {
            v3(
                r.num(-3.0, 3.0, 0.08, &mut extreme),
                r.num(-0.5, 0.5, 0.08, &mut extreme),
                r.num(-3.0, 3.0, 0.08, &mut extreme),
            )
        };
        bad.add(!vec_finite(v), "current is not finite");
        self.enter("keel_world_set_current");
        let st = unsafe { raw::keel_world_set_current(w, v) };
        let inputs = self.inputs(wi, bit(extreme, X_CURRENT));
        let exact = self.exact(wi);
        self.check_status(
            "keel_world_set_current",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, {v:?}"),
        );
        if let (OK, Some(i)) = (st, wi) {
            self.worlds[i].current_extreme = extreme;
            self.worlds[i].current = v;
        }
    }

    fn op_water_flat(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let level = self.rng.num(-5.0, 5.0, 0.15, &mut extreme);
        bad.add(!level.is_finite(), "level is not finite");
        self.enter("keel_water_set_flat");
        let st = unsafe { raw::keel_water_set_flat(w, level) };
        let inputs = self.inputs(wi, bit(extreme, X_WATER));
        let exact = self.exact(wi);
        self.check_status(
            "keel_water_set_flat",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, level {level:e}"),
        );
        if let (OK, Some(i)) = (st, wi) {
            let w = &mut self.worlds[i];
            w.level = level;
            w.water_extreme = extreme;
            w.water = format!("flat {level:e}");
            w.surface = Surface::Flat(level);
        }
    }

    fn op_water_perlin(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        // SAFETY: plain numbers and a bool.
        let mut d: KeelPerlinWaterDesc = unsafe { std::mem::zeroed() };
        unsafe { keel_perlin_water_desc_default(&mut d) };
        let r = &mut self.rng;
        for _ in 0..r.below(4) {
            match r.below(5) {
                0 => d.level = r.num(-5.0, 5.0, 0.2, &mut extreme),
                1 => d.perlin_scale = r.num(0.01, 1.0, 0.2, &mut extreme),
                2 => d.wave_speed = r.num(0.0, 2.0, 0.2, &mut extreme),
                3 => d.wave_height = r.num(0.0, 3.0, 0.2, &mut extreme),
                _ => d.only_x = r.chance(0.5),
            }
        }
        let mode = self.mode(0.05);
        bad.add(mode != Ptr::Valid, "desc is NULL or misaligned");
        bad.add(
            ![d.level, d.perlin_scale, d.wave_speed, d.wave_height]
                .iter()
                .all(|x| x.is_finite()),
            "a non-finite Perlin parameter",
        );
        let din = In::new(std::slice::from_ref(&d), mode);
        self.enter("keel_water_set_perlin");
        let st = unsafe { raw::keel_water_set_perlin(w, din.ptr()) };
        let inputs = self.inputs(wi, bit(extreme, X_WATER));
        let exact = self.exact(wi);
        self.check_status(
            "keel_water_set_perlin",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, desc {d:?} ({mode:?})"),
        );
        if let (OK, Some(i)) = (st, wi) {
            let w = &mut self.worlds[i];
            w.level = d.level;
            w.water_extreme = extreme;
            w.water = format!("perlin {d:?}");
            w.surface = Surface::Waves(true);
        }
    }

    fn op_water_gerstner(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let r = &mut self.rng;
        let count = if r.chance(0.1) { r.below(40) } else { r.below(7) };
        let mut waves = Vec::with_capacity(count);
        for _ in 0..count {
            let p = 0.04;
            let mut wave = KeelGerstnerWave {
                amplitude: r.num(0.0, 1.5, p, &mut extreme),
                wavelength: r.num(1.0, 100.0, p, &mut extreme),
                direction_x: r.num(-1.0, 1.0, p, &mut extreme),
                direction_z: r.num(-1.0, 1.0, p, &mut extreme),
                steepness: r.num(0.0, 1.0 / count as f32, p, &mut extreme),
                phase: r.num(0.0, 6.3, p, &mut extreme),
            };
            if r.wild(0.03) {
                extreme = true;
                match r.below(5) {
                    0 => wave.steepness = r.pick(&[1.5, 1.0000001, -0.1, 1.0, 7.0]),
                    1 => wave.wavelength = r.pick(&[0.0, -0.0, -1.0, 1e-30, 1e30]),
                    2 => (wave.direction_x, wave.direction_z) = r.pick(&[(0.0, 0.0), (-0.0, 0.0), (1e-30, 0.0)]),
                    3 => wave.amplitude = r.pick(&[1e30, -2.0, 1e-30]),
                    _ => wave.phase = r.pick(&[1e30, f32::NAN, -1e20]),
                }
            }
            let dir_ok = wave.direction_x.is_finite()
                && wave.direction_z.is_finite()
                && (wave.direction_x != 0.0 || wave.direction_z != 0.0);
            bad.add(!wave.amplitude.is_finite(), "a non-finite amplitude");
            bad.add(!positive(wave.wavelength), "a wavelength not finite and > 0");
            bad.add(!(0.0..=1.0).contains(&wave.steepness), "a steepness outside [0, 1]");
            bad.add(!wave.phase.is_finite(), "a non-finite phase");
            bad.add(!dir_ok, "a zero or non-finite direction");
            waves.push(wave);
        }
        let level = r.num(-3.0, 3.0, 0.08, &mut extreme);
        bad.add(!level.is_finite(), "level is not finite");
        let mode = if count == 0 && self.rng.chance(0.5) {
            Ptr::Null
        } else {
            self.mode(0.05)
        };
        bad.add(count > 0 && mode != Ptr::Valid, "waves is NULL or misaligned");
        let win = In::new(&waves, mode);
        self.enter("keel_water_set_gerstner");
        let st = unsafe { raw::keel_water_set_gerstner(w, win.ptr(), count as u32, level) };
        let inputs = self.inputs(wi, bit(extreme, X_WATER));
        let call = || format!("world {w:#x}, {count} waves ({mode:?}) {waves:?}, level {level:e}");
        let exact = self.exact(wi);
        self.check_status(
            "keel_water_set_gerstner",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &call,
        );
        if let (OK, Some(i)) = (st, wi) {
            let w = &mut self.worlds[i];
            w.level = level;
            w.water_extreme = extreme;
            w.water = format!("gerstner level {level:e}, waves {waves:?}");
            w.surface = Surface::Waves(waves.iter().map(|w| w.steepness).sum::<f32>() <= 1.0);
        }
    }

    fn op_water_heightfield(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let tiled = self.rng.chance(0.5);
        let (function, set): (
            &'static str,
            unsafe extern "C" fn(KeelWorld, *const f32, u32, u32, f32, f32, f32) -> u32,
        ) = if tiled {
            (
                "keel_water_set_tiled_heightfield",
                raw::keel_water_set_tiled_heightfield,
            )
        } else {
            ("keel_water_set_heightfield", raw::keel_water_set_heightfield)
        };
        let r = &mut self.rng;
        // Mostly a usable grid; sometimes too few samples, or more than any buffer holds.
        let (count_x, count_z): (u32, u32) = match r.below(20) {
            0 => {
                let few = r.below(2) as u32;
                let other = if r.chance(0.2) {
                    r.below(2) as u32
                } else {
                    2 + r.below(30) as u32
                };
                if r.chance(0.5) { (few, other) } else { (other, few) }
            }
            1 if !r.1 => r.pick(&[
                (65536, 65536),
                (u32::MAX, 2),
                (2, 0x8000_0000),
                (u32::MAX, u32::MAX),
                (0x1_0001, 0xFFFF),
                (100_000, 100_000),
                (8192, 8193),
                (0, u32::MAX),
                (1 << 16, 1 << 17),
                (3, 0x5555_5556),
            ]),
            2 if r.chance(0.1) => r.pick(&[(1024, 1024), (4096, 16), (2, 100_000)]),
            _ => (2 + r.below(40) as u32, 2 + r.below(40) as u32),
        };
        let product = count_x as u64 * count_z as u64;
        // Never a buffer smaller than the counts say: beyond what this test allocates, NULL.
        let affordable = product <= 1 << 21;
        let base = r.range(-3.0, 3.0);
        let amplitude = r.range(0.0, 2.0);
        let mut heights: Vec<f32> = if affordable {
            (0..product).map(|_| base + amplitude * r.range(-1.0, 1.0)).collect()
        } else {
            Vec::new()
        };
        let mut label = String::new();
        if !heights.is_empty() && r.wild(0.12) {
            let k = r.below(heights.len());
            match r.below(5) {
                0 => {
                    heights[k] = f32::NAN;
                    label = format!(", heights[{k}] NaN");
                }
                1 => {
                    heights[k] = r.pick(&[f32::INFINITY, f32::NEG_INFINITY]);
                    label = format!(", heights[{k}] {}", heights[k]);
                }
                2 => {
                    heights[k] = r.pick(&[1e30, -1e30, f32::MAX, f32::MIN, 1e7, -1e9]);
                    extreme = true;
                    label = format!(", heights[{k}] {:e}", heights[k]);
                }
                3 => {
                    let scale = r.pick(&[1e30f32, 1e20, 1e10]);
                    heights.iter_mut().for_each(|h| *h *= scale);
                    extreme = true;
                    label = format!(", every height times {scale:e}");
                }
                _ => {
                    heights.iter_mut().for_each(|h| *h = f32::from_bits(r.next() as u32));
                    label = ", random bits".into();
                    extreme = true;
                }
            }
        }
        let cell = if r.wild(0.1) {
            extreme = true;
            r.pick(&[
                0.0,
                -0.0,
                -1.0,
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                1e-45,
                1e-30,
                1e-6,
                1e30,
                1e7,
                f32::MAX,
            ])
        } else {
            r.range(0.25, 8.0)
        };
        let origin_x = r.num(-100.0, 100.0, 0.05, &mut extreme);
        let origin_z = r.num(-100.0, 100.0, 0.05, &mut extreme);
        // NULL with counts that need a buffer, or a NULL or real empty one with a zero count.
        let mode = if !affordable || (product == 0 && self.rng.chance(0.5)) {
            Ptr::Null
        } else {
            self.mode(0.06)
        };
        bad.add(count_x < 2 || count_z < 2, "fewer than 2 x 2 samples");
        bad.add(product > u32::MAX as u64, "count_x * count_z overflows a uint32_t");
        bad.add(product > 0 && mode != Ptr::Valid, "heights is NULL or misaligned");
        bad.add(heights.iter().any(|h| !h.is_finite()), "a non-finite height");
        bad.add(!positive(cell), "cell_size is not finite and > 0");
        bad.add(!(origin_x.is_finite() && origin_z.is_finite()), "a non-finite origin");
        let (lo, hi) = heights.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        });
        if bad.0.is_none() {
            extreme |= lo < -1e4 || hi > 1e4 || !(1e-3..=1e4).contains(&cell);
            extreme |= origin_x.abs() > 1e6 || origin_z.abs() > 1e6;
        }
        let hin = In::new(&heights, mode);
        self.enter(function);
        let st = unsafe { set(w, hin.ptr(), count_x, count_z, origin_x, origin_z, cell) };
        let inputs = self.inputs(wi, bit(extreme, X_WATER));
        let exact = self.exact(wi);
        let what = format!(
            "{} {count_x} x {count_z}{} ({mode:?}), origin ({origin_x:e}, {origin_z:e}), cell {cell:e}, heights in \
             [{lo:e}, {hi:e}]{label}",
            if tiled { "tiled heightfield" } else { "heightfield" },
            if affordable { "" } else { ", no buffer" },
        );
        self.check_status(
            function,
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, {what}"),
        );
        if let (OK, Some(i)) = (st, wi) {
            let w = &mut self.worlds[i];
            w.level = 0.5 * (lo + hi);
            w.water_extreme = extreme;
            w.water = what;
            w.surface = Surface::Grid(lo, hi);
        }
    }

    /// This thread's callback parameters of `kind`: new ones, or, past 32, old ones.
    fn callback_ctx(&mut self, kind: CbKind) -> &'static CbCtx {
        let old: Vec<&'static CbCtx> = self.callbacks.iter().copied().filter(|c| c.kind == kind).collect();
        if old.len() >= 32 {
            return old[self.rng.below(old.len())];
        }
        let r = &mut self.rng;
        let sign = |r: &mut Rng| if r.chance(0.5) { 1.0 } else { -1.0 };
        let level = if kind == CbKind::Huge {
            r.pick(&[1e20, -1e20, 1e30, -1e30, f32::MAX, f32::MIN])
        } else {
            r.range(-3.0, 3.0)
        };
        let ctx: &'static CbCtx = Box::leak(Box::new(CbCtx {
            kind,
            level,
            amplitude: r.range(0.05, 1.5),
            kx: sign(r) * r.range(0.05, 0.8),
            kz: sign(r) * r.range(0.05, 0.8),
            split: r.range(-20.0, 20.0),
            calls: AtomicU64::new(0),
        }));
        self.callbacks.push(ctx);
        ctx
    }

    fn op_water_callback(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let choice = self.rng.below(100);
        let (query, ctx): (KeelWaterQuery, Option<&'static CbCtx>) = if choice < 5 {
            (None, None)
        } else if choice < 10 {
            (Some(fuzz_water), None)
        } else {
            // Tame: nothing extreme in a shared world; a garbage answer only fails steps.
            let kinds: Vec<CbKind> = CB_KINDS
                .into_iter()
                .filter(|&k| !(self.rng.1 && k == CbKind::Huge))
                .collect();
            let kind = kinds[self.rng.below(kinds.len())];
            (Some(fuzz_water), Some(self.callback_ctx(kind)))
        };
        let data = ctx.map_or(ptr::null_mut(), |c| ptr::from_ref(c).cast_mut().cast::<c_void>());
        bad.add(query.is_none(), "query is NULL");
        let extreme = ctx.is_some_and(|c| c.kind == CbKind::Huge);
        self.enter("keel_water_set_callback");
        let st = unsafe { raw::keel_water_set_callback(w, query, data) };
        let inputs = self.inputs(wi, bit(extreme, X_WATER));
        let exact = self.exact(wi);
        let what = match (query, ctx) {
            (None, _) => "NULL query".to_string(),
            (Some(_), None) => "callback, NULL user data (flat at 0)".to_string(),
            (Some(_), Some(c)) => format!("callback {}", c.describe()),
        };
        let must = exact && inputs == Inputs::Ordinary;
        self.check_status("keel_water_set_callback", st, bad, must, exact, inputs, &|| {
            format!("world {w:#x}, {what}")
        });
        if query.is_none() && wi.is_some() && st != NULL_POINTER {
            self.finding(
                "a NULL query did not give KEEL_ERROR_NULL_POINTER",
                "keel_water_set_callback",
                inputs,
                format!("world {w:#x}: status {}", status_name(st)),
            );
        }
        if let (OK, Some(i)) = (st, wi) {
            let w = &mut self.worlds[i];
            w.level = ctx.map_or(0.0, |c| c.level);
            w.water_extreme = extreme;
            w.water = what;
            w.surface = Surface::Callback(ctx);
        }
    }

    fn op_water_spectrum(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let r = &mut self.rng;
        let spectrum = if r.wild(0.05) {
            r.pick(&[2, 3, 7, u32::MAX, 0x8000_0000])
        } else {
            r.below(2) as u32
        };
        let wind_speed = r.num(1.0, 25.0, 0.06, &mut extreme);
        let (direction_x, direction_z) = if r.wild(0.05) {
            extreme = true;
            r.pick(&[
                (0.0, 0.0),
                (-0.0, 0.0),
                (f32::NAN, 1.0),
                (f32::INFINITY, 0.0),
                (1e-30, 0.0),
                (1e-45, 0.0),
                (1e30, -1e30),
                (f32::MAX, f32::MAX),
            ])
        } else {
            (r.range(-1.0, 1.0), r.range(-1.0, 1.0))
        };
        let wave_count = match r.below(20) {
            0 if !r.1 => r.pick(&[0, 257, 1000, u32::MAX]),
            1 => 256,
            2 => 1,
            _ => 1 + r.below(48) as u32,
        };
        let seed = r.next();
        let direction_ok =
            direction_x.is_finite() && direction_z.is_finite() && (direction_x != 0.0 || direction_z != 0.0);
        bad.add(spectrum > 1, "an unknown spectrum");
        bad.add(!positive(wind_speed), "wind_speed is not finite and > 0");
        bad.add(!direction_ok, "a zero or non-finite direction");
        bad.add(!(1..=256).contains(&wave_count), "wave_count is not 1 to 256");
        extreme |= !(0.1..=100.0).contains(&wind_speed);
        self.enter("keel_water_set_spectrum");
        let st = unsafe {
            raw::keel_water_set_spectrum(w, spectrum, wind_speed, direction_x, direction_z, wave_count, seed)
        };
        let inputs = self.inputs(wi, bit(extreme, X_WATER));
        let exact = self.exact(wi);
        let what = format!(
            "spectrum {spectrum}, wind {wind_speed:e} m/s along ({direction_x:e}, {direction_z:e}), {wave_count} waves, \
             seed {seed:#x}"
        );
        self.check_status(
            "keel_water_set_spectrum",
            st,
            bad,
            exact && inputs == Inputs::Ordinary,
            exact,
            inputs,
            &|| format!("world {w:#x}, {what}"),
        );
        if let (OK, Some(i)) = (st, wi) {
            let w = &mut self.worlds[i];
            w.level = 0.0;
            w.water_extreme = extreme;
            w.water = what;
            w.surface = Surface::Waves(true);
        }
    }

    fn op_water_sample(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let mut extreme = false;
        let r = &mut self.rng;
        let count = match r.below(10) {
            0 => 0,
            1 => 1,
            2 => 1000,
            _ => r.below(65),
        };
        let mut points = Vec::with_capacity(count);
        let mut bad_point = false;
        for _ in 0..count {
            let mut p = v3(r.range(-100.0, 100.0), r.range(-5.0, 5.0), r.range(-100.0, 100.0));
            if r.chance(0.01) {
                p.y = r.weird_f32(); // ignored by the library
            }
            if r.wild(0.005) {
                extreme = true;
                p.x = r.weird_f32();
            }
            if r.wild(0.005) {
                extreme = true;
                p.z = r.weird_f32();
            }
            bad_point |= !p.x.is_finite() || !p.z.is_finite();
            points.push(p);
        }
        let pmode = self.mode(0.04);
        let hmode = self.mode(0.04);
        let nmode = match self.rng.below(10) {
            0..=3 => Ptr::Null,
            4 => Ptr::Misaligned,
            _ => Ptr::Valid,
        };
        let vmode = match self.rng.below(10) {
            0..=3 => Ptr::Null,
            4 => Ptr::Misaligned,
            _ => Ptr::Valid,
        };
        let some = count > 0;
        bad.add(some && pmode != Ptr::Valid, "points is NULL or misaligned");
        bad.add(some && hmode != Ptr::Valid, "out_heights is NULL or misaligned");
        bad.add(some && nmode == Ptr::Misaligned, "out_normals is misaligned");
        bad.add(some && vmode == Ptr::Misaligned, "out_velocities is misaligned");
        bad.add(bad_point, "a point with a non-finite x or z");
        let pin = In::new(&points, pmode);
        let fill = self.fill();
        let mut heights = Out::<f32>::new(count, hmode, fill);
        let mut normals = Out::<KeelVec3>::new(count, nmode, fill);
        let mut velocities = Out::<KeelVec3>::new(count, vmode, fill);
        self.enter("keel_water_sample");
        let st = unsafe {
            raw::keel_water_sample(
                w,
                pin.ptr(),
                count as u32,
                heights.ptr(),
                normals.ptr(),
                velocities.ptr(),
            )
        };
        let inputs = self.inputs(wi, bit(extreme, X_ARGS));
        let context = self.context(wi);
        let shown = &points[..count.min(8)];
        let call = || {
            format!(
                "{context}: {count} points ({pmode:?}) starting {shown:?}, heights {hmode:?}, normals {nmode:?}, \
                 velocities {vmode:?}"
            )
        };
        let exact = self.exact(wi);
        let must = exact && inputs == Inputs::Ordinary;
        self.check_status("keel_water_sample", st, bad, must, exact, inputs, &call);
        if st == OK {
            let mut wrote_past = false;
            let mut nonfinite = None;
            if hmode == Ptr::Valid {
                wrote_past |= !heights.untouched_from(count);
                if let Some(k) = (0..count).find(|&k| !heights.get(k).is_finite()) {
                    nonfinite = Some(format!("height {k} = {} at {:?}", heights.get(k), points[k]));
                }
            }
            for (out, mode, what) in [(&normals, nmode, "normal"), (&velocities, vmode, "velocity")] {
                if mode == Ptr::Valid {
                    wrote_past |= !out.untouched_from(count);
                    if let Some(k) = (0..count).find(|&k| !vec_finite(out.get(k))) {
                        nonfinite.get_or_insert(format!("{what} {k} = {:?} at {:?}", out.get(k), points[k]));
                    }
                } else if !out.untouched() {
                    wrote_past = true;
                }
            }
            if wrote_past {
                self.finding(
                    "wrote past the stated count or to a skipped output",
                    "keel_water_sample",
                    inputs,
                    call(),
                );
            }
            if let Some(what) = nonfinite {
                self.finding(
                    "non-finite output of a successful call",
                    "keel_water_sample",
                    inputs,
                    format!("{}\n  {what}", call()),
                );
            } else if let (true, Some(i)) = (exact && !wrote_past, wi) {
                let got = |out: &Out<KeelVec3>, mode: Ptr, k: usize| (mode == Ptr::Valid).then(|| out.get(k));
                let samples: Vec<Sample> = (0..count)
                    .map(|k| Sample {
                        point: points[k],
                        height: (hmode == Ptr::Valid).then(|| heights.get(k)),
                        normal: got(&normals, nmode, k),
                        velocity: got(&velocities, vmode, k),
                    })
                    .collect();
                self.checked("water samples compared with the known surface");
                if let Some(what) = self.wrong_sample(i, &samples) {
                    self.finding(
                        "keel_water_sample does not answer what the water is",
                        "keel_water_sample",
                        inputs,
                        format!("{}\n  {what}", call()),
                    );
                }
            }
        } else if !(heights.untouched() && normals.untouched() && velocities.untouched()) {
            self.finding("output written on failure", "keel_water_sample", inputs, call());
        }
    }

    /// What is wrong with samples of world `i`'s water, whose surface is known, if anything.
    fn wrong_sample(&self, i: usize, samples: &[Sample]) -> Option<String> {
        let world = &self.worlds[i];
        let current = world.current;
        // The particle velocity plus the current, added in f64 as keel does.
        let plus_current = |v: KeelVec3| {
            let add = |a: f32, b: f32| (a as f64 + b as f64) as f32;
            v3(add(v.x, current.x), add(v.y, current.y), add(v.z, current.z))
        };
        let still = plus_current(v3(0.0, 0.0, 0.0));
        let up = v3(0.0, 1.0, 0.0);
        let unit_up = |n: KeelVec3| {
            let length = (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
            (length - 1.0).abs() < 1e-3 && n.y > 0.0
        };
        for (k, s) in samples.iter().enumerate() {
            let at = || {
                format!(
                    "point {k} {:?}: height {:?}, normal {:?}, velocity {:?}",
                    s.point, s.height, s.normal, s.velocity
                )
            };
            match world.surface {
                Surface::Flat(level) => {
                    // (In the world's frame: the level less the origin's height.)
                    let level = (f64::from(level) - world.origin[1]) as f32;
                    if s.height.is_some_and(|h| h != level)
                        || s.normal.is_some_and(|n| n != up)
                        || s.velocity.is_some_and(|v| v != still)
                    {
                        return Some(format!("flat water at {level:e} (current {current:?}): {}", at()));
                    }
                }
                Surface::Grid(lo, hi) => {
                    let (lo, hi) = (
                        (f64::from(lo) - world.origin[1]) as f32,
                        (f64::from(hi) - world.origin[1]) as f32,
                    );
                    let slack = 1e-6 * (lo.abs() + hi.abs()) + 1e-6;
                    if s.height.is_some_and(|h| !(h >= lo - slack && h <= hi + slack))
                        || s.normal.is_some_and(|n| !unit_up(n))
                        || s.velocity.is_some_and(|v| v != still)
                    {
                        return Some(format!(
                            "a heightfield with heights in [{lo:e}, {hi:e}] (current {current:?}): {}",
                            at()
                        ));
                    }
                }
                Surface::Callback(ctx) => {
                    let (height, normal, velocity) = match ctx {
                        Some(c) => c.surface(s.point.x, s.point.z),
                        None => (0.0, up, v3(0.0, 0.0, 0.0)),
                    };
                    let all = ctx.is_none_or(|c| c.answers_all());
                    let velocities = all || ctx.is_some_and(|c| c.kind == CbKind::NanNormals);
                    if s.height.is_some_and(|h| h != height)
                        || (all && s.normal.is_some_and(|n| n != normal))
                        || (velocities && s.velocity.is_some_and(|v| v != plus_current(velocity)))
                    {
                        return Some(format!(
                            "the callback answers height {height:e}, normal {normal:?}, velocity {velocity:?} (current \
                             {current:?}): {}",
                            at()
                        ));
                    }
                }
                Surface::Waves(unfolded) => {
                    if unfolded && s.normal.is_some_and(|n| !unit_up(n)) {
                        return Some(format!("a normal that is not unit and up-facing: {}", at()));
                    }
                }
            }
        }
        None
    }

    fn op_hull_create(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        if let Some(i) = wi
            && self.worlds[i].hulls.len() >= MAX_HULLS
        {
            return self.op_hull_destroy();
        }
        let m = self.mesh();
        let r = &mut self.rng;
        let mut vcount = m.vertices.len();
        let mut icount = m.indices.len();
        if r.chance(0.04) {
            vcount = r.below(vcount + 1);
        }
        if r.chance(0.04) {
            icount = r.below(icount + 1);
        }
        let vmode = self.mode(0.04);
        let imode = self.mode(0.04);
        let dmode = self.mode(0.03);
        let omode = self.mode(0.03);
        bad.add(dmode != Ptr::Valid, "desc is NULL or misaligned");
        bad.add(omode != Ptr::Valid, "out_hull is NULL or misaligned");
        bad.add(vcount > 0 && vmode != Ptr::Valid, "vertices is NULL or misaligned");
        bad.add(icount > 0 && imode != Ptr::Valid, "indices is NULL or misaligned");
        bad.add(!icount.is_multiple_of(3), "index_count is not a multiple of 3");
        bad.add(icount == 0, "index_count is 0");
        bad.add(
            m.indices[..icount].iter().any(|&i| i as usize >= vcount),
            "an index out of range",
        );
        bad.add(
            m.vertices[..vcount].iter().any(|v| !vec_finite(*v)),
            "a non-finite vertex",
        );
        bad.merge(m.bad);
        let vin = In::new(&m.vertices, vmode);
        let iin = In::new(&m.indices, imode);
        let desc = KeelHullDesc {
            vertices: vin.ptr(),
            vertex_count: vcount as u32,
            indices: iin.ptr(),
            index_count: icount as u32,
            flip_winding: m.flip,
        };
        let din = In::new(std::slice::from_ref(&desc), dmode);
        let fill = self.fill();
        let mut out = Out::<u64>::new(1, omode, fill);
        self.enter("keel_hull_create");
        let st = unsafe { raw::keel_hull_create(w, din.ptr(), out.ptr()) };
        let inputs = self.inputs(wi, bit(m.extreme, X_MESH));
        let context = self.context(wi);
        let (label, flip) = (&m.label, m.flip);
        let mesh_text = || {
            let mut t = format!(
                "{label}: {vcount} of {} vertices ({vmode:?}), {icount} of {} indices ({imode:?}), flip {flip}",
                m.vertices.len(),
                m.indices.len()
            );
            if m.vertices.len() <= 40 {
                let _ = write!(t, ", vertices {:?}, indices {:?}", m.vertices, m.indices);
            }
            t
        };
        let call = || format!("{context}: {}, desc {dmode:?}, out_hull {omode:?}", mesh_text());
        self.check("keel_hull_create", st, bad, false, inputs, &call);
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_hull_create", inputs, call());
            }
            return;
        }
        let Some(i) = wi.filter(|_| omode == Ptr::Valid) else {
            return;
        };
        let handle = out.get(0);
        if handle == 0 {
            self.finding("hull handle 0 returned", "keel_hull_create", inputs, call());
        }
        let exact = self.exact(wi);
        let info = self.hull_info_of(w, handle, exact, inputs, &call);
        let closed = info.is_none_or(|info| info.is_closed);
        if let Some(info) = info {
            let whole = vcount == m.vertices.len() && icount == m.indices.len();
            if m.one_turned && whole {
                self.checked("closed meshes with one triangle turned");
            }
            if m.one_turned && whole && !(info.reoriented_count == 1 && info.is_closed) {
                self.finding(
                    "a closed mesh with one triangle turned is not repaired by turning that one",
                    "keel_hull_get_info",
                    inputs,
                    format!("{}\n  info {info:?}", call()),
                );
            }
            if info.vertex_count as usize != vcount
                || (info.triangle_count + info.degenerate_count) as usize != icount / 3
            {
                self.finding(
                    "hull info counts differ from the mesh passed in",
                    "keel_hull_get_info",
                    inputs,
                    format!("{}\n  info {info:?}", call()),
                );
            }
        }
        self.worlds[i].hulls.push(HullM {
            handle,
            closed,
            users: 0,
            extreme: m.extreme,
        });
        if let Some(pool) = self.pool.clone().filter(|_| !exact) {
            pool_push(&pool.hulls, (w, handle), &mut self.rng);
        }
    }

    /// keel_hull_get_info with a valid output, checked; the info when it succeeded.
    fn hull_info_of(
        &mut self,
        w: KeelWorld,
        h: KeelHull,
        must: bool,
        inputs: Inputs,
        call: &dyn Fn() -> String,
    ) -> Option<KeelHullInfo> {
        let fill = self.fill();
        let mut out = Out::<KeelHullInfo>::new(1, Ptr::Valid, fill);
        self.enter("keel_hull_get_info");
        let st = unsafe { raw::keel_hull_get_info(w, h, out.ptr()) };
        self.check("keel_hull_get_info", st, Bad::default(), must, inputs, &|| {
            format!("hull {h:#x} just created: {}", call())
        });
        self.read_info(st, &out, inputs, call)
    }

    fn read_info(
        &mut self,
        st: u32,
        out: &Out<KeelHullInfo>,
        inputs: Inputs,
        call: &dyn Fn() -> String,
    ) -> Option<KeelHullInfo> {
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_hull_get_info", inputs, call());
            }
            return None;
        }
        let bools = [
            offset_of!(KeelHullInfo, is_closed),
            offset_of!(KeelHullInfo, winding_flipped),
        ];
        if !out.bools_valid(&bools) {
            self.finding(
                "succeeded without writing its output",
                "keel_hull_get_info",
                inputs,
                call(),
            );
            return None;
        }
        let info = out.get(0);
        if info.reoriented_count > info.triangle_count {
            self.finding(
                "more triangles reoriented than there are",
                "keel_hull_get_info",
                inputs,
                format!("{}\n  info {info:?}", call()),
            );
        }
        if !info.finite() {
            self.finding(
                "non-finite output of a successful call",
                "keel_hull_get_info",
                inputs,
                format!("{}\n  info {info:?}", call()),
            );
        }
        if !out.untouched_from(1) {
            self.finding("wrote past the stated count", "keel_hull_get_info", inputs, call());
        }
        Some(info)
    }

    fn op_hull_box(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        if let Some(i) = wi
            && self.worlds[i].hulls.len() >= MAX_HULLS
        {
            return self.op_hull_destroy();
        }
        let mut extreme = false;
        let r = &mut self.rng;
        let size = v3(
            r.num(0.05, 20.0, 0.05, &mut extreme),
            r.num(0.05, 20.0, 0.05, &mut extreme),
            r.num(0.05, 20.0, 0.05, &mut extreme),
        );
        let omode = self.mode(0.05);
        bad.add(omode != Ptr::Valid, "out_hull is NULL or misaligned");
        bad.add(
            ![size.x, size.y, size.z].iter().all(|&s| s.is_finite() && s > 0.0),
            "a side is not finite and > 0",
        );
        let fill = self.fill();
        let mut out = Out::<u64>::new(1, omode, fill);
        self.enter("keel_hull_create_box");
        let st = unsafe { raw::keel_hull_create_box(w, size, out.ptr()) };
        let inputs = self.inputs(wi, bit(extreme, X_MESH));
        let context = self.context(wi);
        let call = || format!("{context}, size {size:?}, out_hull {omode:?}");
        // A box too small or too big for f32 may be refused as a mesh: not a must.
        self.check("keel_hull_create_box", st, bad, false, inputs, &call);
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_hull_create_box", inputs, call());
            }
            return;
        }
        let Some(i) = wi.filter(|_| omode == Ptr::Valid) else {
            return;
        };
        let handle = out.get(0);
        let exact = self.exact(wi);
        if let Some(info) = self.hull_info_of(w, handle, exact, inputs, &call) {
            let volume = size.x as f64 * size.y as f64 * size.z as f64;
            if !extreme
                && (!info.is_closed || info.triangle_count != 12 || (info.volume as f64 - volume).abs() > 1e-4 * volume)
            {
                self.finding(
                    "a box hull is not a closed 12-triangle box of the size asked",
                    "keel_hull_create_box",
                    inputs,
                    format!("{}\n  info {info:?}", call()),
                );
            }
        }
        self.worlds[i].hulls.push(HullM {
            handle,
            closed: true,
            users: 0,
            extreme,
        });
        if let Some(pool) = self.pool.clone().filter(|_| !exact) {
            pool_push(&pool.hulls, (w, handle), &mut self.rng);
        }
    }

    fn op_hull_inertia(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (hi, h, hbad) = self.pick_hull(wi, 0.2);
        bad.merge(hbad);
        let mut extreme = false;
        let mass = self.rng.num(0.1, 1e5, 0.05, &mut extreme);
        let pmode = self.mode(0.05);
        let rmode = self.mode(0.05);
        bad.add(pmode != Ptr::Valid, "out_principal is NULL or misaligned");
        bad.add(rmode != Ptr::Valid, "out_rotation is NULL or misaligned");
        bad.add(
            !(mass.is_finite() && mass > 0.0 && mass as f64 <= 1e12),
            "mass is not in (0, 1e12]",
        );
        let fill = self.fill();
        let mut principal = Out::<KeelVec3>::new(1, pmode, fill);
        let mut rotation = Out::<KeelQuat>::new(1, rmode, fill);
        self.enter("keel_hull_get_inertia");
        let st = unsafe { raw::keel_hull_get_inertia(w, h, mass, principal.ptr(), rotation.ptr()) };
        let hull_extreme = match (wi, hi) {
            (Some(i), Some(j)) => self.worlds[i].hulls[j].extreme,
            _ => false,
        };
        let inputs = self.inputs(wi, bit(hull_extreme || extreme, X_MESH));
        let context = self.context(wi);
        let call = || format!("{context}, hull {h:#x}, mass {mass}, outputs {pmode:?} {rmode:?}");
        let must = self.exact(wi) && hi.is_some() && !extreme && pmode == Ptr::Valid && rmode == Ptr::Valid;
        self.check("keel_hull_get_inertia", st, bad, must, inputs, &call);
        if st != OK {
            if !principal.untouched() || !rotation.untouched() {
                self.finding("output written on failure", "keel_hull_get_inertia", inputs, call());
            }
        } else if pmode == Ptr::Valid && rmode == Ptr::Valid {
            let (p, q) = (principal.get(0), rotation.get(0));
            let finite = [p.x, p.y, p.z, q.x, q.y, q.z, q.w].iter().all(|v| v.is_finite());
            if !(finite && p.x <= p.y && p.y <= p.z && p.x >= 0.0) {
                self.finding(
                    "inertia not finite, negative or not ascending",
                    "keel_hull_get_inertia",
                    inputs,
                    format!("{}\n  principal {p:?}, rotation {q:?}", call()),
                );
            }
        }
    }

    /// keel_body_snapshot or keel_world_snapshot, by the two-call pattern; the bytes are
    /// kept for restores.
    fn op_snapshot(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.04);
        let body = self.rng.chance(0.5);
        let (bi, b) = if body {
            let (bi, b, bbad) = self.pick_body(wi, 0.1);
            bad.merge(bbad);
            (bi, b)
        } else {
            (None, 0)
        };
        let function = if body {
            "keel_body_snapshot"
        } else {
            "keel_world_snapshot"
        };
        let inputs = self.body_inputs(wi, bi, 0);
        let context = if body {
            self.body_context(wi, bi)
        } else {
            self.context(wi)
        };
        let exact = self.exact(wi);
        let snapshot = |out: *mut u8, capacity: u32, size: *mut u32| unsafe {
            if body {
                raw::keel_body_snapshot(w, b, out, capacity, size)
            } else {
                raw::keel_world_snapshot(w, out, capacity, size)
            }
        };
        let mut needed = None;
        if self.rng.chance(0.6) {
            let fill = self.fill();
            let mut size = Out::<u32>::new(1, Ptr::Valid, fill);
            self.enter(function);
            let st = snapshot(ptr::null_mut(), 0, size.ptr());
            let call = || format!("{context}, out NULL, capacity 0, out_size valid");
            self.check(function, st, bad, exact && (bi.is_some() || !body), inputs, &call);
            if st == OK {
                needed = Some(size.get(0));
            } else if !size.untouched() {
                self.finding("output written on failure", function, inputs, call());
            }
        }
        let r = &mut self.rng;
        let omode = if r.below(8) == 0 { Ptr::Null } else { Ptr::Valid };
        let capacity = match (needed, r.below(4)) {
            (Some(n), 0) => n.saturating_sub(1 + r.below(8) as u32),
            (Some(n), 1 | 2) => n,
            (Some(n), _) => n + 1 + r.below(9) as u32,
            _ => r.pick(&[0, 1, 31, 32, 96, 300, 5000]),
        };
        let smode = self.mode(0.06);
        bad.add(smode != Ptr::Valid, "out_size is NULL or misaligned");
        let fill = self.fill();
        let mut out = Out::<u8>::new(capacity as usize, omode, fill);
        let mut size = Out::<u32>::new(1, smode, fill);
        self.enter(function);
        let st = snapshot(out.ptr(), capacity, size.ptr());
        let call = || format!("{context}, out {omode:?}, capacity {capacity}, out_size {smode:?}");
        self.check(function, st, bad, false, inputs, &call);
        let n = (smode == Ptr::Valid && (st == OK || st == BUFFER_TOO_SMALL)).then(|| size.get(0));
        match (st, n) {
            (OK, Some(n)) if omode == Ptr::Valid => {
                let bytes = out.bytes()[..(n as usize).min(capacity as usize)].to_vec();
                let wrong = if n > capacity || !out.untouched_from(n as usize) {
                    Some("wrote past the capacity or the size")
                } else if exact && needed.is_some_and(|e| e != n) {
                    Some("snapshot size differs from the size query")
                } else if !bytes.starts_with(b"KEEL") {
                    Some("a snapshot that does not start with KEEL")
                } else {
                    None
                };
                if let Some(what) = wrong {
                    self.finding(what, function, inputs, format!("{}\n  size {n}", call()));
                    return;
                }
                self.checked("snapshots taken");
                self.save(wi, w, bi, bytes);
            }
            (BUFFER_TOO_SMALL, n) => {
                if n.is_some_and(|n| n <= capacity) {
                    self.finding(
                        "KEEL_ERROR_BUFFER_TOO_SMALL with a size that fits",
                        function,
                        inputs,
                        format!("{}\n  size {n:?}", call()),
                    );
                }
                if !out.untouched() {
                    self.finding("output written on failure", function, inputs, call());
                }
            }
            (OK, _) => {}
            _ => {
                if !out.untouched() || !size.untouched() {
                    self.finding("output written on failure", function, inputs, call());
                }
            }
        }
    }

    /// Keeps a snapshot with what the model knows of its world and body.
    fn save(&mut self, wi: Option<usize>, w: KeelWorld, bi: Option<usize>, bytes: Vec<u8>) {
        let hash = if self.exact(wi) {
            let mut hash = 0u64;
            self.enter("keel_world_get_state_hash");
            let st = unsafe { raw::keel_world_get_state_hash(w, &mut hash) };
            self.check(
                "keel_world_get_state_hash",
                st,
                Bad::default(),
                true,
                Inputs::Ordinary,
                &|| format!("world {w:#x} right after a snapshot"),
            );
            (st == OK).then_some(hash)
        } else {
            None
        };
        let Some(world) = wi.map(|i| &self.worlds[i]) else {
            return;
        };
        // (A shared world's time, wind, current and origin are only known as this thread
        // last set them: its snapshot, restored into a world of this thread's own, would
        // leave that world's model wrong.)
        if bi.is_none() && !self.exact(wi) {
            return;
        }
        let saved = Saved {
            bytes,
            world: w,
            body: bi.map(|j| (world.bodies[j].handle, world.bodies[j].hull)),
            conditions: (
                world.time,
                world.wind,
                world.current,
                [world.time_extreme, world.wind_extreme, world.current_extreme],
            ),
            bodies: world
                .bodies
                .iter()
                .map(|b| (b.handle, b.last_extreme, b.last_any, b.hull))
                .collect(),
            exact: self.exact(wi),
            origin: (world.origin, world.water_extreme),
            hash,
        };
        if self.snapshots.len() >= SAVED {
            self.snapshots.remove(0);
        }
        self.snapshots.push(saved);
    }

    /// keel_body_restore or keel_world_restore, of a kept snapshot (as taken, damaged, or
    /// of another world or body) or bytes that are no snapshot.
    fn op_restore(&mut self) {
        let (mut wi, mut w, mut bad) = self.pick_world(0.04);
        let pick = (!self.snapshots.is_empty()).then(|| self.snapshots[self.rng.below(self.snapshots.len())].clone());
        // Mostly into the world the snapshot is of, while it lives.
        if let Some(i) = pick
            .as_ref()
            .and_then(|s| self.worlds.iter().position(|m| m.handle == s.world))
            .filter(|_| self.rng.chance(0.7))
        {
            (wi, w, bad) = (Some(i), self.worlds[i].handle, Bad::default());
        }
        let body = match &pick {
            Some(saved) => saved.body.is_some() != self.rng.chance(0.1),
            None => self.rng.chance(0.5),
        };
        let (bi, b) = if body {
            // Mostly the body the snapshot is of, when it is this world's.
            let own = pick
                .as_ref()
                .and_then(|s| s.body)
                .and_then(|(h, _)| wi.and_then(|i| self.worlds[i].bodies.iter().position(|b| b.handle == h)));
            match own.filter(|_| self.rng.chance(0.8)) {
                Some(j) => (Some(j), self.worlds[wi.unwrap_or_default()].bodies[j].handle),
                None => {
                    let (bi, b, bbad) = self.pick_body(wi, 0.1);
                    bad.merge(bbad);
                    (bi, b)
                }
            }
        } else {
            (None, 0)
        };
        let mut bytes = pick.as_ref().map_or_else(Vec::new, |s| s.bytes.clone());
        let r = &mut self.rng;
        let damaged = match r.below(10) {
            0 => {
                bytes.truncate(r.below(bytes.len() + 1));
                true
            }
            1 if !bytes.is_empty() => {
                let k = r.below(bytes.len().min(48));
                bytes[k] ^= 1 << r.below(8);
                // (A flipped bit of the history or of the world's conditions is a
                // snapshot still, of other numbers.)
                true
            }
            2 => {
                bytes = (0..r.below(200)).map(|_| r.below(256) as u8).collect();
                true
            }
            3 => {
                bytes.push(r.below(256) as u8);
                true
            }
            _ => false,
        };
        let dmode = match r.below(30) {
            0 => Ptr::Null,
            1 => Ptr::Misaligned,
            _ => Ptr::Valid,
        };
        let size = bytes.len() as u32;
        bad.add(dmode == Ptr::Null && size > 0, "data is NULL with a size");
        let function = if body {
            "keel_body_restore"
        } else {
            "keel_world_restore"
        };
        let din = In::new(&bytes, dmode);
        let inputs = self.body_inputs(wi, bi, 0);
        let context = if body {
            self.body_context(wi, bi)
        } else {
            self.context(wi)
        };
        let exact = self.exact(wi);
        // A snapshot as taken must be restored into its own world, or a body of its hull.
        let fits = match (&pick, bi, wi) {
            (Some(s), Some(j), Some(i)) if body => s.body.is_some_and(|(_, h)| h == self.worlds[i].bodies[j].hull),
            // (The same bodies on the same hulls: none created or destroyed since.)
            (Some(s), None, Some(i)) if !body => {
                let now = &self.worlds[i].bodies;
                s.world == w
                    && s.body.is_none()
                    && now.len() == s.bodies.len()
                    && now
                        .iter()
                        .all(|b| s.bodies.iter().any(|t| t.0 == b.handle && t.3 == b.hull))
            }
            _ => false,
        };
        let must = exact && fits && !damaged && dmode != Ptr::Null;
        self.enter(function);
        let st = unsafe {
            if body {
                raw::keel_body_restore(w, b, din.ptr(), size)
            } else {
                raw::keel_world_restore(w, din.ptr(), size)
            }
        };
        let kept = pick.is_some();
        let call = || format!("{context}, {size} bytes {dmode:?} (a kept snapshot: {kept}, damaged: {damaged})");
        // (Another world's snapshot names bodies this one never had.)
        let foreign = !body
            && pick
                .as_ref()
                .is_some_and(|s| s.body.is_some() || (s.world != w && s.exact && !s.bodies.is_empty()));
        if exact && foreign && !damaged && st == OK {
            self.finding("a world took another world's snapshot", function, inputs, call());
        }
        self.check_status(function, st, bad, must, exact, inputs, &call);
        if st != OK {
            return;
        }
        let Some(i) = wi else { return };
        let Some(saved) = pick else { return };
        self.checked("snapshots restored");
        let world = &mut self.worlds[i];
        let restored = |b: &mut BodyM| {
            b.submerged = Some(0);
            b.last_force = None;
        };
        if body {
            if let Some(j) = bi {
                let then = saved.bodies.iter().find(|t| Some(t.0) == saved.body.map(|s| s.0));
                let b = &mut world.bodies[j];
                restored(b);
                // (Damaged bytes may hold any history: as if from an extreme step.)
                b.last_extreme = damaged || then.is_none_or(|t| t.1);
                b.last_any = b.last_extreme || then.is_none_or(|t| t.2);
            }
            return;
        }
        for b in &mut world.bodies {
            let then = saved.bodies.iter().find(|t| t.0 == b.handle);
            restored(b);
            b.last_extreme = damaged || then.is_none_or(|t| t.1);
            b.last_any = b.last_extreme || then.is_none_or(|t| t.2);
        }
        let (time, wind, current, extreme) = saved.conditions;
        (world.time, world.wind, world.current) = (time, wind, current);
        world.time_extreme = extreme[0] || damaged;
        world.wind_extreme = extreme[1] || damaged;
        world.current_extreme = extreme[2] || damaged;
        world.origin = saved.origin.0;
        world.water_extreme |= saved.origin.1;
        // Restored as taken: the world's state is the snapshot's, and so is its hash.
        if let (Some(then), true, false) = (saved.hash, exact, damaged) {
            let mut hash = 0u64;
            self.enter("keel_world_get_state_hash");
            let st = unsafe { raw::keel_world_get_state_hash(w, &mut hash) };
            self.check("keel_world_get_state_hash", st, Bad::default(), true, inputs, &call);
            self.checked("state hashes compared after a restore");
            if st == OK && hash != then {
                self.finding(
                    "the state hash after a restore differs from the snapshot's",
                    function,
                    inputs,
                    format!("{}\n  hash {hash:#x}, at the snapshot {then:#x}", call()),
                );
            }
        }
    }

    fn op_state_hash(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.1);
        let mode = self.mode(0.1);
        bad.add(mode != Ptr::Valid, "out_hash is NULL or misaligned");
        let fill = self.fill();
        let mut out = Out::<u64>::new(1, mode, fill);
        self.enter("keel_world_get_state_hash");
        let st = unsafe { raw::keel_world_get_state_hash(w, out.ptr()) };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        let call = || format!("{context}, out_hash {mode:?}");
        let exact = self.exact(wi);
        self.check("keel_world_get_state_hash", st, bad, exact, inputs, &call);
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_world_get_state_hash", inputs, call());
            }
            return;
        }
        // Asked twice with nothing between: the same hash.
        if exact {
            let first = out.get(0);
            let mut again = 0u64;
            self.enter("keel_world_get_state_hash");
            let st = unsafe { raw::keel_world_get_state_hash(w, &mut again) };
            self.check("keel_world_get_state_hash", st, Bad::default(), true, inputs, &call);
            if st == OK && again != first {
                self.finding(
                    "the state hash changed by itself",
                    "keel_world_get_state_hash",
                    inputs,
                    call(),
                );
            }
        }
    }

    /// keel_world_set_origin, keel_world_shift_origin or keel_world_get_origin.
    fn op_origin(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let exact = self.exact(wi);
        let known = wi.map(|i| self.worlds[i].origin);
        if self.rng.chance(0.3) {
            let modes = [self.mode(0.08), self.mode(0.08), self.mode(0.08)];
            bad.add(
                modes.iter().any(|&m| m != Ptr::Valid),
                "an out pointer is NULL or misaligned",
            );
            let fill = self.fill();
            let mut outs = modes.map(|m| Out::<f64>::new(1, m, fill));
            self.enter("keel_world_get_origin");
            let [x, y, z] = &mut outs;
            let st = unsafe { raw::keel_world_get_origin(w, x.ptr(), y.ptr(), z.ptr()) };
            let inputs = self.inputs(wi, 0);
            let context = self.context(wi);
            let call = || format!("{context}, outs {modes:?}");
            self.check("keel_world_get_origin", st, bad, exact, inputs, &call);
            if st != OK {
                if outs.iter().any(|o| !o.untouched()) {
                    self.finding("output written on failure", "keel_world_get_origin", inputs, call());
                }
            } else if let (true, Some(o)) = (exact, known) {
                let got = [outs[0].get(0), outs[1].get(0), outs[2].get(0)];
                if got != o {
                    self.finding(
                        "the origin differs from the one set",
                        "keel_world_get_origin",
                        inputs,
                        format!("{}\n  got {got:?}, set {o:?}", call()),
                    );
                }
            }
            return;
        }
        let shift = self.rng.chance(0.5);
        let r = &mut self.rng;
        let mut value = || match r.below(12) {
            0 => f64::from(r.weird_f32()),
            1 => r.pick(&[f64::NAN, f64::INFINITY, -1e300, 4.1e9, -4e9, 1e10]),
            2..=4 => (2.0 * r.unit() - 1.0) * 1e6,
            5 => 0.0,
            _ => (2.0 * r.unit() - 1.0) * 1e3,
        };
        let v = [value(), value(), value()];
        let target = match (shift, known) {
            (true, Some(o)) => Some([o[0] + v[0], o[1] + v[1], o[2] + v[2]]),
            (true, None) => None,
            (false, _) => Some(v),
        };
        let refused = |t: [f64; 3]| t.iter().any(|x| !x.is_finite() || x.abs() > 4e9);
        // (A shift by a finite amount to a target beyond the range is refused too; the
        // shared worlds' origins are not known.)
        let not_finite = v.iter().any(|x| !x.is_finite());
        let function = if shift {
            "keel_world_shift_origin"
        } else {
            "keel_world_set_origin"
        };
        if not_finite || (exact && target.is_some_and(refused)) {
            bad.add(true, "an origin that is not finite or too far");
        }
        self.enter(function);
        let st = unsafe {
            if shift {
                raw::keel_world_shift_origin(w, v[0], v[1], v[2])
            } else {
                raw::keel_world_set_origin(w, v[0], v[1], v[2])
            }
        };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        let call = || format!("{context}, {v:?}");
        self.check_status(function, st, bad, exact, exact, inputs, &call);
        if let (OK, Some(i), Some(t)) = (st, wi, target) {
            let world = &mut self.worlds[i];
            world.origin = t;
            // The water far from where it was made: Perlin noise and waves of any size
            // there, a heightfield's edge.
            world.water_extreme |= t.iter().any(|x| x.abs() > 1e5);
        }
    }

    /// keel_body_find_equilibrium: an in-out state, left as it was on failure. Bodies may
    /// be on open hulls or too heavy to float, so a refusal is never a finding; a rest pose
    /// must be finite, still and have a unit rotation.
    fn op_body_equilibrium(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (bi, b, bbad) = self.pick_body(wi, 0.15);
        bad.merge(bbad);
        let mut extreme = false;
        let prev = match (wi, bi) {
            (Some(i), Some(j)) => self.worlds[i].bodies[j].state,
            _ => None,
        };
        let state = self.state(wi, prev, 0.05, &mut extreme);
        bad.merge(state_bad(&state));
        let r = &mut self.rng;
        let com = v3(
            r.num(-0.5, 0.5, 0.03, &mut extreme),
            r.num(-0.5, 0.5, 0.03, &mut extreme),
            r.num(-0.5, 0.5, 0.03, &mut extreme),
        );
        bad.add(!vec_finite(com), "center_of_mass_local is not finite");
        let mode = self.mode(0.05);
        bad.add(mode != Ptr::Valid, "in_out_state is NULL or misaligned");
        let fill = self.fill();
        let mut io = Out::<KeelBodyState>::new(1, mode, fill);
        if mode == Ptr::Valid {
            // SAFETY: a valid, aligned buffer of at least one state.
            unsafe { io.ptr().write(state) };
        }
        let before = io.bytes().to_vec();
        self.enter("keel_body_find_equilibrium");
        let st = unsafe { raw::keel_body_find_equilibrium(w, b, com, io.ptr()) };
        let inputs = self.inputs(wi, bit(extreme, X_STATE));
        let context = self.context(wi);
        let call = || format!("{context}, body {b:#x}, com {com:?}, state {state:?}, {mode:?}");
        self.check("keel_body_find_equilibrium", st, bad, false, inputs, &call);
        if st != OK {
            if io.bytes() != before.as_slice() {
                self.finding(
                    "output written on failure",
                    "keel_body_find_equilibrium",
                    inputs,
                    call(),
                );
            }
            return;
        }
        if mode != Ptr::Valid {
            return;
        }
        let rest = io.get(0);
        let q = rest.rotation;
        let length = ((q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w) as f64).sqrt();
        let still = [rest.linear_velocity, rest.angular_velocity]
            .iter()
            .all(|v| v.x == 0.0 && v.y == 0.0 && v.z == 0.0);
        if !(state_bad(&rest).0.is_none() && still && (length - 1.0).abs() < 1e-3 && io.untouched_from(1)) {
            self.finding(
                "a rest pose not finite, not still, without a unit rotation, or written past",
                "keel_body_find_equilibrium",
                inputs,
                format!("{}\n  rest {rest:?}", call()),
            );
        }
    }

    fn op_world_counts(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.1);
        let mode = self.mode(0.06);
        bad.add(mode != Ptr::Valid, "out_counts is NULL or misaligned");
        let fill = self.fill();
        let mut out = Out::<KeelWorldCounts>::new(1, mode, fill);
        self.enter("keel_world_get_counts");
        let st = unsafe { raw::keel_world_get_counts(w, out.ptr()) };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        let call = || format!("{context}, out_counts {mode:?}");
        let exact = self.exact(wi);
        self.check(
            "keel_world_get_counts",
            st,
            bad,
            exact && mode == Ptr::Valid,
            inputs,
            &call,
        );
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_world_get_counts", inputs, call());
            }
            return;
        }
        if let Some(i) = wi.filter(|_| exact && mode == Ptr::Valid) {
            let counts = out.get(0);
            let known = (self.worlds[i].hulls.len() as u32, self.worlds[i].bodies.len() as u32);
            if (counts.hull_count, counts.body_count) != known {
                self.finding(
                    "world counts differ from the hulls and bodies made",
                    "keel_world_get_counts",
                    inputs,
                    format!("{}\n  counts {counts:?}, known {known:?}", call()),
                );
            }
        }
    }

    fn op_hull_info(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (hi, h, hbad) = self.pick_hull(wi, 0.2);
        bad.merge(hbad);
        let mode = self.mode(0.06);
        bad.add(mode != Ptr::Valid, "out_info is NULL or misaligned");
        let fill = self.fill();
        let mut out = Out::<KeelHullInfo>::new(1, mode, fill);
        self.enter("keel_hull_get_info");
        let st = unsafe { raw::keel_hull_get_info(w, h, out.ptr()) };
        let extreme = match (wi, hi) {
            (Some(i), Some(j)) => self.worlds[i].hulls[j].extreme,
            _ => false,
        };
        let inputs = self.inputs(wi, bit(extreme, X_MESH));
        let context = self.context(wi);
        let call = || format!("{context}, hull {h:#x}, out_info {mode:?}");
        let must = self.exact(wi) && hi.is_some() && mode == Ptr::Valid;
        self.check("keel_hull_get_info", st, bad, must, inputs, &call);
        if mode == Ptr::Valid || st != OK {
            self.read_info(st, &out, inputs, &call);
        }
    }

    fn op_hull_destroy(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (hi, h, hbad) = self.pick_hull(wi, 0.2);
        bad.merge(hbad);
        let exact = self.exact(wi);
        let users = match (wi, hi) {
            (Some(i), Some(j)) => self.worlds[i].hulls[j].users,
            _ => 0,
        };
        bad.add(exact && users > 0, "the hull is used by a body");
        let must = exact && hi.is_some() && users == 0;
        self.enter("keel_hull_destroy");
        let st = unsafe { raw::keel_hull_destroy(w, h) };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        self.check("keel_hull_destroy", st, bad, must, inputs, &|| {
            format!("{context}, hull {h:#x} (used by {users} bodies as far as known)")
        });
        let (Some(i), Some(j)) = (wi, hi) else { return };
        if st == OK {
            self.worlds[i].hulls.swap_remove(j);
            self.bury(h);
            if let Some(pool) = self.pool.clone().filter(|_| !exact) {
                lock(&pool.hulls).retain(|&(_, x)| x != h);
            }
        } else if st == INVALID_HANDLE && !exact {
            self.worlds[i].hulls.swap_remove(j);
        }
    }

    fn op_body_create(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        if let Some(i) = wi {
            if self.worlds[i].bodies.len() >= MAX_BODIES {
                return self.op_body_destroy();
            }
            if self.worlds[i].hulls.is_empty() {
                return self.op_hull_create();
            }
        }
        let (desc, dbad, hull_extreme) = self.body_desc(wi, None);
        bad.merge(dbad);
        let (dmode, omode) = (self.mode(0.04), self.mode(0.04));
        bad.add(dmode != Ptr::Valid, "desc is NULL or misaligned");
        bad.add(omode != Ptr::Valid, "out_body is NULL or misaligned");
        let din = In::new(std::slice::from_ref(&desc), dmode);
        let fill = self.fill();
        let mut out = Out::<u64>::new(1, omode, fill);
        self.enter("keel_body_create");
        let st = unsafe { raw::keel_body_create(w, din.ptr(), out.ptr()) };
        let inputs = self.inputs(wi, bit(desc_extreme(&desc), X_BODY) | bit(hull_extreme, X_MESH));
        let context = self.context(wi);
        let call = || format!("{context}, desc {desc:?} ({dmode:?}), out_body {omode:?}");
        let exact = self.exact(wi);
        self.check_status("keel_body_create", st, bad, false, exact, inputs, &call);
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_body_create", inputs, call());
            }
            return;
        }
        let Some(i) = wi.filter(|_| omode == Ptr::Valid) else {
            return;
        };
        let handle = out.get(0);
        if handle == 0 {
            self.finding("body handle 0 returned", "keel_body_create", inputs, call());
        }
        if let Some(h) = self.worlds[i].hulls.iter_mut().find(|h| h.handle == desc.hull) {
            h.users += 1;
        }
        self.worlds[i].bodies.push(BodyM {
            handle,
            hull: desc.hull,
            desc,
            hull_extreme,
            state: None,
            last_extreme: false,
            last_any: false,
            submerged: Some(0),
            last_force: None,
        });
        if let Some(pool) = self.pool.clone().filter(|_| !self.exact(wi)) {
            pool_push(&pool.bodies, (w, handle), &mut self.rng);
        }
    }

    fn op_body_set_desc(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (bi, b, bbad) = self.pick_body(wi, 0.12);
        bad.merge(bbad);
        let base = match (wi, bi) {
            (Some(i), Some(j)) if self.rng.chance(0.7) => Some(self.worlds[i].bodies[j].desc),
            _ => None,
        };
        let (desc, dbad, hull_extreme) = self.body_desc(wi, base);
        bad.merge(dbad);
        let mode = self.mode(0.04);
        bad.add(mode != Ptr::Valid, "desc is NULL or misaligned");
        let din = In::new(std::slice::from_ref(&desc), mode);
        self.enter("keel_body_set_desc");
        let st = unsafe { raw::keel_body_set_desc(w, b, din.ptr()) };
        let inputs = self.inputs(wi, bit(desc_extreme(&desc), X_BODY) | bit(hull_extreme, X_MESH));
        let context = self.context(wi);
        let exact = self.exact(wi);
        self.check_status("keel_body_set_desc", st, bad, false, exact, inputs, &|| {
            format!("{context}, body {b:#x}, desc {desc:?} ({mode:?})")
        });
        let (OK, Some(i), Some(j)) = (st, wi, bi) else { return };
        let world = &mut self.worlds[i];
        let old = world.bodies[j].hull;
        if old != desc.hull {
            if let Some(h) = world.hulls.iter_mut().find(|h| h.handle == old) {
                h.users = h.users.saturating_sub(1);
            }
            if let Some(h) = world.hulls.iter_mut().find(|h| h.handle == desc.hull) {
                h.users += 1;
            }
            world.bodies[j].submerged = Some(0);
            world.bodies[j].state = None;
            world.bodies[j].last_extreme = false;
            world.bodies[j].last_any = false;
        }
        let body = &mut world.bodies[j];
        body.hull = desc.hull;
        body.desc = desc;
        body.hull_extreme = hull_extreme;
        // The detail of the last step is replayed with the new description.
        body.last_force = None;
    }

    fn op_body_get_desc(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (bi, b, bbad) = self.pick_body(wi, 0.15);
        bad.merge(bbad);
        let mode = self.mode(0.06);
        bad.add(mode != Ptr::Valid, "out_desc is NULL or misaligned");
        let fill = self.fill();
        let mut out = Out::<KeelBodyDesc>::new(1, mode, fill);
        self.enter("keel_body_get_desc");
        let st = unsafe { raw::keel_body_get_desc(w, b, out.ptr()) };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        let call = || format!("{context}, body {b:#x}, out_desc {mode:?}");
        let exact = self.exact(wi);
        self.check(
            "keel_body_get_desc",
            st,
            bad,
            exact && bi.is_some() && mode == Ptr::Valid,
            inputs,
            &call,
        );
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_body_get_desc", inputs, call());
            }
            return;
        }
        if mode != Ptr::Valid {
            return;
        }
        if !out.bools_valid(&[offset_of!(KeelBodyDesc, vertical_buoyancy_only)]) {
            self.finding(
                "succeeded without writing its output",
                "keel_body_get_desc",
                inputs,
                call(),
            );
            return;
        }
        let got = out.get(0);
        if let (true, Some(i), Some(j)) = (exact, wi, bi) {
            let expected = self.worlds[i].bodies[j].desc;
            if got != expected {
                self.finding(
                    "keel_body_get_desc differs from the description set",
                    "keel_body_get_desc",
                    inputs,
                    format!("{}\n  set {expected:?}\n  got {got:?}", call()),
                );
            }
        }
    }

    fn op_body_destroy(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.05);
        let (bi, b, bbad) = self.pick_body(wi, 0.2);
        bad.merge(bbad);
        let exact = self.exact(wi);
        self.enter("keel_body_destroy");
        let st = unsafe { raw::keel_body_destroy(w, b) };
        let inputs = self.inputs(wi, 0);
        let context = self.context(wi);
        self.check("keel_body_destroy", st, bad, exact && bi.is_some(), inputs, &|| {
            format!("{context}, body {b:#x}")
        });
        let (Some(i), Some(j)) = (wi, bi) else { return };
        if st == OK {
            let body = self.worlds[i].bodies.swap_remove(j);
            if let Some(h) = self.worlds[i].hulls.iter_mut().find(|h| h.handle == body.hull) {
                h.users = h.users.saturating_sub(1);
            }
            self.bury(b);
            if let Some(pool) = self.pool.clone().filter(|_| !exact) {
                lock(&pool.bodies).retain(|&(_, x)| x != b);
            }
        } else if st == INVALID_HANDLE && !exact {
            self.worlds[i].bodies.swap_remove(j);
        }
    }

    /// Checks the forces of a successful step of body `j` of world `i` and records them.
    fn stepped(
        &mut self,
        function: &'static str,
        target: Option<(usize, usize)>,
        state: &KeelBodyState,
        forces: &KeelBodyForces,
        inputs: Inputs,
        call: &dyn Fn() -> String,
    ) {
        if !forces.finite() {
            self.finding(
                "non-finite forces from a successful step",
                function,
                inputs,
                format!("{}\n  forces {forces:?}", call()),
            );
        }
        if let Some((i, j)) = target {
            let body = &mut self.worlds[i].bodies[j];
            body.state = Some(*state);
            body.submerged = Some(forces.submerged_triangle_count);
            body.last_force = forces.finite().then_some(forces.force);
            body.last_extreme = matches!(inputs, Inputs::Extreme(bits) if bits & !X_LAST != 0);
            body.last_any = matches!(inputs, Inputs::Extreme(_));
        }
    }

    fn body_inputs(&self, wi: Option<usize>, bi: Option<usize>, tags: u16) -> Inputs {
        let body = match (wi, bi) {
            (Some(i), Some(j)) => self.worlds[i].bodies[j].tags(),
            _ => 0,
        };
        self.inputs(wi, tags | body)
    }

    fn body_context(&self, wi: Option<usize>, bi: Option<usize>) -> String {
        match (wi, bi) {
            (Some(i), Some(j)) => {
                let b = &self.worlds[i].bodies[j];
                format!("{}, body {:#x} (desc {:?})", self.worlds[i].context(), b.handle, b.desc)
            }
            _ => format!("{}, an invalid body", self.context(wi)),
        }
    }

    fn op_body_step(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.03);
        let (bi, b, bbad) = self.pick_body(wi, 0.08);
        bad.merge(bbad);
        let mut extreme = false;
        let prev = match (wi, bi) {
            (Some(i), Some(j)) => self.worlds[i].bodies[j].state,
            _ => None,
        };
        let state = self.state(wi, prev, 0.12, &mut extreme);
        bad.merge(state_bad(&state));
        let (dt, dbad) = self.dt(&mut extreme);
        let tags = bit(state_extreme(&state), X_STATE) | bit(dt_extreme(dt), X_DT);
        bad.merge(dbad);
        let (smode, omode) = (self.mode(0.03), self.mode(0.03));
        bad.add(smode != Ptr::Valid, "state is NULL or misaligned");
        bad.add(omode != Ptr::Valid, "out_forces is NULL or misaligned");
        let sin = In::new(std::slice::from_ref(&state), smode);
        let fill = self.fill();
        let mut out = Out::<KeelBodyForces>::new(1, omode, fill);
        self.enter("keel_body_step");
        let st = unsafe { raw::keel_body_step(w, b, sin.ptr(), dt, out.ptr()) };
        let inputs = self.body_inputs(wi, bi, tags);
        let context = self.body_context(wi, bi);
        let call = || format!("{context}, state {state:?} ({smode:?}), dt {dt:e}, out_forces {omode:?}");
        let exact = self.exact(wi);
        self.check_status("keel_body_step", st, bad, false, exact, inputs, &call);
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_body_step", inputs, call());
            }
            if let (true, None, Some(i), Some(j)) = (exact, bad.0, wi, bi)
                && self.rng.chance(0.5)
            {
                self.verify_unchanged(i, j, "keel_body_step", inputs, &call);
            }
            return;
        }
        if omode != Ptr::Valid {
            return;
        }
        if !out.untouched_from(1) {
            self.finding("wrote past the stated count", "keel_body_step", inputs, call());
        }
        let forces = out.get(0);
        let target = wi.zip(bi);
        self.stepped("keel_body_step", target, &state, &forces, inputs, &call);
    }

    fn op_world_step(&mut self) {
        let (wi, w, mut bad) = self.pick_world(0.03);
        let mut extreme = false;
        let live = wi.map_or(0, |i| self.worlds[i].bodies.len());
        let count = match self.rng.below(10) {
            0 => 0,
            1 => 1,
            _ => self.rng.below(live.min(12) + 2),
        };
        let mut order: Vec<usize> = (0..live).collect();
        for k in (1..order.len()).rev() {
            order.swap(k, self.rng.below(k + 1));
        }
        let mut ids = Vec::with_capacity(count);
        let mut targets: Vec<Option<usize>> = Vec::with_capacity(count);
        for k in 0..count {
            if k < order.len() && !self.rng.chance(0.03) {
                let j = order[k];
                ids.push(self.worlds[wi.unwrap_or_default()].bodies[j].handle);
                targets.push(Some(j));
            } else {
                ids.push(self.invalid_body(wi));
                targets.push(None);
                bad.add(true, "an invalid body handle");
            }
        }
        // The last step's bodies again, those destroyed since included. (On a world of
        // this thread's only: on a shared one, a body missing from this thread's view may
        // still live, the pool's lists being capped.)
        let again = match (&self.last_step, wi) {
            (Some((lw, last)), Some(i)) if *lw == w && !self.worlds[i].shared && self.rng.chance(0.5) => {
                Some((i, last.clone()))
            }
            _ => None,
        };
        let mut count = count;
        if let Some((i, last)) = again {
            (ids, targets, bad) = (Vec::new(), Vec::new(), Bad::default());
            for h in last {
                let j = self.worlds[i].bodies.iter().position(|b| b.handle == h);
                if j.is_none() {
                    bad.add(true, "an invalid body handle");
                }
                ids.push(h);
                targets.push(j);
            }
            count = ids.len();
        }
        if count >= 2 && self.rng.chance(0.06) {
            let (a, b) = (self.rng.below(count), self.rng.below(count));
            if a != b {
                ids[b] = ids[a];
                targets[b] = targets[a];
                bad.add(true, "a body listed twice");
            }
        }
        let mut states = Vec::with_capacity(count);
        let mut tags = 0;
        for &t in &targets {
            let prev = t.and_then(|j| self.worlds[wi.unwrap_or_default()].bodies[j].state);
            tags |= t.map_or(0, |j| self.worlds[wi.unwrap_or_default()].bodies[j].tags());
            let s = self.state(wi, prev, 0.02, &mut extreme);
            tags |= bit(state_extreme(&s), X_STATE);
            bad.merge(state_bad(&s));
            states.push(s);
        }
        let (dt, dbad) = self.dt(&mut extreme);
        tags |= bit(dt_extreme(dt), X_DT);
        bad.merge(dbad);
        let (imode, smode, omode) = (self.mode(0.03), self.mode(0.03), self.mode(0.03));
        bad.add(count > 0 && imode != Ptr::Valid, "bodies is NULL or misaligned");
        bad.add(count > 0 && smode != Ptr::Valid, "states is NULL or misaligned");
        bad.add(count > 0 && omode != Ptr::Valid, "out_forces is NULL or misaligned");
        let iin = In::new(&ids, imode);
        let sin = In::new(&states, smode);
        let fill = self.fill();
        let mut out = Out::<KeelBodyForces>::new(count, omode, fill);
        self.enter("keel_world_step");
        let st = unsafe { raw::keel_world_step(w, iin.ptr(), sin.ptr(), count as u32, dt, out.ptr()) };
        let inputs = self.inputs(wi, tags);
        let context = self.context(wi);
        let descs: Vec<String> = targets
            .iter()
            .map(|t| match (wi, t) {
                (Some(i), Some(j)) => format!("{:?}", self.worlds[i].bodies[*j].desc),
                _ => "invalid".into(),
            })
            .collect();
        let call = || {
            format!(
                "{context}: {count} bodies {ids:x?} ({imode:?}), states {states:?} ({smode:?}), dt {dt:e}, \
                 out_forces {omode:?}, body descs {descs:?}"
            )
        };
        let exact = self.exact(wi);
        self.check_status("keel_world_step", st, bad, false, exact, inputs, &call);
        if st != OK {
            if !out.untouched() {
                self.finding("output written on failure", "keel_world_step", inputs, call());
            }
            if let (true, None, Some(i)) = (exact, bad.0, wi) {
                // A batch that fails changes no body, even those it got through first.
                let listed: Vec<usize> = targets.iter().flatten().copied().collect();
                for &j in listed.iter().take(3) {
                    self.verify_unchanged(i, j, "keel_world_step", inputs, &call);
                }
            }
            return;
        }
        if wi.is_some() {
            self.last_step = Some((w, ids.clone()));
        }
        if omode != Ptr::Valid {
            if !out.untouched() {
                self.finding("wrote to an output of count 0", "keel_world_step", inputs, call());
            }
            return;
        }
        if !out.untouched_from(count) {
            self.finding("wrote past the stated count", "keel_world_step", inputs, call());
        }
        for k in 0..count {
            let forces = out.get(k);
            let target = wi.zip(targets[k]);
            let tags = bit(state_extreme(&states[k]), X_STATE) | bit(dt_extreme(dt), X_DT);
            let inputs = self.body_inputs(wi, targets[k], tags);
            let (state, desc) = (&states[k], &descs[k]);
            let one = || format!("bodies[{k}] (state {state:?}, desc {desc}) of {}", call());
            self.stepped("keel_world_step", target, &states[k], &forces, inputs, &one);
        }
    }

    /// After a step that failed on valid handles (a refused value, forces that would not
    /// be finite, a water callback's bad answer), body `j` of world `i` must still show its
    /// last successful step: as many submerged triangles, triangle forces that add up to
    /// its force.
    fn verify_unchanged(
        &mut self,
        i: usize,
        j: usize,
        function: &'static str,
        inputs: Inputs,
        step: &dyn Fn() -> String,
    ) {
        let (w, body) = (self.worlds[i].handle, self.worlds[i].bodies[j].clone());
        let b = body.handle;
        self.checked("bodies checked unchanged after a failed step");
        let what = format!("a failed {function} changed the last step of a body it was given");
        let context = || format!("body {b:#x} after {}", step());
        let mut count = 0u32;
        self.enter("keel_body_get_submerged_triangles");
        let st = unsafe { raw::keel_body_get_submerged_triangles(w, b, ptr::null_mut(), 0, &mut count) };
        self.check(
            "keel_body_get_submerged_triangles",
            st,
            Bad::default(),
            true,
            inputs,
            &context,
        );
        if let (OK, Some(n)) = (st, body.submerged)
            && count != 3 * n
        {
            self.finding(
                &what,
                "keel_body_get_submerged_triangles",
                inputs,
                format!(
                    "{}\n  {count} submerged vertices, the last step had {n} triangles",
                    context()
                ),
            );
        }
        let Some(force) = body.last_force else { return };
        self.enter("keel_body_get_triangle_forces");
        let st = unsafe { raw::keel_body_get_triangle_forces(w, b, ptr::null_mut(), 0, &mut count) };
        self.check(
            "keel_body_get_triangle_forces",
            st,
            Bad::default(),
            true,
            inputs,
            &context,
        );
        if st != OK {
            return;
        }
        let mut out = vec![KeelTriangleForce::default(); count as usize];
        self.enter("keel_body_get_triangle_forces");
        let st = unsafe { raw::keel_body_get_triangle_forces(w, b, out.as_mut_ptr(), count, &mut count) };
        self.check(
            "keel_body_get_triangle_forces",
            st,
            Bad::default(),
            true,
            inputs,
            &context,
        );
        if st != OK {
            return;
        }
        let out = &out[..(count as usize).min(out.len())];
        if let Some(k) = out.iter().position(|f| !f.finite()) {
            self.finding(
                "non-finite output of a successful call",
                "keel_body_get_triangle_forces",
                inputs,
                format!("{}\n  element {k} = {:?}", context(), out[k]),
            );
        } else if let Some(why) = force_sum_differs(out, force) {
            self.finding(
                &what,
                "keel_body_get_triangle_forces",
                inputs,
                format!("{}\n  {why}", context()),
            );
        }
    }

    fn detail<T: Copy + Finite + std::fmt::Debug>(
        &mut self,
        function: &'static str,
        f: DetailFn<T>,
        per: u32,
        submerged: bool,
    ) {
        let (wi, w, mut bad) = self.pick_world(0.04);
        let (bi, b, bbad) = self.pick_body(wi, 0.12);
        bad.merge(bbad);
        let last_any = match (wi, bi) {
            (Some(i), Some(j)) => self.worlds[i].bodies[j].last_any,
            _ => false,
        };
        let inputs = self.body_inputs(wi, bi, bit(last_any, X_LAST));
        let context = self.body_context(wi, bi);
        let exact = self.exact(wi);
        let expected = match (exact, wi, bi, submerged) {
            (true, Some(i), Some(j), true) => self.worlds[i].bodies[j].submerged.map(|n| 3 * n),
            _ => None,
        };
        // The two-call pattern: ask the size first, sometimes.
        let mut needed = None;
        if self.rng.chance(0.5) {
            let fill = self.fill();
            let mut count = Out::<u32>::new(1, Ptr::Valid, fill);
            self.enter(function);
            let st = unsafe { f(w, b, ptr::null_mut(), 0, count.ptr()) };
            let call = || format!("{context}, out NULL, capacity 0, out_count valid");
            self.check(function, st, bad, exact && bi.is_some(), inputs, &call);
            if st == OK {
                needed = Some(count.get(0));
            } else if !count.untouched() {
                self.finding("output written on failure", function, inputs, call());
            }
        }
        let r = &mut self.rng;
        let omode = match r.below(20) {
            0..=4 => Ptr::Null,
            5 => Ptr::Misaligned,
            _ => Ptr::Valid,
        };
        let capacity = match (needed, r.below(4)) {
            (Some(n), 0) => n.saturating_sub(1),
            (Some(n), 1) => n,
            (Some(n), 2) => n + 1 + r.below(4) as u32,
            _ => r.pick(&[0, 1, 2, 3, 6, 50, 300]),
        };
        let cmode = self.mode(0.06);
        bad.add(cmode != Ptr::Valid, "out_count is NULL or misaligned");
        let fill = self.fill();
        let mut out = Out::<T>::new(capacity as usize, omode, fill);
        let mut count = Out::<u32>::new(1, cmode, fill);
        self.enter(function);
        let st = unsafe { f(w, b, out.ptr(), capacity, count.ptr()) };
        let call = || format!("{context}, out {omode:?}, capacity {capacity}, out_count {cmode:?}");
        self.check(function, st, bad, false, inputs, &call);
        let n = (cmode == Ptr::Valid && (st == OK || st == BUFFER_TOO_SMALL)).then(|| count.get(0));
        match st {
            OK => {
                let Some(n) = n else { return };
                if n % per != 0 {
                    self.finding(
                        "detail count is not a whole number of triangles or segments",
                        function,
                        inputs,
                        format!("{}\n  count {n}", call()),
                    );
                }
                if expected.is_some_and(|e| e != n) || (exact && needed.is_some_and(|e| e != n)) {
                    self.finding(
                        "detail count differs from the last step or the size query",
                        function,
                        inputs,
                        format!("{}\n  count {n}, expected {expected:?}, size query {needed:?}", call()),
                    );
                }
                match omode {
                    Ptr::Valid => {
                        if n > capacity || !out.untouched_from(n.min(capacity) as usize) {
                            self.finding(
                                "wrote past the capacity or the count",
                                function,
                                inputs,
                                format!("{}\n  count {n}", call()),
                            );
                        } else if let Some(k) = (0..n as usize).find(|&k| !out.get(k).finite()) {
                            self.finding(
                                "non-finite output of a successful call",
                                function,
                                inputs,
                                format!("{}\n  element {k} = {:?}", call(), out.get(k)),
                            );
                        } else if let (true, Some(i), Some(j)) = (exact, wi, bi) {
                            let forces: Vec<KeelTriangleForce> =
                                (0..n as usize).filter_map(|k| out.get(k).triangle_force()).collect();
                            let last = self.worlds[i].bodies[j].last_force;
                            let differs = last.filter(|_| forces.len() == n as usize && per == 1);
                            if differs.is_some() {
                                self.checked("triangle forces added up and compared with the step's force");
                            }
                            if let Some(why) = differs.and_then(|force| force_sum_differs(&forces, force)) {
                                self.finding(
                                    "triangle forces do not add up to the last step's force",
                                    function,
                                    inputs,
                                    format!("{}\n  {why}", call()),
                                );
                            }
                        }
                    }
                    _ => {
                        if !out.untouched() {
                            self.finding("wrote through a NULL or misaligned out", function, inputs, call());
                        }
                    }
                }
            }
            BUFFER_TOO_SMALL => {
                if n.is_some_and(|n| n <= capacity) {
                    self.finding(
                        "KEEL_ERROR_BUFFER_TOO_SMALL with a count that fits",
                        function,
                        inputs,
                        format!("{}\n  count {n:?}", call()),
                    );
                }
                if !out.untouched() {
                    self.finding("output written on failure", function, inputs, call());
                }
            }
            _ => {
                if !out.untouched() || !count.untouched() {
                    self.finding("output written on failure", function, inputs, call());
                }
            }
        }
    }

    fn op_last_error(&mut self) {
        let len = self.last_message.len();
        let r = &mut self.rng;
        let capacity = r.pick(&[0, 1, 2, 5, len.saturating_sub(1), len, len + 1, len + 10, 400]);
        let null = r.chance(0.15);
        let capacity = if null && r.chance(0.3) { usize::MAX } else { capacity };
        let mut buf = vec![0xA5u8; if null { 8 } else { capacity + 8 }];
        let p = if null {
            ptr::null_mut()
        } else {
            buf.as_mut_ptr().cast::<c_char>()
        };
        self.enter("keel_last_error_message");
        let n = unsafe { keel_last_error_message(p, capacity) };
        self.stats.entry("keel_last_error_message").or_insert([0; 8])[0] += 1;
        let expected = String::from_utf8_lossy(&self.last_message).into_owned();
        let call = || {
            format!(
                "buf {}, capacity {capacity}; the last failure said {expected:?}",
                if null { "NULL" } else { "valid" }
            )
        };
        if n != len {
            self.finding(
                "last error message is not the one of the last failure",
                "keel_last_error_message",
                Inputs::Ordinary,
                format!("{}\n  returned length {n}", call()),
            );
            return;
        }
        let ok = if !null && capacity > 0 {
            let k = len.min(capacity - 1);
            buf[..k] == self.last_message[..k] && buf[k] == 0 && buf[k + 1..].iter().all(|&b| b == 0xA5)
        } else {
            buf.iter().all(|&b| b == 0xA5)
        };
        if !ok {
            let shown = String::from_utf8_lossy(&buf[..buf.len().min(200)]).into_owned();
            self.finding(
                "last error message copied wrongly",
                "keel_last_error_message",
                Inputs::Ordinary,
                format!("{}\n  buffer {shown:?}", call()),
            );
        }
    }

    fn op_defaults(&mut self) {
        let mode = match self.rng.below(4) {
            0 => Ptr::Null,
            1 => Ptr::Misaligned,
            _ => Ptr::Valid,
        };
        let fill = self.fill();
        let (function, ok): (&'static str, bool) = match self.rng.below(3) {
            0 => {
                let mut out = Out::<KeelWorldDesc>::new(1, mode, fill);
                self.enter("keel_world_desc_default");
                unsafe { keel_world_desc_default(out.ptr()) };
                let ok = if mode == Ptr::Valid {
                    let d = out.get(0);
                    d.gravity == 9.81
                        && d.water_density == 1000.0
                        && d.air_density == 1.225
                        && d.water_viscosity == 1.0e-6
                        && d.thread_count == 0
                } else {
                    out.untouched()
                };
                ("keel_world_desc_default", ok)
            }
            1 => {
                let mut out = Out::<KeelPerlinWaterDesc>::new(1, mode, fill);
                self.enter("keel_perlin_water_desc_default");
                unsafe { keel_perlin_water_desc_default(out.ptr()) };
                let ok = if mode == Ptr::Valid {
                    out.bools_valid(&[offset_of!(KeelPerlinWaterDesc, only_x)]) && {
                        let d = out.get(0);
                        d.level == 0.0
                            && d.perlin_scale == 0.1
                            && d.wave_speed == 0.5
                            && d.wave_height == 1.0
                            && !d.only_x
                    }
                } else {
                    out.untouched()
                };
                ("keel_perlin_water_desc_default", ok)
            }
            _ => {
                let mut out = Out::<KeelBodyDesc>::new(1, mode, fill);
                self.enter("keel_body_desc_default");
                unsafe { keel_body_desc_default(out.ptr()) };
                let ok = if mode == Ptr::Valid {
                    out.bools_valid(&[offset_of!(KeelBodyDesc, vertical_buoyancy_only)]) && {
                        let d = out.get(0);
                        d.hull == 0
                            && d.mass == 1000.0
                            && d.buoyancy == 0
                            && !d.vertical_buoyancy_only
                            && d.forces
                                == KEEL_FORCE_VISCOUS | KEEL_FORCE_PRESSURE_DRAG | KEEL_FORCE_SLAMMING | KEEL_FORCE_AIR
                            && d.hull_length == 0.0
                            && d.pressure_drag_linear == 500.0
                            && d.pressure_drag_quadratic == 500.0
                            && d.suction_drag_linear == 500.0
                            && d.suction_drag_quadratic == 250.0
                            && d.pressure_falloff == 0.5
                            && d.suction_falloff == 0.5
                            && d.reference_speed == 1.0
                            && d.slamming_power == 2.0
                            && d.slamming_max_acceleration == 0.0
                            && d.slamming_multiplier == 3.0
                            && d.air_drag_coefficient == 1.0
                            && d.linear_damping == 0.0
                            && d.angular_damping == 0.0
                            && d.added_mass_ratio == 0.0
                            && d.residual_resistance == 0.002
                    }
                } else {
                    out.untouched()
                };
                ("keel_body_desc_default", ok)
            }
        };
        self.stats.entry(function).or_insert([0; 8])[0] += 1;
        if !ok {
            let what = if mode == Ptr::Valid {
                "defaults differ from the header's"
            } else {
                "wrote through a NULL or misaligned pointer"
            };
            self.finding(what, function, Inputs::Ordinary, format!("desc {mode:?}"));
        }
    }

    fn op_versions(&mut self) {
        self.enter("keel_abi_version");
        let abi = keel_abi_version();
        self.enter("keel_version_string");
        let text = keel_version_string();
        self.stats.entry("keel_abi_version").or_insert([0; 8])[0] += 1;
        self.stats.entry("keel_version_string").or_insert([0; 8])[0] += 1;
        if abi != KEEL_ABI_VERSION {
            self.finding(
                "wrong ABI version",
                "keel_abi_version",
                Inputs::Ordinary,
                format!("{abi:#x}"),
            );
        }
        // SAFETY: documented as a static NUL-terminated string.
        let ok = !text.is_null() && unsafe { CStr::from_ptr(text) }.to_bytes() == env!("CARGO_PKG_VERSION").as_bytes();
        if !ok {
            self.finding(
                "wrong version string",
                "keel_version_string",
                Inputs::Ordinary,
                String::new(),
            );
        }
    }

    /// A fresh hull and body in world `i` must be created, stepped alone and in a batch,
    /// queried and destroyed: the world is still usable.
    fn probe(&mut self, i: usize) {
        let tags = self.worlds[i].tags();
        // In a world of extreme water, time or wind a step may be refused with a reason;
        // brought back to ordinary ones, the world must work again.
        self.probe_once(i, tags == 0);
        let callback = matches!(self.worlds[i].surface, Surface::Callback(_));
        if (tags & !X_WORLD != 0 || callback) && self.rng.chance(0.5) {
            let w = self.worlds[i].handle;
            let inputs = self.inputs(Some(i), 0);
            let context = self.worlds[i].context();
            let call = || format!("resetting water, time and wind of {context}");
            self.enter("keel_water_set_flat");
            let st = unsafe { raw::keel_water_set_flat(w, 0.0) };
            self.check("keel_water_set_flat", st, Bad::default(), true, inputs, &call);
            self.enter("keel_world_set_time");
            let st = unsafe { raw::keel_world_set_time(w, 0.0) };
            self.check("keel_world_set_time", st, Bad::default(), true, inputs, &call);
            self.enter("keel_world_set_wind");
            let st = unsafe { raw::keel_world_set_wind(w, v3(0.0, 0.0, 0.0)) };
            self.check("keel_world_set_wind", st, Bad::default(), true, inputs, &call);
            self.enter("keel_world_set_current");
            let st = unsafe { raw::keel_world_set_current(w, v3(0.0, 0.0, 0.0)) };
            self.check("keel_world_set_current", st, Bad::default(), true, inputs, &call);
            let world = &mut self.worlds[i];
            (world.level, world.time, world.water) = (0.0, 0.0, "flat 0".into());
            (world.water_extreme, world.time_extreme, world.wind_extreme) = (false, false, false);
            (world.wind, world.current, world.current_extreme) = (v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 0.0), false);
            world.surface = Surface::Flat(0.0);
            self.probe_once(i, self.worlds[i].tags() == 0);
        }
    }

    /// One probe; `strict`: its steps must succeed.
    fn probe_once(&mut self, i: usize, strict: bool) {
        let w = self.worlds[i].handle;
        CURRENT_WORLD.set(w);
        let level = self.worlds[i].level;
        let inputs = self.inputs(Some(i), 0);
        let context = self.worlds[i].context();
        let call = || format!("usability probe of {context}");
        let mesh = common::simple_box(Vec3::ONE, Vec3::ZERO);
        let vertices: Vec<KeelVec3> = mesh.vertices.iter().map(|p| v3(p.x, p.y, p.z)).collect();
        let desc = KeelHullDesc {
            vertices: vertices.as_ptr(),
            vertex_count: vertices.len() as u32,
            indices: mesh.indices.as_ptr(),
            index_count: mesh.indices.len() as u32,
            flip_winding: false,
        };
        let mut hull = 0;
        self.enter("keel_hull_create");
        let st = unsafe { raw::keel_hull_create(w, &desc, &mut hull) };
        if self.check("keel_hull_create", st, Bad::default(), true, inputs, &call) != OK {
            return;
        }
        let mut bd = default_body_desc();
        bd.hull = hull;
        bd.mass = 500.0;
        let mut body = 0;
        self.enter("keel_body_create");
        let st = unsafe { raw::keel_body_create(w, &bd, &mut body) };
        if self.check("keel_body_create", st, Bad::default(), true, inputs, &call) == OK {
            let y = if level.abs() <= 100.0 { level } else { 0.0 };
            let state = KeelBodyState {
                position: v3(0.0, y, 0.0),
                rotation: KeelQuat {
                    x: 0.0,
                    y: 0.0,
                    z: 0.0,
                    w: 1.0,
                },
                linear_velocity: v3(0.0, -0.5, 0.0),
                angular_velocity: v3(0.0, 0.0, 0.0),
                center_of_mass: v3(0.0, y, 0.0),
            };
            for _ in 0..2 {
                let mut forces = KeelBodyForces::default();
                self.enter("keel_body_step");
                let st = unsafe { raw::keel_body_step(w, body, &state, 1.0 / 60.0, &mut forces) };
                if self.check("keel_body_step", st, Bad::default(), strict, inputs, &call) == OK {
                    self.stepped("keel_body_step", None, &state, &forces, inputs, &call);
                }
            }
            let mut forces = [KeelBodyForces::default()];
            self.enter("keel_world_step");
            let st = unsafe { raw::keel_world_step(w, &body, &state, 1, 1.0 / 60.0, forces.as_mut_ptr()) };
            if self.check("keel_world_step", st, Bad::default(), strict, inputs, &call) == OK {
                self.stepped("keel_world_step", None, &state, &forces[0], inputs, &call);
            }
            let mut count = 0;
            self.enter("keel_body_get_submerged_triangles");
            let st = unsafe { raw::keel_body_get_submerged_triangles(w, body, ptr::null_mut(), 0, &mut count) };
            self.check(
                "keel_body_get_submerged_triangles",
                st,
                Bad::default(),
                true,
                inputs,
                &call,
            );
            self.enter("keel_body_destroy");
            let st = unsafe { raw::keel_body_destroy(w, body) };
            self.check("keel_body_destroy", st, Bad::default(), true, inputs, &call);
            self.bury(body);
        }
        self.enter("keel_hull_destroy");
        let st = unsafe { raw::keel_hull_destroy(w, hull) };
        self.check("keel_hull_destroy", st, Bad::default(), true, inputs, &call);
        self.bury(hull);
    }

    // ---- shared worlds -----------------------------------------------------------------

    /// Brings this thread's view of the shared worlds up to date with the pool.
    fn sync_shared(&mut self) {
        let Some(pool) = self.pool.clone() else { return };
        let worlds = lock(&pool.worlds).clone();
        let hulls = lock(&pool.hulls).clone();
        let bodies = lock(&pool.bodies).clone();
        self.worlds.retain(|w| !w.shared || worlds.contains(&w.handle));
        for &h in &worlds {
            if !self.worlds.iter().any(|w| w.handle == h) {
                self.worlds.push(WorldM::new(h, true, false));
            }
        }
        for w in self.worlds.iter_mut().filter(|w| w.shared) {
            w.hulls = hulls
                .iter()
                .filter(|&&(x, _)| x == w.handle)
                .map(|&(_, handle)| HullM {
                    handle,
                    closed: true,
                    users: 0,
                    extreme: false,
                })
                .collect();
            let old = std::mem::take(&mut w.bodies);
            w.bodies = bodies
                .iter()
                .filter(|&&(x, _)| x == w.handle)
                .map(|&(_, handle)| {
                    old.iter().find(|b| b.handle == handle).cloned().unwrap_or(BodyM {
                        handle,
                        hull: 0,
                        desc: default_body_desc(),
                        hull_extreme: false,
                        state: None,
                        last_extreme: false,
                        last_any: false,
                        submerged: None,
                        last_force: None,
                    })
                })
                .collect();
            for b in &mut w.bodies {
                b.submerged = None;
            }
        }
    }

    /// Probes and destroys every world of this thread; their handles must then be dead.
    fn finish(&mut self) {
        let own: Vec<usize> = (0..self.worlds.len()).filter(|&i| !self.worlds[i].shared).collect();
        for &i in &own {
            self.probe(i);
        }
        while let Some(i) = self.worlds.iter().position(|w| !w.shared) {
            let w = self.worlds[i].handle;
            let context = self.worlds[i].context();
            self.enter("keel_world_destroy");
            let st = unsafe { raw::keel_world_destroy(w) };
            self.check(
                "keel_world_destroy",
                st,
                Bad::default(),
                true,
                Inputs::Ordinary,
                &|| context.clone(),
            );
            self.forget_world(i);
        }
        for k in 0..self.dead.len().min(64) {
            let h = self.dead[k];
            self.enter("keel_world_set_time");
            let st = unsafe { raw::keel_world_set_time(h, 1.0) };
            let bad = Bad(Some("a destroyed handle"));
            self.check("keel_world_set_time", st, bad, false, Inputs::Ordinary, &|| {
                format!("world {h:#x}")
            });
        }
        let mut findings = lock(&self.findings);
        findings.ops += self.op;
        findings.calls += self.calls;
        for (f, counts) in &self.stats {
            let total = findings.stats.entry(f).or_insert([0; 8]);
            for (t, c) in total.iter_mut().zip(counts) {
                *t += c;
            }
        }
        for (what, n) in &self.checked {
            *findings.checked.entry(what).or_insert(0) += n;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running, watching and reporting

/// Panics inside keel, by place and message. Keel catches them and returns
/// KEEL_ERROR_INTERNAL, which is a finding of its own; counting them here instead of
/// printing a backtrace for each keeps the log readable.
static LIBRARY_PANICS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

fn count_library_panics() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = info.location().is_some_and(|l| l.file().ends_with("fuzz_abi.rs"));
            let fuzzing = thread::current()
                .name()
                .is_some_and(|n| n.starts_with("fuzz") || n.starts_with("keel-"));
            if ours || !fuzzing {
                return default(info);
            }
            let place = info
                .location()
                .map_or_else(|| "unknown place".into(), |l| format!("{}:{}", l.file(), l.line()));
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            *lock(&LIBRARY_PANICS).entry(format!("{place}: {message}")).or_insert(0) += 1;
        }));
    });
}

/// Waits for the threads; fails if one makes no call for `stall`, or if they are not all
/// done by `deadline`, naming the call each one is in.
fn watch(handles: Vec<JoinHandle<()>>, progress: &[Arc<Progress>], deadline: Option<Instant>, stall: Duration) {
    let mut last: Vec<(u64, Instant)> = progress.iter().map(|_| (0, Instant::now())).collect();
    let stuck = |i: usize| {
        let (function, op) = *lock(&progress[i].current);
        format!("thread {i} in {function} (op {op})")
    };
    while !handles.iter().all(JoinHandle::is_finished) {
        thread::sleep(Duration::from_millis(50));
        let now = Instant::now();
        for (i, p) in progress.iter().enumerate() {
            let calls = p.calls.load(Ordering::Relaxed);
            if calls != last[i].0 {
                last[i] = (calls, now);
            } else if !handles[i].is_finished() && now - last[i].1 > stall {
                panic!(
                    "hang or deadlock: {} has not returned for {:?}",
                    stuck(i),
                    now - last[i].1
                );
            }
        }
        if deadline.is_some_and(|d| now > d) {
            let busy: Vec<String> = (0..handles.len())
                .filter(|&i| !handles[i].is_finished())
                .map(stuck)
                .collect();
            panic!(
                "not finished within 10x the time budget (a hang or deadlock?): {}",
                busy.join("; ")
            );
        }
    }
    for h in handles {
        if let Err(panic) = h.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

fn report(cfg: &Config, test: &str, findings: &Findings, elapsed: Duration) {
    let mut text = format!(
        "{test}: seed {:#x}, {} operations, {} ABI calls in {:.1} s\n",
        cfg.seed,
        findings.ops,
        findings.calls,
        elapsed.as_secs_f64()
    );
    let _ = writeln!(
        text,
        "  {:<36} {:>8} {:>8}  failures by status",
        "function", "calls", "ok"
    );
    for (f, counts) in &findings.stats {
        let total: u64 = counts.iter().sum();
        let failures: Vec<String> = (1..8)
            .filter(|&s| counts[s] > 0)
            .map(|s| {
                format!(
                    "{} {}",
                    status_name(s as u32).trim_start_matches("KEEL_ERROR_"),
                    counts[s]
                )
            })
            .collect();
        let _ = writeln!(text, "  {f:<36} {total:>8} {:>8}  {}", counts[0], failures.join(", "));
    }
    for (what, n) in &findings.checked {
        let _ = writeln!(text, "  {n:>8} x {what}");
    }
    println!("{text}");
    let mut failing = Vec::new();
    for (key, f) in &findings.map {
        let tolerated = cfg.tolerate.iter().any(|t| key.contains(t.as_str()));
        println!(
            "FINDING {}{key}: {} time(s)",
            if tolerated { "(tolerated) " } else { "" },
            f.count
        );
        // One example for each minimal set of extreme inputs (no other set seen is a part of
        // it): each points at a cause of its own.
        for (&tags, (count, example)) in &f.examples {
            if f.examples.keys().any(|&other| other != tags && other & tags == other) {
                continue;
            }
            let inputs = if key.ends_with("(shared world)") {
                "inputs set by several threads".to_string()
            } else {
                Inputs::Extreme(tags).text()
            };
            println!("  {count} time(s) with {inputs}: the first at {example}\n");
        }
        if !tolerated {
            failing.push(format!("{key}: {} time(s)", f.count));
        }
    }
    for (panic, count) in lock(&LIBRARY_PANICS).iter() {
        println!("panic caught inside keel {count} time(s) (so far, all tests): {panic}");
    }
    if !failing.is_empty() {
        panic!(
            "{} kind(s) of misbehaviour found; reproduce with KEEL_FUZZ_SEED={:#x} KEEL_FUZZ_OPS={} \
             (KEEL_FUZZ_TRACE_FROM=<op> prints every call from that op on, KEEL_FUZZ_FAIL_FAST=1 stops at \
             the first; the first occurrence of each is printed above):\n  {}",
            failing.len(),
            cfg.seed,
            cfg.ops,
            failing.join("\n  ")
        );
    }
}

#[test]
fn random_calls_never_crash_hang_or_misbehave() {
    let cfg = Config::from_env();
    println!(
        "fuzz_abi: seed {:#x} (KEEL_FUZZ_SEED), {} operations (KEEL_FUZZ_OPS)",
        cfg.seed, cfg.ops
    );
    count_library_panics();
    let findings = Arc::new(Mutex::new(Findings::default()));
    let progress = Arc::new(Progress::default());
    let start = Instant::now();
    let handle = {
        let (cfg, findings, progress) = (cfg.clone(), Arc::clone(&findings), Arc::clone(&progress));
        thread::Builder::new()
            .name("fuzz".into())
            .spawn(move || {
                let mut f = Fuzzer::new(&cfg, 0, None, findings, progress);
                for _ in 0..cfg.ops {
                    f.one_op();
                }
                f.finish();
            })
            .expect("cannot start the fuzzing thread")
    };
    watch(vec![handle], &[progress], None, cfg.stall);
    report(&cfg, "single thread", &lock(&findings), start.elapsed());
}

#[test]
fn concurrent_random_calls_on_shared_and_own_worlds() {
    let cfg = Config::from_env();
    println!(
        "fuzz_abi concurrent: seed {:#x} (KEEL_FUZZ_SEED), {} threads (KEEL_FUZZ_THREADS) for {} s \
         (KEEL_FUZZ_SECONDS)",
        cfg.seed, cfg.threads, cfg.seconds
    );
    count_library_panics();
    let findings = Arc::new(Mutex::new(Findings::default()));
    let pool = Arc::new(Pool::default());
    for _ in 0..2 {
        let mut desc = default_world_desc();
        desc.thread_count = 2;
        let mut w = 0;
        assert_eq!(unsafe { raw::keel_world_create(&desc, &mut w) }, OK);
        lock(&pool.worlds).push(w);
    }
    let start = Instant::now();
    let budget = Duration::from_secs_f64(cfg.seconds.max(0.0));
    let progress: Vec<Arc<Progress>> = (0..cfg.threads).map(|_| Arc::new(Progress::default())).collect();
    let handles = (0..cfg.threads)
        .map(|t| {
            let (cfg, findings, progress, pool) = (
                cfg.clone(),
                Arc::clone(&findings),
                Arc::clone(&progress[t]),
                Arc::clone(&pool),
            );
            thread::Builder::new()
                .name(format!("fuzz-{t}"))
                .spawn(move || {
                    let mut f = Fuzzer::new(&cfg, t + 1, Some(pool), findings, progress);
                    while start.elapsed() < budget {
                        f.one_op();
                    }
                    f.finish();
                })
                .expect("cannot start a fuzzing thread")
        })
        .collect();
    let deadline = start + (budget * 10).max(Duration::from_secs(20));
    watch(handles, &progress, Some(deadline), cfg.stall);
    for w in lock(&pool.worlds).drain(..) {
        assert_eq!(raw_destroy(w), OK, "a shared world could not be destroyed");
    }
    report(&cfg, "concurrent", &lock(&findings), start.elapsed());
}

fn raw_destroy(w: KeelWorld) -> u32 {
    unsafe { raw::keel_world_destroy(w) }
}
