//! PNG plots with plotters' bitmap backend. Text uses DejaVu Sans, committed beside the
//! crate (`assets/`, its license there too), so that no system font is needed.
//!
//! Beside the pictures, `plots.json` records each panel's axis ranges, its pixel
//! rectangle and its curves' colours, so that a script (and the test suite) can check
//! that a curve is drawn where its data say.
//!
//! Each panel answers one question: one curve per panel (a force's spike scales only its
//! own panel, and a force that is zero throughout says so in its title instead of hiding
//! under another curve), tick labels with only the digits their spacing needs, and
//! legends beside the plotting area, never over the data.

use std::path::{Path, PathBuf};
use std::sync::Once;

use glam::DVec3;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use crate::error::{CliError, Result};
use crate::sim::{Sample, Scene};

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Curve colours, in order.
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// One curve of a panel, as `plots.json` describes it.
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    pub name: String,
    pub rgb: [u8; 3],
}

/// One panel: data ranges and where they are drawn, in image pixels.
#[derive(Clone, Debug, Serialize)]
pub struct Panel {
    pub file: String,
    pub title: String,
    pub x_range: [f64; 2],
    pub y_range: [f64; 2],
    /// Left and right pixel columns of the plotting area.
    pub pixel_x: [i32; 2],
    /// Top and bottom pixel rows (the top shows `y_range[1]`).
    pub pixel_y: [i32; 2],
    pub curves: Vec<Curve>,
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // A font that does not parse leaves the plots without text, not without curves.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

fn failed(path: &Path, e: impl std::fmt::Display) -> CliError {
    CliError::output(path, e)
}

/// A series to draw: name and points.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Axis ranges of `series`, the y range at least `min_span` tall (a body at rest must not
/// show its rounding noise as a swing).
fn range_of(series: &[Series], min_span: f64) -> ([f64; 2], [f64; 2]) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in series.iter().flat_map(|s| &s.points) {
        if x.is_finite() && y.is_finite() {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0.partial_cmp(&x1) != Some(std::cmp::Ordering::Less) {
        (x0, x1) = (x0.min(0.0), x0.max(0.0) + 1.0);
    }
    if !y0.is_finite() {
        (y0, y1) = (-1.0, 1.0);
    }
    if y1 - y0 < min_span {
        let middle = 0.5 * (y0 + y1);
        (y0, y1) = (middle - 0.5 * min_span, middle + 0.5 * min_span);
    }
    // Every curve keeps a margin from the frame; a flat one gets a band around it wide
    // enough for readable tick labels.
    let magnitude = y0.abs().max(y1.abs());
    let pad = if y1 - y0 > 1e-9 * magnitude.max(1.0) {
        (y1 - y0) * 0.08
    } else {
        (0.1 * magnitude).max(1.0)
    };
    ([x0, x1], [y0 - pad, y1 + pad])
}

/// A tick label with the decimals the ticks' spacing needs: the spacing is the
/// smallest of 1, 2 or 5 times a power of ten that puts at most ten ticks on `span`, as
/// plotters picks it. `9000`, not `9000.0`; `0.25`; never `-0`.
pub fn tick_label(value: f64, span: f64) -> String {
    let raw = (span.abs() / 10.0).max(1e-12);
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * power);
    let decimals = (-step.log10().floor()).clamp(0.0, 9.0) as usize;
    no_negative_zero(format!("{value:.decimals$}"))
}

/// `-0.00` as `0.00`: a value that rounds to zero has no sign.
pub fn no_negative_zero(text: String) -> String {
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// One panel: `series` drawn in `colors` order; one series per panel everywhere but in
/// tests of this file.
fn draw_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    file: &str,
    title: &str,
    (x_label, y_label): (&str, &str),
    series: &[Series],
    first_color: usize,
    min_span: f64,
) -> std::result::Result<Panel, Box<dyn std::error::Error>> {
    let (x_range, y_range) = range_of(series, min_span);
    let (x_span, y_span) = (x_range[1] - x_range[0], y_range[1] - y_range[0]);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range[0]..x_range[1], y_range[0]..y_range[1])?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&|v| tick_label(*v, x_span))
        .y_label_formatter(&|v| tick_label(*v, y_span))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let mut curves = Vec::new();
    for (k, s) in series.iter().enumerate() {
        let color = PALETTE[(first_color + k) % PALETTE.len()];
        chart.draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))?;
        curves.push(Curve {
            name: s.name.clone(),
            rgb: [color.0, color.1, color.2],
        });
    }
    let (px, py) = chart.plotting_area().get_pixel_range();
    Ok(Panel {
        file: file.to_string(),
        title: title.to_string(),
        x_range,
        y_range,
        pixel_x: [px.start, px.end - 1],
        pixel_y: [py.start, py.end - 1],
        curves,
    })
}

