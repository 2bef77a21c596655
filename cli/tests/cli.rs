//! The `keel` binary as a user runs it: hydrostatics against the naval-architecture
//! formulas and against capytaine, simulated periods and rest poses against
//! hydrostatics, plots read back pixel by pixel, and the exit codes of its errors.

#[path = "../../tests/skip/mod.rs"]
mod skip;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use glam::DVec3;
use serde_json::Value;

const RHO: f64 = 1000.0;
const G: f64 = 9.81;

fn keel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(args)
        .output()
        .expect("the keel binary runs")
}

fn ok_json(args: &[&str]) -> (Value, String) {
    let out = keel(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "keel {args:?} failed: {stderr}");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "keel {args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (json, stderr)
}

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("keel-cli").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn num(v: &Value, path: &[&str]) -> f64 {
    let mut v = v;
    for key in path {
        v = &v[*key];
    }
    v.as_f64().unwrap_or_else(|| panic!("{path:?} is not a number: {v}"))
}

fn vec3(v: &Value, path: &[&str]) -> DVec3 {
    let mut v = v;
    for key in path {
        v = &v[*key];
    }
    DVec3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

fn close(what: &str, got: f64, want: f64, relative: f64) {
    assert!(
        (got - want).abs() <= relative * want.abs().max(1e-9),
        "{what}: got {got}, want {want} (within {}%)",
        relative * 100.0
    );
}

/// Writes an OBJ of polygons (0-based indices here, 1-based in the file).
fn write_obj(path: &Path, vertices: &[DVec3], faces: &[Vec<usize>]) {
    use std::fmt::Write as _;
    let mut text = String::new();
    for v in vertices {
        writeln!(text, "v {} {} {}", v.x, v.y, v.z).unwrap();
    }
    for f in faces {
        let idx: Vec<String> = f.iter().map(|i| (i + 1).to_string()).collect();
        writeln!(text, "f {}", idx.join(" ")).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// A box of `size` from y = 0 up, centred in x and z, each face an `n x n` grid of quads
/// wound outward.
fn box_obj(path: &Path, size: DVec3, n: usize) {
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    // Normal, and two in-plane axes with cross(u, v) = normal.
    let sides = [
        (DVec3::X, DVec3::Y, DVec3::Z),
        (-DVec3::X, DVec3::Z, DVec3::Y),
        (DVec3::Y, DVec3::Z, DVec3::X),
        (-DVec3::Y, DVec3::X, DVec3::Z),
        (DVec3::Z, DVec3::X, DVec3::Y),
        (-DVec3::Z, DVec3::Y, DVec3::X),
    ];
    let centre = DVec3::new(0.0, size.y / 2.0, 0.0);
    for (normal, u, v) in sides {
        let base = vertices.len();
        for j in 0..=n {
            for i in 0..=n {
                let a = 2.0 * i as f64 / n as f64 - 1.0;
                let b = 2.0 * j as f64 / n as f64 - 1.0;
                vertices.push(centre + (normal + a * u + b * v) * size / 2.0);
            }
        }
        for j in 0..n {
            for i in 0..n {
                let a = base + j * (n + 1) + i;
                faces.push(vec![a, a + 1, a + n + 2, a + n + 1]);
            }
        }
    }
    write_obj(path, &vertices, &faces);
}

/// A cylinder of `radius` and `length` lying along Z, its axis at y = 0, in `rings`
/// lengthwise panels (capytaine integrates at panel centroids).
fn cylinder_obj(path: &Path, radius: f64, length: f64, segments: usize, rings: usize) {
    let mut vertices = Vec::new();
    for r in 0..=rings {
        let z = (r as f64 / rings as f64 - 0.5) * length;
        for k in 0..segments {
            let a = std::f64::consts::TAU * k as f64 / segments as f64;
            vertices.push(DVec3::new(radius * a.cos(), radius * a.sin(), z));
        }
    }
    let (back, front) = (vertices.len(), vertices.len() + 1);
    vertices.push(DVec3::new(0.0, 0.0, -0.5 * length));
    vertices.push(DVec3::new(0.0, 0.0, 0.5 * length));
    let last = rings * segments;
    let mut faces = Vec::new();
    for k in 0..segments {
        let next = (k + 1) % segments;
        for r in 0..rings {
            let (a, b) = (r * segments, (r + 1) * segments);
            // Counter-clockwise about +Z seen from outside: (k, next, next', k').
            faces.push(vec![a + k, a + next, b + next, b + k]);
        }
        faces.push(vec![back, next, k]);
        faces.push(vec![front, last + k, last + next]);
    }
    write_obj(path, &vertices, &faces);
}

#[test]
fn box_barge_hydrostatics_match_the_textbook_formulas() {
    let dir = scratch("barge");
    let (l, b, d, t, kg) = (20.0, 6.0, 4.0, 1.5, 1.2);
    let mesh = dir.join("barge.obj");
    box_obj(&mesh, DVec3::new(b, d, l), 2);
    let mass = (RHO * l * b * t).to_string();
    let (json, stderr) = ok_json(&["hydrostatics", s(&mesh), "--mass", &mass, "--cog", "0,1.2,0", "--json"]);
    assert!(!stderr.contains("warning"), "a stable barge warns: {stderr}");
    let e = &json["equilibrium"];
    close("draft", num(e, &["draft"]), t, 1e-6);
    close("V = LBT", num(e, &["volume"]), l * b * t, 1e-6);
    close("KB = T/2", num(e, &["kb"]), t / 2.0, 1e-6);
    close("BM_T = B^2/(12T)", num(e, &["bm_t"]), b * b / (12.0 * t), 1e-6);
    close("BM_L = L^2/(12T)", num(e, &["bm_l"]), l * l / (12.0 * t), 1e-6);
    close("GM_T", num(e, &["gm_t"]), t / 2.0 + b * b / (12.0 * t) - kg, 0.01);
    close("GM_L", num(e, &["gm_l"]), t / 2.0 + l * l / (12.0 * t) - kg, 0.01);
    close("waterplane area", num(e, &["waterplane_area"]), l * b, 1e-6);
    close(
        "heave period",
        num(e, &["heave_period"]),
        std::f64::consts::TAU * (t / G).sqrt(),
        1e-6,
    );
    assert!(num(e, &["heel_deg"]).abs() < 1e-6 && num(e, &["trim_deg"]).abs() < 1e-6);
}

#[test]
fn a_tall_box_with_negative_gm_warns_and_rests_heeled_with_positive_gm() {
    let dir = scratch("tall");
    let mesh = dir.join("tall.obj");
    box_obj(&mesh, DVec3::new(1.0, 3.0, 10.0), 1);
    // T = 1, KG = 2: GM_T = 0.5 + 1/12 - 2 < 0.
    let (json, stderr) = ok_json(&["hydrostatics", s(&mesh), "--mass", "10000", "--cog", "0,2,0", "--json"]);
    close(
        "upright GM_T",
        num(&json, &["start", "gm_t"]),
        0.5 + 1.0 / 12.0 - 2.0,
        1e-6,
    );
    assert!(
        stderr.contains("warning") && stderr.contains("GM_T") && stderr.contains("capsize"),
        "{stderr}"
    );
    assert!(
        num(&json, &["equilibrium", "gm_t"]) > 0.0,
        "the rest pose must be stable"
    );
    assert!(
        num(&json, &["equilibrium", "heel_deg"]).abs() > 30.0,
        "it must lie on its side"
    );
}

#[test]
fn the_roll_period_simulate_measures_on_a_box_barge_is_the_one_hydrostatics_predicts() {
    let dir = scratch("roll");
    let mesh = dir.join("barge.obj");
    box_obj(&mesh, DVec3::new(6.0, 4.0, 20.0), 1);
    let common = ["--mass", "180000", "--cog", "0,1.2,0", "--json"];
    let (h, _) = ok_json(&[&["hydrostatics", s(&mesh)][..], &common[..]].concat());
    let predicted = num(&h, &["equilibrium", "roll_period"]);
    let args = [
        "simulate",
        s(&mesh),
        "--start",
        "equilibrium",
        "--heel",
        "3",
        "--buoyancy-only",
        "--seconds",
        "16",
        "--dt",
        "0.005",
    ];
    let (sim, _) = ok_json(&[&args[..], &common[..]].concat());
    let measured = num(&sim, &["roll_period"]);
    close("roll period", measured, predicted, 0.05);
}

#[test]
fn the_bunny_settles_in_simulation_where_hydrostatics_puts_it() {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/meshes/bunny.obj");
    let common = ["--scale", "0.1", "--density", "600", "--json"];
    let (h, _) = ok_json(&[&["hydrostatics", bunny][..], &common[..]].concat());
    let args = ["simulate", bunny, "--damping", "0.5", "--seconds", "30", "--dt", "0.02"];
    let (sim, _) = ok_json(&[&args[..], &common[..]].concat());
    assert_eq!(sim["settled"], Value::Bool(true), "{sim}");
    // World up in body axes: the attitude whatever the heading the body drifted to.
    let (up_h, up_s) = (vec3(&h, &["equilibrium", "up_local"]), vec3(&sim, &["up_local"]));
    let angle = up_h.angle_between(up_s).to_degrees();
    assert!(angle < 1.0, "hydrostatics {up_h} vs simulate {up_s}: {angle} deg");
    let (yh, ys) = (
        vec3(&h, &["equilibrium", "center_of_mass"]).y,
        vec3(&sim, &["center_of_mass"]).y,
    );
    assert!(
        (yh - ys).abs() < 0.005,
        "centre of mass at rest: {yh} m vs simulated {ys} m"
    );
}

/// An RGB(A) image decoded from a PNG.
struct Image {
    width: usize,
    height: usize,
    channels: usize,
    data: Vec<u8>,
}

impl Image {
    fn open(path: &Path) -> Image {
        let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut data = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut data).unwrap();
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected colour type {other:?}"),
        };
        Image {
            width: info.width as usize,
            height: info.height as usize,
            channels,
            data,
        }
    }

    fn rgb(&self, x: i64, y: i64) -> Option<[u8; 3]> {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            return None;
        }
        let k = (y as usize * self.width + x as usize) * self.channels;
        Some([self.data[k], self.data[k + 1], self.data[k + 2]])
    }

    /// Whether a pixel within `r` of (x, y) has `color` (within a little anti-aliasing).
    fn has_near(&self, x: i64, y: i64, r: i64, color: [u8; 3]) -> bool {
        (-r..=r).any(|dy| {
            (-r..=r).any(|dx| {
                self.rgb(x + dx, y + dy)
                    .is_some_and(|p| p.iter().zip(color).all(|(a, b)| (*a as i32 - b as i32).abs() <= 12))
            })
        })
    }
}

