//! Vector arithmetic on `[f64; 3]`, the form the row functions of [`crate::forces`] take
//! so that the loops around them (one triangle or one body per vector lane) have plain
//! numbers to vectorise. Each operation is written in glam's order (`DVec3::cross`,
//! `DVec3::dot`): a row function called with `DVec3::to_array` gives the scalar code's
//! bits.

#[inline(always)]
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - b[1] * a[2],
        a[2] * b[0] - b[2] * a[0],
        a[0] * b[1] - b[0] * a[1],
    ]
}

#[inline(always)]
pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub(crate) fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub(crate) fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `a` if `yes`, else `b` (a select in vector code).
#[inline(always)]
pub(crate) fn pick(yes: bool, a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        if yes { a[0] } else { b[0] },
        if yes { a[1] } else { b[1] },
        if yes { a[2] } else { b[2] },
    ]
}

/// The velocity relative to the water of the point `arm` from the centre of mass of a
/// body moving at `velocity` and spinning at `omega`, in water moving at `water`:
/// `(v + omega x arm) - water`, as every force takes it.
#[inline(always)]
pub(crate) fn point_velocity(velocity: [f64; 3], omega: [f64; 3], arm: [f64; 3], water: [f64; 3]) -> [f64; 3] {
    sub(add(velocity, cross(omega, arm)), water)
}
