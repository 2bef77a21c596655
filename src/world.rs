//! Worlds: the water, the hulls and bodies that float in it, and stepping them in
//! parallel.
//!
//! Bodies are independent within a step: each reads the shared water and hull and writes
//! only its own buffers, so a batch runs them on rayon's workers (in a two-thread world,
//! on the caller's thread and the world's helper thread) and gets results that are
//! bit-identical to stepping them one by one, whatever the thread count.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use glam::{DQuat, DVec3, Vec3};
use rayon::prelude::*;

use crate::body::{
    Body, BodyDesc, BodyForces, BodyState, CHECKED_BYTES, Environment, LANES_HOT_BYTES, LaneKey, check_dt,
    step_in_lanes,
};
use crate::error::{Error, ErrorKind, Result, non_negative_up_to, positive_up_to, within};
use crate::handle::{HandleKind, Slots};
use crate::hull::{Hull, HullDesc, HullInfo};
use crate::lanes::LANES;
use crate::sections::{self, Section};
use crate::tasks::TaskSystem;
use crate::team::{Helper, Team};
use crate::water::Water;

/// A hull's id within its world (a C ABI `KeelHull`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct HullId(pub u64);

/// A body's id within its world (a C ABI `KeelBody`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct BodyId(pub u64);

/// The largest water animation time, s (30,000 years).
pub const MAX_TIME: f64 = 1e12;
/// The fastest wind or current, m/s.
pub const MAX_FLOW: f64 = 1e4;

fn check_flow(name: &str, velocity: DVec3) -> Result<DVec3> {
    if !velocity.is_finite() || velocity.abs().max_element() > MAX_FLOW {
        return Err(Error::argument(format!(
            "{name} must be finite and within +-{MAX_FLOW:e} m/s, got {velocity}"
        )));
    }
    Ok(velocity)
}

/// The farthest a world's origin may be from the water's, m (a hundred times the Earth's
/// circumference: beyond it a Gerstner wave's phase, in f64, loses its millimetres).
pub const MAX_ORIGIN: f64 = 4e9;

fn check_origin(origin: DVec3) -> Result<DVec3> {
    if !origin.is_finite() || origin.abs().max_element() > MAX_ORIGIN {
        return Err(Error::argument(format!(
            "the origin must be finite and within +-{MAX_ORIGIN:e} m, got {origin}"
        )));
    }
    Ok(origin)
}

/// The most threads a world may ask for.
pub const MAX_THREADS: u32 = 256;

/// The constants of a world (the C ABI's `KeelWorldDesc`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldDesc {
    /// Gravity, m/s^2, > 0, along -Y.
    pub gravity: f64,
    /// Water density, kg/m^3.
    pub water_density: f64,
    /// Air density, kg/m^3.
    pub air_density: f64,
    /// Kinematic viscosity of the water, m^2/s.
    pub water_viscosity: f64,
    /// Worker threads for batch steps: 0 = one per core, 1 = none. With two, a big body
    /// stepped alone runs on the caller's thread beside a helper thread instead
    /// (`World::step_body`).
    pub thread_count: u32,
}

impl Default for WorldDesc {
    fn default() -> Self {
        Self {
            gravity: 9.81,
            water_density: 1000.0,
            air_density: 1.225,
            water_viscosity: 1.0e-6,
            thread_count: 0,
        }
    }
}

impl WorldDesc {
    /// Checks every constant.
    pub fn validate(&self) -> Result<()> {
        // Ranges far beyond any world a game has (Jupiter's gravity is 25 m/s^2, mercury
        // 13,600 kg/m^3), but small enough that no force built on them overflows.
        positive_up_to("gravity", self.gravity, 1e3)?;
        positive_up_to("water_density", self.water_density, 1e5)?;
        non_negative_up_to("air_density", self.air_density, 1e3)?;
        positive_up_to("water_viscosity", self.water_viscosity, 1e3)?;
        if self.thread_count > MAX_THREADS {
            return Err(Error::argument(format!(
                "thread_count must be at most {MAX_THREADS}, got {}",
                self.thread_count
            )));
        }
        Ok(())
    }
}

/// A world's thread pool, which waits for its threads to exit when dropped: a host
/// that destroys a world gets every thread back (and leak checkers see none left).
struct Workers {
    /// Always `Some` until dropped.
    pool: Option<rayon::ThreadPool>,
    exited: Arc<(Mutex<usize>, Condvar)>,
    threads: usize,
    /// The threads themselves, joined once they have left the pool: a thread that has
    /// run its exit handler may still be tearing down (its thread-local storage is freed
    /// after), and a host that exits right after destroying the world must not race it.
    handles: Arc<Mutex<Vec<std::thread::JoinHandle<()>>>>,
}

impl Workers {
    fn start(threads: usize) -> Result<Self> {
        let exited = Arc::new((Mutex::new(0usize), Condvar::new()));
        let signal = Arc::clone(&exited);
        let handles = Arc::new(Mutex::new(Vec::with_capacity(threads)));
        let spawned = Arc::clone(&handles);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("keel-worker-{i}"))
            .spawn_handler(move |thread| {
                let mut builder = std::thread::Builder::new();
                if let Some(name) = thread.name() {
                    builder = builder.name(name.to_owned());
                }
                if let Some(size) = thread.stack_size() {
                    builder = builder.stack_size(size);
                }
                let handle = builder.spawn(|| thread.run())?;
                spawned.lock().unwrap_or_else(PoisonError::into_inner).push(handle);
                Ok(())
            })
            .exit_handler(move |_| {
                let (count, changed) = &*signal;
                *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
                changed.notify_all();
            })
            .build()
            .map_err(|e| Error::argument(format!("could not start {threads} worker threads: {e}")))?;
        Ok(Self {
            pool: Some(pool),
            exited,
            threads,
            handles,
        })
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Dropping the pool asks the threads to stop; wait (bounded) until they have.
        drop(self.pool.take());
        let (count, changed) = &*self.exited;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut exited = count.lock().unwrap_or_else(PoisonError::into_inner);
        while *exited < self.threads {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            exited = changed
                .wait_timeout(exited, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        // Every thread has left the pool: joining returns as soon as each has finished
        // tearing down. (One still busy after the deadline, in a host's callback, say,
        // is left to finish on its own rather than hang the host.)
        if *exited >= self.threads {
            drop(exited);
            let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(PoisonError::into_inner));
            for handle in handles {
                let _ = handle.join();
            }
        }
    }
}

