//! Hydrostatics on flat water: what a naval architect reads off a hull before it sails.
//!
//! Pure functions of a [`Hull`], a pose and the water level. The submerged volume and
//! its centroid come from Kerner's clipping ([`crate::hull::clip`]) and the divergence sums of
//! [`crate::forces::buoyancy::SubmergedVolume`], exact on flat water for a closed hull.
//! The waterplane is the region the water surface cuts out of the hull; its area and
//! moments come from the clipped triangles' waterline segments by Green's theorem, each
//! segment `(p0, p1)` adding the integrals over the triangle `(o, p0, p1)` in the
//! horizontal `(x, z)` plane, with `c = x0 z1 - x1 z0`:
//!
//! ```text
//! A       = sum c / 2
//! int x   = sum c (x0 + x1) / 6                    (z alike)
//! int x^2 = sum c (x0^2 + x0 x1 + x1^2) / 12       (z alike)
//! int xz  = sum c (2 x0 z0 + x0 z1 + x1 z0 + 2 x1 z1) / 24
//! ```
//!
//! The segments need not be chained into loops; only their common orientation matters,
//! and the sign of the total area gives it.
//!
//! [`find_equilibrium`] minimises the hydrostatic potential energy
//! `U = m g y_G - rho g integral of (y - level) dV` (its heave derivative is
//! `m g - rho g V`, Archimedes; its tilt derivatives are the righting moment): for each
//! tilt the heave is solved so that `rho V = m`, and the tilt (heel and trim) by Newton
//! steps with a backtracking line search on the energy, stepping down the direction of
//! negative curvature where the Hessian is not positive definite (a box whose GM is
//! negative leaves its upright saddle that way). The centre of mass keeps its horizontal
//! position and the body its heading: flat water pushes only vertically, and turning a
//! floating body about the vertical changes no energy.
//!
//! [`hydrostatics`] reports, at a pose, the classical figures: displaced volume, centre of
//! buoyancy, waterplane area, `KB` (above the lowest point of the hull), `BM_T = I_T / V`,
//! `BM_L = I_L / V`, `GM = KB + BM - KG` both ways, and the natural periods of heave,
//! `T = 2 pi sqrt(m / (rho g A_wp))`, and roll, `T = 2 pi sqrt(I_roll / (m g GM_T))`.
//!
//! The transverse and longitudinal figures are about the waterplane's principal axes
//! through the centre of flotation, the eigenvectors of its second-moment tensor
//! `[[int dx^2, int dx dz], [int dx dz, int dz^2]]`: `I_T`, the smaller moment, is about
//! the longer principal axis (the one the area stretches along), the axis a heel (roll)
//! turns about; `I_L`, the larger, about the shorter one, the axis of trim (pitch). For a
//! ship these are its length and beam; for a body resting at an odd attitude (the bunny on
//! its side) they are the only pair of axes whose moments are the least and the most
//! stiff, whereas the projections of the body's own axes need not even be perpendicular.
//! A waterplane whose two moments agree (a square, a circle) has no preferred axis: the
//! body's length (local Z, projected) is taken.
//!
//! Heel and trim ([`attitude`]) are angles of the body's rotation taken apart as
//! `heading * trim * heel`: a turn about world Y, then about the body's transverse axis
//! (local X), then about its longitudinal one (local Z), the order in which
//! `DQuat::from_euler(EulerRot::YXZ, heading, trim, heel)` composes them. With `f`, `s`
//! and `u` the world directions of the body's local Z, X and Y:
//!
//! ```text
//! trim = asin(-f.y)            in [-90, 90] degrees, positive: the +Z end (bow) down
//! heel = atan2(s.y, u.y)       in (-180, 180], positive: the +X side up
//! tilt = acos(u.y)             angle between the body's up and world up
//! ```
//!
//! Heel covers the whole turn, so a body floating upside down reads heel 180 and trim 0,
//! not "upright"; trim is limited to a quarter turn each way, as the decomposition must
//! be, and near it (the body standing on an end) heel is ill-defined.
//! The periods leave out the added mass of the water moved with the hull (which lengthens
//! a real ship's periods by some tens of percent in heave): they are the periods of the
//! model keel simulates, where the host integrates buoyancy with the body's own mass.
//!
//! Axes: the body's local Z is its length (bow towards +Z, as [`crate::BodyDesc`]'s
//! `hull_length` assumes) and local X its beam. Heel turns the body about its
//! longitudinal axis, trim about its transverse one; transverse moments are about the
//! longitudinal axis through the waterplane's centroid.

