//! Kerner's triangle clipping against the water surface.
//!
//! Each vertex carries its height `d` above the water (negative under water). A triangle
//! is cut along its edges where `d` changes sign, at `t = d_u / (d_u - d_a)` from the
//! vertex under water `u` towards the vertex above `a`. Every cut edge is interpolated
//! from its under-water end, so the two triangles sharing an edge cut it at the same
//! point, bit for bit: the waterline is continuous and the clipped surface has no cracks.
//!
//! The pieces keep the winding of the triangle they come from, so their normals stay
//! outward. With `H` the vertex above and `B`, `C` the others in winding order
//! (`H, B, C`), one vertex above gives the submerged quad `(I_B, B, C, I_C)` split into two
//! triangles and the emerged triangle `(H, I_B, I_C)`; one vertex under water `L` gives
//! the submerged `(L, J_B, J_C)` and the emerged quad `(J_B, B, C, J_C)`. This is the case
//! table of Kerner's article (H >= M >= L), written without sorting. On flat water the
//! clipping is exact; on waves the surface is linear between the vertices of a triangle.

use glam::DVec3;

/// A triangle with the height above water of each vertex (negative under water).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tri {
    /// Vertices, in the winding of the original triangle.
    pub v: [DVec3; 3],
    /// Height above the water of each vertex: `y - water_height(x, z)`.
    pub height: [f64; 3],
}

impl Tri {
    /// `cross(b - a, c - a)`: outward normal times twice the area.
    pub fn scaled_normal(&self) -> DVec3 {
        (self.v[1] - self.v[0]).cross(self.v[2] - self.v[0])
    }

    /// Area, m^2.
    pub fn area(&self) -> f64 {
        0.5 * self.scaled_normal().length()
    }

    /// Centroid.
    pub fn centroid(&self) -> DVec3 {
        (self.v[0] + self.v[1] + self.v[2]) / 3.0
    }
}

/// The result of clipping one triangle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clipped {
    /// Pieces under water; the first `submerged_count` are valid.
    pub submerged: [Tri; 2],
    /// Number of valid pieces in `submerged` (0 to 2).
    pub submerged_count: usize,
    /// Pieces above water; the first `emerged_count` are valid.
    pub emerged: [Tri; 2],
    /// Number of valid pieces in `emerged` (0 to 2).
    pub emerged_count: usize,
    /// The waterline segment across the triangle, oriented along the boundary of the
    /// submerged part (so the segments of a closed hull chain into loops).
    pub waterline: Option<[DVec3; 2]>,
}

impl Clipped {
    /// The valid submerged pieces.
    pub fn submerged(&self) -> &[Tri] {
        &self.submerged[..self.submerged_count]
    }

    /// The valid emerged pieces.
    pub fn emerged(&self) -> &[Tri] {
        &self.emerged[..self.emerged_count]
    }
}

/// Where the edge from `u` (under water) to `a` (at or above water) meets the surface.
#[inline]
fn cut(u: DVec3, du: f64, a: DVec3, da: f64) -> DVec3 {
    let t = du / (du - da);
    u + t * (a - u)
}

/// Clips `tri` against the water: a vertex is under water when its height is < 0.
pub fn clip(tri: &Tri) -> Clipped {
    let under = [tri.height[0] < 0.0, tri.height[1] < 0.0, tri.height[2] < 0.0];
    // Each case fills every slot, the spare ones with a copy of a valid piece, rather than
    // zeroing 400 bytes first (a call of `memset` per cut triangle).
    match under.iter().filter(|&&u| u).count() {
        3 => Clipped {
            submerged: [*tri; 2],
            submerged_count: 1,
            emerged: [*tri; 2],
            emerged_count: 0,
            waterline: None,
        },
        0 => Clipped {
            submerged: [*tri; 2],
            submerged_count: 0,
            emerged: [*tri; 2],
            emerged_count: 1,
            waterline: None,
        },
        2 => {
            // Rotate (keeping the winding) so that the vertex above comes first.
            let first = under.iter().position(|&u| !u).unwrap_or(0);
            let [(h, dh), (b, db), (c, dc)] = rotated(tri, first);
            let ib = cut(b, db, h, dh);
            let ic = cut(c, dc, h, dh);
            let above = Tri {
                v: [h, ib, ic],
                height: [dh, 0.0, 0.0],
            };
            Clipped {
                submerged: [
                    Tri {
                        v: [ib, b, c],
                        height: [0.0, db, dc],
                    },
                    Tri {
                        v: [ib, c, ic],
                        height: [0.0, dc, 0.0],
                    },
                ],
                submerged_count: 2,
                emerged: [above, above],
                emerged_count: 1,
                waterline: Some([ic, ib]),
            }
        }
        _ => {
            // One vertex under water: rotate it to the front.
            let first = under.iter().position(|&u| u).unwrap_or(0);
            let [(l, dl), (b, db), (c, dc)] = rotated(tri, first);
            let jb = cut(l, dl, b, db);
            let jc = cut(l, dl, c, dc);
            let below = Tri {
                v: [l, jb, jc],
                height: [dl, 0.0, 0.0],
            };
            Clipped {
                submerged: [below, below],
                submerged_count: 1,
                emerged: [
                    Tri {
                        v: [jb, b, c],
                        height: [0.0, db, dc],
                    },
                    Tri {
                        v: [jb, c, jc],
                        height: [0.0, dc, 0.0],
                    },
                ],
                emerged_count: 2,
                waterline: Some([jb, jc]),
            }
        }
    }
}

