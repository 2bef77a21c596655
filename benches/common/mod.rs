//! Scenes shared by the benchmarks: Tenhunen's chapter 6 scenarios (cubes, the Stanford
//! bunny) and a boat-like hull, on flat, Perlin and 16-wave Gerstner water.
//!
//! Benches cannot use `tests/common`, so the few generators they need live here.
#![allow(dead_code)]

use std::f64::consts::TAU;

use glam::{DQuat, DVec2, DVec3, EulerRot, Vec3};
use keel::body::DEFAULT_WATER_PATCH_CELLS;
use keel::forces::{
    FORCE_AIR, FORCE_ALL, FORCE_DAMPING, FORCE_LUMPED_RESISTANCE, FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS,
};
use keel::{
    BodyDesc, BodyForces, BodyId, BodyState, BuoyancyModel, GerstnerWater, GerstnerWave, HullDesc, PerlinWater, Water,
    World, WorldDesc,
};

/// Step length, s: Unity's default fixed step, which the thesis used.
pub const DT: f64 = 0.02;

/// Every per-triangle force: viscous, pressure drag, slamming, air and damping.
pub const ALL_FORCES: u32 = FORCE_ALL & !FORCE_LUMPED_RESISTANCE;

/// Bourg's lumped resistance with slamming, the cheap alternative to per-triangle forces.
pub const LUMPED: u32 = FORCE_LUMPED_RESISTANCE | FORCE_SLAMMING;

/// Each force alone, none, and all of them, by name.
pub const FORCE_SETS: [(&str, u32); 7] = [
    ("none", 0),
    ("viscous", FORCE_VISCOUS),
    ("pressure_drag", FORCE_PRESSURE_DRAG),
    ("slamming", FORCE_SLAMMING),
    ("air", FORCE_AIR),
    ("damping", FORCE_DAMPING),
    ("all", ALL_FORCES),
];

/// A triangle mesh as a host passes it.
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

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// The thesis's cube: side 1 m, 8 vertices, 12 triangles, centred on the origin.
pub fn cube() -> Mesh {
    let vertices = (0..8)
        .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) - 0.5)
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

/// The Stanford bunny of `tests/meshes/bunny.obj` (3674 triangles, open at the bottom),
/// scaled by 0.1 to about 1 m.
pub fn bunny() -> Mesh {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/meshes/bunny.obj");
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ..Default::default()
    };
    let (models, _materials) = tobj::load_obj(path, &options).expect("tests/meshes/bunny.obj loads");
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for model in models {
        let base = vertices.len() as u32;
        let mesh = model.mesh;
        vertices.extend(mesh.positions.chunks(3).map(|p| 0.1 * Vec3::new(p[0], p[1], p[2])));
        indices.extend(mesh.indices.iter().map(|i| base + i));
    }
    Mesh { vertices, indices }
}

/// A boat-like closed hull ([`keel::hull::boat_mesh`]).
pub fn boat(length: f32, beam: f32, depth: f32, freeboard: f32, stations: u32, points: u32) -> Mesh {
    let (vertices, indices) = keel::hull::boat_mesh(length, beam, depth, freeboard, stations, points);
    Mesh { vertices, indices }
}

/// A low-poly boat of 43 triangles, the size of the hulls commercial plugins quote.
pub fn small_boat() -> Mesh {
    boat(6.0, 2.0, 0.6, 0.4, 4, 4)
}

/// A finer boat of 635 triangles.
pub fn fine_boat() -> Mesh {
    boat(6.0, 2.0, 0.6, 0.4, 24, 12)
}

/// The water of a scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sea {
    Flat,
    Perlin,
    Gerstner16,
}

impl Sea {
    pub fn name(self) -> &'static str {
        match self {
            Sea::Flat => "flat",
            Sea::Perlin => "perlin",
            Sea::Gerstner16 => "gerstner16",
        }
    }

    pub fn water(self) -> Water {
        match self {
            Sea::Flat => Water::default(),
            Sea::Perlin => perlin(),
            Sea::Gerstner16 => gerstner16(),
        }
    }
}

/// The thesis's Perlin water (scale 0.1, speed 0.5, height 1 m).
pub fn perlin() -> Water {
    Water::Perlin(Box::new(
        PerlinWater::new(0.0, 0.1, 0.5, 1.0, false).expect("valid Perlin water"),
    ))
}

/// Sixteen Gerstner waves, wavelengths 3 to 60 m in geometric steps, directions spread
/// over 150 degrees, steepness 0.6 / 16 each (sum 0.6), amplitude `Q / k`.
pub fn gerstner16() -> Water {
    let waves: Vec<GerstnerWave> = (0..16)
        .map(|i| {
            let f = i as f64 / 15.0;
            let wavelength = 3.0 * 20f64.powf(f);
            let steepness = 0.6 / 16.0;
            let angle = (f - 0.5) * 150f64.to_radians() + 0.3 * (i % 3) as f64;
            GerstnerWave {
                amplitude: steepness * wavelength / TAU,
                wavelength,
                direction: DVec2::new(angle.cos(), angle.sin()),
                steepness,
                phase: 1.7 * i as f64,
            }
        })
        .collect();
    Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).expect("valid Gerstner sea"))
}