use glam::{DMat3, DQuat, DVec2, DVec3};

use crate::error::{Error, Result};
use crate::forces::buoyancy::SubmergedVolume;
use crate::hull::Hull;
use crate::hull::clip::{self, Tri};

/// A body's attitude: heading, trim and heel (module docs), radians, and its tilt.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Attitude {
    /// Compass direction of the body's length: the turn about world Y from world Z to the
    /// horizontal projection of the body's local Z, radians.
    pub heading: f64,
    /// Trim, radians in `[-pi/2, pi/2]`: positive lowers the body's +Z end (bow down).
    pub trim: f64,
    /// Heel, radians in `(-pi, pi]`: positive raises the body's +X side; `pi` is upside
    /// down.
    pub heel: f64,
    /// Angle between the body's up (local Y) and world up, radians in `[0, pi]`.
    pub tilt: f64,
}

impl Attitude {
    /// Whether the body's up points below the horizon.
    pub fn upside_down(&self) -> bool {
        self.tilt > std::f64::consts::FRAC_PI_2
    }
}

/// Heel, trim, heading and tilt of a body-local to world `rotation` (module docs): the
/// inverse of `DQuat::from_euler(EulerRot::YXZ, heading, trim, heel)`. The one attitude
/// every report of Keel's (the hydrostatics, the command line's runs and plots) gives.
pub fn attitude(rotation: DQuat) -> Attitude {
    let r = rotation.normalize();
    let (f, s, u) = (r * DVec3::Z, r * DVec3::X, r * DVec3::Y);
    let trim = (-f.y).clamp(-1.0, 1.0).asin();
    // With the trim known, s.y = sin(heel) cos(trim) and u.y = cos(heel) cos(trim).
    let heel = s.y.atan2(u.y);
    // The heading of f; when the body stands on an end f has no horizontal part, and the
    // heading is read from the side axis instead (s = heading * (cos heel, .., -sin heel)
    // rotated: its horizontal part then points along heading's X).
    let heading = if f.x.hypot(f.z) > 1e-9 {
        f.x.atan2(f.z)
    } else {
        (-s.z).atan2(s.x)
    };
    Attitude {
        heading,
        trim,
        heel: if heel <= -std::f64::consts::PI {
            std::f64::consts::PI
        } else {
            heel
        },
        tilt: u.y.clamp(-1.0, 1.0).acos(),
    }
}

/// Area and moments of the waterplane, world horizontal axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Waterplane {
    /// Area, m^2.
    pub area: f64,
    /// Centroid (centre of flotation), world `(x, z)`.
    pub centroid: DVec2,
    /// Second moments about the centroid, m^4: `int dx^2`, `int dz^2` and `int dx dz`
    /// over the area, with `dx, dz` the offsets from the centroid along world X and Z.
    pub xx: f64,
    /// See `xx`.
    pub zz: f64,
    /// See `xx`.
    pub xz: f64,
}

impl Waterplane {
    /// Second moment about the horizontal axis through the centroid along the unit
    /// `(x, z)` direction `axis` (the integral of the squared distance from that axis).
    pub fn moment_about(&self, axis: DVec2) -> f64 {
        // Distance from the axis is the offset along its normal (-axis.y, axis.x).
        let n = DVec2::new(-axis.y, axis.x);
        n.x * n.x * self.xx + 2.0 * n.x * n.y * self.xz + n.y * n.y * self.zz
    }

