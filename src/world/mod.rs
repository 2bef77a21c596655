//! Worlds: the water, the hulls and bodies that float in it, and stepping them in
//! parallel.
//!
//! Bodies are independent within a step: each reads the shared water and hull and writes
//! only its own buffers, so a batch runs them on rayon's workers (in a two-thread world,
//! on the caller's thread and the world's helper thread) and gets results that are
//! bit-identical to stepping them one by one, whatever the thread count.

mod batch;
mod shared_hulls;
#[cfg(test)]
mod small_tests;
mod snapshot;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use glam::{DQuat, DVec3, Vec3};

use self::batch::BatchMemory;
use self::shared_hulls::SharedHulls;
use crate::body::{Body, BodyDesc, BodyForces, BodyState, check_dt};
use crate::error::{Error, Result, non_negative_up_to, positive_up_to, within};
pub use crate::handle::{BodyId, HullId};
use crate::handle::{HandleKind, Slots};
use crate::hull::{Hull, HullDesc, HullInfo};
use crate::runtime::tasks::TaskSystem;
use crate::runtime::team::Helper;
use crate::step::Environment;
use crate::water::Water;

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
    /// The threads that step, the caller's included: 0 = one per processor; 1 = the
    /// caller's only; 2 = the caller's and one helper thread, started the first time a
    /// batch of two bodies or more, or a big body (over 1024 triangles) alone, is stepped
    /// (`World::step_bodies`, `World::step_body`); 3 or more = a pool of that many
    /// threads owned by the world, started with it, on which the steps run while the
    /// caller waits.
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
    /// `water` as flat water, when it is flat but another model ([`Water::as_flat`]):
    /// what steps and samples read in its place.
    flat_water: Option<Water>,
    time: f64,
    hulls: Slots<HullEntry>,
    /// The distinct hulls behind `hulls`' handles ([`shared_hulls`]).
    shared_hulls: SharedHulls,
    bodies: Slots<Mutex<Body>>,
    pool: Option<Workers>,
    /// The threads `desc.thread_count` asks for (0 resolved to the processors): 1 is the
    /// caller's alone, 2 the caller's and the helper, more the pool's.
    threads: usize,
    /// The thread that shares a big body's step with the caller's (`step_body` in a
    /// two-thread world), started the first time it is needed ...
    helper: Option<Helper>,
    /// ... unless it could not be, or this process may run on one processor only (the
    /// caller would wait for a helper that cannot run beside it).
    no_helper: bool,
    wind: DVec3,
    current: DVec3,
    /// Where the world's origin is in the water's frame, m ([`World::set_origin`]).
    origin: DVec3,
    /// The host's job system, in place of `pool` and `helper` ([`World::with_tasks`]).
    tasks: Option<Arc<dyn TaskSystem>>,
    /// What a batch keeps for the next one ([`batch`]).
    batch: BatchMemory,
}

