//! The host's water behind a C function pointer.

use std::ffi::c_void;
use std::sync::{Mutex, PoisonError};

use glam::DVec3;

use super::types::KeelVec3;
use crate::water::WaterQuery;

/// Buffers in the layout of the C callback, reused from call to call.
#[derive(Debug, Default)]
struct Buffers {
    points: Vec<KeelVec3>,
    heights: Vec<f32>,
    normals: Vec<KeelVec3>,
    velocities: Vec<KeelVec3>,
}

/// A `KeelWaterQuery` and its user data.
#[derive(Debug)]
pub(crate) struct CallbackWater {
    query: unsafe extern "C" fn(*mut c_void, *const KeelVec3, u32, *mut f32, *mut KeelVec3, *mut KeelVec3),
    user_data: *mut c_void,
    buffers: Mutex<Buffers>,
}

// SAFETY: keel only calls the callback from one thread at a time (world calls are
// serialised, and batches ask the host's water from the calling thread), which is what
// keel_water_set_callback promises the host; the pointer itself is never dereferenced.
unsafe impl Send for CallbackWater {}
unsafe impl Sync for CallbackWater {}

impl CallbackWater {
    pub(crate) fn new(
        query: unsafe extern "C" fn(*mut c_void, *const KeelVec3, u32, *mut f32, *mut KeelVec3, *mut KeelVec3),
        user_data: *mut c_void,
    ) -> Self {
        Self {
            query,
            user_data,
            buffers: Mutex::new(Buffers::default()),
        }
    }
}

fn to_f32(v: DVec3) -> KeelVec3 {
    KeelVec3::from(v)
}

impl WaterQuery for CallbackWater {
    fn query(
        &self,
        points: &[DVec3],
        _time: f64,
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        velocities: Option<&mut [DVec3]>,
    ) {
        let mut b = self.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        let b = &mut *b;
        let n = points.len();
        b.points.clear();
        b.points.extend(points.iter().map(|p| to_f32(*p)));
        // Filled with NaN so that a callback that forgets an output is caught.
        b.heights.clear();
        b.heights.resize(n, f32::NAN);
        let nan = KeelVec3 {
            x: f32::NAN,
            y: f32::NAN,
            z: f32::NAN,
        };
        b.normals.clear();
        b.velocities.clear();
        if normals.is_some() {
            b.normals.resize(n, nan);
        }
        if velocities.is_some() {
            b.velocities.resize(n, nan);
        }
        let out = |v: &mut Vec<KeelVec3>, wanted: bool| if wanted { v.as_mut_ptr() } else { std::ptr::null_mut() };
        let (normals_ptr, velocities_ptr) = (
            out(&mut b.normals, normals.is_some()),
            out(&mut b.velocities, velocities.is_some()),
        );
        // The count fits: bodies and patches have fewer than 2^32 points.
        // SAFETY: every buffer holds `n` elements; the host promised a callable function.
        unsafe {
            (self.query)(
                self.user_data,
                b.points.as_ptr(),
                n as u32,
                b.heights.as_mut_ptr(),
                normals_ptr,
                velocities_ptr,
            )
        };
        for (h, v) in heights.iter_mut().zip(&b.heights) {
            *h = *v as f64;
        }
        if let Some(normals) = normals {
            normals.iter_mut().zip(&b.normals).for_each(|(o, v)| *o = v.to_dvec3());
        }
        if let Some(velocities) = velocities {
            velocities
                .iter_mut()
                .zip(&b.velocities)
                .for_each(|(o, v)| *o = v.to_dvec3());
        }
    }
}