    /// The longer principal axis (module docs), a unit world `(x, z)` direction, and the
    /// moments about it and about the shorter one: `(axis, I_T, I_L)`, `I_T <= I_L`. The
    /// axis points along `forward` rather than against it; when the two moments agree
    /// within rounding, it is `forward` itself (a unit `(x, z)` direction).
    pub fn principal_axes(&self, forward: DVec2) -> (DVec2, f64, f64) {
        let [(small, v_small), (large, _)] = eigen2([[self.xx, self.xz], [self.xz, self.zz]]);
        if large - small <= 1e-9 * (large + small).abs() {
            return (forward, self.moment_about(forward), self.moment_about(forward.perp()));
        }
        // The least moment is about the axis perpendicular to the least spread.
        let axis = v_small.perp();
        let axis = if axis.dot(forward) < 0.0 { -axis } else { axis };
        (axis, small, large)
    }
}

/// The hull below the water at one pose.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Submerged {
    /// Submerged volume, m^3.
    pub volume: f64,
    /// Its centroid (the centre of buoyancy), world; the pose's origin when dry.
    pub centroid: DVec3,
    /// The waterplane.
    pub waterplane: Waterplane,
}

/// A rigid pose: body origin and body-local to world rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Body origin, world.
    pub position: DVec3,
    /// Body-local to world.
    pub rotation: DQuat,
}

impl Pose {
    /// A world point from a body-local one.
    pub fn apply(&self, local: DVec3) -> DVec3 {
        self.position + self.rotation * local
    }
}

/// Submerged volume, centre of buoyancy and waterplane of `hull` at `pose` under flat
/// water at height `level`. Exact for a closed hull; an open one's volume means little.
pub fn submerged(hull: &Hull, pose: &Pose, level: f64) -> Submerged {
    // Sums relative to a point near the hull keep far-away bodies precise.
    let origin = DVec3::new(pose.position.x, level, pose.position.z);
    let offset = pose.position - origin;
    let points: Vec<DVec3> = hull.positions().iter().map(|&p| offset + pose.rotation * p).collect();
    let mut volume = SubmergedVolume::default();
    let mut plane = PlaneSums::default();
    for t in hull.triangles() {
        let v = t.map(|i| points[i as usize]);
        let tri = Tri {
            v,
            height: v.map(|p| p.y),
        };
        let clipped = clip::clip(&tri);
        for piece in clipped.submerged() {
            volume.add(piece, piece.scaled_normal());
        }
        if let Some([p0, p1]) = clipped.waterline {
            plane.add(DVec2::new(p0.x, p0.z), DVec2::new(p1.x, p1.z));
        }
    }
    let centroid = volume.centroid().unwrap_or(offset) + origin;
    let mut waterplane = plane.finish();
    waterplane.centroid += DVec2::new(origin.x, origin.z);
    Submerged {
        volume: volume.volume,
        centroid,
        waterplane,
    }
}

/// Green's-theorem sums over waterline segments (module docs).
#[derive(Clone, Copy, Debug, Default)]
struct PlaneSums {
    area2: f64,
    x6: f64,
    z6: f64,
    xx12: f64,
    zz12: f64,
    xz24: f64,
}

impl PlaneSums {
    fn add(&mut self, a: DVec2, b: DVec2) {
        let c = a.x * b.y - b.x * a.y;
        self.area2 += c;
        self.x6 += c * (a.x + b.x);
        self.z6 += c * (a.y + b.y);
        self.xx12 += c * (a.x * a.x + a.x * b.x + b.x * b.x);
        self.zz12 += c * (a.y * a.y + a.y * b.y + b.y * b.y);
        self.xz24 += c * (2.0 * a.x * a.y + a.x * b.y + b.x * a.y + 2.0 * b.x * b.y);
    }

