//! Four f64 lanes: the arithmetic of the step's hot loops, four triangles at a time.
//!
//! Plain arrays with element-wise operators. LLVM's SLP vectoriser turns each operation
//! into one AVX instruction (or two SSE2 ones on the x86-64 baseline), and the step's
//! kernels are compiled twice with `multiversion` so that CPUs with AVX2 get the wide
//! version. No fused multiply-add: Rust never contracts `a * b + c`, so every CPU gets
//! the same bits from the same inputs.

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

use glam::DVec3;

/// The number of lanes.
pub const LANES: usize = 4;

/// Four f64 values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F4(pub [f64; LANES]);

/// Four booleans (the result of comparing [`F4`]s), each all ones or all zeros, as a
/// vector comparison leaves them: selecting is then a bitwise blend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct M4(pub [u64; LANES]);

#[inline(always)]
fn mask(b: bool) -> u64 {
    if b { u64::MAX } else { 0 }
}

#[inline(always)]
fn map(a: F4, f: impl Fn(f64) -> f64) -> F4 {
    F4([f(a.0[0]), f(a.0[1]), f(a.0[2]), f(a.0[3])])
}

#[inline(always)]
fn zip(a: F4, b: F4, f: impl Fn(f64, f64) -> f64) -> F4 {
    F4([
        f(a.0[0], b.0[0]),
        f(a.0[1], b.0[1]),
        f(a.0[2], b.0[2]),
        f(a.0[3], b.0[3]),
    ])
}

#[inline(always)]
fn compare(a: F4, b: F4, f: impl Fn(f64, f64) -> bool) -> M4 {
    M4::from_fn(|i| f(a.0[i], b.0[i]))
}

impl F4 {
    /// Every lane `x`.
    #[inline(always)]
    pub fn splat(x: f64) -> Self {
        Self([x; LANES])
    }

    /// Lane `i` is `f(i)`.
    #[inline(always)]
    pub fn from_fn(f: impl FnMut(usize) -> f64) -> Self {
        Self(std::array::from_fn(f))
    }

    #[inline(always)]
    pub fn sqrt(self) -> Self {
        map(self, f64::sqrt)
    }

    #[inline(always)]
    pub fn abs(self) -> Self {
        map(self, f64::abs)
    }

    #[inline(always)]
    pub fn max(self, other: Self) -> Self {
        // Not f64::max: its NaN handling keeps LLVM from using maxpd.
        zip(self, other, |a, b| if a > b { a } else { b })
    }

    #[inline(always)]
    pub fn min(self, other: Self) -> Self {
        zip(self, other, |a, b| if a < b { a } else { b })
    }

    #[inline(always)]
    pub fn gt(self, other: Self) -> M4 {
        compare(self, other, |a, b| a > b)
    }

    #[inline(always)]
    pub fn lt(self, other: Self) -> M4 {
        compare(self, other, |a, b| a < b)
    }

    /// Lane-wise `if mask { a } else { b }`.
    #[inline(always)]
    pub fn select(mask: M4, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|i| {
            f64::from_bits((a.0[i].to_bits() & mask.0[i]) | (b.0[i].to_bits() & !mask.0[i]))
        }))
    }

    /// The lanes' sum.
    #[inline(always)]
    pub fn sum(self) -> f64 {
        (self.0[0] + self.0[1]) + (self.0[2] + self.0[3])
    }
}

impl M4 {
    /// Lane `i` is `f(i)`.
    #[inline(always)]
    pub fn from_fn(mut f: impl FnMut(usize) -> bool) -> Self {
        Self(std::array::from_fn(|i| mask(f(i))))
    }

    /// Every lane `b`.
    #[inline(always)]
    pub fn splat(b: bool) -> Self {
        Self([mask(b); LANES])
    }

    /// Lane `i`.
    #[inline(always)]
    pub fn lane(self, i: usize) -> bool {
        self.0[i] != 0
    }

