//! The functions of the C ABI, in the order of the header.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use glam::{DVec2, DVec3};

use super::callback::CallbackWater;
use super::guard::{
    call, live_world_count, optional_slice_mut, output, read, register, slice, slice_mut, unregister, unregister_all,
    with_last_error, with_world,
};
use super::types::*;
use crate::body::{BodyDesc, BodyState};
use crate::error::{Error, ErrorKind, Result};
use crate::hull::HullDesc;
use crate::water::spectrum::{self, Spectrum};
use crate::water::{FlatWater, GerstnerWater, GerstnerWave, HeightfieldWater, PerlinWater, Water};
use crate::world::{BodyId, HullId, World, WorldDesc};

// ---------------------------------------------------------------------------------------
// Status and diagnostics

/// KEEL_ABI_VERSION of the library: major << 16 | minor. Compare with the header's.
#[unsafe(no_mangle)]
pub extern "C" fn keel_abi_version() -> u32 {
    KEEL_ABI_VERSION
}

/// The library's version, e.g. "0.1.0": static, NUL-terminated.
#[unsafe(no_mangle)]
pub extern "C" fn keel_version_string() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Message of the last failure on the calling thread, "function: reason". Returns its
/// length without the NUL; copies at most capacity - 1 bytes plus a NUL when buf is not
/// NULL and capacity > 0. An empty string if nothing failed on this thread yet.
///
/// # Safety
/// `buf` is NULL or points to `capacity` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_last_error_message(buf: *mut c_char, capacity: usize) -> usize {
    with_last_error(|message| {
        if !buf.is_null() && capacity > 0 {
            let n = message.len().min(capacity - 1);
            // SAFETY: the caller provides `capacity` bytes at `buf`; n + 1 <= capacity.
            unsafe {
                std::ptr::copy_nonoverlapping(message.as_ptr().cast::<c_char>(), buf, n);
                *buf.add(n) = 0;
            }
        }
        message.len()
    })
}

// ---------------------------------------------------------------------------------------
// World

/// Fills desc with the defaults: gravity 9.81, water 1000 kg/m^3, air 1.225 kg/m^3,
/// viscosity 1e-6 m^2/s, one thread per core. Does nothing if desc is NULL.
///
/// # Safety
/// `desc` is NULL or points to a writable KeelWorldDesc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_desc_default(desc: *mut KeelWorldDesc) {
    if let Ok(desc) = unsafe { output(desc, "desc") } {
        *desc = KeelWorldDesc::from(&WorldDesc::default());
    }
}

/// Creates a world with flat water at height 0 and time 0.
///
/// # Safety
/// Pointers are NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_create(desc: *const KeelWorldDesc, out_world: *mut KeelWorld) -> KeelStatus {
    call("keel_world_create", || {
        let desc = unsafe { read(desc, "desc") }?;
        let out = unsafe { output(out_world, "out_world") }?;
        let world = match super::engine::host_tasks(&desc)? {
            Some(tasks) => World::with_tasks(&WorldDesc::from(&desc), tasks)?,
            None => World::new(&WorldDesc::from(&desc))?,
        };
        *out = register(world)?;
        Ok(())
    })
}

/// Destroys a world with its hulls and bodies. Calls running on it finish first.
#[unsafe(no_mangle)]
pub extern "C" fn keel_world_destroy(world: KeelWorld) -> KeelStatus {
    call("keel_world_destroy", || unregister(world))
}

/// How many hulls and bodies a world holds (leak checks, editor statistics).
///
/// # Safety
/// `out_counts` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_get_counts(world: KeelWorld, out_counts: *mut KeelWorldCounts) -> KeelStatus {
    call("keel_world_get_counts", || {
        let out = unsafe { output(out_counts, "out_counts") }?;
        *out = with_world(world, |w| {
            Ok(KeelWorldCounts {
                hull_count: w.hull_count() as u32,
                body_count: w.body_count() as u32,
            })
        })?;
        Ok(())
    })
}

/// How many worlds are alive in this process: what a host that reloads its code while
/// the native library stays loaded (Unity's editor never unloads a plugin) checks for
/// leaks.
#[unsafe(no_mangle)]
pub extern "C" fn keel_live_world_count() -> u32 {
    live_world_count()
}

