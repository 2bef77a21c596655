//! A script's water: a `Callable` that answers heights for a batch of points.
//!
//! Keel's host water must be `Send + Sync`; a `Callable` is neither. The callable stays
//! in a table local to the thread that set it (Godot's main thread), and keel's query
//! holds only its key: keel asks a host's water from the thread that steps (the main
//! thread here), and a query from any other thread finds nothing and answers NaN, which
//! keel refuses with an error instead of calling into Godot from the wrong thread.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::DVec3;
use godot::prelude::*;
use keel::{Water, WaterQuery};

use crate::convert::{dvec3, vector3};

thread_local! {
    static CALLABLES: RefCell<HashMap<u64, Callable>> = RefCell::new(HashMap::new());
}

static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

/// The query keel holds.
#[derive(Debug)]
struct CallableWater {
    key: u64,
}

impl Drop for CallableWater {
    fn drop(&mut self) {
        // Dropped on another thread, the entry stays: one Callable, no harm.
        let _ = CALLABLES.try_with(|c| c.borrow_mut().remove(&self.key));
    }
}

impl WaterQuery for CallableWater {
    fn query(
        &self,
        points: &[DVec3],
        time: f64,
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        velocities: Option<&mut [DVec3]>,
    ) {
        heights.fill(f64::NAN);
        let Some(callable) = CALLABLES.with(|c| c.borrow().get(&self.key).cloned()) else {
            return;
        };
        let packed: PackedVector3Array = points.iter().map(|p| vector3(*p)).collect();
        let answer = callable.call(&[packed.to_variant(), time.to_variant()]);
        read_answer(&answer, heights, normals, velocities);
    }
}

/// Heights from a `PackedFloat32Array`, a `PackedFloat64Array`, or a `Dictionary` with
/// `heights` and optionally `normals` and `velocities` (`PackedVector3Array`s).
fn read_answer(answer: &Variant, heights: &mut [f64], normals: Option<&mut [DVec3]>, velocities: Option<&mut [DVec3]>) {
    let read_heights = |v: &Variant, heights: &mut [f64]| {
        if let Ok(h) = v.try_to::<PackedFloat64Array>() {
            heights.iter_mut().zip(h.as_slice()).for_each(|(o, h)| *o = *h);
        } else if let Ok(h) = v.try_to::<PackedFloat32Array>() {
            heights
                .iter_mut()
                .zip(h.as_slice())
                .for_each(|(o, h)| *o = f64::from(*h));
        }
    };
    let Ok(dict) = answer.try_to::<VarDictionary>() else {
        read_heights(answer, heights);
        fill_defaults(normals, velocities);
        return;
    };
    if let Some(h) = dict.get("heights") {
        read_heights(&h, heights);
    }
    let read_vectors = |key: &str, out: &mut [DVec3]| {
        if let Some(v) = dict.get(key).and_then(|v| v.try_to::<PackedVector3Array>().ok()) {
            out.iter_mut().zip(v.as_slice()).for_each(|(o, v)| *o = dvec3(*v));
        }
    };
    if let Some(n) = normals {
        n.fill(DVec3::Y);
        read_vectors("normals", n);
    }
    if let Some(v) = velocities {
        v.fill(DVec3::ZERO);
        read_vectors("velocities", v);
    }
}

fn fill_defaults(normals: Option<&mut [DVec3]>, velocities: Option<&mut [DVec3]>) {
    if let Some(n) = normals {
        n.fill(DVec3::Y);
    }
    if let Some(v) = velocities {
        v.fill(DVec3::ZERO);
    }
}

/// Keel water answered by `callable`, which must be called from this thread.
pub fn water(callable: Callable) -> Water {
    let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    CALLABLES.with(|c| c.borrow_mut().insert(key, callable));
    Water::Custom(Arc::new(CallableWater { key }))
}