    fn finish(&self) -> Waterplane {
        // The segments run one way round the waterplane or the other: the sign of the
        // area says which, and every integral shares it.
        let s = if self.area2 < 0.0 { -1.0 } else { 1.0 };
        let area = s * self.area2 / 2.0;
        if area <= 0.0 {
            return Waterplane::default();
        }
        let cx = s * self.x6 / 6.0 / area;
        let cz = s * self.z6 / 6.0 / area;
        Waterplane {
            area,
            centroid: DVec2::new(cx, cz),
            xx: s * self.xx12 / 12.0 - area * cx * cx,
            zz: s * self.zz12 / 12.0 - area * cz * cz,
            xz: s * self.xz24 / 24.0 - area * cx * cz,
        }
    }
}

/// The physical constants and mass properties [`find_equilibrium`] and [`hydrostatics`]
/// need.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loading {
    /// Mass, kg, > 0.
    pub mass: f64,
    /// Centre of mass, body-local.
    pub com_local: DVec3,
    /// Water density, kg/m^3.
    pub water_density: f64,
    /// Gravity, m/s^2.
    pub gravity: f64,
    /// Height of the flat water.
    pub level: f64,
}

impl Loading {
    fn validate(&self, hull: &Hull) -> Result<()> {
        let finite = self.mass.is_finite()
            && self.com_local.is_finite()
            && self.water_density.is_finite()
            && self.gravity.is_finite()
            && self.level.is_finite();
        if !finite {
            return Err(Error::argument(
                "mass, centre of mass, density, gravity and level must be finite",
            ));
        }
        if self.mass <= 0.0 || self.water_density <= 0.0 || self.gravity <= 0.0 {
            return Err(Error::argument(format!(
                "mass ({} kg), water density ({} kg/m^3) and gravity ({} m/s^2) must be positive",
                self.mass, self.water_density, self.gravity
            )));
        }
        if !hull.info().is_closed || !hull.has_volume() {
            return Err(Error::argument(
                "the hull is open (or flat): it has no volume to float on; close its holes",
            ));
        }
        let most = self.water_density * hull.info().volume;
        if self.mass >= most {
            return Err(Error::argument(format!(
                "a mass of {} kg cannot float: the whole hull displaces {most} kg of water",
                self.mass
            )));
        }
        Ok(())
    }
}

/// Rest pose of a floating body on flat water.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Equilibrium {
    /// The pose: the start's heading and the centre of mass's horizontal position.
    pub pose: Pose,
    /// Centre of mass, world.
    pub center_of_mass: DVec3,
    /// Heel (about the body's longitudinal axis) and trim (about its transverse axis),
    /// radians, as [`attitude`] gives them: heel `pi` is upside down.
    pub heel: f64,
    /// See `heel`.
    pub trim: f64,
    /// Newton iterations taken.
    pub iterations: u32,
}

/// Tilts of the body are rotations about world horizontal axes through the centre of
/// mass; the heading frame's X (transverse) and Z (longitudinal) axes name them.
struct Problem<'a> {
    hull: &'a Hull,
    load: Loading,
    /// Horizontal position of the centre of mass, kept.
    com_xz: DVec2,
    /// Heading: rotation about world Y whose X and Z are the body's transverse and
    /// longitudinal axes when level.
    heading: DQuat,
    /// Size of the hull, for tolerances and step limits.
    size: f64,
    target_volume: f64,
}

/// A tilt, world axes: `rotation = exp(tilt) * heading`, with `tilt` horizontal.
#[derive(Clone, Copy, Debug)]
struct Trial {
    rotation: DQuat,
    com_y: f64,
    sub: Submerged,
}

impl<'a> Problem<'a> {
    fn new(hull: &'a Hull, load: &Loading, start: &Pose) -> Result<Self> {
        load.validate(hull)?;
        if !start.position.is_finite() || !start.rotation.is_finite() || start.rotation.length_squared() < 1e-12 {
            return Err(Error::argument(
                "the start pose must be finite with a non-zero rotation",
            ));
        }
        let (lo, hi) = (hull.info().bounds_min, hull.info().bounds_max);
        let com = start.apply(load.com_local);
        Ok(Problem {
            hull,
            load: *load,
            com_xz: DVec2::new(com.x, com.z),
            heading: heading_of(start.rotation.normalize()),
            size: (hi - lo).length(),
            target_volume: load.mass / load.water_density,
        })
    }

