//! The row functions every path calls, each against its formula written plainly (the
//! module docs' formulas, or the analytic integral they stand for).

use glam::DVec3;

use super::air::{air_force, air_row};
use super::buoyancy::{SubmergedVolume, depth_weighted_midpoints, pressure, pressure_about, volume_row};
use super::drag::{DragConstants, centroid_and_radius, drag_at, drag_points, needs_three_points};
use super::motion::{DragParams, Motion};
use super::pressure_drag::{DragCoefficients, pressure_drag_force};
use super::viscous::viscous_force;
use crate::hull::clip::Tri;

/// A small deterministic generator (no dependency), for the crate's kernel tests.
pub(crate) struct Lcg(pub u64);
impl Lcg {
    /// Uniform in [-1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64) / ((1u64 << 53) as f64) * 2.0 - 1.0
    }
    pub fn vec(&mut self) -> DVec3 {
        DVec3::new(self.next(), self.next(), self.next())
    }
}

/// `f` integrated over the triangle `[a, b, c]` by splitting it into `n^2` similar
/// triangles and taking each at its centroid.
fn subdivided(a: DVec3, b: DVec3, c: DVec3, n: usize, f: impl Fn(DVec3) -> DVec3) -> DVec3 {
    let (e1, e2) = ((b - a) / n as f64, (c - a) / n as f64);
    let area = 0.5 * e1.cross(e2).length();
    let mut sum = DVec3::ZERO;
    for i in 0..n {
        for j in 0..n - i {
            let p = a + i as f64 * e1 + j as f64 * e2;
            sum += f(p + (e1 + e2) / 3.0) * area;
            if i + j + 1 < n {
                sum += f(p + (2.0 * e1 + 2.0 * e2) / 3.0) * area;
            }
        }
    }
    sum
}

#[test]
fn pressure_gives_the_analytic_force_and_centre_of_pressure_of_a_linear_pressure() {
    // Water at y = 0, p = rho g h with h = -y the depth, linear over any plane triangle:
    //   F = -(integral of p dA) n = -rho g (h_a + h_b + h_c) / 3 * S n
    //   centre = integral of p r dA / integral of p dA
    //          = (sum_i h_i r_i + (sum_i h_i)(sum_i r_i)) / (4 sum_i h_i)
    // (the integral of the product of two linear functions over a triangle of area S is
    // S/12 (sum f_i g_i + sum f_i sum g_i)).
    let rho_g = 1025.0 * 9.81;
    let mut rng = Lcg(3);
    for _ in 0..2000 {
        let [a, b, c] = [0; 3].map(|_| rng.vec() - DVec3::new(0.0, 1.2, 0.0));
        let tri = Tri {
            v: [a, b, c],
            height: [a.y, b.y, c.y],
        };
        let sn = (b - a).cross(c - a);
        let h = [-a.y, -b.y, -c.y];
        let sum_h = h[0] + h[1] + h[2];
        let (force, point) = pressure(&tri, sn, rho_g);
        let expected_force = -rho_g * sum_h / 3.0 * (0.5 * sn);
        let expected_point = (h[0] * a + h[1] * b + h[2] * c + sum_h * (a + b + c)) / (4.0 * sum_h);
        let scale = rho_g * sum_h * sn.length();
        assert!(
            (force - expected_force).length() <= 1e-14 * scale,
            "{force} {expected_force}"
        );
        assert!((point - expected_point).length() <= 1e-13, "{point} {expected_point}");
        // And a fine subdivision of the same integrals (`O(1/n^2)` off).
        let n = 40;
        let unit = sn.normalize();
        let integral = subdivided(a, b, c, n, |p| -rho_g * -p.y * unit);
        let moment = subdivided(a, b, c, n, |p| -p.y * p);
        let weight = subdivided(a, b, c, n, |p| DVec3::splat(-p.y)).x;
        assert!((force - integral).length() <= 1e-3 * scale, "{force} {integral}");
        assert!(
            (point - moment / weight).length() <= 1e-3,
            "{point} {}",
            moment / weight
        );
        // The centre of pressure is the row's `P / 4` over the depth sum.
        let weighted = depth_weighted_midpoints([a, b, c].map(|p| p.to_array()), h);
        assert_eq!(DVec3::from_array(weighted) / (4.0 * sum_h), point);
        // The row's moment, division-free, about any centre: the force at the centre of
        // pressure; at the centroid for Kerner's shortcut; vertical buoyancy keeps the
        // force's vertical part, at the same point.
        let com = rng.vec() * 2.0;
        let lever = (expected_point - com).length() + 1.0;
        let (f, torque, at) = pressure_about(&tri, sn, rho_g, com, false, false);
        assert_eq!((f, at), (force, point));
        let expected_torque = (expected_point - com).cross(expected_force);
        assert!(
            (torque - expected_torque).length() <= 1e-13 * scale * lever,
            "{torque} {expected_torque}"
        );
        let (f, torque, at) = pressure_about(&tri, sn, rho_g, com, false, true);
        let centroid = (a + b + c) / 3.0;
        assert_eq!(at, centroid);
        assert!((f - expected_force).length() <= 1e-14 * scale);
        let expected_torque = (centroid - com).cross(expected_force);
        assert!((torque - expected_torque).length() <= 1e-13 * scale * lever);
        let (f, torque, at) = pressure_about(&tri, sn, rho_g, com, true, false);
        let vertical = DVec3::new(0.0, expected_force.y, 0.0);
        assert_eq!((f.x, f.z, at), (0.0, 0.0, point));
        assert!((f - vertical).length() <= 1e-14 * scale);
        let expected_torque = (expected_point - com).cross(vertical);
        assert!((torque - expected_torque).length() <= 1e-13 * scale * lever);
    }
}

