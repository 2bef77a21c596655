//! Hulls: validated, immutable triangle meshes in body-local coordinates.
//!
//! A hull welds coincident vertices (engines split vertices at UV seams and hard edges:
//! Unity's cube has 24), drops zero-area triangles, decides whether the mesh is closed,
//! turns inside-out closed meshes right side out, and precomputes what every step needs.
//!
//! Volume and centroid use the divergence theorem over the triangles, relative to a
//! reference point `o` near the mesh (Bourg, ch. 8; Nurnberg 2013), with
//! `n' = (b - a) x (c - a)`:
//!
//! ```text
//! V   = 1/6 sum (a - o) . n'
//! c_d = 1/(48 V) sum n'_d ((a+b)_d^2 + (b+c)_d^2 + (c+a)_d^2)   (coordinates relative to o)
//! ```

pub mod clip;
pub(crate) mod flat_moments;
pub mod inertia;

use std::collections::HashMap;

use glam::{DMat3, DVec3, Vec3};

use crate::error::{Error, Result};

/// Triangles per block of the columns ([`TriangleColumns`]), the unit of the step's
/// loops: the block's per-triangle results (a few kB) stay in L1.
pub(crate) const BLOCK: usize = 32;

/// Vertices closer than this fraction of the mesh's scale are one vertex. Seams of
/// generated meshes differ by float rounding (sin 2pi is not 0 in f32: 1.7e-7).
const WELD_TOLERANCE: f64 = 1e-5;
/// A triangle whose height over its longest edge is below this fraction of the mesh's
/// scale is zero within f32 rounding (eight ulps) and is skipped.
const DEGENERATE_TOLERANCE: f64 = 1e-6;

/// A boat-like closed hull, the ready-made hull of demos and tests: `stations`
/// cross-sections lofted along Z from a transom (z = -length/2) to a sharp bow
/// (z = +length/2), each a rounded V of `points` segments from the deck (y = freeboard)
/// down to the keel (y = -depth), closed by a flat deck and a transom:
/// `stations * (2 points + 2) + points - 1` triangles wound outward. The beam is 75 % of
/// `beam` at the transom, all of it a third of the way forward, zero at the bow; the keel
/// rises 30 % towards the bow.
pub fn boat_mesh(
    length: f32,
    beam: f32,
    depth: f32,
    freeboard: f32,
    stations: u32,
    points: u32,
) -> (Vec<Vec3>, Vec<u32>) {
    let mut vertices = Vec::new();
    for k in 0..=stations {
        let s = k as f32 / stations as f32;
        let z = -length / 2.0 + s * length;
        let half_beam = beam / 2.0 * (0.6 + 1.2 * s - 1.8 * s * s) / 0.8;
        let half_beam = if k == stations { 0.0 } else { half_beam };
        for p in 0..=points {
            let angle = std::f32::consts::PI * (p as f32 / points as f32);
            let keel_depth = depth * (1.0 - 0.3 * s * s);
            vertices.push(Vec3::new(
                half_beam * angle.cos(),
                freeboard - (freeboard + keel_depth) * angle.sin(),
                z,
            ));
        }
    }
    let ring = points + 1;
    let mut indices = Vec::new();
    for k in 0..stations {
        for p in 0..points {
            let a = k * ring + p;
            indices.extend_from_slice(&[a, a + ring, a + ring + 1, a, a + ring + 1, a + 1]);
        }
        // The deck, from the port edge (p = points) to the starboard edge (p = 0).
        let a = k * ring + points;
        indices.extend_from_slice(&[a, a + ring, k * ring + ring, a, k * ring + ring, k * ring]);
    }
    // The transom (k = 0): a fan over the section polygon.
    for p in 1..points {
        indices.extend_from_slice(&[0, p, p + 1]);
    }
    (vertices, indices)
}