/// A small deterministic random generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }

    pub fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }
}

/// What a scene is made of.
#[derive(Clone, Copy, Debug)]
pub struct SceneDesc<'a> {
    pub mesh: &'a Mesh,
    pub count: usize,
    pub mass: f64,
    pub forces: u32,
    pub buoyancy: BuoyancyModel,
    pub sea: Sea,
    /// Worker threads: 0 = one per core.
    pub threads: u32,
    /// Forward speed along the body's Z, m/s, on top of the small random velocities.
    pub speed: f64,
    /// Cells per side of Kerner's water patch; 0 = query the water at every vertex.
    pub water_patch_cells: u32,
}

impl<'a> SceneDesc<'a> {
    /// `count` bodies of `mesh`, all per-triangle forces, pressure buoyancy, flat water,
    /// every core.
    pub fn new(mesh: &'a Mesh, count: usize, mass: f64) -> Self {
        Self {
            mesh,
            count,
            mass,
            forces: ALL_FORCES,
            buoyancy: BuoyancyModel::Pressure,
            sea: Sea::Flat,
            threads: 0,
            speed: 0.0,
            water_patch_cells: DEFAULT_WATER_PATCH_CELLS,
        }
    }
}

/// A world of identical bodies spread on a grid 3 m apart, each floating with the middle
/// of its height at the local water level, slightly rotated and slowly moving.
pub struct Scene {
    pub world: World,
    pub ids: Vec<BodyId>,
    pub states: Vec<BodyState>,
    pub out: Vec<BodyForces>,
    /// Hull triangles summed over the bodies.
    pub triangles: usize,
}

impl Scene {
    pub fn new(d: &SceneDesc<'_>) -> Scene {
        let mut world = World::new(&WorldDesc {
            thread_count: d.threads,
            ..Default::default()
        })
        .expect("world");
        world.set_water(d.sea.water());
        world.set_time(1.25).expect("time");
        let hull = world.create_hull(&d.mesh.desc()).expect("hull");
        let info = world.hull_info(hull).expect("hull info");
        let body_desc = BodyDesc {
            hull,
            mass: d.mass,
            forces: d.forces,
            buoyancy: d.buoyancy,
            water_patch_cells: d.water_patch_cells,
            ..Default::default()
        };
        let side = (d.count as f64).sqrt().ceil() as usize;
        let middle = 0.5 * (info.bounds_min.y + info.bounds_max.y);
        let mut rng = Rng::new(d.count as u64 + 17);
        let mut ids = Vec::with_capacity(d.count);
        let mut states = Vec::with_capacity(d.count);
        for i in 0..d.count {
            let (x, z) = (3.0 * (i % side) as f64, 3.0 * (i / side) as f64);
            let rotation = DQuat::from_euler(
                EulerRot::YXZ,
                rng.range(-0.5, 0.5),
                rng.range(-0.1, 0.1),
                rng.range(-0.1, 0.1),
            );
            let position = DVec3::new(x, world.water_height(x, z) - middle, z);
            states.push(BodyState {
                position,
                rotation,
                linear_velocity: rng.vec3(0.2) + rotation * DVec3::new(0.0, 0.0, d.speed),
                angular_velocity: rng.vec3(0.1),
                center_of_mass: position + rotation * info.centroid,
            });
            ids.push(world.create_body(&body_desc).expect("body"));
        }
        let mut scene = Scene {
            world,
            out: vec![BodyForces::default(); ids.len()],
            ids,
            states,
            triangles: d.count * info.triangle_count as usize,
        };
        // One step sizes every buffer (later steps do not allocate) and gives slamming its
        // history, as in a running game.
        scene.step();
        scene
    }

    /// One batch step of every body (`World::step_bodies`).
    pub fn step(&mut self) {
        self.world
            .step_bodies(&self.ids, &self.states, DT, &mut self.out, |s| *s, |f, o| *o = *f)
            .expect("batch step");
    }

    /// One step of every body, one `World::step_body` call each.
    pub fn step_each(&mut self) {
        for (i, id) in self.ids.iter().enumerate() {
            self.out[i] = self.world.step_body(*id, &self.states[i], DT).expect("step");
        }
    }

    /// Gives every body other forces (and another buoyancy model).
    pub fn set_forces(&mut self, forces: u32, buoyancy: BuoyancyModel) {
        for id in &self.ids {
            let desc = *self.world.body(*id).expect("body").desc();
            self.world
                .set_body_desc(
                    *id,
                    &BodyDesc {
                        forces,
                        buoyancy,
                        ..desc
                    },
                )
                .expect("body desc");
        }
        self.step();
    }

    /// The submerged pieces of the last step, summed over the bodies.
    pub fn submerged_pieces(&self) -> u64 {
        self.out.iter().map(|f| f.submerged_triangle_count as u64).sum()
    }
}

/// Points for the water-query benchmarks: 1000 points over a 100 m square (y unused).
pub fn query_points() -> Vec<DVec3> {
    let mut rng = Rng::new(5);
    (0..1000)
        .map(|_| DVec3::new(rng.range(-50.0, 50.0), 0.0, rng.range(-50.0, 50.0)))
        .collect()
}