#[test]
fn a_plot_shows_its_curves_where_the_data_say() {
    let dir = scratch("plot");
    let mesh = dir.join("barge.obj");
    box_obj(&mesh, DVec3::new(6.0, 4.0, 20.0), 1);
    let csv = dir.join("run.csv");
    let plots = dir.join("plots");
    let args = [
        "simulate",
        s(&mesh),
        "--mass",
        "180000",
        "--cog",
        "0,1.2,0",
        "--start",
        "equilibrium",
        "--heel",
        "3",
        "--buoyancy-only",
        "--seconds",
        "8",
        "--csv",
        s(&csv),
        "--plot",
        s(&plots),
    ];
    let out = keel(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let layout: Value = serde_json::from_str(&std::fs::read_to_string(plots.join("plots.json")).unwrap()).unwrap();
    let panel = layout
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["title"].as_str().unwrap().contains("heel (roll)"))
        .expect("a roll panel");
    let image = Image::open(&plots.join(panel["file"].as_str().unwrap()));
    let rgb = &panel["curves"][0]["rgb"];
    let color = [0, 1, 2].map(|k| rgb[k].as_u64().unwrap() as u8);
    let x_range = [
        panel["x_range"][0].as_f64().unwrap(),
        panel["x_range"][1].as_f64().unwrap(),
    ];
    let y_range = [
        panel["y_range"][0].as_f64().unwrap(),
        panel["y_range"][1].as_f64().unwrap(),
    ];
    let px = [
        panel["pixel_x"][0].as_i64().unwrap(),
        panel["pixel_x"][1].as_i64().unwrap(),
    ];
    let py = [
        panel["pixel_y"][0].as_i64().unwrap(),
        panel["pixel_y"][1].as_i64().unwrap(),
    ];
    let to_pixel = |t: f64, v: f64| {
        let x = px[0] as f64 + (t - x_range[0]) / (x_range[1] - x_range[0]) * (px[1] - px[0]) as f64;
        let y = py[0] as f64 + (y_range[1] - v) / (y_range[1] - y_range[0]) * (py[1] - py[0]) as f64;
        (x.round() as i64, y.round() as i64)
    };

    // Not blank: the curve's colour covers a good part of the panel's width.
    let coloured_columns = (px[0]..=px[1])
        .filter(|&x| (py[0]..=py[1]).any(|y| image.has_near(x, y, 0, color)))
        .count();
    assert!(
        coloured_columns as f64 > 0.9 * (px[1] - px[0]) as f64,
        "the roll curve covers {coloured_columns} of {} columns",
        px[1] - px[0]
    );

    // Every 40th sample of the CSV is on the curve, and the mirror value is not (the roll
    // swings through zero, so where it is near +3 degrees, -3 degrees is empty).
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let column = reader.headers().unwrap().iter().position(|h| h == "roll_deg").unwrap();
    let rows: Vec<(f64, f64)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].parse().unwrap(), r[column].parse().unwrap())
        })
        .collect();
    let mut checked = 0;
    for &(t, roll) in rows.iter().step_by(40) {
        let (x, y) = to_pixel(t, roll);
        assert!(
            image.has_near(x, y, 3, color),
            "no curve at t = {t}, roll = {roll} (pixel {x}, {y})"
        );
        if roll.abs() > 2.0 {
            let (x, y) = to_pixel(t, -roll);
            assert!(
                !image.has_near(x, y, 2, color),
                "curve at the mirror of t = {t}, roll = {roll}"
            );
        }
        checked += 1;
    }
    assert!(checked > 10);
    for name in ["motion.png", "forces.png", "side.png"] {
        assert!(plots.join(name).is_file(), "{name} missing");
    }
}