/// A box of `size` centred on the origin: 8 vertices and 12 triangles wound outward, a
/// ready-made hull for crates, rafts and barges.
pub fn box_mesh(size: Vec3) -> (Vec<Vec3>, Vec<u32>) {
    let vertices = (0..8)
        .map(|i| (Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) - 0.5) * size)
        .collect();
    // Faces -x, +x, -y, +y, -z, +z as quads, each split into two triangles.
    let quads = [
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ];
    let indices = quads
        .iter()
        .flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]])
        .collect();
    (vertices, indices)
}

/// The farthest a hull vertex may be from the body's origin, m.
pub const MAX_VERTEX_COORDINATE: f32 = 1e6;

/// What a host passes to create a hull.
#[derive(Clone, Copy, Debug)]
pub struct HullDesc<'a> {
    /// Vertex positions in body-local coordinates, scale baked in.
    pub vertices: &'a [Vec3],
    /// Three indices per triangle; the outward normal is `cross(b - a, c - a)`.
    pub indices: &'a [u32],
    /// Reverse every triangle first (Godot's meshes wind the other way).
    pub flip_winding: bool,
}

/// Facts about a hull, as the C ABI's `KeelHullInfo` reports them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullInfo {
    /// Vertices passed in.
    pub vertex_count: u32,
    /// Usable triangles.
    pub triangle_count: u32,
    /// Zero-area triangles, skipped.
    pub degenerate_count: u32,
    /// Every edge shared by exactly two triangles, running opposite ways (judged on
    /// welded positions).
    pub is_closed: bool,
    /// A closed piece of the mesh was inside out and has been turned right side out.
    pub winding_flipped: bool,
    /// Triangles wound against their neighbours, turned to agree with them (the
    /// majority of each connected piece keeps its winding).
    pub reoriented_count: u32,
    /// Total area of the usable triangles, m^2.
    pub area: f64,
    /// Enclosed volume, m^3, for closed hulls; 0 for open ones.
    pub volume: f64,
    /// Volume centroid for closed hulls with a volume, area centroid otherwise.
    pub centroid: DVec3,
    /// Axis-aligned bounds of the vertices used by triangles.
    pub bounds_min: DVec3,
    /// Axis-aligned bounds of the vertices used by triangles.
    pub bounds_max: DVec3,
}

/// A validated hull, shared by the bodies that use it.
#[derive(Clone, Debug)]
pub struct Hull {
    /// Welded vertex positions used by the usable triangles.
    pub(crate) positions: Vec<DVec3>,
    /// Usable triangles, as indices into `positions`, outward winding.
    pub(crate) triangles: Vec<[u32; 3]>,
    /// Area of each usable triangle.
    pub(crate) areas: Vec<f64>,
    /// For each usable triangle, its index in the mesh that was passed in.
    pub(crate) source_triangles: Vec<u32>,
    /// Inertia tensor per kg about `info.centroid`, local axes: of the solid for hulls
    /// with a volume, of a uniform shell otherwise.
    pub(crate) unit_inertia: DMat3,
    pub(crate) info: HullInfo,
    /// The triangles as columns, laid out for the step's loops.
    pub(crate) columns: TriangleColumns,
    /// FNV-1a of `positions` and `triangles`: a snapshot's hull ([`crate::snapshot`]).
    pub(crate) fingerprint: u64,
}