fn not_a_body(id: BodyId) -> String {
    format!(
        "body {:#x} is not a live body of this world (destroyed, never created, or from another world)",
        id.0
    )
}

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
        // Two threads are the caller's and the helper (started when first needed,
        // `World::wake_helper`): no pool, whose threads would sit idle beside it.
        let pool = if threads > 2 {
            Some(Workers::start(threads)?)
        } else {
            None
        };
        let mut world = Self::build(desc, pool, None)?;
        world.threads = threads;
        // (A helper that cannot run beside the caller would only make it wait.)
        world.no_helper = threads == 2 && std::thread::available_parallelism().map_or(1, |n| n.get()) < 2;
        Ok(world)
    }

    /// A world whose parallel work runs on the host's job system ([`crate::runtime::tasks`]): a
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
            desc: *desc,
            water: Water::default(),
            flat_water: None,
            time: 0.0,
            hulls: Slots::new(HandleKind::Hull),
            shared_hulls: SharedHulls::default(),
            bodies: Slots::new(HandleKind::Body),
            pool,
            threads: 1,
            helper: None,
            no_helper: false,
            wind: DVec3::ZERO,
            current: DVec3::ZERO,
            batch: BatchMemory::default(),
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
        self.batch.reusable = false;
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

    /// Replaces the water surface. Water whose surface is flat (Perlin waves of no
    /// height, say) is stepped as flat water ([`Water::as_flat`]).
    pub fn set_water(&mut self, water: Water) {
        self.flat_water = match water {
            Water::Flat(_) => None,
            _ => water.as_flat().map(Water::Flat),
        };
        self.water = water;
    }

    /// The water that steps and samples read: `water`, or the flat water it is.
    fn surface(&self) -> &Water {
        self.flat_water.as_ref().unwrap_or(&self.water)
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
            self.surface()
                .sample_into(points, self.time, heights, normals, velocities.as_deref_mut())?;
        } else {
            // (Not a step: a list of its own is fine here.)
            let horizontal = DVec3::new(offset.x, 0.0, offset.z);
            let shifted: Vec<DVec3> = points.iter().map(|p| *p + horizontal).collect();
            self.surface()
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
        crate::water::WaterSurface::height(self.surface(), x + o.x, z + o.z, self.time) - o.y
    }

    /// Validates a mesh and adds it as a hull. A mesh of the same geometry as a live
    /// hull's (the same welded vertices and triangles, from whatever buffers) gets a
    /// handle of its own to that hull ([`World::unique_hull_count`]): its bodies are
    /// then stepped together with the other's, as bodies of one hull are.
    pub fn create_hull(&mut self, desc: &HullDesc<'_>) -> Result<HullId> {
        let hull = Hull::new(desc)?;
        let hull = self.shared_hulls.share(hull);
        match self.hulls.insert(HullEntry {
            hull: Arc::clone(&hull),
            users: 0,
        }) {
            Some(id) => Ok(HullId(id)),
            None => {
                self.shared_hulls.release(&hull);
                Err(Error::argument("too many hulls in this world"))
            }
        }
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
        let (moments, axes) = crate::hull::inertia::principal_axes(hull.unit_inertia() * mass);
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
        if let Some(entry) = self.hulls.remove(id.0) {
            self.shared_hulls.release(&entry.hull);
        }
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
        self.batch.reusable = false;
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
        self.batch.reusable = false;
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

    /// Number of live hulls (handles: two of one geometry count twice).
    pub fn hull_count(&self) -> usize {
        self.hulls.len()
    }

    /// Number of distinct hulls behind the live handles: hulls of the same geometry
    /// count once ([`World::create_hull`]).
    pub fn unique_hull_count(&self) -> usize {
        self.shared_hulls.unique_count()
    }

    fn environment(&self) -> Environment<'_> {
        Environment {
            water: self.surface(),
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
            pool: self.pool.as_ref().and_then(|w| w.pool.as_ref()),
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

    /// Whether work of a two-thread world is shared with its helper thread (which this
    /// starts the first time and wakes): a batch of two bodies or more (`divisible` is
    /// then true) or a big body alone. With more threads the pool shares it: it has more
    /// of them. (On two, the step stays on the host's thread beside the helper: a pool's
    /// hand-overs cost a tenth of such a step, `crate::runtime::team`.) Not if no thread could be
    /// started, or if this process may use one processor only: the caller then does it
    /// all.
    fn wake_helper(&mut self, divisible: bool) -> bool {
        if !divisible || self.threads != 2 || self.tasks.is_some() {
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

    /// Number of threads a batch step uses: the host's workers; else 1 (the caller's
    /// alone), 2 (the caller's and the helper thread, unless it cannot run beside the
    /// caller: then 1), or the pool's.
    pub fn thread_count(&self) -> usize {
        if let Some(tasks) = &self.tasks {
            return tasks.worker_count() as usize;
        }
        match self.pool.as_ref().and_then(|w| w.pool.as_ref()) {
            Some(pool) => pool.current_num_threads(),
            None if self.threads == 2 && !self.no_helper => 2,
            None => 1,
        }
    }
}

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
