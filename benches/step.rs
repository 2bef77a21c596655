//! Criterion benchmarks of a step, after Tenhunen's thesis, chapter 6: cubes and the
//! Stanford bunny with every force, each force alone and none; pressure against volume
//! buoyancy; lumped against per-triangle resistance on a boat; flat, Perlin and 16-wave
//! Gerstner water; one thread against all; and the cost of one water query.
//!
//! `cargo bench --bench step` runs everything (a few minutes); a filter runs a subset,
//! e.g. `cargo bench --bench step -- cubes`. Throughputs are hull triangles per step
//! (criterion prints them as elements/s; ns per triangle is its inverse), or water queries.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{ALL_FORCES, FORCE_SETS, LUMPED, Scene, SceneDesc, Sea};
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use glam::DVec3;
use keel::body::DEFAULT_WATER_PATCH_CELLS;
use keel::forces::{FORCE_AIR, FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS};
use keel::{BuoyancyModel, WaterSurface};

const CUBE_MASS: f64 = 500.0;
const BUNNY_MASS: f64 = 300.0;

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Times one batch step of the scene's bodies.
fn batch(group: &mut Group<'_>, id: BenchmarkId, scene: &mut Scene) {
    group.throughput(Throughput::Elements(scene.triangles as u64));
    group.bench_function(id, |b| b.iter(|| scene.step()));
}

/// Times one `step_body` call per body.
fn each(group: &mut Group<'_>, id: BenchmarkId, scene: &mut Scene) {
    group.throughput(Throughput::Elements(scene.triangles as u64));
    group.bench_function(id, |b| b.iter(|| scene.step_each()));
}

/// Groups whose steps take milliseconds: flat sampling, so ten samples need ten steps.
fn heavy<'a>(c: &'a mut Criterion, name: &str) -> Group<'a> {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat);
    group
}

/// 1 to 10000 cubes, all forces, batch on every core, flat and Perlin water; and
/// `step_body` one by one.
fn cubes(c: &mut Criterion) {
    let cube = common::cube();
    let mut group = heavy(c, "cubes");
    for sea in [Sea::Flat, Sea::Perlin] {
        for n in [1, 100, 400, 1024, 10000] {
            let mut scene = Scene::new(&SceneDesc {
                sea,
                ..SceneDesc::new(&cube, n, CUBE_MASS)
            });
            batch(
                &mut group,
                BenchmarkId::new(format!("{}_batch", sea.name()), n),
                &mut scene,
            );
            if n == 1 || n == 1024 {
                each(
                    &mut group,
                    BenchmarkId::new(format!("{}_step_body", sea.name()), n),
                    &mut scene,
                );
            }
        }
    }
    group.finish();
}

/// Each force alone, none and all: 1024 cubes on one thread (flat water), and one bunny.
fn forces(c: &mut Criterion) {
    let cube = common::cube();
    let mut scene = Scene::new(&SceneDesc {
        threads: 1,
        ..SceneDesc::new(&cube, 1024, CUBE_MASS)
    });
    let mut group = heavy(c, "forces_cubes1024_1thread");
    for (name, forces) in FORCE_SETS {
        scene.set_forces(forces, BuoyancyModel::Pressure);
        batch(&mut group, BenchmarkId::from_parameter(name), &mut scene);
    }
    group.finish();

    let bunny = common::bunny();
    let mut scene = Scene::new(&SceneDesc::new(&bunny, 1, BUNNY_MASS));
    let mut group = heavy(c, "forces_bunny");
    for (name, forces) in FORCE_SETS {
        scene.set_forces(forces, BuoyancyModel::Pressure);
        each(&mut group, BenchmarkId::from_parameter(name), &mut scene);
    }
    group.finish();
}

/// Buoyancy models with no other force: pressure against volume (and the rest) on 1024
/// cubes on one thread; the bunny is open, so pressure models only.
fn buoyancy(c: &mut Criterion) {
    let models = [
        ("pressure", BuoyancyModel::Pressure),
        ("pressure_centroid", BuoyancyModel::PressureCentroid),
        ("volume", BuoyancyModel::Volume),
        ("area_ratio", BuoyancyModel::AreaRatio),
        ("none", BuoyancyModel::None),
    ];
    let cube = common::cube();
    let mut scene = Scene::new(&SceneDesc {
        threads: 1,
        forces: 0,
        ..SceneDesc::new(&cube, 1024, CUBE_MASS)
    });
    let mut group = heavy(c, "buoyancy_cubes1024_1thread");
    for (name, model) in models {
        scene.set_forces(0, model);
        batch(&mut group, BenchmarkId::from_parameter(name), &mut scene);
    }
    group.finish();

    let bunny = common::bunny();
    let mut scene = Scene::new(&SceneDesc {
        forces: 0,
        ..SceneDesc::new(&bunny, 1, BUNNY_MASS)
    });
    let mut group = heavy(c, "buoyancy_bunny");
    for (name, model) in [models[0], models[1], models[4]] {
        scene.set_forces(0, model);
        each(&mut group, BenchmarkId::from_parameter(name), &mut scene);
    }
    group.finish();
}