/// A hull's triangles as the step's loops read them ([`crate::loops::whole`]): one
/// column per number, so that consecutive triangles sit in consecutive memory.
///
/// The columns are padded to a multiple of [`TriangleColumns::PADDING`] with triangles
/// of no area, all three corners on one vertex: they are never cut, and every force and
/// sum on them is zero. The vector loops then never end on a scalar remainder, which on a
/// 12-triangle box cost more than the vector part.
#[derive(Clone, Debug, Default)]
pub(crate) struct TriangleColumns {
    /// `corners[k][axis][j]`: corner `k` of triangle `j`, local coordinates, in single
    /// precision: every hull vertex is one the host passed as `f32` (welding keeps one of
    /// the points it joins), so this is exact, and it halves the bytes the loops read
    /// most (a big hull's columns are read from the L2 cache at every step).
    pub corners: [[Vec<f32>; 3]; 3],
    /// `indices[k][j]`: the vertex at corner `k` of triangle `j`.
    pub indices: [Vec<u32>; 3],
    pub area: Vec<f64>,
    /// Centroid and outward unit normal, local coordinates.
    pub centroid: [Vec<f64>; 3],
    pub normal: [Vec<f64>; 3],
    /// The squared distance from the centroid to the farthest corner.
    pub radius_squared: Vec<f64>,
    /// Per block of [`BLOCK`] rows, the box around its
    /// corners: centre and half extent (a block above flat water skips its corners'
    /// heights).
    pub block_bounds: Vec<[DVec3; 2]>,
    /// Per block, the moments that give its hydrostatics under flat water when it is
    /// wholly wet ([`crate::hull::flat_moments`]).
    pub block_moments: Vec<crate::hull::flat_moments::BlockMoments>,
}

impl TriangleColumns {
    /// The row count is a multiple of this (the widest vector's lanes).
    pub const PADDING: usize = 8;

    fn new(positions: &[DVec3], triangles: &[[u32; 3]], areas: &[f64]) -> Self {
        let padded = triangles.len().next_multiple_of(Self::PADDING);
        let filler = triangles.first().map_or([0; 3], |t| [t[0]; 3]);
        let mut triangles = triangles.to_vec();
        triangles.resize(padded, filler);
        let mut areas = areas.to_vec();
        areas.resize(padded, 0.0);
        let corners: Vec<[DVec3; 3]> = triangles.iter().map(|t| t.map(|i| positions[i as usize])).collect();
        let centroids: Vec<DVec3> = corners.iter().map(|[a, b, c]| (*a + *b + *c) * (1.0 / 3.0)).collect();
        let normals: Vec<DVec3> = corners
            .iter()
            .zip(&areas)
            .map(|([a, b, c], &area)| {
                if area > 0.0 {
                    (*b - *a).cross(*c - *a) / (2.0 * area)
                } else {
                    DVec3::ZERO
                }
            })
            .collect();
        let block_moments = (0..padded)
            .step_by(BLOCK)
            .map(|start| {
                let rows = start..(start + BLOCK).min(padded);
                crate::hull::flat_moments::BlockMoments::of(rows.map(|j| crate::hull::flat_moments::Row {
                    corners: corners[j],
                    normal: normals[j],
                    area: areas[j],
                    centroid: centroids[j],
                }))
            })
            .collect();
        Self {
            corners: std::array::from_fn(|k| {
                std::array::from_fn(|axis| {
                    triangles
                        .iter()
                        .map(|t| {
                            let value = positions[t[k] as usize][axis];
                            debug_assert_eq!(f64::from(value as f32), value, "a hull vertex is not an f32");
                            value as f32
                        })
                        .collect()
                })
            }),
            indices: std::array::from_fn(|k| triangles.iter().map(|t| t[k]).collect()),
            area: areas,
            centroid: std::array::from_fn(|axis| centroids.iter().map(|c| c[axis]).collect()),
            normal: std::array::from_fn(|axis| normals.iter().map(|n| n[axis]).collect()),
            radius_squared: corners
                .iter()
                .zip(&centroids)
                .map(|(t, c)| t.iter().map(|p| (*p - *c).length_squared()).fold(0.0, f64::max))
                .collect(),
            block_bounds: corners
                .chunks(BLOCK)
                .map(|block| {
                    let (min, max) = bounds(block.iter().flatten().copied());
                    [(min + max) * 0.5, (max - min) * 0.5]
                })
                .collect(),
            block_moments,
        }
    }

    /// Rows, padding included.
    pub fn len(&self) -> usize {
        self.area.len()
    }
}