/// Destroys every world of the process, with their hulls, bodies and water callbacks,
/// and returns how many there were. For editors about to unload the code that created
/// them (Unity before an assembly reload): no callback may then point into unloaded
/// code. Every handle issued before is dead afterwards. A world busy in a call on
/// another thread is destroyed once that call returns; called from inside a water
/// callback it destroys nothing and returns 0.
#[unsafe(no_mangle)]
pub extern "C" fn keel_destroy_all_worlds() -> u32 {
    let mut destroyed = 0;
    let _ = call("keel_destroy_all_worlds", || {
        destroyed = unregister_all()?;
        Ok(())
    });
    destroyed
}

/// Sets the water animation time, seconds (finite).
#[unsafe(no_mangle)]
pub extern "C" fn keel_world_set_time(world: KeelWorld, seconds: f64) -> KeelStatus {
    call("keel_world_set_time", || with_world(world, |w| w.set_time(seconds)))
}

/// Sets the wind velocity (m/s, finite; default zero): air resistance is computed
/// relative to it, so a body at rest in a wind drifts downwind.
#[unsafe(no_mangle)]
pub extern "C" fn keel_world_set_wind(world: KeelWorld, velocity: KeelVec3) -> KeelStatus {
    call("keel_world_set_wind", || {
        with_world(world, |w| w.set_wind(velocity.to_dvec3()))
    })
}

// ---------------------------------------------------------------------------------------
// Water: one surface per world, flat at height 0 until set.

/// Flat water at height `level`.
#[unsafe(no_mangle)]
pub extern "C" fn keel_water_set_flat(world: KeelWorld, level: f32) -> KeelStatus {
    call("keel_water_set_flat", || {
        let level = crate::error::within("level", level as f64, 1e9)?;
        with_world(world, |w| {
            w.set_water(Water::Flat(FlatWater { level }));
            Ok(())
        })
    })
}

/// Fills desc with the thesis's defaults: level 0, scale 0.1, speed 0.5, height 1.0,
/// only_x false. Does nothing if desc is NULL.
///
/// # Safety
/// `desc` is NULL or points to a writable KeelPerlinWaterDesc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_perlin_water_desc_default(desc: *mut KeelPerlinWaterDesc) {
    if let Ok(desc) = unsafe { output(desc, "desc") } {
        *desc = KeelPerlinWaterDesc {
            level: 0.0,
            perlin_scale: 0.1,
            wave_speed: 0.5,
            wave_height: 1.0,
            only_x: false,
        };
    }
}

/// The thesis's Perlin waves (Tenhunen 2019, function 2.2 GetWaveYPos).
///
/// # Safety
/// `desc` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_water_set_perlin(world: KeelWorld, desc: *const KeelPerlinWaterDesc) -> KeelStatus {
    call("keel_water_set_perlin", || {
        let d = unsafe { read(desc, "desc") }?;
        let water = PerlinWater::new(
            d.level as f64,
            d.perlin_scale as f64,
            d.wave_speed as f64,
            d.wave_height as f64,
            d.only_x,
        )?;
        with_world(world, |w| {
            w.set_water(Water::Perlin(Box::new(water)));
            Ok(())
        })
    })
}

/// A sum of `count` Gerstner waves around `level` (waves may be NULL when count is 0).
/// The waves are copied.
///
/// # Safety
/// `waves` is NULL or points to `count` KeelGerstnerWave.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_water_set_gerstner(
    world: KeelWorld,
    waves: *const KeelGerstnerWave,
    count: u32,
    level: f32,
) -> KeelStatus {
    call("keel_water_set_gerstner", || {
        let waves: Vec<GerstnerWave> = unsafe { slice(waves, count, "waves") }?
            .iter()
            .map(|w| GerstnerWave {
                amplitude: w.amplitude as f64,
                wavelength: w.wavelength as f64,
                direction: DVec2::new(w.direction_x as f64, w.direction_z as f64),
                steepness: w.steepness as f64,
                phase: w.phase as f64,
            })
            .collect();
        with_world(world, |w| {
            let water = GerstnerWater::new(&waves, level as f64, w.desc().gravity)?;
            w.set_water(Water::Gerstner(water));
            Ok(())
        })
    })
}