#[test]
fn the_volume_row_is_what_submerged_volume_adds() {
    // A unit cube's bottom face at depth 2 (normal down): volume to the surface 2 (the
    // closed hull's other faces add the rest), centred at y = -1.
    let (a, b, c) = (
        DVec3::new(0.0, -2.0, 0.0),
        DVec3::new(1.0, -2.0, 0.0),
        DVec3::new(0.0, -2.0, 1.0),
    );
    let sn = (b - a).cross(c - a);
    assert!(sn.y < 0.0);
    let (volume, moment) = volume_row([a, b, c].map(|p| p.to_array()), [2.0; 3], sn.y);
    // Half the square: a prism of volume 1/2 * 2 = 1, centroid (1/3, -1, 1/3).
    assert!((volume - 1.0).abs() < 1e-15, "{volume}");
    assert!((DVec3::from_array(moment) - DVec3::new(1.0 / 3.0, -1.0, 1.0 / 3.0)).length() < 1e-15);
    let mut sum = SubmergedVolume::default();
    sum.add(
        &Tri {
            v: [a, b, c],
            height: [-2.0; 3],
        },
        sn,
    );
    assert_eq!((sum.volume, sum.moment), (volume, DVec3::from_array(moment)));
}

fn coefficients(pressure_falloff: f64, suction_falloff: f64) -> DragCoefficients {
    DragCoefficients {
        pressure_linear: 120.0,
        pressure_quadratic: 80.0,
        suction_linear: 60.0,
        suction_quadratic: 30.0,
        pressure_falloff,
        suction_falloff,
        reference_speed: 1.5,
    }
}

/// Pressure drag as pressure_drag.rs's module docs write it.
fn plain_pressure_drag(u: DVec3, normal: DVec3, area: f64, c: &DragCoefficients) -> DVec3 {
    let speed = u.length();
    if speed == 0.0 {
        return DVec3::ZERO;
    }
    let cos = u.dot(normal) / speed;
    let q = speed / c.reference_speed;
    if cos > 0.0 {
        -(c.pressure_linear * q + c.pressure_quadratic * q * q) * area * cos.powf(c.pressure_falloff) * normal
    } else if cos < 0.0 {
        (c.suction_linear * q + c.suction_quadratic * q * q) * area * (-cos).powf(c.suction_falloff) * normal
    } else {
        DVec3::ZERO
    }
}