impl Hull {
    /// Validates a mesh and builds the hull, or says what is wrong with the mesh.
    pub fn new(desc: &HullDesc<'_>) -> Result<Self> {
        let HullDesc {
            vertices,
            indices,
            flip_winding,
        } = *desc;
        check_mesh(vertices, indices)?;
        let input: Vec<DVec3> = vertices.iter().map(|v| v.as_dvec3()).collect();
        let (min, max) = bounds(indices.iter().map(|&i| input[i as usize]));
        let scale = (max - min)
            .length()
            .max(min.abs().max_element())
            .max(max.abs().max_element());
        if scale == 0.0 {
            return Err(Error::mesh("no usable triangle: every vertex is at the origin"));
        }

        let welded = weld(&input, indices, WELD_TOLERANCE * scale);
        let mut usable = usable_triangles(&welded, indices, flip_winding, scale)?;
        // Make the winding consistent across every edge, and every closed piece outward.
        // Zero-area triangles take no part: a sliver lying along an edge would make it
        // look non-manifold.
        let topology = orient(&mut usable.triangles, &welded.positions);
        let is_closed = topology.closed;
        let (
            positions,
            Usable {
                triangles,
                areas,
                source_triangles,
                degenerate_count,
            },
        ) = by_height(usable, &welded.positions);

        let area: f64 = areas.iter().sum();
        let area_centroid = triangles
            .iter()
            .zip(&areas)
            .map(|(t, &s)| s * (positions[t[0] as usize] + positions[t[1] as usize] + positions[t[2] as usize]) / 3.0)
            .sum::<DVec3>()
            / area;
        let (bounds_min, bounds_max) = bounds(positions.iter().copied());
        let winding_flipped = topology.inside_out;
        let mut volume = 0.0;
        let mut centroid = area_centroid;
        if is_closed {
            let origin = 0.5 * (bounds_min + bounds_max);
            let (v, c) = volume_and_centroid(&positions, &triangles, origin);
            // A closed surface can enclose nothing (a double-sided sheet).
            if v > 1e-12 * (bounds_max - bounds_min).length().powi(3) {
                volume = v;
                centroid = c;
            }
        }

        let unit_inertia = unit_inertia(&positions, &triangles, centroid, volume > 0.0);
        let info = HullInfo {
            vertex_count: vertices.len() as u32,
            triangle_count: triangles.len() as u32,
            degenerate_count,
            is_closed,
            winding_flipped,
            reoriented_count: topology.reoriented,
            area,
            volume,
            centroid,
            bounds_min,
            bounds_max,
        };
        Ok(Self {
            columns: TriangleColumns::new(&positions, &triangles, &areas),
            fingerprint: crate::snapshot::hull_fingerprint(&positions, &triangles),
            positions,
            triangles,
            areas,
            source_triangles,
            unit_inertia,
            info,
        })
    }

    /// Facts about the hull.
    pub fn info(&self) -> &HullInfo {
        &self.info
    }

    /// Welded vertex positions used by the triangles.
    pub fn positions(&self) -> &[DVec3] {
        &self.positions
    }

    /// Usable triangles as indices into [`Hull::positions`], outward winding.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// For each usable triangle, its index among the triangles passed in.
    pub fn source_triangles(&self) -> &[u32] {
        &self.source_triangles
    }

    /// Area of each usable triangle, m^2.
    pub fn areas(&self) -> &[f64] {
        &self.areas
    }

    /// Inertia tensor per kg about the centroid, local axes (solid if the hull has a
    /// volume, uniform shell otherwise).
    pub fn unit_inertia(&self) -> DMat3 {
        self.unit_inertia
    }

    /// Whether the hull encloses a volume (closed, and not a flat sheet).
    pub fn has_volume(&self) -> bool {
        self.info.volume > 0.0
    }
}

fn bounds(points: impl Iterator<Item = DVec3>) -> (DVec3, DVec3) {
    points.fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p), hi.max(p))
    })
}