/// Surface height under each point's (x, z) at the world's time; the points' y is
/// ignored. Normals (unit, up-facing) and water particle velocities at the surface (the
/// world's current included) are optional: pass NULL to skip them. Under Gerstner water
/// a step takes the velocity of a point at depth d under the surface down by
/// e^{-k d} (k the waves' wavenumber weighted by their (amplitude omega)^2). Hosts move their
/// water meshes with this, so that what players see is what bodies feel.
///
/// # Safety
/// `points` and `out_heights` point to `count` elements; the optional outputs are NULL
/// or point to `count` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_water_sample(
    world: KeelWorld,
    points: *const KeelVec3,
    count: u32,
    out_heights: *mut f32,
    out_normals: *mut KeelVec3,
    out_velocities: *mut KeelVec3,
) -> KeelStatus {
    call("keel_water_sample", || {
        let points = unsafe { slice(points, count, "points") }?;
        let heights = unsafe { slice_mut(out_heights, count, "out_heights") }?;
        let normals = unsafe { optional_slice_mut(out_normals, count, "out_normals") }?;
        let velocities = unsafe { optional_slice_mut(out_velocities, count, "out_velocities") }?;
        if let Some(i) = points.iter().position(|p| !p.x.is_finite() || !p.z.is_finite()) {
            return Err(Error::argument(format!("points[{i}] must have a finite x and z")));
        }
        let n = points.len();
        let query: Vec<DVec3> = points.iter().map(|p| p.to_dvec3()).collect();
        let mut h = vec![0.0; n];
        let mut nrm = normals.as_ref().map(|_| vec![DVec3::ZERO; n]);
        let mut vel = velocities.as_ref().map(|_| vec![DVec3::ZERO; n]);
        with_world(world, |w| {
            w.sample_water(&query, &mut h, nrm.as_deref_mut(), vel.as_deref_mut())
        })?;
        // Written only once everything is known to be good.
        for (o, v) in heights.iter_mut().zip(&h) {
            *o = *v as f32;
        }
        if let (Some(out), Some(v)) = (normals, nrm) {
            out.iter_mut().zip(v).for_each(|(o, v)| *o = v.into());
        }
        if let (Some(out), Some(v)) = (velocities, vel) {
            out.iter_mut().zip(v).for_each(|(o, v)| *o = v.into());
        }
        Ok(())
    })
}

/// The arguments the two heightfield functions share.
struct Grid {
    heights: *const f32,
    count_x: u32,
    count_z: u32,
    origin_x: f32,
    origin_z: f32,
    cell_size: f32,
}

unsafe fn set_heightfield(name: &str, world: KeelWorld, grid: Grid, tiled: bool) -> KeelStatus {
    call(name, || {
        let Grid {
            heights,
            count_x,
            count_z,
            origin_x,
            origin_z,
            cell_size,
        } = grid;
        let count = count_x
            .checked_mul(count_z)
            .ok_or_else(|| Error::argument(format!("{count_x} x {count_z} samples are too many")))?;
        let heights = unsafe { slice(heights, count, "heights") }?;
        let water = HeightfieldWater::new(
            heights,
            count_x as usize,
            count_z as usize,
            origin_x as f64,
            origin_z as f64,
            cell_size as f64,
            tiled,
        )?;
        with_world(world, |w| {
            w.set_water(Water::Heightfield(Box::new(water)));
            Ok(())
        })
    })
}

/// A regular grid of heights, refreshed by the host as often as it likes (a GPU
/// readback, a baked FFT tile): heights[iz * count_x + ix] is the surface at
/// (origin_x + ix * cell_size, origin_z + iz * cell_size). At least 2 x 2 finite samples,
/// a cell size > 0. The data are copied (so the buffer can be reused at once). Between
/// samples the surface is the plane of one of the two triangles of each cell; outside
/// the grid heights clamp to the nearest edge sample, which is not an error. On error
/// the previous water stays in place. The surface's particle velocity is zero (plus the
/// world's current).
///
/// # Safety
/// `heights` is NULL or points to count_x * count_z floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_water_set_heightfield(
    world: KeelWorld,
    heights: *const f32,
    count_x: u32,
    count_z: u32,
    origin_x: f32,
    origin_z: f32,
    cell_size: f32,
) -> KeelStatus {
    let grid = Grid {
        heights,
        count_x,
        count_z,
        origin_x,
        origin_z,
        cell_size,
    };
    unsafe { set_heightfield("keel_water_set_heightfield", world, grid, false) }
}