#[test]
fn errors_have_distinct_exit_codes() {
    let dir = scratch("errors");
    let code = |args: &[&str]| {
        let out = keel(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(stderr.contains("error"), "no message for {args:?}: {stderr}");
        out.status.code().unwrap()
    };
    let cube = dir.join("cube.obj");
    box_obj(&cube, DVec3::ONE, 1);
    let missing = dir.join("missing.obj");
    assert_eq!(code(&["hydrostatics", s(&missing), "--mass", "100"]), 3, "missing file");
    // Bytes that are not text are a malformed OBJ, not a missing file.
    let binary = dir.join("random.obj");
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    std::fs::write(&binary, bytes).unwrap();
    for command in ["hydrostatics", "simulate"] {
        assert_eq!(
            code(&[command, s(&binary), "--mass", "100"]),
            4,
            "random bytes, {command}"
        );
    }
    let malformed = dir.join("malformed.obj");
    std::fs::write(&malformed, "v 0 0 0\nv 1 0 zero\nv 0 1 0\nf 1 2 3\n").unwrap();
    assert_eq!(
        code(&["hydrostatics", s(&malformed), "--mass", "100"]),
        4,
        "malformed OBJ"
    );
    let points = dir.join("points.obj");
    std::fs::write(&points, "v 0 0 0\nv 1 0 0\nv 0 1 0\n").unwrap();
    assert_eq!(code(&["simulate", s(&points), "--mass", "100"]), 5, "no triangles");
    let flat = dir.join("flat.obj");
    std::fs::write(&flat, "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n").unwrap();
    assert_eq!(
        code(&["hydrostatics", s(&flat), "--mass", "100"]),
        5,
        "only degenerate triangles"
    );
    assert_eq!(code(&["hydrostatics", s(&cube), "--mass", "1500"]), 6, "cannot float");
    assert_eq!(code(&["hydrostatics", s(&cube), "--mass", "-5"]), 7, "negative mass");
    assert_eq!(code(&["simulate", s(&cube), "--mass", "100", "--dt", "0"]), 7, "dt = 0");
    let open = dir.join("open.obj");
    let text = std::fs::read_to_string(&cube).unwrap();
    let without_last_face: Vec<&str> = text.lines().collect();
    std::fs::write(&open, without_last_face[..without_last_face.len() - 1].join("\n")).unwrap();
    // One gate for every subcommand: simulate refuses the open box as hydrostatics does.
    for command in ["hydrostatics", "simulate"] {
        assert_eq!(code(&[command, s(&open), "--mass", "100"]), 8, "open hull, {command}");
    }
    assert_eq!(
        code(&["simulate", s(&open), "--density", "100"]),
        8,
        "open hull, --density"
    );
    // Winding is detected: the option that flipped it is gone.
    assert_eq!(code(&["hydrostatics", s(&cube), "--mass", "100", "--flip-winding"]), 2);
    assert_eq!(keel(&["hydrostatics"]).status.code(), Some(2), "usage");
}

#[test]
fn the_demo_runs_every_scene_and_says_ok_or_warning() {
    let out = keel(&["demo", "--seconds", "1", "--dt", "0.02", "--no-plot"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(matches!(out.status.code(), Some(0) | Some(10)), "{stdout}");
    for scene in [
        "birch cube, 483 kg",
        "cube, 800 kg",
        "boat hull",
        "bunny",
        "plate falling flat",
        "plate falling edge",
    ] {
        assert!(stdout.contains(scene), "{scene} missing:\n{stdout}");
    }
    let verdicts = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("OK") || l.trim_start().starts_with("WARNING"));
    assert!(verdicts.count() >= 12, "{stdout}");
    // Every scene on flat water states the draft a user checks against Archimedes'.
    let drafts = stdout
        .lines()
        .filter(|l| l.contains("settled draft") && l.contains("against Archimedes'"))
        .count();
    assert_eq!(drafts, 5, "{stdout}");
}

/// Capytaine (PyPI) computes the same figures from the same posed mesh by its own code.
#[test]
fn capytaine_agrees_on_volume_buoyancy_waterplane_and_metacentric_heights() {
    let probe = Command::new("python3").args(["-c", "import capytaine"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        return skip::skipped("python3 with capytaine is not installed (pip install -r .ci/requirements.txt)");
    }
    let dir = scratch("capytaine");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/capytaine_check.py");
    let barge = dir.join("barge.obj");
    box_obj(&barge, DVec3::new(6.0, 4.0, 20.0), 24);
    let cylinder = dir.join("cylinder.obj");
    cylinder_obj(&cylinder, 1.0, 6.0, 96, 48);
    let cases: [(&Path, &str, &str, &str); 3] = [
        (&barge, "barge", "180000", "0,1.2,0"),
        // Centre of mass off to one side: it rests heeled.
        (&barge, "heeled barge", "180000", "0.4,1.2,0"),
        (&cylinder, "cylinder", "6000", "0,-0.3,0"),
    ];
    for (mesh, name, mass, cog) in cases {
        let posed = dir.join(format!("{}-posed.obj", name.replace(' ', "-")));
        let (h, _) = ok_json(&[
            "hydrostatics",
            s(mesh),
            "--mass",
            mass,
            "--cog",
            cog,
            "--json",
            "--export-obj",
            s(&posed),
        ]);
        let e = &h["equilibrium"];
        let g = vec3(e, &["center_of_mass"]);
        let out = Command::new("python3")
            .args([
                script,
                s(&posed),
                mass,
                &g.x.to_string(),
                &g.y.to_string(),
                &g.z.to_string(),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let c: Value = serde_json::from_slice(&out.stdout).unwrap();
        let scale = num(e, &["draft"]);
        close(
            &format!("{name}: volume"),
            num(e, &["volume"]),
            num(&c, &["volume"]),
            1e-3,
        );
        let (bk, bc) = (vec3(e, &["center_of_buoyancy"]), vec3(&c, &["center_of_buoyancy"]));
        assert!((bk - bc).length() < 2e-3 * scale.max(1.0), "{name}: B {bk} vs {bc}");
        close(
            &format!("{name}: waterplane area"),
            num(e, &["waterplane_area"]),
            num(&c, &["waterplane_area"]),
            5e-3,
        );
        // Capytaine integrates the waterplane's moments at panel centroids: within a
        // percent on these meshes.
        for key in ["bm_t", "bm_l", "gm_t", "gm_l"] {
            close(&format!("{name}: {key}"), num(e, &[key]), num(&c, &[key]), 0.02);
        }
        if name == "heeled barge" {
            assert!(num(e, &["heel_deg"]).abs() > 1.0, "the offset mass must heel it");
        }
    }
}

/// `--cog 0,5,0` over a box 1 m deep: upright is unstable, the box rests upside down, and
/// hydrostatics and simulate both say so with heel 180 (not "heel 0, upright"). Upside
/// down the old deck is the keel: KG = d - c, and GM_T = t/2 + b^2/(12 t) - (d - c) by hand.
#[test]
fn a_centre_of_mass_above_the_deck_reads_upside_down_in_hydrostatics_and_simulate() {
    let dir = scratch("upside-down");
    let (l, b, d, t, c) = (4.0, 2.0, 1.0, 0.3, 5.0);
    let mesh = dir.join("box.obj");
    box_obj(&mesh, DVec3::new(b, d, l), 1);
    let mass = (RHO * l * b * t).to_string();
    let (json, stderr) = ok_json(&["hydrostatics", s(&mesh), "--mass", &mass, "--cog", "0,5,0", "--json"]);
    assert!(stderr.contains("upside down"), "{stderr}");
    let e = &json["equilibrium"];
    close("heel", num(e, &["heel_deg"]).abs(), 180.0, 1e-6);
    assert!(num(e, &["trim_deg"]).abs() < 1e-6, "{e}");
    assert_eq!(e["upside_down"], Value::Bool(true));
    close("draft", num(e, &["draft"]), t, 1e-6);
    close("GM_T", num(e, &["gm_t"]), t / 2.0 + b * b / (12.0 * t) - (d - c), 1e-6);
    close("GM_L", num(e, &["gm_l"]), t / 2.0 + l * l / (12.0 * t) - (d - c), 1e-6);
    // The roll axis is the box's long side, world Z here.
    let axis = [0, 1].map(|k| e["roll_axis"][k].as_f64().unwrap());
    assert!(
        axis[0].abs() < 1e-9 && (axis[1].abs() - 1.0).abs() < 1e-9,
        "roll axis {axis:?}"
    );
    let out = keel(&[
        "simulate",
        s(&mesh),
        "--mass",
        &mass,
        "--cog",
        "0,5,0",
        "--start",
        "equilibrium",
        "--seconds",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    close("simulated heel", num(&summary, &["heel_deg"]).abs(), 180.0, 1e-3);
    close(
        "predicted heel",
        num(&summary, &["predicted", "heel_deg"]).abs(),
        180.0,
        1e-6,
    );
}

/// The CSV holds every force's x, y, z and magnitude; the summary's peak slamming is the
/// largest `slamming_magnitude_n`.
#[test]
fn the_csv_has_each_forces_components_and_magnitude_and_the_summary_names_its_column() {
    let dir = scratch("csv");
    let mesh = dir.join("plate.obj");
    box_obj(&mesh, DVec3::new(2.0, 0.1, 2.0), 1);
    let csv = dir.join("run.csv");
    let args = [
        "simulate",
        s(&mesh),
        "--mass",
        "160",
        "--drop",
        "3",
        "--seconds",
        "1.5",
        "--heel",
        "5",
        "--csv",
        s(&csv),
    ];
    let out = keel(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("slamming_magnitude_n"), "{stdout}");
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let rows: Vec<Vec<f64>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(|v| v.parse().unwrap()).collect())
        .collect();
    for part in [
        "force",
        "buoyancy",
        "viscous",
        "pressure_drag",
        "slamming",
        "air",
        "damping",
    ] {
        let [x, y, z, m] = ["x", "y", "z", "magnitude"].map(|a| column(&format!("{part}_{a}_n")));
        for row in &rows {
            let length = (row[x] * row[x] + row[y] * row[y] + row[z] * row[z]).sqrt();
            assert!((length - row[m]).abs() <= 1e-9 * length.max(1.0), "{part}: {row:?}");
        }
    }
    let peak = rows
        .iter()
        .map(|r| r[column("slamming_magnitude_n")])
        .fold(0.0, f64::max);
    assert!(peak > 0.0, "the plate must slam");
    let printed = format!("peak slamming magnitude {peak:.1} N");
    assert!(stdout.contains(&printed), "{printed} not in {stdout}");
}