/// Volume and volume centroid of a closed, consistently wound surface (module docs).
pub(crate) fn volume_and_centroid(positions: &[DVec3], triangles: &[[u32; 3]], origin: DVec3) -> (f64, DVec3) {
    let mut six_volume = 0.0;
    let mut moment = DVec3::ZERO;
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize] - origin);
        let n = (b - a).cross(c - a);
        six_volume += a.dot(n);
        let (ab, bc, ca) = (a + b, b + c, c + a);
        moment += n * (ab * ab + bc * bc + ca * ca);
    }
    let volume = six_volume / 6.0;
    let centroid = if volume != 0.0 {
        origin + moment / (48.0 * volume)
    } else {
        origin
    };
    (volume, centroid)
}

fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

/// Inertia per unit mass about `centre`: `I = tr(C) 1 - C` with the covariance
/// `C = integral of r r^T` over the solid (tetrahedra from `centre`:
/// `det / 120 (a a^T + b b^T + c c^T + s s^T)`, `s = a + b + c`) or over the surface
/// (`S / 12 (...)` per triangle), divided by the volume or the area.
fn unit_inertia(positions: &[DVec3], triangles: &[[u32; 3]], centre: DVec3, solid: bool) -> DMat3 {
    let mut covariance = DMat3::ZERO;
    let mut total = 0.0;
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize] - centre);
        let s = a + b + c;
        let sum = outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s);
        let weight = if solid {
            a.dot(b.cross(c)) / 6.0
        } else {
            0.5 * (b - a).cross(c - a).length()
        };
        covariance += sum * (weight / if solid { 20.0 } else { 12.0 });
        total += weight;
    }
    let c = covariance * (1.0 / total);
    DMat3::from_diagonal(DVec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c
}
/// The checks a host's buffers must pass before any geometry is made of them.
fn check_mesh(vertices: &[Vec3], indices: &[u32]) -> Result<()> {
    if !indices.len().is_multiple_of(3) {
        return Err(Error::mesh(format!(
            "index_count must be a multiple of 3, got {}",
            indices.len()
        )));
    }
    if indices.is_empty() {
        return Err(Error::mesh("the mesh has no triangle (index_count is 0)"));
    }
    if vertices.len() > u32::MAX as usize || indices.len() > u32::MAX as usize {
        return Err(Error::mesh("the mesh is too large"));
    }
    if let Some(i) = indices.iter().position(|&i| i as usize >= vertices.len()) {
        return Err(Error::mesh(format!(
            "index {} (at position {i}) is out of range: there are {} vertices",
            indices[i],
            vertices.len()
        )));
    }
    if let Some(i) = vertices.iter().position(|v| !v.is_finite()) {
        return Err(Error::mesh(format!("vertex {i} is not finite: {:?}", vertices[i])));
    }
    if let Some(i) = vertices
        .iter()
        .position(|v| v.abs().max_element() > MAX_VERTEX_COORDINATE)
    {
        return Err(Error::mesh(format!(
            "vertex {i} {:?} is more than {MAX_VERTEX_COORDINATE:e} m from the hull's origin: hull vertices are \
             body-local, in metres",
            vertices[i]
        )));
    }
    Ok(())
}

/// The triangles of a welded mesh that have an area, in the host's order.
struct Usable {
    /// Welded vertex ids, wound as the host asked.
    triangles: Vec<[u32; 3]>,
    areas: Vec<f64>,
    /// Each triangle's index in the host's index buffer.
    source_triangles: Vec<u32>,
    /// Triangles dropped for having no area (or repeated corners).
    degenerate_count: u32,
}