struct HullEntry {
    hull: Arc<Hull>,
    users: u32,
}

/// A water surface with its hulls and bodies.
pub struct World {
    desc: WorldDesc,
    water: Water,
    time: f64,
    hulls: Slots<HullEntry>,
    bodies: Slots<Mutex<Body>>,
    pool: Option<Workers>,
    /// The thread that shares a big body's step with the caller's (`step_body` in a
    /// two-thread world), started the first time it is needed ...
    helper: Option<Helper>,
    /// ... unless it could not be, or this process may run on one processor only (the
    /// caller would wait for a helper that cannot run beside it).
    no_helper: bool,
    batch_mark: u64,
    wind: DVec3,
    current: DVec3,
    /// A batch's states, validated in the checks when they run on the calling thread
    /// anyway (a batch of new ids, or water asked from the calling thread); empty when
    /// each group's thread validates its own. Either way `state_of` is called once per
    /// body.
    batch_states: Vec<BodyState>,
    /// The batch's bodies in the groups they are stepped in, with their forces (written
    /// out only once every body is done), and the group being filled for each lane key.
    batch_groups: Vec<BatchGroup>,
    batch_open: HashMap<LaneKey, usize>,
    /// The last batch's ids, when its checks and groups serve a next batch of the same
    /// ids (`batch_reusable`): cleared by what can change a body's lane key or end it
    /// (`set_body_desc`, `destroy_body`) and by a failed batch (which may undo a first
    /// step). Set after a batch that succeeded with every body past its first step: a
    /// first step changes a lane key (`has_history`), and groups split by it would stay
    /// split (the forces would be the same, the groups less full). A game steps the same
    /// bodies every frame; their checks were a serial 0.75 ms of a 10000-box batch
    /// (50 ns a body with every body in the caches).
    batch_ids: Vec<BodyId>,
    batch_reusable: bool,
    /// Where the world's origin is in the water's frame, m ([`World::set_origin`]).
    origin: DVec3,
    /// The host's job system, in place of `pool` and `helper` ([`World::with_tasks`]) ...
    tasks: Option<Arc<dyn TaskSystem>>,
    /// ... and which of a batch's groups one of its tasks has taken.
    /// (Locked: the batch borrows the world's other fields meanwhile.)
    batch_claims: Mutex<Vec<AtomicBool>>,
}

/// Bodies of a batch stepped together: up to [`LANES`] of one lane key
/// ([`Body::lane_key`]), or one body alone.
struct BatchGroup {
    /// Indices into the batch.
    members: [u32; LANES],
    len: usize,
    in_lanes: bool,
    /// The members whose state was refused (a bit each): their results hold why.
    refused: u8,
    /// Whether any member's result is an error (noted by the thread that stepped the
    /// group, while the results are in its caches: a successful batch of 10000 bodies
    /// then reads 1250 flags, not 10000 results, before writing out).
    failed: bool,
    results: [Result<BodyForces>; LANES],
}

const _: () = assert!(
    LANES <= u8::BITS as usize,
    "a group's refused members are a bit each in a u8"
);

impl BatchGroup {
    fn new(first: usize, in_lanes: bool) -> Self {
        Self {
            members: [first as u32; LANES],
            len: 1,
            in_lanes,
            refused: 0,
            failed: false,
            results: std::array::from_fn(|_| Ok(BodyForces::default())),
        }
    }

    fn is_full(&self) -> bool {
        !self.in_lanes || self.len == LANES
    }

    fn push(&mut self, member: usize) {
        self.members[self.len] = member as u32;
        self.len += 1;
    }
}

fn not_a_body(id: BodyId) -> String {
    format!(
        "body {:#x} is not a live body of this world (destroyed, never created, or from another world)",
        id.0
    )
}

/// Batches of this many bodies or more ask for the bodies their checks will read, and for
/// each next body's buffers when bodies are stepped one at a time ([`Body::prefetch`]):
/// big hulls outgrow the caches, as do many small bodies (boxes on Perlin water, when
/// they were stepped one at a time: 1000 and 10000 of them 7 % faster per step with it),
/// while a hundred small ones stay in them and only pay for the asking (4 % slower).
const PREFETCH_FROM_BODIES: usize = 256;

/// Batches of this many bodies or more prefetch for their groups of small bodies (in the
/// lanes) the next group's memory. Fewer small bodies stay in the caches from one step to
/// the next, and asking costs more than it saves: on Perlin water, two threads, 1024
/// boxes were 2 % slower with it, 2000 the same, 3000 3-6 % faster.
const PREFETCH_LANES_FROM_BODIES: usize = 2048;

/// Batches of this many bodies or more have their outputs written by every thread (each
/// output is then a cache miss read and one written; a smaller batch's are in the caches,
/// and sharing them would cost more than it saves).
const PARALLEL_WRITE_FROM: usize = 2048;

/// How many bodies ahead a batch's checks ask for the body they will check.
const CHECK_AHEAD: usize = 8;