/// keel_water_set_heightfield for a tiling ocean: the grid repeats in x and z with a
/// period of count_x by count_z cells (sample count_x is sample 0 again), so no point is
/// ever outside it.
///
/// # Safety
/// `heights` is NULL or points to count_x * count_z floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_water_set_tiled_heightfield(
    world: KeelWorld,
    heights: *const f32,
    count_x: u32,
    count_z: u32,
    origin_x: f32,
    origin_z: f32,
    cell_size: f32,
) -> KeelStatus {
    let grid = Grid {
        heights,
        count_x,
        count_z,
        origin_x,
        origin_z,
        cell_size,
    };
    unsafe { set_heightfield("keel_water_set_tiled_heightfield", world, grid, true) }
}

/// The host's water: keel asks `query` for a whole batch of points at once (every
/// vertex of a body, or the grid of its water patch) and the callback writes, for each
/// point's (x, z), the surface height and, when the pointers are not NULL, the unit
/// normal and the water particle velocity. Heights must be finite; a non-finite answer
/// fails the step that asked with KEEL_ERROR_INVALID_ARGUMENT, with nothing written.
///
/// The callback is called from one thread at a time and only inside keel calls on this
/// world (keel_body_step, keel_world_step, keel_water_sample), on the thread that made
/// the call, so a water API that is not thread-safe still works. The world's time is not
/// passed: the host's water is at the host's time. user_data is passed back untouched;
/// keep it alive until the water is replaced or the world destroyed. The callback must
/// not call keel on its own world: such calls fail with KEEL_ERROR_INVALID_ARGUMENT.
///
/// Unity under IL2CPP needs a static method marked [MonoPInvokeCallback(typeof(...))]
/// with a delegate type marked [UnmanagedFunctionPointer(CallingConvention.Cdecl)]; pass
/// a GCHandle (GCHandle.ToIntPtr) as user_data to reach the ocean object from it.
///
/// # Safety
/// `query` must be callable as declared for as long as the world uses it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_water_set_callback(
    world: KeelWorld,
    query: KeelWaterQuery,
    user_data: *mut c_void,
) -> KeelStatus {
    call("keel_water_set_callback", || {
        let query = query.ok_or_else(|| Error::new(ErrorKind::NullPointer, "query must not be NULL"))?;
        let water = Water::Custom(Arc::new(CallbackWater::new(query, user_data)));
        with_world(world, |w| {
            w.set_water(water);
            Ok(())
        })
    })
}

/// A uniform current (m/s, finite; default zero), added to the water's particle velocity:
/// drag carries floating bodies along with it.
#[unsafe(no_mangle)]
pub extern "C" fn keel_world_set_current(world: KeelWorld, velocity: KeelVec3) -> KeelStatus {
    call("keel_world_set_current", || {
        with_world(world, |w| w.set_current(velocity.to_dvec3()))
    })
}

/// Gerstner water from a wave spectrum, so that a user can ask for a sea state instead of
/// tuning waves: wind_speed (m/s, > 0) blowing along (direction_x, direction_z), cut into
/// wave_count (1 to 256) waves drawn from seed, around a mean level of 0. Pierson-Moskowitz
/// has a significant wave height of 0.21 U^2 / g: 5 m/s gives 0.5 m (sea state 3), 10 m/s
/// 2.1 m (sea state 4 to 5), 15 m/s 4.8 m (sea state 6).
#[unsafe(no_mangle)]
pub extern "C" fn keel_water_set_spectrum(
    world: KeelWorld,
    spectrum: KeelSpectrum,
    wind_speed: f32,
    direction_x: f32,
    direction_z: f32,
    wave_count: u32,
    seed: u64,
) -> KeelStatus {
    call("keel_water_set_spectrum", || {
        let kind = match spectrum {
            KEEL_SPECTRUM_PIERSON_MOSKOWITZ => Spectrum::PiersonMoskowitz,
            KEEL_SPECTRUM_JONSWAP => Spectrum::Jonswap,
            other => {
                return Err(Error::argument(format!(
                    "spectrum must be KEEL_SPECTRUM_PIERSON_MOSKOWITZ (0) or KEEL_SPECTRUM_JONSWAP (1), got {other}"
                )));
            }
        };
        with_world(world, |w| {
            let g = w.desc().gravity;
            let direction = DVec2::new(direction_x as f64, direction_z as f64);
            let waves = spectrum::waves(kind, wind_speed as f64, direction, wave_count, seed, g)?;
            w.set_water(Water::Gerstner(GerstnerWater::new(&waves, 0.0, g)?));
            Ok(())
        })
    })
}