    fn pose(&self, rotation: DQuat, com_y: f64) -> Pose {
        let com = DVec3::new(self.com_xz.x, com_y, self.com_xz.y);
        Pose {
            position: com - rotation * self.load.com_local,
            rotation,
        }
    }

    /// The attitude at `rotation` with the heave that floats the mass (`rho V = m`):
    /// safeguarded Newton on the volume, whose heave derivative is the waterplane area.
    fn settle(&self, rotation: DQuat, guess: Option<f64>) -> Trial {
        // Local-frame extent of the hull along world up, about the centre of mass.
        let up_local = rotation.inverse() * DVec3::Y;
        let (lo, hi) = self
            .hull
            .positions()
            .iter()
            .map(|&p| (p - self.load.com_local).dot(up_local))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), h| (lo.min(h), hi.max(h)));
        // com_y such that the lowest point touches the water, and the highest.
        let (mut dry, mut sunk) = (self.load.level - lo, self.load.level - hi);
        let mut y = guess.unwrap_or(0.5 * (dry + sunk)).clamp(sunk, dry);
        let tolerance = 1e-12 * self.size.max(1e-9);
        let mut sub = submerged(self.hull, &self.pose(rotation, y), self.load.level);
        for _ in 0..200 {
            let miss = sub.volume - self.target_volume;
            if miss > 0.0 {
                sunk = y;
            } else {
                dry = y;
            }
            let area = sub.waterplane.area;
            let mut next = if area > 0.0 { y + miss / area } else { f64::NAN };
            if !(next > sunk && next < dry) {
                next = 0.5 * (sunk + dry);
            }
            let done = (next - y).abs() <= tolerance || (dry - sunk) <= tolerance;
            y = next;
            sub = submerged(self.hull, &self.pose(rotation, y), self.load.level);
            if done {
                break;
            }
        }
        Trial {
            rotation,
            com_y: y,
            sub,
        }
    }

    /// Energy of an attitude, relative to the water level (module docs). With
    /// `m = rho V` it is `m g (y_G - y_B)`, in joules.
    fn energy(&self, a: &Trial) -> f64 {
        let g = self.load.gravity;
        let rho = self.load.water_density;
        self.load.mass * g * (a.com_y - self.load.level) - rho * g * a.sub.volume * (a.sub.centroid.y - self.load.level)
    }

    /// Derivative of the energy along the tilts about the heading frame's X and Z axes:
    /// minus the righting moment of buoyancy about the centre of mass, N m.
    fn gradient(&self, a: &Trial) -> DVec2 {
        let com = DVec3::new(self.com_xz.x, a.com_y, self.com_xz.y);
        let lift = DVec3::Y * (self.load.water_density * self.load.gravity * a.sub.volume);
        let torque = (a.sub.centroid - com).cross(lift);
        let (tx, tz) = self.axes();
        -DVec2::new(torque.dot(tx), torque.dot(tz))
    }

    fn axes(&self) -> (DVec3, DVec3) {
        (self.heading * DVec3::X, self.heading * DVec3::Z)
    }

    fn tilted(&self, a: &Trial, step: DVec2) -> Trial {
        let (tx, tz) = self.axes();
        let turn = DQuat::from_scaled_axis(tx * step.x + tz * step.y);
        self.settle((turn * a.rotation).normalize(), Some(a.com_y))
    }

    /// Hessian of the energy in the tilts, by central differences of the exact gradient.
    fn hessian(&self, a: &Trial) -> [[f64; 2]; 2] {
        let h = 1e-5;
        let mut m = [[0.0; 2]; 2];
        for (j, e) in [DVec2::X, DVec2::Y].into_iter().enumerate() {
            let gp = self.gradient(&self.tilted(a, e * h));
            let gm = self.gradient(&self.tilted(a, -e * h));
            let d = (gp - gm) / (2.0 * h);
            m[0][j] = d.x;
            m[1][j] = d.y;
        }
        let off = 0.5 * (m[0][1] + m[1][0]);
        m[0][1] = off;
        m[1][0] = off;
        m
    }
}