#[test]
fn pressure_drag_of_any_falloff_gives_the_formula() {
    // The one-at-a-time code's falloffs the loops do not take (`powf`), and theirs.
    let mut rng = Lcg(17);
    for (fp, fs) in [(0.3, 1.7), (2.5, 0.8), (0.5, 2.0), (1.0, 0.0)] {
        let c = coefficients(fp, fs);
        let mut acting = 0;
        for _ in 0..2000 {
            let u = rng.vec() * 4.0;
            let normal = rng.vec().normalize();
            let area = rng.next().abs() + 0.01;
            let got = pressure_drag_force(u, normal, area, &c);
            let expected = plain_pressure_drag(u, normal, area, &c);
            let q = u.length() / c.reference_speed;
            let scale = area * (c.pressure_linear + c.pressure_quadratic * q) * q;
            assert!(
                (got - expected).length() <= 1e-14 * scale,
                "falloffs {fp}/{fs}: {got} against {expected}"
            );
            acting += usize::from(expected != DVec3::ZERO);
        }
        assert!(acting > 1900, "{acting}");
    }
    assert_eq!(
        pressure_drag_force(DVec3::ZERO, DVec3::X, 1.0, &coefficients(0.3, 0.3)),
        DVec3::ZERO
    );
}

#[test]
fn the_drag_kernel_gives_the_scalar_drag_formulas() {
    let mut rng = Lcg(11);
    let motion = Motion {
        com: DVec3::ZERO,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };
    let (rho, cf) = (1025.0, 0.004);
    for (fp, fs) in [(0.5, 0.5), (1.0, 1.0), (0.0, 0.5), (2.0, 1.0), (0.5, 2.0), (1.0, 0.0)] {
        let c = coefficients(fp, fs);
        let params = DragParams {
            viscous: Some((rho, cf)),
            pressure: Some(c),
        };
        let k = DragConstants::new(&motion, &params);
        let mut checked = 0;
        for i in 0..4000 {
            let u = rng.vec() * 4.0;
            let normal = rng.vec().normalize();
            let normal = if i % 9 == 0 {
                u.normalize().any_orthonormal_vector()
            } else {
                normal
            };
            let arm = rng.vec();
            let area = rng.next().abs() + 0.01;
            let half = |kernel: bool| {
                if kernel {
                    drag_at::<true>(&k, arm.to_array(), u.to_array(), normal.to_array(), area)
                } else {
                    drag_at::<false>(&k, arm.to_array(), u.to_array(), normal.to_array(), area)
                }
            };
            let (fv, fd, torque) = half(fp == 0.5 && fs == 0.5);
            let (fv, fd, torque) = (DVec3::from_array(fv), DVec3::from_array(fd), DVec3::from_array(torque));
            // Viscous: the scalar formula's arithmetic, to the bit.
            assert_eq!(fv, viscous_force(u, normal, area, rho, cf));
            // Pressure drag: the scalar function's row, to the bit; and the formula,
            // (C1 q + C2 q^2) cos^f S n, multiplied out: to rounding.
            assert_eq!(fd, pressure_drag_force(u, normal, area, &c), "falloffs {fp}/{fs}");
            let expected = plain_pressure_drag(u, normal, area, &c);
            // The drag scale S (C1 q + C2 q^2), q = |u| / v_r (the larger coefficients).
            let q = u.length() / c.reference_speed;
            let scale = area * (c.pressure_linear + c.pressure_quadratic * q) * q;
            assert!(
                fd.length() <= scale * (1.0 + 1e-12),
                "{fd} beyond the drag scale {scale}, falloffs {fp}/{fs}, u {u}, n {normal}, area {area}"
            );
            assert!(
                (fd - expected).length() <= 1e-14 * scale,
                "falloffs {fp}/{fs}: {fd} against {expected}"
            );
            let friction = 0.5 * rho * cf * area * u.length_squared();
            let moment = (torque - arm.cross(fv + fd)).length();
            assert!(moment <= 1e-14 * (scale + friction) * (1.0 + arm.length()), "{moment}");
            checked += usize::from(expected != DVec3::ZERO);
        }
        assert!(checked > 3000, "{checked}");
    }
}