/// Heave, roll and pitch against time.
fn motion(path: &Path, name: &str, samples: &[Sample]) -> std::result::Result<Vec<Panel>, Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (1000, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((3, 1));
    let file = file_name(path);
    let t = |f: &dyn Fn(&Sample) -> f64| samples.iter().map(|s| (s.time, f(s))).collect::<Vec<_>>();
    let panels = vec![
        draw_panel(
            &areas[0],
            &file,
            &format!("{name}: heave"),
            ("time (s)", "centre of mass y (m)"),
            &[Series {
                name: "heave".into(),
                points: t(&|s| s.com.y),
            }],
            0,
            0.01,
        )?,
        draw_panel(
            &areas[1],
            &file,
            &format!("{name}: heel (roll): +X side up, 180 = upside down"),
            ("time (s)", "heel (deg)"),
            &[Series {
                name: "heel".into(),
                points: t(&|s| s.roll.to_degrees()),
            }],
            1,
            2.0,
        )?,
        draw_panel(
            &areas[2],
            &file,
            &format!("{name}: trim (pitch): +Z end down"),
            ("time (s)", "trim (deg)"),
            &[Series {
                name: "trim".into(),
                points: t(&|s| s.pitch.to_degrees()),
            }],
            2,
            2.0,
        )?,
    ];
    root.present()?;
    Ok(panels)
}

/// One part of the force breakdown.
type Part = fn(&keel::BodyForces) -> DVec3;

/// The vertical part of each force of the breakdown against time, one panel each: a
/// slamming spike of 80 kN must not flatten a drag of 200 N into a line.
fn forces(path: &Path, name: &str, samples: &[Sample]) -> std::result::Result<Vec<Panel>, Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (1200, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let parts: [(&str, Part); 6] = [
        ("buoyancy", |f| f.buoyancy_force),
        ("skin friction (viscous)", |f| f.viscous_force),
        ("pressure drag", |f| f.pressure_drag_force),
        ("slamming", |f| f.slamming_force),
        ("air", |f| f.air_force),
        ("damping", |f| f.damping_force),
    ];
    let areas = root.split_evenly((3, 2));
    let file = file_name(path);
    let mut panels = Vec::new();
    for (k, ((label, part), area)) in parts.iter().zip(&areas).enumerate() {
        let points: Vec<(f64, f64)> = samples.iter().map(|s| (s.time, part(&s.forces).y)).collect();
        let zero = points.iter().all(|p| p.1 == 0.0);
        let title = if zero {
            format!("{name}: {label}: zero throughout")
        } else {
            format!("{name}: {label}")
        };
        let series = [Series {
            name: label.to_string(),
            points,
        }];
        panels.push(draw_panel(
            area,
            &file,
            &title,
            ("time (s)", "vertical force (N)"),
            &series,
            k,
            0.0,
        )?);
    }
    root.present()?;
    Ok(panels)
}