/// Eigenvalues (ascending) and unit eigenvectors of a symmetric 2 x 2 matrix.
fn eigen2(m: [[f64; 2]; 2]) -> [(f64, DVec2); 2] {
    let (a, b, d) = (m[0][0], m[0][1], m[1][1]);
    let mean = 0.5 * (a + d);
    let r = (0.25 * (a - d) * (a - d) + b * b).sqrt();
    let (l0, l1) = (mean - r, mean + r);
    // Each row of `m - l I` gives a null vector: `(b, l - a)` and `(l - d, b)`. The longer
    // of the two is the accurate one; when `b` is tiny (a waterplane nearly aligned with
    // the world axes) the first is two rounding errors whose direction means nothing.
    let vector = |l: f64| {
        let (first, second) = (DVec2::new(b, l - a), DVec2::new(l - d, b));
        let v = if first.length_squared() >= second.length_squared() {
            first
        } else {
            second
        };
        v.normalize_or(DVec2::X)
    };
    let v0 = vector(l0);
    [(l0, v0), (l1, v0.perp())]
}

/// The heading of `rotation`: the turn about world Y that points world Z along the
/// horizontal projection of the body's forward (local Z) axis, or of its local X axis
/// when the body points straight up or down.
fn heading_of(rotation: DQuat) -> DQuat {
    let forward = rotation * DVec3::Z;
    let angle = if forward.x.hypot(forward.z) > 1e-9 {
        forward.x.atan2(forward.z)
    } else {
        let side = rotation * DVec3::X;
        (-side.z).atan2(side.x)
    };
    DQuat::from_rotation_y(angle)
}

/// The pose at which a body of `load` floats at rest on flat water, starting from
/// `start`: heave, heel and trim solved for a stable minimum of the hydrostatic energy,
/// the start's heading and the centre of mass's horizontal position kept (module docs).
/// Fails if the hull is open or the mass cannot float.
pub fn find_equilibrium(hull: &Hull, load: &Loading, start: &Pose) -> Result<Equilibrium> {
    let problem = Problem::new(hull, load, start)?;
    let rotation0 = start.rotation.normalize();
    let mut current = problem.settle(rotation0, None);
    let scale = load.mass * load.gravity * problem.size;
    let mut iterations = 0;
    for _ in 0..100 {
        iterations += 1;
        let g = problem.gradient(&current);
        let [(l0, v0), (l1, v1)] = eigen2(problem.hessian(&current));
        let positive = l0 > 1e-9 * scale;
        if positive && g.length() <= 1e-10 * scale {
            break;
        }
        let step = if positive {
            // Newton: H^-1 applied through the eigenvectors.
            -(v0 * (v0.dot(g) / l0) + v1 * (v1.dot(g) / l1))
        } else {
            // Not convex here: a gradient step where curvature is positive, and down the
            // direction of negative curvature (the way the body tips) a fixed turn.
            let down = if v0.dot(g) > 0.0 { -v0 } else { v0 };
            let along = if l1 > 0.0 {
                -v1 * (v1.dot(g) / l1)
            } else {
                -v1 * v1.dot(g).signum() * 0.1
            };
            down * 0.2 + along
        };
        // No turn larger than about 30 degrees at once.
        let step = step * (0.5 / step.length().max(0.5));
        let e0 = problem.energy(&current);
        let slope = g.dot(step).min(0.0);
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..40 {
            let next = problem.tilted(&current, step * t);
            let e = problem.energy(&next);
            if e <= e0 + 1e-4 * t * slope && (e < e0 || t * step.length() < 1e-12) {
                accepted = Some(next);
                break;
            }
            t *= 0.5;
        }
        match accepted {
            Some(next) => current = next,
            // No descent left within rounding: this is the minimum.
            None => break,
        }
    }
    // Tilts about world axes change the heading at second order: turn the body back
    // about the vertical through its centre of mass, which changes no energy.
    let back = problem.heading * heading_of(current.rotation).inverse();
    let rotation = (back * current.rotation).normalize();
    let pose = problem.pose(rotation, current.com_y);
    let angles = attitude(rotation);
    if !(pose.position.is_finite() && pose.rotation.is_finite() && angles.heel.is_finite() && angles.trim.is_finite()) {
        return Err(Error::argument("no equilibrium found: the hull's numbers overflow"));
    }
    Ok(Equilibrium {
        pose,
        center_of_mass: pose.apply(load.com_local),
        heel: angles.heel,
        trim: angles.trim,
        iterations,
    })
}

