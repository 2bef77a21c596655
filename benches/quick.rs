//! A quick benchmark for comparing machines: a reduced set of the thesis's scenarios,
//! timed with `std::time::Instant`, printed as one table. Under a minute on two cores.
//!
//! ```sh
//! cargo bench --bench quick
//! ```
//!
//! Each figure is the median over chunks of steps after a warm-up. Memory per body is what
//! the global allocator holds per body once the bodies have been stepped once (steps do not
//! allocate after that).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use common::{Scene, SceneDesc, Sea};

/// Counts the bytes held, to report memory per body.
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HELD.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Median seconds per call of `f`, over chunks of calls of about 2 ms each, for about
/// `budget` after a short warm-up (at least 5 chunks).
fn time(budget: Duration, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls = 0u32;
    while calls < 3 || start.elapsed() < Duration::from_millis(50) {
        f();
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    let chunk = ((2e-3 / per_call) as u32).max(1);
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || start.elapsed() < budget {
        let t = Instant::now();
        for _ in 0..chunk {
            f();
        }
        samples.push(t.elapsed().as_secs_f64() / chunk as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// CPU ticks: (busy on the whole machine, this process's, all), from /proc (Linux).
fn ticks() -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    let all: u64 = cpu.iter().take(8).sum();
    let idle = cpu.get(3)? + cpu.get(4)?;
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<u64> = own
        .rsplit(')')
        .next()?
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    Some((all - idle, fields.iter().sum(), all))
}

/// Share of the machine's CPU time that other processes used between two `ticks()`.
fn others(before: Option<(u64, u64, u64)>, after: Option<(u64, u64, u64)>) -> Option<f64> {
    let ((b0, o0, a0), (b1, o1, a1)) = (before?, after?);
    (a1 > a0).then(|| (b1 - b0).saturating_sub(o1 - o0) as f64 / (a1 - a0) as f64)
}

struct Row {
    name: String,
    /// Share of the CPUs other processes used while this row was timed.
    others: Option<f64>,
    bodies: usize,
    triangles: usize,
    threads: usize,
    step: f64,
    bytes_per_body: f64,
    one_thread: Option<f64>,
}

/// Builds the scene, measures the memory it holds per body, and times a step.
/// `desc` in a world of one thread.
fn one_thread(desc: SceneDesc<'_>) -> SceneDesc<'_> {
    SceneDesc { threads: 1, ..desc }
}

fn run(name: &str, desc: &SceneDesc<'_>, each: bool, budget: Duration, compare_one_thread: bool) -> Row {
    let before = HELD.load(Ordering::Relaxed);
    let mut scene = Scene::new(desc);
    let held = HELD.load(Ordering::Relaxed) - before;
    let start = ticks();
    let step = if each {
        time(budget, || scene.step_each())
    } else {
        time(budget, || scene.step())
    };
    let mut row = Row {
        name: name.to_string(),
        others: others(start, ticks()),
        bodies: desc.count,
        triangles: scene.triangles,
        threads: scene.world.thread_count(),
        step,
        bytes_per_body: held as f64 / desc.count as f64,
        one_thread: None,
    };
    drop(scene);
    if compare_one_thread && row.threads > 1 {
        let mut scene = Scene::new(&SceneDesc { threads: 1, ..*desc });
        let start = ticks();
        row.one_thread = Some(time(budget, || scene.step()));
        let one_thread_others = others(start, ticks());
        row.others = match (row.others, one_thread_others) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    row
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

fn pretty(seconds: f64) -> String {
    if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else if seconds >= 1e-6 {
        format!("{:.2} us", seconds * 1e6)
    } else {
        format!("{:.0} ns", seconds * 1e9)
    }
}

fn main() {
    let started = Instant::now();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "keel quick benchmark: {} core(s), {}; dt {} s",
        cores,
        cpu_model(),
        common::DT
    );
    println!("all forces = viscous | pressure drag | slamming | air | damping, pressure buoyancy\n");

    let cube = common::cube();
    let bunny = common::bunny();
    let short = Duration::from_millis(1500);
    let long = Duration::from_millis(2500);
    let cubes = |n| SceneDesc {
        sea: Sea::Perlin,
        ..SceneDesc::new(&cube, n, 500.0)
    };
    // The single-body rows step with `World::step_body`; a world with threads shares a big
    // hull's triangles among them, so the one-thread rows get a world of one thread.
    let rows = [
        run("1 cube, Perlin, step_body", &one_thread(cubes(1)), true, short, false),
        run("1 cube, Perlin, batch", &cubes(1), false, short, false),
        run("100 cubes, Perlin, batch", &cubes(100), false, short, false),
        run("1024 cubes, Perlin, batch", &cubes(1024), false, short, true),
        run("10000 cubes, Perlin, batch", &cubes(10000), false, long, false),
        // The per-triangle target's row: one body's force evaluation, flat water.
        run(
            "1 bunny, flat",
            &one_thread(SceneDesc::new(&bunny, 1, 300.0)),
            true,
            short,
            false,
        ),
        run(
            "1 bunny, Gerstner-16, patch",
            &one_thread(SceneDesc {
                sea: Sea::Gerstner16,
                ..SceneDesc::new(&bunny, 1, 300.0)
            }),
            true,
            short,
            false,
        ),
        run(
            "1 bunny, Gerstner-16, patch, shared",
            &SceneDesc {
                sea: Sea::Gerstner16,
                ..SceneDesc::new(&bunny, 1, 300.0)
            },
            true,
            short,
            false,
        ),
        run(
            "1 bunny, Gerstner-16, no patch",
            &one_thread(SceneDesc {
                sea: Sea::Gerstner16,
                water_patch_cells: 0,
                ..SceneDesc::new(&bunny, 1, 300.0)
            }),
            true,
            short,
            false,
        ),
        run(
            "1024 bunnies, flat, batch",
            &SceneDesc::new(&bunny, 1024, 300.0),
            false,
            long,
            true,
        ),
    ];

    println!(
        "{:<35} {:>6} {:>9} {:>4} {:>10} {:>10} {:>7} {:>11} {:>8} {:>9} {:>10} {:>6}",
        "scenario",
        "bodies",
        "tris",
        "thr",
        "per step",
        "per body",
        "ns/tri",
        "1 thr/step",
        "1 thr/tri",
        "speed-up",
        "mem/body",
        "others"
    );
    for r in &rows {
        let (one, one_tri, speedup) = match r.one_thread {
            Some(t) => (
                pretty(t),
                format!("{:.1}", t * 1e9 / r.triangles as f64),
                format!("{:.2}x", t / r.step),
            ),
            None => ("-".to_string(), "-".to_string(), "-".to_string()),
        };
        println!(
            "{:<35} {:>6} {:>9} {:>4} {:>10} {:>10} {:>7.1} {:>11} {:>8} {:>9} {:>7.0} KB {:>6}",
            r.name,
            r.bodies,
            r.triangles,
            r.threads,
            pretty(r.step),
            pretty(r.step / r.bodies as f64),
            r.step * 1e9 / r.triangles as f64,
            one,
            one_tri,
            speedup,
            r.bytes_per_body / 1024.0,
            r.others.map_or("?".to_string(), |o| format!("{:.0}%", 100.0 * o)),
        );
    }
    println!(
        "\nothers: CPU share other processes used while a row was timed; above a few % its times \
         (and speed-ups) are not clean.\ntotal {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