#[test]
fn the_three_point_rule_integrates_quadratic_fields_and_one_point_linear_ones() {
    let mut rng = Lcg(5);
    for _ in 0..500 {
        let [a, b, c] = [0; 3].map(|_| rng.vec());
        let area = 0.5 * (b - a).cross(c - a).length();
        let corners = [a, b, c].map(|p| p.to_array());
        let (centroid, radius_squared) = centroid_and_radius(corners);
        assert_eq!(DVec3::from_array(centroid), (a + b + c) * (1.0 / 3.0));
        let farthest = [a, b, c].map(|p| (p - DVec3::from_array(centroid)).length_squared());
        assert_eq!(radius_squared, farthest[0].max(farthest[1]).max(farthest[2]));
        let (q, l, k) = (rng.vec(), rng.vec(), rng.next());
        let quadratic = |p: DVec3| DVec3::splat(p.dot(q) * p.dot(l) + k);
        let linear = |p: DVec3| DVec3::splat(p.dot(q) + k);
        let rule = |three: bool, f: &dyn Fn(DVec3) -> DVec3| {
            drag_points(corners, centroid, area, three)
                .iter()
                .map(|&(p, w)| f(DVec3::from_array(p)) * w)
                .sum::<DVec3>()
        };
        let exact = subdivided(a, b, c, 200, quadratic);
        let three = rule(true, &quadratic);
        assert!(
            (three - exact).length() <= 1e-4 * (1.0 + exact.length()),
            "{three} {exact}"
        );
        let linear_exact = subdivided(a, b, c, 20, linear);
        let one = rule(false, &linear);
        assert!((one - linear_exact).length() <= 1e-12 * (1.0 + linear_exact.length()));
    }
    // The switch: |omega| r against a tenth of the centroid's speed, on squares.
    assert!(!needs_three_points(1.0, 0.0099, 1.0));
    assert!(needs_three_points(1.0, 0.0101, 1.0));
    assert!(!needs_three_points(0.0, 1.0, 0.0));
}

#[test]
fn the_air_row_gives_the_scalar_air_formula() {
    // F = -1/2 rho_air C_air S |v| v cos(theta), on faces that meet the air.
    let mut rng = Lcg(13);
    let (density, coefficient) = (1.225, 1.1);
    let factor = -0.5 * density * coefficient;
    let mut acting = 0;
    for _ in 0..5000 {
        let v = rng.vec() * 10.0;
        let normal = rng.vec().normalize();
        let area = rng.next().abs();
        let row = DVec3::from_array(air_row(v.to_array(), normal.to_array(), area, factor, true));
        let cos = v.dot(normal) / v.length();
        let formula = if cos > 0.0 {
            -0.5 * density * coefficient * area * v.length() * cos * v
        } else {
            DVec3::ZERO
        };
        assert!(
            (row - formula).length() <= 1e-14 * (1.0 + formula.length()),
            "{row} {formula}"
        );
        // The scalar function is the row: the same bits.
        assert_eq!(row, air_force(v, normal, area, density, coefficient));
        assert_eq!(air_row(v.to_array(), normal.to_array(), area, factor, false), [0.0; 3]);
        acting += usize::from(cos > 0.0);
    }
    assert!(acting > 2000);
}