// ---------------------------------------------------------------------------------------
// Hulls: immutable triangle meshes in body-local coordinates, shared by bodies.

/// Validates and copies a mesh. Coincident vertices are welded, zero-area triangles
/// skipped and counted, a closed mesh found inside out is flipped (see KeelHullInfo).
/// Fails with KEEL_ERROR_INVALID_MESH when an index is out of range, index_count is not
/// a multiple of 3, a vertex is not finite, or no triangle is usable.
///
/// # Safety
/// `desc` is NULL or valid, and its arrays hold the counts it states.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_hull_create(
    world: KeelWorld,
    desc: *const KeelHullDesc,
    out_hull: *mut KeelHull,
) -> KeelStatus {
    call("keel_hull_create", || {
        let d = unsafe { read(desc, "desc") }?;
        let out = unsafe { output(out_hull, "out_hull") }?;
        let vertices = unsafe { slice(d.vertices, d.vertex_count, "desc.vertices") }?;
        let indices = unsafe { slice(d.indices, d.index_count, "desc.indices") }?;
        let vertices: Vec<glam::Vec3> = vertices.iter().map(|v| v.to_vec3()).collect();
        with_world(world, |w| {
            let id = w.create_hull(&HullDesc {
                vertices: &vertices,
                indices,
                flip_winding: d.flip_winding,
            })?;
            *out = id.0;
            Ok(())
        })
    })
}

/// Facts about a hull: counts, closedness, area, volume, centroid, bounds.
///
/// # Safety
/// `out_info` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_hull_get_info(
    world: KeelWorld,
    hull: KeelHull,
    out_info: *mut KeelHullInfo,
) -> KeelStatus {
    call("keel_hull_get_info", || {
        let out = unsafe { output(out_info, "out_info") }?;
        let info = with_world(world, |w| w.hull_info(HullId(hull)))?;
        *out = KeelHullInfo::from(&info);
        Ok(())
    })
}

/// Creates a box hull of full extents `size` (m, each side > 0), centred on the body
/// origin, its faces along the body axes: 8 vertices and 12 triangles.
///
/// # Safety
/// `out_hull` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_hull_create_box(world: KeelWorld, size: KeelVec3, out_hull: *mut KeelHull) -> KeelStatus {
    call("keel_hull_create_box", || {
        let out = unsafe { output(out_hull, "out_hull") }?;
        *out = with_world(world, |w| w.create_box_hull(size.to_vec3()))?.0;
        Ok(())
    })
}

/// The inertia of a body of this hull's shape at uniform density and `mass` (kg, > 0)
/// about the hull's centroid (KeelHullInfo.centroid): principal moments in ascending
/// order, kg m^2, and the rotation from the principal axes to body axes (the body-axes
/// tensor is R diag(moments) R^T). A solid if the hull is closed, a uniform shell if
/// open. For hosts whose rigid body needs an inertia (a C or C++ engine); it is also
/// what KeelBodyDesc.inertia means when left zero.
///
/// # Safety
/// Pointers are NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_hull_get_inertia(
    world: KeelWorld,
    hull: KeelHull,
    mass: f32,
    out_principal: *mut KeelVec3,
    out_rotation: *mut KeelQuat,
) -> KeelStatus {
    call("keel_hull_get_inertia", || {
        let principal = unsafe { output(out_principal, "out_principal") }?;
        let rotation = unsafe { output(out_rotation, "out_rotation") }?;
        let (moments, axes) = with_world(world, |w| w.hull_inertia(HullId(hull), mass as f64))?;
        *principal = moments.into();
        *rotation = axes.into();
        Ok(())
    })
}