fn lock(body: &Mutex<Body>) -> MutexGuard<'_, Body> {
    // A panic inside a step leaves nothing half-shared: the body's buffers are rewritten
    // by its next step, so a poisoned body is still usable.
    body.lock().unwrap_or_else(PoisonError::into_inner)
}

impl World {
    /// A world with flat water at height 0 and time 0.
    pub fn new(desc: &WorldDesc) -> Result<Self> {
        desc.validate()?;
        let threads = match desc.thread_count {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n as usize,
        };
        let pool = if threads > 1 {
            Some(Workers::start(threads)?)
        } else {
            None
        };
        Self::build(desc, pool, None)
    }

    /// A world whose parallel work runs on the host's job system ([`crate::tasks`]): a
    /// batch's groups of bodies, a big body's sections stepped alone. It starts no thread
    /// of its own (`desc.thread_count` is not used), and its results are the bits of a
    /// world with its own threads.
    pub fn with_tasks(desc: &WorldDesc, tasks: Arc<dyn TaskSystem>) -> Result<Self> {
        desc.validate()?;
        let workers = tasks.worker_count();
        if !(1..=MAX_THREADS).contains(&workers) {
            return Err(Error::argument(format!(
                "a job system's worker_count must be 1 to {MAX_THREADS}, got {workers}"
            )));
        }
        Self::build(desc, None, Some(tasks))
    }

    fn build(desc: &WorldDesc, pool: Option<Workers>, tasks: Option<Arc<dyn TaskSystem>>) -> Result<Self> {
        Ok(Self {
            tasks,
            batch_claims: Mutex::new(Vec::new()),
            desc: *desc,
            water: Water::default(),
            time: 0.0,
            hulls: Slots::new(HandleKind::Hull),
            bodies: Slots::new(HandleKind::Body),
            pool,
            helper: None,
            no_helper: false,
            batch_mark: 0,
            wind: DVec3::ZERO,
            current: DVec3::ZERO,
            batch_groups: Vec::new(),
            batch_open: HashMap::new(),
            batch_states: Vec::new(),
            batch_ids: Vec::new(),
            batch_reusable: false,
            origin: DVec3::ZERO,
        })
    }

    /// The world's constants.
    pub fn desc(&self) -> &WorldDesc {
        &self.desc
    }

    /// Sets the water animation time, s.
    pub fn set_time(&mut self, seconds: f64) -> Result<()> {
        // 1e12 s is 30,000 years: beyond it wave phases lose every digit.
        self.time = within("seconds", seconds, MAX_TIME)?;
        Ok(())
    }

    /// The water animation time, s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Sets the wind velocity, m/s: air resistance is relative to it.
    pub fn set_wind(&mut self, velocity: DVec3) -> Result<()> {
        self.wind = check_flow("wind velocity", velocity)?;
        Ok(())
    }

    /// The wind velocity, m/s.
    pub fn wind(&self) -> DVec3 {
        self.wind
    }

    /// Sets a uniform current, m/s: it is added to the water's particle velocity, so
    /// drag carries bodies along with it.
    pub fn set_current(&mut self, velocity: DVec3) -> Result<()> {
        if !velocity.is_finite() {
            return Err(Error::argument(format!(
                "current velocity must be finite, got {velocity}"
            )));
        }
        self.current = velocity;
        Ok(())
    }

    /// The current, m/s.
    pub fn current(&self) -> DVec3 {
        self.current
    }

    /// Where the world's origin is in the water's frame, m.
    pub fn origin(&self) -> DVec3 {
        self.origin
    }

    /// Puts the world's origin at `origin` in the water's frame (default zero), for
    /// floating-origin games: bodies are stepped at positions near the host's origin, and
    /// the water is evaluated at `position + origin` in f64, so a sea keeps its true phase
    /// a thousand kilometres out, where a `float` position would resolve 6 cm. Every water
    /// kind but the host's own: flat water's level, Perlin and Gerstner waves, spectra and
    /// heightfields are in the water's frame; a host's water callback is asked at the
    /// world positions (the host's frame, in which its own water lives). Batches and
    /// [`World::sample_water`] alike. Finite, within +-[`MAX_ORIGIN`] m on each axis.
    pub fn set_origin(&mut self, origin: DVec3) -> Result<()> {
        self.origin = check_origin(origin)?;
        Ok(())
    }

    /// Moves the world's origin by `shift` (in f64): what a floating-origin host calls
    /// when it moves its own origin by `shift` (its bodies' coordinates then decrease by
    /// `shift`).
    pub fn shift_origin(&mut self, shift: DVec3) -> Result<()> {
        if !shift.is_finite() {
            return Err(Error::argument(format!("the shift must be finite, got {shift}")));
        }
        self.origin = check_origin(self.origin + shift)?;
        Ok(())
    }

    /// Where the water's frame is from the world's for the water's queries: the world's
    /// origin, but for the host's water, which lives in the host's (the world's) frame.
    fn water_offset(&self) -> DVec3 {
        if self.water.is_serial() {
            DVec3::ZERO
        } else {
            self.origin
        }
    }

