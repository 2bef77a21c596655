//! The lanes' branch-free clipping against `hull::clip`'s, to the bit.

use super::*;
use crate::forces::kernel_tests::Lcg;
use crate::hull::clip::{self, Tri};
use glam::DVec3;

fn bits(p: &Piece) -> Vec<u64> {
    p.v.iter().flatten().chain(&p.h).map(|x| x.to_bits()).collect()
}

fn tri_bits(t: &Tri) -> Vec<u64> {
    t.v.iter()
        .flat_map(|v| v.to_array())
        .chain(t.height)
        .map(f64::to_bits)
        .collect()
}

/// A missing piece: three corners on one point (no area, so no force).
fn is_none(p: &Piece) -> bool {
    p.v[1] == p.v[0] && p.v[2] == p.v[0]
}

/// The lanes' clipping against `clip.rs`'s, to the bit, for one triangle; and the
/// clipping of a triangle cut the same way in every lane (`CUT_ONE`, `CUT_TWO`) against
/// the general one's.
fn check(v: [[f64; 3]; 3], h: [f64; 3]) {
    let lanes = clip::<MIXED>(v, h);
    // The count of corners under the water known, and with it the lone corner (the
    // same heights in every lane).
    let lone = lone_kind_of([h; LANES]);
    let known = match lanes.under {
        1 => [Some(clip::<CUT_ONE>(v, h)), Some(clip_lone(lone, v, h))],
        2 => [Some(clip::<CUT_TWO>(v, h)), Some(clip_lone(lone, v, h))],
        _ => [None, None],
    };
    for known in known.into_iter().flatten() {
        assert_eq!(known.under, lanes.under);
        for (k, (a, b)) in known
            .wet
            .iter()
            .chain(&known.dry)
            .zip(lanes.wet.iter().chain(&lanes.dry))
            .enumerate()
        {
            assert_eq!(
                bits(a),
                bits(b),
                "piece {k} of {v:?} {h:?}, its count of corners under known"
            );
        }
    }
    let reference = clip::clip(&Tri {
        v: v.map(DVec3::from_array),
        height: h,
    });
    assert_eq!(
        lanes.under as usize,
        h.iter().filter(|&&h| h < 0.0).count(),
        "{v:?} {h:?}"
    );
    for (name, got, want) in [
        ("wet", &lanes.wet, reference.submerged()),
        ("dry", &lanes.dry, reference.emerged()),
    ] {
        for (k, piece) in got.iter().enumerate() {
            match want.get(k) {
                Some(t) => assert_eq!(bits(piece), tri_bits(t), "{name} piece {k} of {v:?} {h:?}"),
                None => assert!(is_none(piece), "{name} piece {k} of {v:?} {h:?} should be missing"),
            }
        }
    }
}

#[test]
fn the_lanes_clip_a_triangle_into_clip_rs_pieces_to_the_bit() {
    let mut rng = Lcg(29);
    let mut cases = 0;
    // Heights that matter: on the water (+0 and -0), just under or over it, far off.
    let special = [0.0, -0.0, 1e-300, -1e-300, f64::MIN_POSITIVE, -1e-12, 1e-12, -3.0, 5.0];
    for round in 0..20_000 {
        let mut corner = || [rng.next(), rng.next(), rng.next()];
        let mut v = [corner(), corner(), corner()];
        match round % 5 {
            // Degenerate: two corners on one point, or three on a line.
            1 => v[1] = v[0],
            2 => v[2] = std::array::from_fn(|x| 0.5 * (v[0][x] + v[1][x])),
            // A sliver: the third corner a hair from the first edge.
            3 => v[2] = std::array::from_fn(|x| v[0][x] + 0.3 * (v[1][x] - v[0][x]) + 1e-13),
            _ => {}
        }
        let level = rng.next() * 0.8;
        let mut h = v.map(|p| p[1] - level);
        if round % 3 == 0 {
            let k = (round / 3) % 3;
            h[k] = special[(round / 9) % special.len()];
        }
        if round % 7 == 0 {
            h[(round + 1) % 3] = special[(round / 7) % special.len()];
        }
        check(v, h);
        cases += 1;
    }
    // Every count of corners under the water, with corners on it.
    for h in [
        [-1.0, -2.0, -0.5],
        [1.0, 2.0, 0.5],
        [0.0, 0.0, 0.0],
        [-0.0, -0.0, -0.0],
        [0.0, -1.0, -1.0],
        [0.0, 0.0, -1.0],
        [-1.0, 0.0, 1.0],
        [1.0, -1.0, 0.0],
    ] {
        check([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], h);
        cases += 1;
    }
    assert!(cases > 20_000);
}