#[inline]
fn rotated(tri: &Tri, first: usize) -> [(DVec3, f64); 3] {
    let at = |k: usize| (tri.v[(first + k) % 3], tri.height[(first + k) % 3]);
    [at(0), at(1), at(2)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forces::kernel_tests::Lcg;

    fn flat(v: [DVec3; 3], level: f64) -> Tri {
        Tri {
            v,
            height: v.map(|p| p.y - level),
        }
    }

    #[test]
    fn pieces_tile_the_triangle_keep_its_normal_and_respect_the_water() {
        let mut rng = Lcg(7);
        for _ in 0..10_000 {
            let tri = flat([rng.vec(), rng.vec(), rng.vec()], rng.next() * 0.8);
            let level = tri.v[0].y - tri.height[0];
            let clipped = clip(&tri);
            let n = tri.scaled_normal();
            let pieces = clipped.submerged().iter().chain(clipped.emerged());
            let area: f64 = pieces.clone().map(Tri::area).sum();
            assert!(
                (area - tri.area()).abs() <= 1e-12 * (1.0 + tri.area()),
                "area not preserved"
            );
            for piece in pieces {
                // Same orientation: the scaled normals point the same way (or vanish).
                assert!(piece.scaled_normal().dot(n) >= -1e-15, "winding flipped");
            }
            for piece in clipped.submerged() {
                for (p, h) in piece.v.iter().zip(piece.height) {
                    assert!(p.y <= level + 1e-12 && h <= 0.0);
                    assert!((p.y - level - h).abs() < 1e-12);
                }
            }
            for piece in clipped.emerged() {
                for p in piece.v {
                    assert!(p.y >= level - 1e-12);
                }
            }
            let cut = tri.height.iter().any(|&h| h < 0.0) && tri.height.iter().any(|&h| h >= 0.0);
            assert_eq!(clipped.waterline.is_some(), cut);
            if let Some(segment) = clipped.waterline {
                for p in segment {
                    assert!((p.y - level).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn a_shared_edge_is_cut_at_the_same_point_from_both_sides() {
        let mut rng = Lcg(11);
        for _ in 0..1000 {
            let (p, q) = (rng.vec(), rng.vec());
            let (r, s) = (rng.vec(), rng.vec());
            let level = 0.5 * (p.y + q.y);
            // (p, q, r) and (q, p, s) share the edge p-q, walked in opposite directions.
            let first = clip(&flat([p, q, r], level));
            let second = clip(&flat([q, p, s], level));
            if (p.y < level) == (q.y < level) {
                continue;
            }
            let ends = |c: &Clipped| c.waterline.unwrap();
            let on_edge = |x: DVec3| (x - p).cross(q - p).length() < 1e-9;
            let a = ends(&first).into_iter().find(|&x| on_edge(x)).unwrap();
            let b = ends(&second).into_iter().find(|&x| on_edge(x)).unwrap();
            assert_eq!(a, b, "the cut must be bit-identical");
        }
    }

    #[test]
    fn the_waterline_runs_along_the_submerged_boundary() {
        // Triangle in the plane z = 0, normal +z, cut by the water at y = 0.
        let tri = flat(
            [
                DVec3::new(0.0, -1.0, 0.0),
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::new(-1.0, 1.0, 0.0),
            ],
            0.0,
        );
        let [from, to] = clip(&tri).waterline.unwrap();
        // Walking the boundary counter-clockwise about +z, the submerged part (below)
        // is on the left: the segment goes from x > 0 to x < 0 on its top edge... it is
        // the edge (J_B, J_C) of the submerged piece (L, J_B, J_C).
        assert!(from.x > 0.0 && to.x < 0.0);
        let up = flat(tri.v.map(|p| DVec3::new(p.x, -p.y, p.z)), 0.0);
        // Mirrored in y the triangle winds the other way: one vertex above, two under.
        let [from, to] = clip(&up).waterline.unwrap();
        assert!(from.x < 0.0 && to.x > 0.0);
    }
}