    /// Every body with its id, locked, in slot order (the order of a snapshot).
    pub(crate) fn bodies(&self) -> impl Iterator<Item = (BodyId, MutexGuard<'_, Body>)> + '_ {
        self.bodies.iter().map(|(id, b)| (BodyId(id), lock(b)))
    }

    /// Forgets the last batch's checks and groups: something they depend on changed.
    pub(crate) fn forget_batch(&mut self) {
        self.batch_reusable = false;
    }

    /// Refuses a snapshot's world conditions as their setters would.
    pub(crate) fn check_conditions(&self, time: f64, wind: DVec3, current: DVec3, origin: DVec3) -> Result<()> {
        within("time", time, MAX_TIME)?;
        check_flow("wind velocity", wind)?;
        if !current.is_finite() {
            return Err(Error::argument(format!(
                "current velocity must be finite, got {current}"
            )));
        }
        check_origin(origin)?;
        Ok(())
    }

    /// Sets a snapshot's world conditions, checked by [`World::check_conditions`].
    pub(crate) fn restore_conditions(&mut self, time: f64, wind: DVec3, current: DVec3, origin: DVec3) -> Result<()> {
        self.check_conditions(time, wind, current, origin)?;
        (self.time, self.wind, self.current, self.origin) = (time, wind, current, origin);
        Ok(())
    }

    /// Replaces the water surface.
    pub fn set_water(&mut self, water: Water) {
        self.water = water;
    }

    /// The water surface.
    pub fn water(&self) -> &Water {
        &self.water
    }

    /// Samples the water under every point's (x, z) at the world's time: heights, and
    /// the unit normals and particle velocities (current included) when asked.
    pub fn sample_water(
        &self,
        points: &[DVec3],
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        mut velocities: Option<&mut [DVec3]>,
    ) -> Result<()> {
        let offset = self.water_offset();
        if offset == DVec3::ZERO {
            self.water
                .sample_into(points, self.time, heights, normals, velocities.as_deref_mut())?;
        } else {
            // (Not a step: a list of its own is fine here.)
            let horizontal = DVec3::new(offset.x, 0.0, offset.z);
            let shifted: Vec<DVec3> = points.iter().map(|p| *p + horizontal).collect();
            self.water
                .sample_into(&shifted, self.time, heights, normals, velocities.as_deref_mut())?;
            heights.iter_mut().for_each(|h| *h -= offset.y);
        }
        if let Some(v) = velocities {
            v.iter_mut().for_each(|v| *v += self.current);
        }
        Ok(())
    }

    /// Height of the water under `(x, z)` at the world's time (NaN if the host's water
    /// answers garbage).
    pub fn water_height(&self, x: f64, z: f64) -> f64 {
        let o = self.water_offset();
        crate::water::WaterSurface::height(&self.water, x + o.x, z + o.z, self.time) - o.y
    }

    /// Validates a mesh and adds it as a hull.
    pub fn create_hull(&mut self, desc: &HullDesc<'_>) -> Result<HullId> {
        let hull = Hull::new(desc)?;
        self.hulls
            .insert(HullEntry {
                hull: Arc::new(hull),
                users: 0,
            })
            .map(HullId)
            .ok_or_else(|| Error::argument("too many hulls in this world"))
    }

    fn hull_entry(&self, id: HullId) -> Result<&HullEntry> {
        self.hulls.get(id.0).ok_or_else(|| {
            Error::handle(format!(
                "hull {:#x} is not a live hull of this world (destroyed, never created, or from another world)",
                id.0
            ))
        })
    }

    /// A box of full extents `size` (m, each side positive and finite), centred on the
    /// body origin: 8 vertices, 12 triangles. The ready-made hull of crates, rafts and
    /// barges.
    pub fn create_box_hull(&mut self, size: Vec3) -> Result<HullId> {
        if !(size.is_finite() && size.min_element() > 0.0) {
            return Err(Error::argument(format!(
                "size must have three positive, finite sides, got ({}, {}, {})",
                size.x, size.y, size.z
            )));
        }
        let (vertices, indices) = crate::hull::box_mesh(size);
        self.create_hull(&HullDesc {
            vertices: &vertices,
            indices: &indices,
            flip_winding: false,
        })
    }

    /// Facts about a hull.
    pub fn hull_info(&self, id: HullId) -> Result<HullInfo> {
        Ok(*self.hull_entry(id)?.hull.info())
    }

    /// A hull of this world, shared (its data never change).
    pub fn hull(&self, id: HullId) -> Result<Arc<Hull>> {
        Ok(Arc::clone(&self.hull_entry(id)?.hull))
    }

    /// The principal moments of inertia (kg m^2, ascending) of a body of this hull's
    /// shape, uniform density and `mass` (a solid if the hull encloses a volume, else a
    /// uniform shell) about its centroid, and the rotation from the principal axes to
    /// body axes: what a host without its own inertia gives its rigid body, and what
    /// `BodyDesc::inertia` defaults to.
    pub fn hull_inertia(&self, id: HullId, mass: f64) -> Result<(DVec3, DQuat)> {
        positive_up_to("mass", mass, crate::body::MAX_MASS)?;
        let hull = &self.hull_entry(id)?.hull;
        let (moments, axes) = crate::inertia::principal_axes(hull.unit_inertia() * mass);
        // A flat sheet's smallest moment is zero, and may round below it.
        Ok((moments.max(DVec3::ZERO), axes))
    }

    /// Destroys a hull that no body uses.
    pub fn destroy_hull(&mut self, id: HullId) -> Result<()> {
        let users = self.hull_entry(id)?.users;
        if users > 0 {
            return Err(Error::argument(format!(
                "hull {:#x} is used by {users} bod{}: destroy them or give them another hull first",
                id.0,
                if users == 1 { "y" } else { "ies" }
            )));
        }
        self.hulls.remove(id.0);
        Ok(())
    }

    fn checked_hull(&self, desc: &BodyDesc) -> Result<Arc<Hull>> {
        desc.validate()?;
        let hull = Arc::clone(&self.hull_entry(desc.hull)?.hull);
        desc.validate_for(&hull)?;
        Ok(hull)
    }

    /// Adds a body.
    pub fn create_body(&mut self, desc: &BodyDesc) -> Result<BodyId> {
        let hull = self.checked_hull(desc)?;
        let id = self
            .bodies
            .insert(Mutex::new(Body::new(*desc, hull)))
            .ok_or_else(|| Error::argument("too many bodies in this world"))?;
        if let Some(entry) = self.hulls.get_mut(desc.hull.0) {
            entry.users += 1;
        }
        Ok(BodyId(id))
    }

    fn body_cell(&self, id: BodyId) -> Result<&Mutex<Body>> {
        self.bodies.get(id.0).ok_or_else(|| Error::handle(not_a_body(id)))
    }

    /// A body, locked for reading its last step.
    pub fn body(&self, id: BodyId) -> Result<MutexGuard<'_, Body>> {
        self.body_cell(id).map(lock)
    }