/// Destroys a hull; fails with KEEL_ERROR_INVALID_ARGUMENT while a body uses it.
#[unsafe(no_mangle)]
pub extern "C" fn keel_hull_destroy(world: KeelWorld, hull: KeelHull) -> KeelStatus {
    call("keel_hull_destroy", || {
        with_world(world, |w| w.destroy_hull(HullId(hull)))
    })
}

// ---------------------------------------------------------------------------------------
// Bodies: a hull, its force model and its history. The host's engine owns the rigid body.

/// Fills desc with the defaults: hull 0, mass 1000 kg, KEEL_BUOYANCY_PRESSURE, forces
/// VISCOUS | PRESSURE_DRAG | SLAMMING | AIR, and the coefficients documented in
/// KeelBodyDesc. Does nothing if desc is NULL.
///
/// # Safety
/// `desc` is NULL or points to a writable KeelBodyDesc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_desc_default(desc: *mut KeelBodyDesc) {
    if let Ok(desc) = unsafe { output(desc, "desc") } {
        *desc = KeelBodyDesc::from(&BodyDesc::default());
    }
}

/// Creates a body. KEEL_BUOYANCY_VOLUME and KEEL_BUOYANCY_AREA_RATIO need a closed hull:
/// on an open one this fails with KEEL_ERROR_INVALID_ARGUMENT and says so.
///
/// # Safety
/// Pointers are NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_create(
    world: KeelWorld,
    desc: *const KeelBodyDesc,
    out_body: *mut KeelBody,
) -> KeelStatus {
    call("keel_body_create", || {
        let desc = unsafe { read(desc, "desc") }?.to_engine()?;
        let out = unsafe { output(out_body, "out_body") }?;
        *out = with_world(world, |w| w.create_body(&desc))?.0;
        Ok(())
    })
}

/// Changes any field, the hull too; a new hull starts a fresh history.
///
/// # Safety
/// `desc` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_set_desc(world: KeelWorld, body: KeelBody, desc: *const KeelBodyDesc) -> KeelStatus {
    call("keel_body_set_desc", || {
        let desc = unsafe { read(desc, "desc") }?.to_engine()?;
        with_world(world, |w| w.set_body_desc(BodyId(body), &desc))
    })
}

/// The body's current description (for read-modify-write with keel_body_set_desc).
///
/// # Safety
/// `out_desc` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_get_desc(
    world: KeelWorld,
    body: KeelBody,
    out_desc: *mut KeelBodyDesc,
) -> KeelStatus {
    call("keel_body_get_desc", || {
        let out = unsafe { output(out_desc, "out_desc") }?;
        let desc = with_world(world, |w| Ok(*w.body(BodyId(body))?.desc()))?;
        *out = KeelBodyDesc::from(&desc);
        Ok(())
    })
}

/// Destroys a body.
#[unsafe(no_mangle)]
pub extern "C" fn keel_body_destroy(world: KeelWorld, body: KeelBody) -> KeelStatus {
    call("keel_body_destroy", || {
        with_world(world, |w| w.destroy_body(BodyId(body)))
    })
}

/// Forces for one fixed step of length dt (1e-7 to 60 s) from the body's current state,
/// at the world's current water time; remembers what slamming needs for the next step and keeps
/// the detail below until the next step of this body.
///
/// # Safety
/// Pointers are NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_step(
    world: KeelWorld,
    body: KeelBody,
    state: *const KeelBodyState,
    dt: f32,
    out_forces: *mut KeelBodyForces,
) -> KeelStatus {
    call("keel_body_step", || {
        let state = BodyState::from(&unsafe { read(state, "state") }?);
        let out = unsafe { output(out_forces, "out_forces") }?;
        let forces = with_world(world, |w| w.step_body(BodyId(body), &state, dt as f64))?;
        *out = KeelBodyForces::from(&forces);
        Ok(())
    })
}

