//! The C ABI for engine programmers (issue 30): rollback and replay, a floating origin,
//! the host's job system.

use std::ffi::c_void;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};

use super::guard::{call, output, slice, slice_mut, with_world};
use super::types::*;
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::tasks::TaskSystem;
use crate::world::{BodyId, World};

// ---------------------------------------------------------------------------------------
// Rollback and replay. A snapshot holds what a step reads from the past: whether a body
// has a last step and the slamming history it left; a world's adds its water time, wind,
// current and origin. Not the water itself (its kind, parameters, heights or callback) nor
// the bodies' descriptions: the host's settings, which it sets again if it changed them.
// Snapshots are little-endian bytes, the same on every machine, headed by "KEEL", the
// format version (KEEL_SNAPSHOT_VERSION) and a fingerprint of the hull's geometry: a
// snapshot of another version, of another hull's body or cut short is refused with
// KEEL_ERROR_INVALID_ARGUMENT and nothing changed. Two-call pattern as for the detail
// getters, in bytes: with out == NULL only *out_size is written; with too small a
// capacity nothing is copied, *out_size is the size needed and the call returns
// KEEL_ERROR_BUFFER_TOO_SMALL.

/// The snapshot format this library writes and reads. Snapshots are little-endian bytes,
/// the same on every machine, laid out as docs/SNAPSHOT.md specifies (every offset, the
/// padding rows, the reserved words). A library reads only snapshots of its own version
/// and refuses others; within a version the layout never changes, and reserved words and
/// unknown flag bits must be zero (a later version may use them).
pub const KEEL_SNAPSHOT_VERSION: u32 = 1;

const _: () = assert!(KEEL_SNAPSHOT_VERSION == crate::snapshot::FORMAT_VERSION);

/// The two-call pattern for a snapshot of `needed` bytes written by `write`.
unsafe fn copy_snapshot(
    needed: usize,
    write: impl FnOnce(&mut [u8]) -> Result<usize>,
    out: *mut u8,
    capacity: u32,
    out_size: *mut u32,
) -> Result<()> {
    let size = unsafe { output(out_size, "out_size") }?;
    let needed = u32::try_from(needed).map_err(|_| Error::argument("the snapshot does not fit a uint32_t size"))?;
    if out.is_null() {
        *size = needed;
        return Ok(());
    }
    if capacity < needed {
        *size = needed;
        return Err(Error::new(
            ErrorKind::BufferTooSmall,
            format!("capacity is {capacity} bytes but the snapshot needs {needed}"),
        ));
    }
    let dst = unsafe { slice_mut(out, needed, "out") }?;
    write(dst)?;
    *size = needed;
    Ok(())
}

/// Writes a body's snapshot: its slamming history and whether it has a last step (32
/// bytes plus 12 per triangle, the triangles padded to a multiple of 8; the layout is in
/// docs/SNAPSHOT.md). Restored with keel_body_restore into this body or any body of a
/// hull of the same geometry, in this world or another. Two calls: with out == NULL it
/// returns KEEL_OK and writes only *out_size, the bytes needed; with a capacity below
/// that it returns KEEL_ERROR_BUFFER_TOO_SMALL, writes *out_size and copies nothing.
///
/// # Safety
/// `out` is NULL or holds `capacity` bytes; `out_size` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_snapshot(
    world: KeelWorld,
    body: KeelBody,
    out: *mut u8,
    capacity: u32,
    out_size: *mut u32,
) -> KeelStatus {
    call("keel_body_snapshot", || {
        with_world(world, |w| {
            let id = BodyId(body);
            let needed = w.body_snapshot_size(id)?;
            unsafe { copy_snapshot(needed, |dst| w.snapshot_body(id, dst), out, capacity, out_size) }
        })
    })
}