    /// Changes any parameter of a body; a new hull starts a fresh history.
    pub fn set_body_desc(&mut self, id: BodyId, desc: &BodyDesc) -> Result<()> {
        self.batch_reusable = false;
        let old_hull = self.body(id)?.desc().hull;
        let hull = self.checked_hull(desc)?;
        let mut body = lock(self.body_cell(id)?);
        if desc.hull != old_hull {
            body.set_hull(hull);
        }
        body.set_desc(*desc);
        drop(body);
        if desc.hull != old_hull {
            if let Some(entry) = self.hulls.get_mut(old_hull.0) {
                entry.users -= 1;
            }
            if let Some(entry) = self.hulls.get_mut(desc.hull.0) {
                entry.users += 1;
            }
        }
        Ok(())
    }

    /// Removes a body.
    pub fn destroy_body(&mut self, id: BodyId) -> Result<()> {
        self.batch_reusable = false;
        let hull = self.body(id)?.desc().hull;
        self.bodies.remove(id.0);
        if let Some(entry) = self.hulls.get_mut(hull.0) {
            entry.users -= 1;
        }
        Ok(())
    }

    /// Number of live bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of live hulls.
    pub fn hull_count(&self) -> usize {
        self.hulls.len()
    }

    fn environment(&self) -> Environment<'_> {
        Environment {
            water: &self.water,
            time: self.time,
            gravity: self.desc.gravity,
            water_density: self.desc.water_density,
            air_density: self.desc.air_density,
            water_viscosity: self.desc.water_viscosity,
            wind: self.wind,
            current: self.current,
            water_offset: self.water_offset(),
            share_triangles: true,
            helper: None,
            tasks: None,
        }
    }

    /// Forces on one body for a step of length `dt` from `state`. A big hull (more than
    /// 1024 triangles) shares its step with a second thread: in a two-thread world the
    /// step runs on this thread beside the world's helper thread, with more threads on
    /// the world's pool (the water is asked from this thread either way).
    pub fn step_body(&mut self, id: BodyId, state: &BodyState, dt: f64) -> Result<BodyForces> {
        let dt = check_dt(dt)?;
        let state = state.validated()?;
        let divisible = lock(self.body_cell(id)?).is_divisible();
        let helper = if self.wake_helper(divisible) {
            self.helper.as_ref()
        } else {
            None
        };
        let env = Environment {
            helper,
            tasks: self.tasks.as_deref().filter(|_| divisible),
            ..self.environment()
        };
        let mut body = lock(self.body_cell(id)?);
        match &self.pool {
            // The water is still asked from this thread (a host's callback may need it).
            Some(Workers { pool: Some(pool), .. }) if divisible && helper.is_none() => {
                let body: &mut Body = &mut body;
                if env.water.is_serial() {
                    body.prepare(&state, &env)?;
                    pool.install(|| body.compute(&state, dt, &env))
                } else {
                    pool.install(|| body.step(&state, dt, &env))
                }
            }
            _ => body.step(&state, dt, &env),
        }
    }

    /// Whether a body stepped on its own shares its step with the world's helper thread
    /// (which this starts the first time and wakes): a big one in a two-thread world.
    /// With more threads the pool shares it: it has more of them. (On two, the step stays
    /// on the host's thread beside the helper: the pool's hand-overs cost a tenth of
    /// such a step, `crate::team`.) Not if no thread could be started, or if this
    /// process may use one processor only: the pool then does it.
    fn wake_helper(&mut self, divisible: bool) -> bool {
        if !divisible || self.thread_count() != 2 || self.tasks.is_some() {
            return false;
        }
        if self.helper.is_none() && !self.no_helper {
            let processors = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
            if processors >= 2 {
                self.helper = Helper::start("keel-helper").ok();
            }
            self.no_helper = self.helper.is_none();
        }
        self.helper.as_ref().inspect(|h| h.wake()).is_some()
    }

    /// Steps `ids[i]` from `state_of(&states[i])` and writes its forces with
    /// `write(&forces, &mut out[i])`, in parallel. Every id and state is checked, and the
    /// outputs are written only once every body is done: on error no body and no output
    /// has changed, and the error is the first by index among the ids and states that
    /// were refused (a batch of the last batch's ids has its states checked by the threads
    /// that step them, any other before anything is stepped). `state_of` is called once
    /// per body, on any of the world's threads.
    pub fn step_bodies<S, O>(
        &mut self,
        ids: &[BodyId],
        states: &[S],
        dt: f64,
        out: &mut [O],
        state_of: impl Fn(&S) -> BodyState + Sync,
        write: impl Fn(&BodyForces, &mut O) + Sync,
    ) -> Result<()>
    where
        S: Sync,
        O: Send,
    {
        let dt = check_dt(dt)?;
        if states.len() != ids.len() || out.len() != ids.len() {
            return Err(Error::argument("ids, states and outputs must have the same length"));
        }
        // In a two-thread world the helper thread shares a batch's bodies with this
        // thread, woken now so that it is running by the time the checks are done.
        let batch_helper = ids.len() > 1 && self.wake_helper(true);
        self.batch_mark += 1;
        let mark = self.batch_mark;
        // Bodies of one small hull and one lane key are stepped in groups of eight, one in
        // each vector lane (`crate::lanes`; each body's forces are the same bits in any
        // group, or alone), in the order of the batch; the others one at a time. Grouped
        // in the same pass over the bodies as the checks (each pass is a cache miss per
        // body in a big batch).
        let mut groups = std::mem::take(&mut self.batch_groups);
        let mut open = std::mem::take(&mut self.batch_open);
        // The last batch's ids again, with nothing changed since: its checks of the bodies
        // hold, and its groups are these (only the states are new, and each group's
        // thread validates its own unless the water is asked from this thread).
        let reuse = std::mem::take(&mut self.batch_reusable) && self.batch_ids == ids;
        let serial_water = self.water.is_serial();
        let mut validated = std::mem::take(&mut self.batch_states);
        validated.clear();
        let mut every_body_has_history = true;
        if !reuse {
            groups.clear();
            open.clear();
        }
        let mut last: Option<(LaneKey, usize)> = None;
        let prefetch = ids.len() >= PREFETCH_FROM_BODIES;
        let prefetch_lanes = ids.len() >= PREFETCH_LANES_FROM_BODIES;
        let refused = |i: usize, e: Error| Error::new(ErrorKind::InvalidArgument, format!("states[{i}]: {e}"));
        let checks = sections::time(Section::BatchChecks);
        let checked = (|| {
            if reuse {
                // With serial water the states are needed before the groups (for
                // `prepare`, on this thread): checked here, in order.
                if serial_water {
                    for (i, state) in states.iter().enumerate() {
                        validated.push(state_of(state).validated().map_err(|e| refused(i, e))?);
                    }
                }
                return Ok(());
            }
            for (i, (id, state)) in ids.iter().zip(states).enumerate() {
                // The bodies a few places on start loading (each a cache miss in a big
                // batch, which the processor would otherwise wait for one at a time).
                if let Some(ahead) = ids.get(i + CHECK_AHEAD).filter(|_| prefetch) {
                    self.bodies.prefetch(ahead.0, CHECKED_BYTES);
                }
                // Not locked: the world is borrowed mutably, so no other thread holds a
                // body, and a lock is an atomic read-modify-write that waits for its cache
                // line (10000 of them in a row were a serial millisecond of a batch).
                let body = self
                    .bodies
                    .get_mut(id.0)
                    .ok_or_else(|| Error::handle(not_a_body(*id)))
                    .map_err(|e| Error::new(e.kind, format!("bodies[{i}]: {e}")))?;
                let body = body.get_mut().unwrap_or_else(PoisonError::into_inner);
                if body.batch_mark == mark {
                    return Err(Error::argument(format!("bodies[{i}] ({:#x}) is listed twice", id.0)));
                }
                body.batch_mark = mark;
                every_body_has_history &= body.has_history();
                // In the order of the batch with the bodies, so that the first thing wrong
                // is the one reported.
                validated.push(state_of(state).validated().map_err(|e| refused(i, e))?);
                if !body.can_step_in_lanes() {
                    groups.push(BatchGroup::new(i, false));
                    continue;
                }
                let key = body.lane_key();
                // Most batches are of few kinds of bodies, often one after the other.
                let filling = match last {
                    Some((k, g)) if k == key => Some(g),
                    _ => open.get(&key).copied(),
                };
                let g = match filling {
                    Some(g) if !groups[g].is_full() => {
                        groups[g].push(i);
                        g
                    }
                    _ => {
                        groups.push(BatchGroup::new(i, true));
                        groups.len() - 1
                    }
                };
                if filling != Some(g) {
                    open.insert(key, g);
                }
                last = Some((key, g));
            }
            Ok(())
        })();
        checks.stop();
        if let Err(e) = checked {
            self.batch_groups = groups;
            self.batch_open = open;
            self.batch_states = validated;
            return Err(e);
        }
        // Every state, or none (each group's thread then validates its own).
        debug_assert!(validated.is_empty() || validated.len() == ids.len());

        // Computed into the groups' buffers (the world's) and copied out at the end, so that
        // even a panic (a bug) in one body leaves every output untouched.
        let alone = ids.len() == 1 && self.bodies.get(ids[0].0).is_some_and(|b| lock(b).is_divisible());
        let helper = if self.wake_helper(alone) {
            self.helper.as_ref()
        } else {
            None
        };
        let batch_helper = if batch_helper { self.helper.as_ref() } else { None };
        let env = Environment {
            // Bodies enough to keep every thread busy: each keeps its triangles.
            share_triangles: ids.len() < self.thread_count(),
            helper,
            // (A batch's bodies are each one item of the host's tasks, and a task does not
            // start tasks of its own: only a big body alone shares its sections.)
            tasks: self.tasks.as_deref().filter(|_| alone),
            ..self.environment()
        };
        let bodies = &self.bodies;
        // Checked above: the ids are live.
        let body = |i: usize| bodies.get(ids[i].0).map(lock);
        debug_assert_eq!(serial_water, env.water.is_serial());
        if serial_water {
            // The host's water is asked from this thread, one body after the other; a bad
            // answer fails the batch before any body has changed.
            let failure = (0..ids.len()).find_map(|i| {
                let mut b = body(i)?;
                let e = b.prepare(&validated[i], &env).err()?;
                drop(b);
                (0..i).filter_map(body).for_each(|mut b| b.undo_prepare());
                Some(Error::new(e.kind, format!("bodies[{i}]: {e}")))
            });
            if let Some(e) = failure {
                self.batch_groups = groups;
                self.batch_open = open;
                self.batch_states = validated;
                return Err(e);
            }
        }
        let validated_here = &validated;
        // `forward`: whether this thread takes the groups after this one next, or those
        // before it (a two-thread batch's helper goes from the back).
        let step_group_only = |group: &mut BatchGroup, forward: bool| {
            let members = &group.members[..group.len];
            // The batch index `d` places past this group, the way this thread goes.
            let ahead = |d: usize| {
                if forward {
                    Some(members[members.len() - 1] as usize + 1 + d)
                } else {
                    (members[0] as usize).checked_sub(1 + d)
                }
            };
            // Each member's state, checked by this thread (its part of the batch's serial
            // checks); a refused one fails the batch, which then undoes the others' steps.
            group.refused = 0;
            // (On the stack, which the caches hold; the spare lanes repeat the first.)
            let mut valid = [BodyState::default(); LANES];
            for (k, &i) in members.iter().enumerate() {
                let i = i as usize;
                match validated_here
                    .get(i)
                    .map_or_else(|| state_of(&states[i]).validated(), |s| Ok(*s))
                {
                    Ok(state) => valid[k] = state,
                    Err(e) => {
                        group.results[k] = Err(refused(i, e));
                        group.refused |= 1 << k;
                    }
                }
            }
            if group.refused != 0 {
                // The batch fails: the others are not stepped (nor undone after). (Only
                // where no body was prepared before the groups: serial water's states are
                // checked before its `prepare`.)
                for (k, result) in group.results[..members.len()].iter_mut().enumerate() {
                    if group.refused & (1 << k) == 0 {
                        *result = Err(Error::argument("not stepped: another body's state was refused"));
                    }
                }
                return;
            }
            let first = valid[0];
            valid[members.len()..].fill(first);
            if !group.in_lanes {
                let i = members[0] as usize;
                // The next body's buffers start loading while this one is stepped (never
                // waiting for its lock: another thread may be stepping it).
                if prefetch
                    && let Some(Ok(next)) = ahead(0)
                        .and_then(|i| ids.get(i))
                        .and_then(|id| bodies.get(id.0))
                        .map(Mutex::try_lock)
                {
                    next.prefetch();
                }
                if let Some(mut b) = body(i) {
                    let state = &valid[0];
                    group.results[0] = if serial_water { Ok(()) } else { b.prepare(state, &env) }
                        .and_then(|()| b.compute(state, dt, &env));
                }
                return;
            }
            // The bodies after these (in a batch of one kind of body, the next group's)
            // start loading while these are stepped, one after each of these is prepared:
            // asked for all at once, their few hundred lines overflow the processor's
            // queue of misses, and it stalls.
            // (Ahead the way this thread goes: the helper of a two-thread batch, taking
            // groups from the back, asked for those it had just stepped, and waited for
            // every miss of half the batch.)
            let ask_ahead = |k: usize| {
                if !prefetch_lanes {
                    return;
                }
                if let Some(Ok(b)) = ahead(k)
                    .and_then(|i| ids.get(i))
                    .and_then(|id| bodies.get(id.0))
                    .map(Mutex::try_lock)
                {
                    b.prefetch_for_lanes();
                }
                // And the group after it, by address only (the line above reads these
                // bodies' fields, which should then be in the caches).
                if let Some(id) = ahead(LANES + k).and_then(|i| ids.get(i)) {
                    bodies.prefetch(id.0, LANES_HOT_BYTES);
                }
                // And the host's state of the next group's body, which this thread reads
                // (and checks) first.
                if let Some(state) = ahead(k).and_then(|i| states.get(i)) {
                    crate::prefetch::prefetch(std::ptr::from_ref(state).cast(), std::mem::size_of_val(state));
                }
            };
            let mut guards: [Option<MutexGuard<'_, Body>>; LANES] =
                std::array::from_fn(|k| members.get(k).and_then(|&i| body(i as usize)));
            // (Every member is live: its id was checked with the world borrowed mutably
            // since, and `destroy_body` ends the reuse of a batch's checks. A member
            // missing here would keep its last batch's result.)
            debug_assert!(guards[..members.len()].iter().all(Option::is_some));
            // (The spare lanes' entries repeat the first body: never read.)
            let states: [&BodyState; LANES] = std::array::from_fn(|k| &valid[k]);
            let mut prepared = [true; LANES];
            for (k, (b, result)) in guards.iter_mut().zip(group.results.iter_mut()).enumerate() {
                if !serial_water && let Some(Err(e)) = b.as_mut().map(|b| b.prepare(states[k], &env)) {
                    *result = Err(e);
                    prepared[k] = false;
                }
                ask_ahead(k);
                // Its result too, which the lanes write at the end: the groups' results
                // are megabytes in a big batch, out of the caches by the next step.
                if prefetch_lanes {
                    crate::prefetch::prefetch(std::ptr::from_ref(result).cast(), std::mem::size_of_val(result));
                }
            }
            if prepared.iter().all(|&p| p) {
                let mut lanes = guards.each_mut().map(|b| b.as_deref_mut());
                step_in_lanes(&mut lanes[..members.len()], &states, dt, &env, &mut group.results);
            } else {
                // (A body whose water could not be sampled: the batch fails, and the
                // others' steps are undone; they are taken one at a time meanwhile.)
                for (k, (b, result)) in guards.iter_mut().zip(group.results.iter_mut()).enumerate() {
                    if let (Some(b), true) = (b, prepared[k]) {
                        *result = b.compute(states[k], dt, &env);
                    }
                }
            }
        };
        let step_group = |group: &mut BatchGroup, forward: bool| {
            step_group_only(group, forward);
            group.failed = group.results[..group.len].iter().any(Result::is_err);
        };
        let stepping = sections::time(Section::BatchGroups);
        match &self.pool {
            // Two threads: this one from the front of the groups, the helper from the back
            // (no pool to hand the batch to and wake, and this thread works too).
            _ if batch_helper.is_some() => {
                if let Some(h) = batch_helper {
                    Team::Helper(h).share_from_both_ends(|| (), groups.iter_mut(), step_group);
                }
            }
            // Waking the workers costs more than stepping a lone body, unless its hull is
            // big enough to share among them.
            Some(Workers { pool: Some(pool), .. }) if ids.len() > 1 || (alone && helper.is_none()) => {
                pool.install(|| groups.par_iter_mut().for_each(|g| step_group(g, true)))
            }
            _ if let Some(tasks) = self.tasks.as_deref().filter(|_| groups.len() > 1) => {
                let mut claims = self.batch_claims.lock().unwrap_or_else(PoisonError::into_inner);
                run_groups(tasks, &mut groups, &mut claims, &step_group);
            }
            _ => groups.iter_mut().for_each(|g| step_group(g, true)),
        }
        stepping.stop();
        // All or nothing: one body that could not be stepped undoes the others' steps. A
        // refused state is reported first, as the checks before any step would have.
        let members = || {
            groups.iter().flat_map(|g| {
                (0..g.len).map(move |k| (g.members[k] as usize, g.refused & (1 << k) != 0, &g.results[k]))
            })
        };
        let any_failed = groups.iter().any(|g| g.failed);
        let refusal = || members().filter(|&(_, refused, _)| refused).min_by_key(|&(i, _, _)| i);
        let failed = || members().filter(|(_, _, r)| r.is_err()).min_by_key(|&(i, _, _)| i);
        if let Some((failed, refused, result)) = any_failed.then(|| refusal().or_else(failed)).flatten() {
            let error = match result {
                Err(e) if refused => e.clone(),
                Err(e) => Error::new(e.kind, format!("bodies[{failed}]: {e}")),
                Ok(_) => Error::new(ErrorKind::Internal, "a failed body without its error"),
            };
            for (i, _, result) in members() {
                if result.is_ok()
                    && let Some(mut b) = body(i)
                {
                    b.undo_step();
                }
            }
            self.batch_groups = groups;
            self.batch_open = open;
            self.batch_states = validated;
            return Err(error);
        }
        let writing = sections::time(Section::BatchWrite);
        // The outputs from `start` on, in `part`: every group is looked at, the members
        // in that range written.
        let write_part = |start: usize, part: &mut [O]| {
            for group in &groups {
                for (&i, result) in group.members[..group.len].iter().zip(&group.results) {
                    let o = (i as usize).checked_sub(start).and_then(|k| part.get_mut(k));
                    if let (Ok(forces), Some(o)) = (result, o) {
                        write(forces, o);
                    }
                }
            }
        };
        // A big batch's outputs are written by every thread, each a range of them: read
        // from the groups and written to the host's memory, they are two cache misses a
        // body, which one thread alone took 4 % of 10000 boxes' step to wait for.
        let parts = if out.len() >= PARALLEL_WRITE_FROM {
            self.thread_count().max(usize::from(batch_helper.is_some()) + 1)
        } else {
            1
        };
        let part_len = out.len().div_ceil(parts).max(1);
        match (batch_helper, &self.pool) {
            (Some(h), _) if parts > 1 => {
                let (front, back) = out.split_at_mut(part_len);
                Team::Helper(h).join(|| write_part(0, front), || write_part(part_len, back));
            }
            (None, Some(Workers { pool: Some(pool), .. })) if parts > 1 => pool.install(|| {
                out.par_chunks_mut(part_len)
                    .enumerate()
                    .for_each(|(k, part)| write_part(k * part_len, part))
            }),
            _ => write_part(0, out),
        }
        writing.stop();
        if every_body_has_history {
            if !reuse {
                self.batch_ids.clear();
                self.batch_ids.extend_from_slice(ids);
            }
            self.batch_reusable = true;
        }
        self.batch_groups = groups;
        self.batch_open = open;
        self.batch_states = validated;
        Ok(())
    }

    /// Number of worker threads a batch step uses (1 when it runs on the caller's).
    pub fn thread_count(&self) -> usize {
        if let Some(tasks) = &self.tasks {
            return tasks.worker_count() as usize;
        }
        self.pool
            .as_ref()
            .and_then(|w| w.pool.as_ref())
            .map_or(1, |p| p.current_num_threads())
    }
}

