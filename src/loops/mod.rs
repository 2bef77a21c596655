//! The step's vector loops, over the columns of a hull's triangles ([`crate::hull`]),
//! with the row functions of [`crate::forces`]:
//!
//! - `whole`: the triangles wholly under or wholly above the water, and the cut
//!   triangles' pieces gathered into blocks for the same loops;
//! - `lanes`: small bodies eight at a time, one in each vector lane, clipping included;
//! - `pack`: a lane group's chosen rows packed into full groups.
//!
//! They know nothing of bodies or of the step's order: the step (`crate::step`) calls
//! them.

pub(crate) mod lanes;
pub(crate) mod pack;
pub(crate) mod whole;
