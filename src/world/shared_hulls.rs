//! Hulls shared by their geometry: two hulls made from the same mesh are one hull inside
//! a world, whatever buffers the host passed them in.
//!
//! A host that gives every body its own copy of a mesh (a Unity scene whose crates each
//! have their own `Mesh` object with the same box) would otherwise get a hull per body:
//! the same triangles laid out again for each, and bodies that cannot be stepped
//! together, since a batch groups bodies by hull ([`crate::body::LaneKey`]). 1024 boxes
//! each on their own copy of the mesh, in a batch, cost 23420 instructions per box
//! before, 9515 shared: what boxes of one mesh cost (callgrind, `benches/small.rs`
//! row `batch-own-meshes`, docs/PERFORMANCE.md).
//!
//! A new hull is looked up by its fingerprint (FNV-1a of the welded vertices and
//! triangles, [`Hull::fingerprint`]) and then compared in full, so that two meshes whose
//! fingerprints collide are never confused. The caller's handles stay distinct: each is a
//! slot of its own holding the shared `Arc`, counted here, and the shared hull is
//! forgotten with its last handle.

use std::collections::HashMap;
use std::sync::Arc;

use crate::hull::Hull;

/// The world's distinct hulls, by fingerprint, with how many handles hold each.
#[derive(Default)]
pub(super) struct SharedHulls {
    by_fingerprint: HashMap<u64, Vec<(Arc<Hull>, u32)>>,
    unique: usize,
}

impl SharedHulls {
    /// The hull of `hull`'s geometry already in the world, or `hull` itself, now shared;
    /// either way counted as held by one more handle.
    pub(super) fn share(&mut self, hull: Hull) -> Arc<Hull> {
        let same = self.by_fingerprint.entry(hull.fingerprint).or_default();
        if let Some((shared, handles)) = same.iter_mut().find(|(h, _)| same_hull(h, &hull)) {
            *handles += 1;
            return Arc::clone(shared);
        }
        let hull = Arc::new(hull);
        same.push((Arc::clone(&hull), 1));
        self.unique += 1;
        hull
    }

    /// One handle of `hull` is gone; the last one forgets it.
    pub(super) fn release(&mut self, hull: &Arc<Hull>) {
        let Some(same) = self.by_fingerprint.get_mut(&hull.fingerprint) else {
            return;
        };
        if let Some(k) = same.iter().position(|(h, _)| Arc::ptr_eq(h, hull)) {
            same[k].1 -= 1;
            if same[k].1 == 0 {
                same.swap_remove(k);
                self.unique -= 1;
            }
        }
        if same.is_empty() {
            self.by_fingerprint.remove(&hull.fingerprint);
        }
    }

    /// How many distinct hulls the world's handles hold.
    pub(super) fn unique_count(&self) -> usize {
        self.unique
    }
}

/// Whether two hulls are the same in everything a step or a caller reads: the welded
/// vertices bit for bit, the triangles, which triangle of the mesh passed in each one
/// came from (per-triangle answers name those), and the facts `hull_info` reports (the
/// vertex count passed in among them). The rest (areas aside, checked too as cheap
/// insurance) is computed from these by the same code.
fn same_hull(a: &Hull, b: &Hull) -> bool {
    let bits = |p: &glam::DVec3| p.to_array().map(f64::to_bits);
    a.fingerprint == b.fingerprint
        && a.positions.len() == b.positions.len()
        && a.positions.iter().zip(&b.positions).all(|(p, q)| bits(p) == bits(q))
        && a.triangles == b.triangles
        && a.source_triangles == b.source_triangles
        && a.areas
            .iter()
            .map(|s| s.to_bits())
            .eq(b.areas.iter().map(|s| s.to_bits()))
        && a.info == b.info
}