/// The pose at which a body of `load` floats with the attitude of `start`, heave alone
/// solved (`rho V = m`): where figures such as the upright GM are read, stable or not.
pub fn float_level(hull: &Hull, load: &Loading, start: &Pose) -> Result<Pose> {
    let problem = Problem::new(hull, load, start)?;
    let a = problem.settle(start.rotation.normalize(), None);
    Ok(problem.pose(a.rotation, a.com_y))
}

/// Hydrostatic figures of a body at one pose on flat water (module docs for the
/// definitions and simplifications).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report {
    /// Displaced volume, m^3.
    pub volume: f64,
    /// Displaced mass, kg.
    pub displacement: f64,
    /// Centre of buoyancy, world.
    pub center_of_buoyancy: DVec3,
    /// Centre of mass, world.
    pub center_of_mass: DVec3,
    /// Waterplane area, m^2.
    pub waterplane_area: f64,
    /// Centre of flotation (the waterplane's centroid), world `(x, z)`.
    pub center_of_flotation: DVec2,
    /// Draft: depth of the lowest point of the hull under the water, m.
    pub draft: f64,
    /// Height of the centre of buoyancy above the lowest point of the hull, m.
    pub kb: f64,
    /// Height of the centre of mass above the lowest point of the hull, m.
    pub kg: f64,
    /// Transverse metacentric radius `I_T / V` (about the roll axis), m.
    pub bm_t: f64,
    /// Longitudinal metacentric radius `I_L / V` (about the pitch axis), m.
    pub bm_l: f64,
    /// Transverse metacentric height `KB + BM_T - KG`, m; negative: the body capsizes.
    pub gm_t: f64,
    /// Longitudinal metacentric height, m.
    pub gm_l: f64,
    /// Waterplane second moment about its longer principal axis through the centre of
    /// flotation (the roll axis, `roll_axis`), m^4: the smaller of the two.
    pub i_t: f64,
    /// About the shorter principal axis (the pitch axis, perpendicular to `roll_axis`),
    /// m^4: the larger.
    pub i_l: f64,
    /// Direction of the roll axis, world `(x, z)`, unit: the waterplane's longer principal
    /// axis, pointing along the body's length rather than against it (module docs).
    pub roll_axis: DVec2,
    /// Natural heave period without added mass, s (infinite with no waterplane).
    pub heave_period: f64,
    /// Natural roll period without added mass, s (infinite unless GM_T > 0).
    pub roll_period: f64,
    /// Natural pitch period without added mass, s (infinite unless GM_L > 0).
    pub pitch_period: f64,
    /// Moment of inertia about the horizontal axis through the centre of mass parallel
    /// to `roll_axis`, kg m^2.
    pub roll_inertia: f64,
}