/// The host's triangles on welded vertices, without those of (relatively) zero area.
fn usable_triangles(welded: &Welded, indices: &[u32], flip_winding: bool, scale: f64) -> Result<Usable> {
    let mut usable = Usable {
        triangles: Vec::with_capacity(indices.len() / 3),
        areas: Vec::with_capacity(indices.len() / 3),
        source_triangles: Vec::with_capacity(indices.len() / 3),
        degenerate_count: 0,
    };
    for (t, tri) in indices.chunks_exact(3).enumerate() {
        let mut ids = [
            welded.ids[tri[0] as usize],
            welded.ids[tri[1] as usize],
            welded.ids[tri[2] as usize],
        ];
        if flip_winding {
            ids.swap(1, 2);
        }
        let distinct = ids[0] != ids[1] && ids[1] != ids[2] && ids[2] != ids[0];
        let [a, b, c] = ids.map(|i| welded.positions[i as usize]);
        let twice_area = (b - a).cross(c - a).length();
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        if !distinct || twice_area <= DEGENERATE_TOLERANCE * scale * longest {
            usable.degenerate_count += 1;
            continue;
        }
        usable.triangles.push(ids);
        usable.areas.push(0.5 * twice_area);
        usable.source_triangles.push(t as u32);
    }
    if usable.triangles.is_empty() {
        return Err(Error::mesh(format!(
            "no usable triangle: all {} triangles have zero area",
            indices.len() / 3
        )));
    }
    Ok(usable)
}

/// The triangles in order of height along the hull's own up axis, on only the vertices
/// they use (renumbered), and those vertices: a floating hull's wet and dry triangles
/// then come in long runs, and the step's loops skip or specialise whole blocks of them
/// (`crate::loops::whole`); every kept vertex is transformed every step. Stable, so
/// that equal heights keep the mesh's order.
fn by_height(usable: Usable, welded_positions: &[DVec3]) -> (Vec<DVec3>, Usable) {
    let Usable {
        triangles,
        areas,
        source_triangles,
        degenerate_count,
    } = usable;
    let mut order: Vec<usize> = (0..triangles.len()).collect();
    let height = |t: &[u32; 3]| t.iter().map(|&i| welded_positions[i as usize].y).sum::<f64>();
    order.sort_by(|&a, &b| height(&triangles[a]).total_cmp(&height(&triangles[b])));
    let mut sorted: Vec<[u32; 3]> = order.iter().map(|&k| triangles[k]).collect();
    let areas: Vec<f64> = order.iter().map(|&k| areas[k]).collect();
    let source_triangles: Vec<u32> = order.iter().map(|&k| source_triangles[k]).collect();
    let mut remap = vec![u32::MAX; welded_positions.len()];
    let mut positions = Vec::new();
    for tri in &mut sorted {
        for id in tri.iter_mut() {
            if remap[*id as usize] == u32::MAX {
                remap[*id as usize] = positions.len() as u32;
                positions.push(welded_positions[*id as usize]);
            }
            *id = remap[*id as usize];
        }
    }
    let usable = Usable {
        triangles: sorted,
        areas,
        source_triangles,
        degenerate_count,
    };
    (positions, usable)
}

struct Welded {
    /// For every input vertex, its welded id.
    ids: Vec<u32>,
    /// Position of every welded id.
    positions: Vec<DVec3>,
}

/// Merges vertices closer than `tolerance` into the first of them, with a hash grid.
fn weld(input: &[DVec3], indices: &[u32], tolerance: f64) -> Welded {
    let cell = |p: DVec3| (p / tolerance).floor().as_i64vec3().to_array();
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    let mut ids = vec![u32::MAX; input.len()];
    let mut positions: Vec<DVec3> = Vec::new();
    for &index in indices {
        let index = index as usize;
        if ids[index] != u32::MAX {
            continue;
        }
        let p = input[index];
        let home = cell(p);
        let mut found = None;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let key = [home[0] + dx, home[1] + dy, home[2] + dz];
                    if let Some(candidates) = grid.get(&key) {
                        for &id in candidates {
                            if positions[id as usize] == p || (positions[id as usize] - p).length() <= tolerance {
                                found = Some(id);
                                break 'search;
                            }
                        }
                    }
                }
            }
        }
        ids[index] = match found {
            Some(id) => id,
            None => {
                let id = positions.len() as u32;
                positions.push(p);
                grid.entry(home).or_default().push(id);
                id
            }
        };
    }
    Welded { ids, positions }
}

