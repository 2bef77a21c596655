//! Test meshes, random numbers and helpers shared by the integration tests.
#![allow(dead_code)]

pub mod sim;
pub mod tasks;

use glam::{DQuat, DVec3, Vec3};
use keel::{BodyDesc, BodyId, HullDesc, HullId, World, WorldDesc};

/// A triangle mesh as a host would pass it.
#[derive(Clone, Debug)]
pub struct Mesh {
    pub vertices: Vec<Vec3>,
    pub indices: Vec<u32>,
}

impl Mesh {
    pub fn desc(&self) -> HullDesc<'_> {
        HullDesc {
            vertices: &self.vertices,
            indices: &self.indices,
            flip_winding: false,
        }
    }

    pub fn triangles(&self) -> impl Iterator<Item = [DVec3; 3]> + '_ {
        self.indices
            .chunks(3)
            .map(|t| [0, 1, 2].map(|k| self.vertices[t[k] as usize].as_dvec3()))
    }

    /// Volume and centroid by signed tetrahedra from the origin (Bourg ch. 8), written
    /// here independently of the engine.
    pub fn volume_and_centroid(&self) -> (f64, DVec3) {
        let mut volume = 0.0;
        let mut moment = DVec3::ZERO;
        for [a, b, c] in self.triangles() {
            let v = a.dot(b.cross(c)) / 6.0;
            volume += v;
            moment += v * (a + b + c) / 4.0;
        }
        (volume, moment / volume)
    }

    /// The largest distance between two bounding-box corners.
    pub fn size(&self) -> f64 {
        let (lo, hi) = self
            .vertices
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(*v), hi.max(*v))
            });
        (hi - lo).length() as f64
    }

    pub fn reversed(&self) -> Mesh {
        let indices = self.indices.chunks(3).flat_map(|t| [t[0], t[2], t[1]]).collect();
        Mesh {
            vertices: self.vertices.clone(),
            indices,
        }
    }
}

/// An axis-aligned box centred on `centre`, each face split into `n x n` quads, shared
/// vertices only along each face (faces are welded by position, as engines split them).
pub fn subdivided_box(size: Vec3, centre: Vec3, n: u32) -> Mesh {
    box_with_diagonals(size, centre, n, |_| false)
}

/// [`subdivided_box`] whose quad `q` is split along its other diagonal when
/// `other_diagonal(q)` says so.
pub fn box_with_diagonals(size: Vec3, centre: Vec3, n: u32, mut other_diagonal: impl FnMut(u32) -> bool) -> Mesh {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let half = size / 2.0;
    // For each face: its normal axis, sign, and the two in-plane axes (u, v) such that
    // cross(u, v) points along the outward normal.
    let faces: [(Vec3, Vec3, Vec3); 6] = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (-Vec3::X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::Z, Vec3::X),
        (-Vec3::Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (-Vec3::Z, Vec3::Y, Vec3::X),
    ];
    for (normal, u, v) in faces {
        let base = vertices.len() as u32;
        for j in 0..=n {
            for i in 0..=n {
                let s = 2.0 * i as f32 / n as f32 - 1.0;
                let t = 2.0 * j as f32 / n as f32 - 1.0;
                vertices.push(centre + (normal + s * u + t * v) * half);
            }
        }
        for j in 0..n {
            for i in 0..n {
                let a = base + j * (n + 1) + i;
                let (b, c, d) = (a + 1, a + n + 2, a + n + 1);
                if other_diagonal(indices.len() as u32 / 6) {
                    indices.extend_from_slice(&[a, b, d, b, c, d]);
                } else {
                    indices.extend_from_slice(&[a, b, c, a, c, d]);
                }
            }
        }
    }
    Mesh { vertices, indices }
}

/// An axis-aligned box with 8 shared vertices and 12 triangles.
pub fn simple_box(size: Vec3, centre: Vec3) -> Mesh {
    let vertices: Vec<Vec3> = (0..8)
        .map(|i| {
            let corner = Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) - 0.5;
            centre + corner * size
        })
        .collect();
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
    Mesh { vertices, indices }
}

/// Unity's cube: 24 vertices (4 per face, split at the hard edges), side 1, centred.
pub fn unity_cube() -> Mesh {
    subdivided_box(Vec3::ONE, Vec3::ZERO, 1)
}

/// A UV sphere as engines generate it: a seam column of duplicated vertices computed in
/// f32 (so the seam differs by rounding), and rows of coincident vertices at the poles
/// whose triangles have zero area.
pub fn uv_sphere(radius: f32, stacks: u32, slices: u32) -> Mesh {
    let mut vertices = Vec::new();
    for i in 0..=stacks {
        let theta = std::f32::consts::PI * i as f32 / stacks as f32;
        for j in 0..=slices {
            let phi = std::f32::consts::TAU * j as f32 / slices as f32;
            vertices.push(radius * Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin()));
        }
    }
    let mut indices = Vec::new();
    let row = slices + 1;
    for i in 0..stacks {
        for j in 0..slices {
            let a = i * row + j;
            let (b, c, d) = (a + row, a + row + 1, a + 1);
            indices.extend_from_slice(&[a, c, b, a, d, c]);
        }
    }
    Mesh { vertices, indices }
}

/// A boat-like closed hull ([`keel::hull::boat_mesh`]).
pub fn boat_hull(length: f32, beam: f32, depth: f32, freeboard: f32, stations: u32, points: u32) -> Mesh {
    let (vertices, indices) = keel::hull::boat_mesh(length, beam, depth, freeboard, stations, points);
    Mesh { vertices, indices }
}

/// A small deterministic random generator (no dependency needed).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    pub fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }

    /// A random rotation, uniform enough for tests.
    pub fn rotation(&mut self) -> DQuat {
        loop {
            let q = DQuat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = q.length();
            if l > 0.1 && l <= 1.0 {
                return q / l;
            }
        }
    }
}

/// A single-threaded world with default constants and flat water at 0.
pub fn world() -> World {
    World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap()
}

/// A hull and a body on it with only buoyancy (the other forces belong to their issue).
pub fn body(world: &mut World, mesh: &Mesh, desc: BodyDesc) -> (HullId, BodyId) {
    let hull = world.create_hull(&mesh.desc()).unwrap();
    let body = world.create_body(&BodyDesc { hull, ..desc }).unwrap();
    (hull, body)
}

/// A body description with buoyancy only.
pub fn buoyancy_only(model: keel::BuoyancyModel) -> BodyDesc {
    BodyDesc {
        buoyancy: model,
        forces: 0,
        ..BodyDesc::default()
    }
}

/// Creates a hull and returns its info.
pub fn info_of(world: &mut World, desc: &HullDesc<'_>) -> keel::HullInfo {
    let hull = world.create_hull(desc).unwrap();
    world.hull_info(hull).unwrap()
}

/// The Stanford bunny of `tests/meshes/bunny.obj` (open at the bottom), scaled by `scale`
/// (0.1 makes it about a metre tall).
pub fn bunny(scale: f32) -> Mesh {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/meshes/bunny.obj");
    let (models, _) = tobj::load_obj(
        path,
        &tobj::LoadOptions {
            triangulate: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mesh = &models[0].mesh;
    let vertices = mesh
        .positions
        .chunks(3)
        .map(|p| Vec3::new(p[0], p[1], p[2]) * scale)
        .collect();
    Mesh {
        vertices,
        indices: mesh.indices.clone(),
    }
}