/// Bourg's lumped resistance (with slamming) against the per-triangle forces it replaces
/// (viscous, pressure drag, air, with slamming), on a boat at 3 m/s: one boat of 43
/// triangles (on flat and Perlin water) and of 635, and 1024 small boats in a batch on
/// every core.
fn lumped(c: &mut Criterion) {
    let per_triangle = FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_AIR | FORCE_SLAMMING;
    let sets = [("lumped", LUMPED), ("per_triangle", per_triangle), ("none", 0)];
    let mut group = heavy(c, "lumped");
    for (label, mesh, count, sea) in [
        ("boat43", common::small_boat(), 1, Sea::Flat),
        ("boat43_perlin", common::small_boat(), 1, Sea::Perlin),
        ("boat635", common::fine_boat(), 1, Sea::Flat),
        ("boats43x1024", common::small_boat(), 1024, Sea::Flat),
    ] {
        let mut scene = Scene::new(&SceneDesc {
            speed: 3.0,
            sea,
            ..SceneDesc::new(&mesh, count, 1500.0)
        });
        for (name, forces) in sets {
            scene.set_forces(forces, BuoyancyModel::Pressure);
            let id = BenchmarkId::new(label, name);
            if count == 1 {
                each(&mut group, id, &mut scene);
            } else {
                batch(&mut group, id, &mut scene);
            }
        }
    }
    group.finish();
}

/// Flat, Perlin and 16-wave Gerstner water, all forces: 1024 cubes on every core (8
/// vertices each, fewer than a water patch's samples, so always queried per vertex) and
/// one bunny (1839 vertices) through the default water patch (DEFAULT_WATER_PATCH_CELLS) and without
/// it.
fn water(c: &mut Criterion) {
    let cube = common::cube();
    let bunny = common::bunny();
    let mut group = heavy(c, "water");
    for sea in [Sea::Flat, Sea::Perlin, Sea::Gerstner16] {
        let mut scene = Scene::new(&SceneDesc {
            sea,
            ..SceneDesc::new(&cube, 1024, CUBE_MASS)
        });
        batch(&mut group, BenchmarkId::new("cubes1024", sea.name()), &mut scene);
    }
    for sea in [Sea::Flat, Sea::Perlin, Sea::Gerstner16] {
        for (label, cells) in [("bunny", DEFAULT_WATER_PATCH_CELLS), ("bunny_no_patch", 0)] {
            if sea == Sea::Flat && cells == 0 {
                continue; // flat water never goes through the patch
            }
            let mut scene = Scene::new(&SceneDesc {
                sea,
                water_patch_cells: cells,
                ..SceneDesc::new(&bunny, 1, BUNNY_MASS)
            });
            each(&mut group, BenchmarkId::new(label, sea.name()), &mut scene);
        }
    }
    group.finish();
}

/// One thread against two (every core of the reference machine) for 1024 bodies, all
/// forces, flat water. The speed-up is the ratio of the `1` and `2` times.
fn threads(c: &mut Criterion) {
    let cube = common::cube();
    let bunny = common::bunny();
    let mut group = heavy(c, "threads");
    for (label, mesh, mass) in [("cubes1024", &cube, CUBE_MASS), ("bunnies1024", &bunny, BUNNY_MASS)] {
        for threads in [1, 2] {
            let mut scene = Scene::new(&SceneDesc {
                threads,
                forces: ALL_FORCES,
                ..SceneDesc::new(mesh, 1024, mass)
            });
            batch(&mut group, BenchmarkId::new(label, threads), &mut scene);
        }
    }
    group.finish();
}

/// Cost of one water query per model over 1000 points: `WaterSurface::height` one point at
/// a time, the batch of heights and velocities a step asks for (`Water::sample_into`),
/// and the full sample with the normal.
fn water_query(c: &mut Criterion) {
    let points = common::query_points();
    let (mut heights, mut velocities) = (vec![0.0; points.len()], vec![DVec3::ZERO; points.len()]);
    let mut group = c.benchmark_group("water_query");
    group.throughput(Throughput::Elements(points.len() as u64));
    for sea in [Sea::Flat, Sea::Perlin, Sea::Gerstner16] {
        let water = sea.water();
        group.bench_function(BenchmarkId::new("height", sea.name()), |b| {
            b.iter(|| {
                for (p, h) in points.iter().zip(heights.iter_mut()) {
                    *h = WaterSurface::height(black_box(&water), p.x, p.z, 1.25);
                }
            })
        });
        group.bench_function(BenchmarkId::new("height_velocity_batch", sea.name()), |b| {
            b.iter(|| {
                black_box(&water)
                    .sample_into(&points, 1.25, &mut heights, None, Some(&mut velocities))
                    .expect("water sample")
            })
        });
        group.bench_function(BenchmarkId::new("sample", sea.name()), |b| {
            b.iter(|| {
                for (p, v) in points.iter().zip(velocities.iter_mut()) {
                    *v = WaterSurface::sample(black_box(&water), p.x, p.z, 1.25).normal;
                }
            })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
}

criterion_group! {
    name = benches;
    config = config();
    targets = cubes, forces, buoyancy, lumped, water, threads, water_query
}
criterion_main!(benches);