/// Hydrostatic figures of `hull` loaded with `load` at `pose`. `inertia` is the body's
/// inertia tensor about its centre of mass in body axes; `None` takes the hull's solid
/// at uniform density (moved to the centre of mass by the parallel-axis rule when that
/// is not the hull's centroid).
pub fn hydrostatics(hull: &Hull, load: &Loading, pose: &Pose, inertia: Option<DMat3>) -> Result<Report> {
    load.validate(hull)?;
    let sub = submerged(hull, pose, load.level);
    if sub.volume <= 0.0 {
        return Err(Error::argument("the hull is out of the water at this pose"));
    }
    let keel = hull
        .positions()
        .iter()
        .map(|&p| pose.apply(p).y)
        .fold(f64::INFINITY, f64::min);
    let com = pose.apply(load.com_local);
    // The waterplane's principal axes (module docs); the body's length, horizontal,
    // names the roll axis's sign and stands in for it when the waterplane has no
    // preferred axis.
    let plane = sub.waterplane;
    let forward = DQuat::from_rotation_y(attitude(pose.rotation).heading) * DVec3::Z;
    let (roll_axis, i_t, i_l) = plane.principal_axes(DVec2::new(forward.x, forward.z));
    let (bm_t, bm_l) = (i_t / sub.volume, i_l / sub.volume);
    let (kb, kg) = (sub.centroid.y - keel, com.y - keel);
    let gm_t = kb + bm_t - kg;
    let gm_l = kb + bm_l - kg;
    let inertia = inertia.unwrap_or_else(|| uniform_inertia(hull, load.mass, load.com_local));
    // About the horizontal axes through the centre of mass parallel to the principal
    // ones, in body axes.
    let local = |a: DVec2| pose.rotation.inverse() * DVec3::new(a.x, 0.0, a.y);
    let (roll_local, pitch_local) = (local(roll_axis), local(roll_axis.perp()));
    let roll_inertia = roll_local.dot(inertia * roll_local);
    let pitch_inertia = pitch_local.dot(inertia * pitch_local);
    let (m, g, rho) = (load.mass, load.gravity, load.water_density);
    let period = |inertia: f64, stiffness: f64| {
        if stiffness > 0.0 {
            std::f64::consts::TAU * (inertia / stiffness).sqrt()
        } else {
            f64::INFINITY
        }
    };
    Ok(Report {
        volume: sub.volume,
        displacement: rho * sub.volume,
        center_of_buoyancy: sub.centroid,
        center_of_mass: com,
        waterplane_area: plane.area,
        center_of_flotation: plane.centroid,
        draft: load.level - keel,
        kb,
        kg,
        bm_t,
        bm_l,
        gm_t,
        gm_l,
        i_t,
        i_l,
        roll_axis,
        heave_period: period(m, rho * g * plane.area),
        roll_period: period(roll_inertia, m * g * gm_t),
        pitch_period: period(pitch_inertia, m * g * gm_l),
        roll_inertia,
    })
}

/// Inertia tensor, body axes, about `com_local`, of the hull's solid at uniform density
/// and total `mass` (moved by the parallel-axis rule when `com_local` is not the hull's
/// centroid: ballast that lowers the centre of mass is taken as a point mass there).
pub fn uniform_inertia(hull: &Hull, mass: f64, com_local: DVec3) -> DMat3 {
    let d = com_local - hull.info().centroid;
    (hull.unit_inertia() + DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d)) * mass
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// [`find_equilibrium`] for a body of a [`crate::World`], at the world's flat water
/// level (the height of its water under the start's centre of mass) and constants.
pub fn find_body_equilibrium(
    world: &crate::World,
    body: crate::BodyId,
    com_local: DVec3,
    start: &Pose,
) -> Result<Equilibrium> {
    let guard = world.body(body)?;
    let com = start.apply(com_local);
    let level = world.water_height(com.x, com.z);
    if !level.is_finite() {
        return Err(Error::argument("the water height under the body is not finite"));
    }
    let load = Loading {
        mass: guard.desc().mass,
        com_local,
        water_density: world.desc().water_density,
        gravity: world.desc().gravity,
        level,
    };
    find_equilibrium(guard.hull(), &load, start)
}