/// A batch's groups as the host's task items, each group stepped by the one item that
/// claims it; the groups no item ran (a host that dropped some) are stepped here after.
fn run_groups(
    tasks: &dyn TaskSystem,
    groups: &mut [BatchGroup],
    claims: &mut Vec<AtomicBool>,
    step_group: &(impl Fn(&mut BatchGroup, bool) + Sync),
) {
    let n = groups.len();
    if claims.len() < n {
        claims.resize_with(n, || AtomicBool::new(false));
    }
    claims.iter_mut().for_each(|c| *c.get_mut() = false);
    let claims = &claims[..n];
    let base = Groups(groups.as_mut_ptr());
    let base = &base;
    let run = |i: usize| {
        if i < n && !claims[i].swap(true, Ordering::AcqRel) {
            // SAFETY: `i < n`, and the claim above makes this the only thread that ever
            // takes group `i` in this batch; the groups outlive the tasks, which the host
            // has finished when `run` returns.
            step_group(unsafe { &mut *base.0.add(i) }, true);
        }
    };
    tasks.run(n as u32, 1, &|start, end, _| (start..end).for_each(|i| run(i as usize)));
    (0..n).for_each(run);
}

/// The groups' address, shared with the host's workers (each group taken by one).
struct Groups(*mut BatchGroup);

// SAFETY: the groups are reached only through `run_groups`'s claims, one thread each.
unsafe impl Sync for Groups {}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("desc", &self.desc)
            .field("time", &self.time)
            .field("hulls", &self.hulls.len())
            .field("bodies", &self.bodies.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            eprintln!("skipped: this process may use one processor only, so no helper thread is started");
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
}