/// Restores a body's snapshot: the body's next step gives the same bits as the step that
/// followed the snapshot, given the same state, dt and water. The body then has no last
/// step to detail until it steps. Every value is checked before any is applied: a
/// snapshot cut short or too long, of another version or kind, of another hull's
/// geometry, with a non-zero reserved word or unknown flag, a NaN or infinite history
/// value or a non-zero padding row (docs/SNAPSHOT.md) is refused with
/// KEEL_ERROR_INVALID_ARGUMENT and nothing changed.
///
/// # Safety
/// `data` holds `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_restore(world: KeelWorld, body: KeelBody, data: *const u8, size: u32) -> KeelStatus {
    call("keel_body_restore", || {
        let bytes = unsafe { slice(data, size, "data") }?;
        with_world(world, |w| w.restore_body(BodyId(body), bytes))
    })
}

/// Writes the world's snapshot: its water time, wind, current and origin, and every
/// body's snapshot with its handle (96 bytes plus 8 and keel_body_snapshot's size per
/// body; the layout is in docs/SNAPSHOT.md). Two calls: with out == NULL it returns
/// KEEL_OK and writes only *out_size, the bytes needed; with a capacity below that it
/// returns KEEL_ERROR_BUFFER_TOO_SMALL, writes *out_size and copies nothing.
///
/// # Safety
/// `out` is NULL or holds `capacity` bytes; `out_size` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_snapshot(
    world: KeelWorld,
    out: *mut u8,
    capacity: u32,
    out_size: *mut u32,
) -> KeelStatus {
    call("keel_world_snapshot", || {
        with_world(world, |w| {
            let needed = w.snapshot_size();
            unsafe { copy_snapshot(needed, |dst| World::snapshot(w, dst), out, capacity, out_size) }
        })
    })
}

/// Restores a world's snapshot into the world it was taken of, which must hold the same
/// bodies (no body created or destroyed since) on hulls of the same geometry; otherwise
/// KEEL_ERROR_INVALID_ARGUMENT with nothing changed (a game whose rollback recreates
/// bodies restores each with keel_body_restore). Every value is checked before any is
/// applied, as keel_body_restore checks a body's, and the time, wind, current and origin
/// as their setters do: one bad value anywhere refuses the whole snapshot with
/// KEEL_ERROR_INVALID_ARGUMENT, no body and no condition changed (docs/SNAPSHOT.md).
/// Every body's next step then gives the same bits as after the snapshot.
///
/// # Safety
/// `data` holds `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_restore(world: KeelWorld, data: *const u8, size: u32) -> KeelStatus {
    call("keel_world_restore", || {
        let bytes = unsafe { slice(data, size, "data") }?;
        with_world(world, |w| w.restore(bytes))
    })
}