/// [`clip`] for a cut triangle of kind `kind` with its lone corner ([`kind_of_sides`]).
fn clip_lone(kind: u8, v: [[f64; 3]; 3], h: [f64; 3]) -> Clipped {
    match kind {
        CUT_ONE_AT_0 => clip::<CUT_ONE_AT_0>(v, h),
        CUT_ONE_AT_1 => clip::<CUT_ONE_AT_1>(v, h),
        CUT_ONE_AT_2 => clip::<CUT_ONE_AT_2>(v, h),
        CUT_TWO_AT_0 => clip::<CUT_TWO_AT_0>(v, h),
        CUT_TWO_AT_1 => clip::<CUT_TWO_AT_1>(v, h),
        CUT_TWO_AT_2 => clip::<CUT_TWO_AT_2>(v, h),
        _ => panic!("kind {kind} of {v:?} {h:?} has no lone corner"),
    }
}

/// A triangle's corners with the heights `heights` in eight lanes.
fn kind_corners(heights: [[f64; 3]; LANES]) -> [LaneVertex; 3] {
    std::array::from_fn(|c| {
        let mut v = [[0.0; LANES]; 4];
        for l in 0..LANES {
            v[3][l] = heights[l][c];
        }
        v
    })
}

/// A triangle's kind from its corners' heights in eight lanes.
fn kind_of(heights: [[f64; 3]; LANES]) -> u8 {
    kind(&kind_corners(heights).each_ref())
}

/// The same with the lone corner, as a full group finds it.
fn lone_kind_of(heights: [[f64; 3]; LANES]) -> u8 {
    let corners = kind_corners(heights);
    kind_of_sides(corners.each_ref().map(vertex_side)).unwrap_or_else(|| kind(&corners.each_ref()))
}

#[test]
fn a_cut_triangle_has_its_lone_corner_only_when_it_is_the_same_in_every_lane() {
    // One corner under: that one; two under: the one above.
    assert_eq!(lone_kind_of([[-1.0, 0.0, 2.0]; LANES]), CUT_ONE_AT_0);
    assert_eq!(lone_kind_of([[1.0, -0.5, 2.0]; LANES]), CUT_ONE_AT_1);
    assert_eq!(lone_kind_of([[1.0, 0.5, -2.0]; LANES]), CUT_ONE_AT_2);
    assert_eq!(lone_kind_of([[1.0, -0.5, -2.0]; LANES]), CUT_TWO_AT_0);
    assert_eq!(lone_kind_of([[-1.0, 0.5, -2.0]; LANES]), CUT_TWO_AT_1);
    assert_eq!(lone_kind_of([[-1.0, -0.5, 2.0]; LANES]), CUT_TWO_AT_2);
    // (-0 is not under the water.)
    assert_eq!(lone_kind_of([[-0.0, -0.5, -0.0]; LANES]), CUT_ONE_AT_1);
    // Other kinds as they are.
    assert_eq!(lone_kind_of([[1.0, 0.0, 2.0]; LANES]), DRY);
    assert_eq!(lone_kind_of([[-1.0, -2.0, -0.5]; LANES]), WET);
    // One lane with another lone corner, whichever: the kind without it.
    for l in 0..LANES {
        let mut h = [[-1.0, 0.0, 2.0]; LANES];
        h[l] = [1.0, -1.0, 2.0];
        assert_eq!(lone_kind_of(h), CUT_ONE, "lane {l}");
        let mut h = [[-1.0, -0.5, 2.0]; LANES];
        h[l] = [1.0, -1.0, -2.0];
        assert_eq!(lone_kind_of(h), CUT_TWO, "lane {l}");
        h[l] = [1.0, 1.0, -2.0];
        assert_eq!(lone_kind_of(h), MIXED, "lane {l}");
    }
}

#[test]
fn a_triangle_is_cut_one_way_only_when_it_is_in_every_lane() {
    let one = [-1.0, 0.0, 2.0];
    let two = [-1.0, -0.0, 2.0];
    assert_eq!(kind_of([[1.0, 0.0, 2.0]; LANES]), DRY);
    assert_eq!(kind_of([[-1.0, -2.0, -0.5]; LANES]), WET);
    assert_eq!(kind_of([one; LANES]), CUT_ONE);
    // (-0 is not under the water: `h < 0`.)
    assert_eq!(kind_of([two; LANES]), CUT_ONE);
    assert_eq!(kind_of([[-1.0, -2.0, 0.5]; LANES]), CUT_TWO);
    // One lane different, whichever: the general code.
    for l in 0..LANES {
        let mut h = [one; LANES];
        h[l] = [-1.0, -2.0, 0.5];
        assert_eq!(kind_of(h), MIXED, "lane {l}");
        h[l] = [1.0, 2.0, 0.5];
        assert_eq!(kind_of(h), MIXED, "lane {l}");
        let mut h = [[1.0, 2.0, 0.5]; LANES];
        h[l] = [-1.0, -2.0, -0.5];
        assert_eq!(kind_of(h), MIXED, "lane {l}");
    }
}