/// The hull's edges seen from the side (length along the horizontal axis) at its last
/// pose, with the water surface through its centre of mass.
fn side(path: &Path, scene: &Scene) -> std::result::Result<Vec<Panel>, Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    // The legend gets a column of its own, beside the picture.
    let (picture, key) = root.split_horizontally(820);
    let body = &scene.rigid;
    let world_points: Vec<DVec3> = scene
        .mesh
        .vertices
        .iter()
        .map(|v| body.position + body.rotation * v.as_dvec3())
        .collect();
    let com = body.com();
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for p in &world_points {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let span = (hi.z - lo.z).max(hi.y - lo.y) * 0.6 + 1e-3;
    let centre = (lo + hi) * 0.5;
    let x_range = [centre.z - span * 1.5, centre.z + span * 1.5];
    let y_range = [centre.y - span, centre.y + span];
    let mut chart = ChartBuilder::on(&picture)
        .caption(format!("{}: side view at the end", scene.name), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range[0]..x_range[1], y_range[0]..y_range[1])?;
    let (x_span, y_span) = (x_range[1] - x_range[0], y_range[1] - y_range[0]);
    chart
        .configure_mesh()
        .x_desc("world z (m)")
        .y_desc("world y (m)")
        .x_label_formatter(&|v| tick_label(*v, x_span))
        .y_label_formatter(&|v| tick_label(*v, y_span))
        .draw()?;
    let water: Vec<(f64, f64)> = (0..=200)
        .map(|i| {
            let z = x_range[0] + (x_range[1] - x_range[0]) * i as f64 / 200.0;
            (z, scene.world.water_height(com.x, z))
        })
        .collect();
    let sea = RGBColor(120, 170, 230);
    chart.draw_series(
        AreaSeries::new(water.iter().copied(), y_range[0], sea.mix(0.35)).border_style(sea.stroke_width(2)),
    )?;
    let hull_color = RGBColor(60, 60, 60);
    chart.draw_series(scene.mesh.indices.chunks_exact(3).map(|t| {
        let p = |k: usize| {
            let v = world_points[t[k] as usize];
            (v.z, v.y)
        };
        PathElement::new(vec![p(0), p(1), p(2), p(0)], hull_color.mix(0.5))
    }))?;
    chart.draw_series(std::iter::once(Circle::new((com.z, com.y), 5, RED.filled())))?;
    let (px, py) = chart.plotting_area().get_pixel_range();
    let text = ("sans-serif", 16).into_font();
    let row = |k: i32| 70 + 30 * k;
    key.draw(&Rectangle::new(
        [(8, row(0) - 7), (32, row(0) + 7)],
        sea.mix(0.35).filled(),
    ))?;
    key.draw(&PathElement::new(
        vec![(8, row(0) - 7), (32, row(0) - 7)],
        sea.stroke_width(2),
    ))?;
    key.draw(&Text::new("water", (40, row(0) - 8), text.clone()))?;
    key.draw(&PathElement::new(vec![(8, row(1)), (32, row(1))], hull_color.mix(0.5)))?;
    key.draw(&Text::new("hull edges", (40, row(1) - 8), text.clone()))?;
    key.draw(&Circle::new((20, row(2)), 5, RED.filled()))?;
    key.draw(&Text::new("centre of mass", (40, row(2) - 8), text.clone()))?;
    // The water is a section: its height along z at the centre of mass's x.
    key.draw(&Text::new("water: its surface", (8, row(4) - 8), text.clone()))?;
    key.draw(&Text::new("along z, through", (8, row(5) - 8), text.clone()))?;
    key.draw(&Text::new("the centre of mass", (8, row(6) - 8), text))?;
    root.present()?;
    Ok(vec![Panel {
        file: file_name(path),
        title: "side view".into(),
        x_range,
        y_range,
        pixel_x: [px.start, px.end - 1],
        pixel_y: [py.start, py.end - 1],
        curves: vec![
            Curve {
                name: "water".into(),
                rgb: [sea.0, sea.1, sea.2],
            },
            Curve {
                name: "hull".into(),
                rgb: [hull_color.0, hull_color.1, hull_color.2],
            },
            Curve {
                name: "centre of mass".into(),
                rgb: [RED.0, RED.1, RED.2],
            },
        ],
    }])
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Writes `<prefix>motion.png`, `<prefix>forces.png` and `<prefix>side.png` into `dir`
/// and returns their panels.
pub fn write_all(dir: &Path, prefix: &str, scene: &Scene, samples: &[Sample]) -> Result<Vec<Panel>> {
    register_font();
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
    let path = |name: &str| -> PathBuf { dir.join(format!("{prefix}{name}.png")) };
    let mut panels = Vec::new();
    let p = path("motion");
    panels.extend(motion(&p, &scene.name, samples).map_err(|e| failed(&p, e))?);
    let p = path("forces");
    panels.extend(forces(&p, &scene.name, samples).map_err(|e| failed(&p, e))?);
    let p = path("side");
    panels.extend(side(&p, scene).map_err(|e| failed(&p, e))?);
    Ok(panels)
}

/// Writes `plots.json` describing `panels` into `dir`.
pub fn write_layout(dir: &Path, panels: &[Panel]) -> Result<()> {
    let path = dir.join("plots.json");
    let text = serde_json::to_string_pretty(panels).map_err(|e| failed(&path, e))?;
    std::fs::write(&path, text).map_err(|e| failed(&path, e))
}

#[cfg(test)]
mod tests {
    use super::tick_label;

    #[test]
    fn tick_labels_carry_the_digits_their_spacing_needs_and_no_negative_zero() {
        assert_eq!(tick_label(9000.0, 10000.0), "9000");
        assert_eq!(tick_label(-0.0, 2.0), "0.0");
        assert_eq!(tick_label(-1e-17, 2.0), "0.0");
        assert_eq!(tick_label(-0.00001, 10000.0), "0");
        assert_eq!(tick_label(0.25, 0.5), "0.25");
        assert_eq!(tick_label(-1.5, 20.0), "-2");
        assert_eq!(tick_label(-1.5, 2.0), "-1.5");
    }
}