/// The same for `count` bodies at once, in parallel; identical results to calling
/// keel_body_step for each. Every body and state is checked: on any error no body
/// changes and nothing is written, and the message names the first index refused. A body
/// listed twice is an error.
///
/// # Safety
/// The arrays hold `count` elements (they may be NULL when count is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_world_step(
    world: KeelWorld,
    bodies: *const KeelBody,
    states: *const KeelBodyState,
    count: u32,
    dt: f32,
    out_forces: *mut KeelBodyForces,
) -> KeelStatus {
    call("keel_world_step", || {
        // KeelBody and BodyId are both a transparent u64.
        let ids = unsafe { slice(bodies.cast::<BodyId>(), count, "bodies") }?;
        let states = unsafe { slice(states, count, "states") }?;
        let out = unsafe { slice_mut(out_forces, count, "out_forces") }?;
        with_world(world, |w| {
            w.step_bodies(
                ids,
                states,
                dt as f64,
                out,
                |s| BodyState::from(s),
                |f, o| *o = KeelBodyForces::from(f),
            )
        })
    })
}

/// The pose at which the body floats at rest on flat water, for spawning bodies already
/// settled and for stability checks. Starts from in_out_state's horizontal position and
/// heading (the centre of mass keeps its horizontal position, the body's forward axis
/// its compass direction); writes the equilibrium position and rotation (heave, heel and
/// trim solved for a stable rest: a body unstable upright is tipped to the attitude it
/// would capsize to), zero velocities and the world centre of mass. The water is taken
/// flat at the world's water height under the start's centre of mass. Fails with
/// KEEL_ERROR_INVALID_ARGUMENT if the hull is open or the body is too heavy to float.
///
/// # Safety
/// `in_out_state` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_find_equilibrium(
    world: KeelWorld,
    body: KeelBody,
    center_of_mass_local: KeelVec3,
    in_out_state: *mut KeelBodyState,
) -> KeelStatus {
    call("keel_body_find_equilibrium", || {
        let out = unsafe { output(in_out_state, "in_out_state") }?;
        let state = BodyState::from(&*out).validated()?;
        let com_local = center_of_mass_local.to_dvec3();
        if !com_local.is_finite() || com_local.abs().max_element() > crate::hull::MAX_VERTEX_COORDINATE as f64 {
            return Err(Error::argument(format!(
                "center_of_mass_local must be finite and within +-{:e} m, got {com_local}",
                crate::hull::MAX_VERTEX_COORDINATE
            )));
        }
        let start = crate::hydrostatics::Pose {
            position: state.position,
            rotation: state.rotation,
        };
        let eq = with_world(world, |w| {
            crate::hydrostatics::find_body_equilibrium(w, BodyId(body), com_local, &start)
        })?;
        let zero = KeelVec3::from(DVec3::ZERO);
        *out = KeelBodyState {
            position: KeelVec3::from(eq.pose.position),
            rotation: KeelQuat::from(eq.pose.rotation),
            linear_velocity: zero,
            angular_velocity: zero,
            center_of_mass: KeelVec3::from(eq.center_of_mass),
        };
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Detail of the last step. Two-call pattern: with out == NULL only *out_count is written
// (the number of elements needed) and the call succeeds; with too small a capacity
// nothing is copied, *out_count is the number needed and the call returns
// KEEL_ERROR_BUFFER_TOO_SMALL. Capacities and counts are in elements of `out`.

unsafe fn copy_detail<T>(
    needed: usize,
    items: impl Iterator<Item = T>,
    out: *mut T,
    capacity: u32,
    out_count: *mut u32,
) -> Result<()> {
    let count = unsafe { output(out_count, "out_count") }?;
    let needed = u32::try_from(needed).map_err(|_| Error::argument("the result does not fit a uint32_t count"))?;
    if out.is_null() {
        *count = needed;
        return Ok(());
    }
    if capacity < needed {
        *count = needed;
        return Err(Error::new(
            ErrorKind::BufferTooSmall,
            format!("capacity is {capacity} but {needed} elements are needed"),
        ));
    }
    let dst = unsafe { slice_mut(out, needed, "out") }?;
    for (d, s) in dst.iter_mut().zip(items) {
        *d = s;
    }
    *count = needed;
    Ok(())
}

/// The two-call pattern for world points grouped `N` to an item (3 per triangle, 2 per
/// waterline segment); capacities and counts are in points.
unsafe fn copy_points<const N: usize>(
    items: impl ExactSizeIterator<Item = [DVec3; N]>,
    out: *mut KeelVec3,
    capacity: u32,
    out_count: *mut u32,
) -> Result<()> {
    let needed = N * items.len();
    unsafe { copy_detail(needed, items.flatten().map(KeelVec3::from), out, capacity, out_count) }
}

/// (point, force) pairs, world, whose sum and moment about the centre of mass reproduce
/// the last step's force and torque, apart from the angular-damping couple.
/// Two calls: with out == NULL it returns KEEL_OK and writes only *out_count, the
/// pairs needed; with a capacity below that it returns KEEL_ERROR_BUFFER_TOO_SMALL,
/// writes *out_count and copies nothing.
///
/// # Safety
/// `out` is NULL or holds `capacity` elements; `out_count` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_get_triangle_forces(
    world: KeelWorld,
    body: KeelBody,
    out: *mut KeelTriangleForce,
    capacity: u32,
    out_count: *mut u32,
) -> KeelStatus {
    call("keel_body_get_triangle_forces", || {
        with_world(world, |w| {
            let mut b = w.body(BodyId(body))?;
            let items = b.triangle_forces().map(|f| KeelTriangleForce {
                point: f.point.into(),
                force: f.force.into(),
            });
            unsafe { copy_detail(items.len(), items, out, capacity, out_count) }
        })
    })
}

/// World-space submerged triangles of the last step, 3 vertices each (capacity and
/// *out_count count vertices), outward winding.
/// Two calls: with out_vertices == NULL it returns KEEL_OK and writes only *out_count, the
/// vertices needed; with a capacity below that it returns KEEL_ERROR_BUFFER_TOO_SMALL,
/// writes *out_count and copies nothing.
///
/// # Safety
/// `out_vertices` is NULL or holds `capacity` elements; `out_count` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_get_submerged_triangles(
    world: KeelWorld,
    body: KeelBody,
    out_vertices: *mut KeelVec3,
    capacity: u32,
    out_count: *mut u32,
) -> KeelStatus {
    call("keel_body_get_submerged_triangles", || {
        with_world(world, |w| {
            let mut b = w.body(BodyId(body))?;
            unsafe { copy_points(b.submerged_triangles(), out_vertices, capacity, out_count) }
        })
    })
}

/// World-space emerged triangles of the last step, 3 vertices each (capacity and
/// *out_count count vertices), outward winding.
/// Two calls: with out_vertices == NULL it returns KEEL_OK and writes only *out_count, the
/// vertices needed; with a capacity below that it returns KEEL_ERROR_BUFFER_TOO_SMALL,
/// writes *out_count and copies nothing.
///
/// # Safety
/// `out_vertices` is NULL or holds `capacity` elements; `out_count` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_get_emerged_triangles(
    world: KeelWorld,
    body: KeelBody,
    out_vertices: *mut KeelVec3,
    capacity: u32,
    out_count: *mut u32,
) -> KeelStatus {
    call("keel_body_get_emerged_triangles", || {
        with_world(world, |w| {
            let mut b = w.body(BodyId(body))?;
            unsafe { copy_points(b.emerged_triangles(), out_vertices, capacity, out_count) }
        })
    })
}

/// The waterline of the last step as segments, 2 points each (capacity and *out_count
/// count points), for foam and splash effects. On a closed hull the segments chain into
/// loops that run along the edge of the wetted surface.
/// Two calls: with out_points == NULL it returns KEEL_OK and writes only *out_count, the
/// points needed; with a capacity below that it returns KEEL_ERROR_BUFFER_TOO_SMALL,
/// writes *out_count and copies nothing.
///
/// # Safety
/// `out_points` is NULL or holds `capacity` elements; `out_count` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn keel_body_get_waterline(
    world: KeelWorld,
    body: KeelBody,
    out_points: *mut KeelVec3,
    capacity: u32,
    out_count: *mut u32,
) -> KeelStatus {
    call("keel_body_get_waterline", || {
        with_world(world, |w| {
            let mut b = w.body(BodyId(body))?;
            unsafe { copy_points(b.waterline(), out_points, capacity, out_count) }
        })
    })
}
