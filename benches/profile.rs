//! Steps one scenario a given number of times and prints instructions-free figures, for
//! profilers (callgrind, perf) that need a plain loop rather than criterion's harness.
//!
//! ```sh
//! cargo bench --bench profile -- bunny 200          # 1 bunny, flat, all forces
//! CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo bench --no-run --bench profile
//! valgrind --tool=callgrind target/release/deps/profile-* cubes-perlin 20
//! ```
//!
//! Scenarios: `bunny` (flat), `bunny-gerstner` (patch on), `bunny-gerstner-nopatch`,
//! `cubes` (1024, flat), `cubes-perlin` (10000, Perlin), `cubes-perlin-N` (N boxes on
//! Perlin water: `cubes-perlin-100` is the same step with every body in the caches),
//! `bunnies` (1024, flat), `bunnies-64`. All forces; one thread unless a third argument says
//! how many (0 = one per core); a fourth argument `each` steps every body with its own
//! `World::step_body` call (as criterion's single-body groups do) instead of one batch.
//! Built with `--features profile-sections`, the time of each of the step's sections
//! (`keel::runtime::profile`) follows, per step. With `KEEL_PROFILE_FORCES` set, the last step's forces on the first and last bodies
//! are printed too (`{:?}`, every bit), to check that two builds agree.

mod common;

use std::time::Instant;

use common::{Scene, SceneDesc, Sea};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let name = args.first().map_or("bunny", String::as_str);
    let steps: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let (bunny, cube) = (common::bunny(), common::cube());
    let desc = match name {
        "bunny" => SceneDesc::new(&bunny, 1, 300.0),
        "bunny-gerstner" => SceneDesc {
            sea: Sea::Gerstner16,
            ..SceneDesc::new(&bunny, 1, 300.0)
        },
        "bunny-gerstner-nopatch" => SceneDesc {
            sea: Sea::Gerstner16,
            water_patch_cells: 0,
            ..SceneDesc::new(&bunny, 1, 300.0)
        },
        "cubes" => SceneDesc::new(&cube, 1024, 500.0),
        "cubes-gerstner" => SceneDesc {
            sea: Sea::Gerstner16,
            ..SceneDesc::new(&cube, 1024, 500.0)
        },
        "bunnies" => SceneDesc::new(&bunny, 1024, 300.0),
        "bunnies-64" => SceneDesc::new(&bunny, 64, 300.0),
        "cubes-perlin" => SceneDesc {
            sea: Sea::Perlin,
            ..SceneDesc::new(&cube, 10000, 500.0)
        },
        // Any count: how the time per box grows as the bodies outgrow each cache.
        other => match other.strip_prefix("cubes-perlin-").and_then(|n| n.parse().ok()) {
            Some(count) if count > 0 => SceneDesc {
                sea: Sea::Perlin,
                ..SceneDesc::new(&cube, count, 500.0)
            },
            _ => {
                eprintln!(
                    "unknown scenario {other}: bunny, bunny-gerstner, bunny-gerstner-nopatch, cubes, cubes-gerstner, cubes-perlin, \
                     cubes-perlin-N (N boxes, as cubes-perlin-100), bunnies, bunnies-64"
                );
                std::process::exit(2);
            }
        },
    };
    let threads = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let each = args.get(3).is_some_and(|a| a == "each");
    let mut scene = Scene::new(&SceneDesc { threads, ..desc });
    // Each step timed too: the fastest tenth of the steps is the figure least disturbed by
    // a busy machine (other tenants of a virtual machine, frequency changes).
    let mut times = Vec::with_capacity(steps as usize);
    let start = Instant::now();
    for _ in 0..steps {
        let step_start = Instant::now();
        if each {
            scene.step_each();
        } else {
            scene.step();
        }
        times.push(step_start.elapsed().as_secs_f64());
    }
    let per_step = start.elapsed().as_secs_f64() / steps as f64;
    times.sort_by(f64::total_cmp);
    let quantile = |q: f64| times.get((q * times.len() as f64) as usize).map_or(0.0, |t| t * 1e6);
    println!(
        "{name}: {steps} steps, {:.1} us per step, {:.1} ns per triangle ({threads} thread(s){})",
        per_step * 1e6,
        per_step * 1e9 / scene.triangles as f64,
        if each { ", step_body" } else { "" }
    );
    println!(
        "step times: fastest {:.1} us, tenth {:.1} us, median {:.1} us",
        quantile(0.0),
        quantile(0.1),
        quantile(0.5)
    );
    // Built with `--features profile-sections`: the step's sections, wall-clock time on
    // the thread that ran each (a shared section ends when its last share does).
    if let Some(sections) = keel::runtime::profile::report() {
        println!("{:<34} {:>12} {:>10}", "section", "us per step", "per step");
        for (section, totals) in sections {
            println!(
                "{:<34} {:>12.2} {:>10.2}",
                section.name(),
                totals.nanoseconds as f64 / 1e3 / steps as f64,
                totals.count as f64 / steps as f64
            );
        }
    }
    // The last step's forces on the first and last bodies, to the bit: two builds that
    // should compute the same numbers can be checked against each other.
    if std::env::var_os("KEEL_PROFILE_FORCES").is_some() {
        for forces in [scene.out.first(), scene.out.last()].into_iter().flatten() {
            println!("{forces:?}");
        }
    }
}