    #[inline(always)]
    pub fn and(self, other: Self) -> Self {
        Self(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    #[inline(always)]
    pub fn or(self, other: Self) -> Self {
        Self(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    #[inline(always)]
    pub fn and_not(self, other: Self) -> Self {
        Self(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    #[inline(always)]
    pub fn any(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) != 0
    }

    /// The number of true lanes.
    #[inline(always)]
    pub fn count(self) -> usize {
        self.0.iter().filter(|&&m| m != 0).count()
    }
}

macro_rules! binary {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait for F4 {
            type Output = F4;
            #[inline(always)]
            fn $method(self, other: F4) -> F4 {
                zip(self, other, |a, b| a $op b)
            }
        }
        impl $trait<f64> for F4 {
            type Output = F4;
            #[inline(always)]
            fn $method(self, other: f64) -> F4 {
                map(self, |a| a $op other)
            }
        }
    };
}

binary!(Add, add, +);
binary!(Sub, sub, -);
binary!(Mul, mul, *);
binary!(Div, div, /);

impl Neg for F4 {
    type Output = F4;
    #[inline(always)]
    fn neg(self) -> F4 {
        map(self, |a| -a)
    }
}

impl AddAssign for F4 {
    #[inline(always)]
    fn add_assign(&mut self, other: F4) {
        *self = *self + other;
    }
}

/// Four vectors, one per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V4 {
    pub x: F4,
    pub y: F4,
    pub z: F4,
}

impl V4 {
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: DVec3) -> Self {
        Self {
            x: F4::splat(v.x),
            y: F4::splat(v.y),
            z: F4::splat(v.z),
        }
    }

    /// Lane `i` is `f(i)`.
    #[inline(always)]
    pub fn from_fn(mut f: impl FnMut(usize) -> DVec3) -> Self {
        let v: [DVec3; LANES] = std::array::from_fn(&mut f);
        Self {
            x: F4::from_fn(|i| v[i].x),
            y: F4::from_fn(|i| v[i].y),
            z: F4::from_fn(|i| v[i].z),
        }
    }

    /// Lane `i` as a vector.
    #[inline(always)]
    pub fn lane(&self, i: usize) -> DVec3 {
        DVec3::new(self.x.0[i], self.y.0[i], self.z.0[i])
    }

    #[inline(always)]
    pub fn dot(self, o: Self) -> F4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline(always)]
    pub fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    #[inline(always)]
    pub fn length_squared(self) -> F4 {
        self.dot(self)
    }

    #[inline(always)]
    pub fn scale(self, s: F4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }

    /// Lane-wise `if mask { a } else { b }`.
    #[inline(always)]
    pub fn select(mask: M4, a: Self, b: Self) -> Self {
        Self {
            x: F4::select(mask, a.x, b.x),
            y: F4::select(mask, a.y, b.y),
            z: F4::select(mask, a.z, b.z),
        }
    }

    /// The lanes' sum.
    #[inline(always)]
    pub fn sum(self) -> DVec3 {
        DVec3::new(self.x.sum(), self.y.sum(), self.z.sum())
    }
}

impl Add for V4 {
    type Output = V4;
    #[inline(always)]
    fn add(self, o: V4) -> V4 {
        V4 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl Sub for V4 {
    type Output = V4;
    #[inline(always)]
    fn sub(self, o: V4) -> V4 {
        V4 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl Neg for V4 {
    type Output = V4;
    #[inline(always)]
    fn neg(self) -> V4 {
        V4 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

impl AddAssign for V4 {
    #[inline(always)]
    fn add_assign(&mut self, o: V4) {
        *self = *self + o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(seed: f64) -> F4 {
        F4::from_fn(|i| (seed + i as f64 * 1.37).sin() * 10.0)
    }

    #[test]
    fn every_operation_is_the_scalar_one_lane_by_lane() {
        let (a, b) = (lanes(0.3), lanes(2.1));
        for i in 0..LANES {
            let (x, y) = (a.0[i], b.0[i]);
            assert_eq!((a + b).0[i], x + y);
            assert_eq!((a - b).0[i], x - y);
            assert_eq!((a * b).0[i], x * y);
            assert_eq!((a / b).0[i], x / y);
            assert_eq!((a * 3.0).0[i], x * 3.0);
            assert_eq!((-a).0[i], -x);
            assert_eq!(a.abs().sqrt().0[i], x.abs().sqrt());
            assert_eq!(a.max(b).0[i], x.max(y));
            assert_eq!(a.min(b).0[i], x.min(y));
            assert_eq!(a.gt(b).lane(i), x > y);
            assert_eq!(a.lt(b).lane(i), x < y);
            assert_eq!(F4::select(a.gt(b), a, b).0[i], if x > y { x } else { y });
        }
        assert_eq!(a.sum(), (a.0[0] + a.0[1]) + (a.0[2] + a.0[3]));
        let m = a.gt(b);
        assert_eq!(m.any(), (0..LANES).any(|i| m.lane(i)));
        assert_eq!(m.count(), (0..LANES).filter(|&i| m.lane(i)).count());
        assert_eq!(m.and(M4::splat(false)), M4::splat(false));
        assert_eq!(m.or(M4::splat(true)), M4::splat(true));
        assert_eq!(m.and_not(m), M4::splat(false));
        assert_eq!(M4::from_fn(|i| i == 2).count(), 1);
    }

    #[test]
    fn vectors_are_glam_vectors_lane_by_lane() {
        let u = V4::from_fn(|i| DVec3::new(i as f64 + 0.5, -1.25 * i as f64, 3.0 - i as f64));
        let v = V4::from_fn(|i| DVec3::new(2.0, i as f64 * 0.75, -0.5 * i as f64 - 1.0));
        for i in 0..LANES {
            let (a, b) = (u.lane(i), v.lane(i));
            assert_eq!(u.dot(v).0[i], a.x * b.x + a.y * b.y + a.z * b.z);
            assert_eq!(u.cross(v).lane(i), a.cross(b));
            assert_eq!((u + v).lane(i), a + b);
            assert_eq!((u - v).lane(i), a - b);
            assert_eq!(u.scale(v.x).lane(i), a * b.x);
        }
        assert_eq!(V4::splat(DVec3::X).sum(), DVec3::new(4.0, 0.0, 0.0));
    }
}