/// A 64-bit hash of the world's state (FNV-1a over its snapshot, leaving out the body
/// handles, which differ between processes): two peers whose worlds hold the same
/// bodies, created in the same order, stepped the same way, agree on it, whatever their
/// thread counts. Compare it between peers to detect a desync. It covers what keel
/// keeps; the bodies' poses and velocities are the host's to hash beside it. What it
/// hashes: docs/SNAPSHOT.md ("State hash").
///
/// # Safety
/// `out_hash` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_get_state_hash(world: KeelWorld, out_hash: *mut u64) -> KeelStatus {
    call("keel_world_get_state_hash", || {
        let out = unsafe { output(out_hash, "out_hash") }?;
        *out = with_world(world, |w| Ok(w.state_hash()))?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Big oceans: a floating origin. Positions cross the ABI as float, which 1000 km from the
// origin resolve 6 cm; a game that moves its origin tells the world where that origin is
// in the water's frame, in double, and keeps its bodies near it.

/// Puts the world's origin at (x, y, z) in the water's frame, metres (default 0; finite,
/// within +-4e9 m). Bodies are stepped at their positions near the host's origin, and the
/// water is evaluated at position + origin in double precision, so a sea keeps its true
/// phase far out: flat water's level, Perlin and Gerstner waves, spectra and heightfields
/// are in the water's frame (a heightfield's origin_x and origin_z too). A water callback
/// is the exception: it is asked at the world positions, in the host's frame, where the
/// host's own water lives (add the origin there if it needs it). keel_water_sample takes
/// and answers world positions and heights alike. The origin is part of a world's
/// snapshot.
#[unsafe(no_mangle)]
pub extern "C" fn keel_world_set_origin(world: KeelWorld, x: f64, y: f64, z: f64) -> KeelStatus {
    call("keel_world_set_origin", || {
        with_world(world, |w| w.set_origin(glam::DVec3::new(x, y, z)))
    })
}

/// Moves the world's origin by (dx, dy, dz), in double: call it when the host moves its
/// own origin by that much (its bodies' coordinates then decrease by it).
#[unsafe(no_mangle)]
pub extern "C" fn keel_world_shift_origin(world: KeelWorld, dx: f64, dy: f64, dz: f64) -> KeelStatus {
    call("keel_world_shift_origin", || {
        with_world(world, |w| w.shift_origin(glam::DVec3::new(dx, dy, dz)))
    })
}

/// The world's origin in the water's frame, metres.
///
/// # Safety
/// The pointers are NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_get_origin(
    world: KeelWorld,
    out_x: *mut f64,
    out_y: *mut f64,
    out_z: *mut f64,
) -> KeelStatus {
    call("keel_world_get_origin", || {
        // Each checked, then written one after the other: the three may be one variable.
        for (ptr, name) in [(out_x, "out_x"), (out_y, "out_y"), (out_z, "out_z")] {
            unsafe { output(ptr, name) }?;
        }
        let o = with_world(world, |w| Ok(w.origin()))?;
        for (ptr, name, value) in [(out_x, "out_x", o.x), (out_y, "out_y", o.y), (out_z, "out_z", o.z)] {
            *unsafe { output(ptr, name) }? = value;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// The host's job system (KeelWorldDesc's enqueue_task, finish_task, user_task_context
// and worker_count).

/// The callbacks of a KeelWorldDesc, as a [`TaskSystem`].
#[derive(Debug)]
struct HostTasks {
    enqueue: unsafe extern "C" fn(KeelTaskFn, u32, u32, *mut c_void, *mut c_void) -> *mut c_void,
    finish: unsafe extern "C" fn(*mut c_void, *mut c_void),
    user_context: *mut c_void,
    workers: u32,
}

// SAFETY: the host's callbacks and context are for its job system, which runs tasks on
// any of its threads; keel calls them from the thread stepping the world.
unsafe impl Send for HostTasks {}
unsafe impl Sync for HostTasks {}

/// What a task's items run, with a panic caught on the host's worker (it must not unwind
/// into C) to be raised again on the thread that called keel.
struct TaskContext<'a> {
    task: &'a (dyn Fn(u32, u32, u32) + Sync),
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

/// The KeelTaskFn keel gives the host.
unsafe extern "C" fn run_items(start: u32, end: u32, worker: u32, context: *mut c_void) {
    if context.is_null() {
        return;
    }
    // SAFETY: `context` is the `TaskContext` of a `HostTasks::run` that has not returned
    // (it waits for finish_task).
    let context = unsafe { &*context.cast::<TaskContext<'_>>() };
    if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(|| (context.task)(start, end, worker))) {
        *context.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(panic);
    }
}

impl TaskSystem for HostTasks {
    fn worker_count(&self) -> u32 {
        self.workers
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        let context = TaskContext {
            task,
            panic: Mutex::new(None),
        };
        let pointer = (&raw const context).cast_mut().cast::<c_void>();
        // SAFETY: the host's callbacks, as its KeelWorldDesc gave them; `context` lives
        // until finish_task has returned.
        unsafe {
            let handle = (self.enqueue)(Some(run_items), item_count, min_range, pointer, self.user_context);
            if !handle.is_null() {
                (self.finish)(handle, self.user_context);
            }
        }
        if let Some(panic) = context.panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
            std::panic::resume_unwind(panic);
        }
    }
}

/// The host's job system of a KeelWorldDesc, if it gives one.
pub(crate) fn host_tasks(desc: &KeelWorldDesc) -> Result<Option<Arc<dyn TaskSystem>>> {
    match (desc.enqueue_task, desc.finish_task) {
        (None, None) => Ok(None),
        (Some(enqueue), Some(finish)) => Ok(Some(Arc::new(HostTasks {
            enqueue,
            finish,
            user_context: desc.user_task_context,
            workers: desc.worker_count,
        }))),
        _ => Err(Error::argument(
            "enqueue_task and finish_task must be both set (the host's job system) or both NULL",
        )),
    }
}