/// What [`orient`] found out about a mesh.
struct Topology {
    /// Every edge is shared by exactly two triangles running opposite ways.
    closed: bool,
    /// Some closed piece was inside out and was flipped.
    inside_out: bool,
    /// Triangles turned to agree with their neighbours.
    reoriented: u32,
}

/// Orients the triangles consistently: across every edge shared by exactly two
/// triangles, the two must run it in opposite directions. Each connected piece is walked
/// breadth first from its first triangle; a piece keeps the winding most of its triangles
/// had (the artist's intent), and a closed piece found inside out (negative volume) is
/// turned right side out. A non-orientable piece keeps its first answer.
fn orient(triangles: &mut [[u32; 3]], positions: &[DVec3]) -> Topology {
    let n = triangles.len();
    // (low vertex, high vertex, triangle, runs low -> high)
    let mut edges: Vec<(u32, u32, u32, bool)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, &[a, b, c])| [(a, b), (b, c), (c, a)].map(|(p, q)| (p.min(q), p.max(q), t as u32, p < q)))
        .collect();
    edges.sort_unstable();
    // Neighbours across manifold edges: (other triangle, same direction?).
    let mut neighbours: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
    let mut open = vec![false; n];
    let mut i = 0;
    while i < edges.len() {
        let mut j = i + 1;
        while j < edges.len() && (edges[j].0, edges[j].1) == (edges[i].0, edges[i].1) {
            j += 1;
        }
        if j - i == 2 {
            let (a, b) = (edges[i], edges[i + 1]);
            let same = a.3 == b.3;
            neighbours[a.2 as usize].push((b.2, same));
            neighbours[b.2 as usize].push((a.2, same));
        } else {
            for e in &edges[i..j] {
                open[e.2 as usize] = true;
            }
        }
        i = j;
    }

    let mut flip = vec![false; n];
    let mut piece = vec![u32::MAX; n];
    let mut topology = Topology {
        closed: n > 0,
        inside_out: false,
        reoriented: 0,
    };
    let mut queue = std::collections::VecDeque::new();
    for start in 0..n {
        if piece[start] != u32::MAX {
            continue;
        }
        let mut members = vec![start];
        piece[start] = start as u32;
        queue.push_back(start);
        while let Some(t) = queue.pop_front() {
            for &(u, same) in &neighbours[t] {
                let u = u as usize;
                if piece[u] == u32::MAX {
                    piece[u] = start as u32;
                    // Running the shared edge the same way means one of them is flipped.
                    flip[u] = flip[t] ^ same;
                    members.push(u);
                    queue.push_back(u);
                }
            }
        }
        let flipped = members.iter().filter(|&&t| flip[t]).count();
        if 2 * flipped > members.len() {
            members.iter().for_each(|&t| flip[t] = !flip[t]);
        }
        // After the flips every shared edge must run opposite ways (not so on a Moebius strip).
        let consistent = members.iter().all(|&t| {
            neighbours[t]
                .iter()
                .all(|&(u, same)| !(same ^ flip[t] ^ flip[u as usize]))
        });
        let closed = consistent && members.iter().all(|&t| !open[t] && neighbours[t].len() == 3);
        topology.reoriented += members.iter().filter(|&&t| flip[t]).count() as u32;
        for &t in &members {
            if flip[t] {
                triangles[t].swap(1, 2);
            }
        }
        if closed {
            let origin = members
                .iter()
                .map(|&t| positions[triangles[t][0] as usize])
                .sum::<DVec3>()
                / members.len() as f64;
            let six_volume: f64 = members
                .iter()
                .map(|&t| {
                    let [a, b, c] = triangles[t].map(|i| positions[i as usize] - origin);
                    a.dot(b.cross(c))
                })
                .sum();
            if six_volume < 0.0 {
                topology.inside_out = true;
                members.iter().for_each(|&t| triangles[t].swap(1, 2));
            }
        } else {
            topology.closed = false;
        }
    }
    topology
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(side: f32, corner: Vec3) -> (Vec<Vec3>, Vec<u32>) {
        let v: Vec<Vec3> = (0..8)
            .map(|i| corner + side * Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32))
            .collect();
        // Outward winding with normal = cross(b - a, c - a).
        let quads = [
            [0, 4, 6, 2],
            [1, 3, 7, 5],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 2, 3, 1],
            [4, 5, 7, 6],
        ];
        let idx = quads
            .iter()
            .flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]])
            .collect();
        (v, idx)
    }

    #[test]
    fn bourgs_cube_has_volume_8_and_centroid_at_its_centre() {
        let (v, i) = cube(2.0, Vec3::ZERO);
        let hull = Hull::new(&HullDesc {
            vertices: &v,
            indices: &i,
            flip_winding: false,
        })
        .unwrap();
        let info = hull.info();
        assert!(info.is_closed);
        assert!(!info.winding_flipped);
        assert!((info.volume - 8.0).abs() < 1e-12, "{}", info.volume);
        assert!((info.centroid - DVec3::ONE).length() < 1e-12, "{}", info.centroid);
        assert!((info.area - 24.0).abs() < 1e-12);
    }

    #[test]
    fn inertia_of_a_box_solid_and_shell() {
        let (v, i) = cube(2.0, Vec3::ZERO);
        let hull = Hull::new(&HullDesc {
            vertices: &v,
            indices: &i,
            flip_winding: false,
        })
        .unwrap();
        // Solid cube of side a: a^2 / 6 per kg about each axis.
        let j = hull.unit_inertia();
        assert!(
            (j - DMat3::from_diagonal(DVec3::splat(4.0 / 6.0))).abs_diff_eq(DMat3::ZERO, 1e-12),
            "{j}"
        );
        // Hollow cube: each face a plate; per kg, 5 a^2 / 18 about each axis.
        let shell = unit_inertia(&hull.positions, &hull.triangles, DVec3::ONE, false);
        assert!((shell.x_axis.x - 5.0 * 4.0 / 18.0).abs() < 1e-12, "{shell}");
    }

    #[test]
    fn inside_out_and_flipped_meshes_come_out_right() {
        let (v, i) = cube(1.0, Vec3::splat(-0.5));
        let inside_out = Hull::new(&HullDesc {
            vertices: &v,
            indices: &i,
            flip_winding: true,
        })
        .unwrap();
        assert!(inside_out.info().winding_flipped);
        assert!((inside_out.info().volume - 1.0).abs() < 1e-12);
    }

    #[test]
    fn open_mesh_has_no_volume_and_an_area_centroid() {
        let (v, i) = cube(2.0, Vec3::ZERO);
        let hull = Hull::new(&HullDesc {
            vertices: &v,
            indices: &i[..30],
            flip_winding: false,
        })
        .unwrap();
        let info = hull.info();
        assert!(!info.is_closed);
        assert_eq!(info.volume, 0.0);
        assert!((info.area - 20.0).abs() < 1e-12);
        // The missing face is z = 2: the area centroid moves to lower z.
        assert!(info.centroid.z < 1.0 && (info.centroid.y - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bad_meshes_are_refused_with_a_reason() {
        let (v, i) = cube(1.0, Vec3::ZERO);
        let err = |vertices: &[Vec3], indices: &[u32]| {
            Hull::new(&HullDesc {
                vertices,
                indices,
                flip_winding: false,
            })
            .unwrap_err()
        };
        assert!(err(&v, &i[..4]).message.contains("multiple of 3"));
        assert!(err(&v, &[0, 1, 8]).message.contains("out of range"));
        assert!(err(&v, &[]).message.contains("no triangle"));
        let mut nan = v.clone();
        nan[3].y = f32::NAN;
        assert!(err(&nan, &i).message.contains("vertex 3"));
        assert!(err(&v, &[0, 0, 1, 2, 2, 2]).message.contains("no usable triangle"));
    }
}
