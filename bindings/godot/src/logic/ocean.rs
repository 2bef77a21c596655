//! `KeelOcean`'s surface: a square grid whose vertices sit at the water's height, as
//! keel samples it, so what players see is what bodies feel.
//!
//! The grid is built once in the node's space (X and Z from `-size/2` to `size/2`), each
//! frame its points go to world space, keel answers heights and normals there, and the
//! moved points come back to the node's space. Triangles wind clockwise seen from above,
//! Godot's front faces.

use glam::{DAffine3, DVec3};
use keel::World;

/// A grid of `(cells + 1)^2` points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    /// Rest points, node space, y = 0.
    pub points: Vec<DVec3>,
    /// Three per triangle, Godot's winding.
    pub indices: Vec<i32>,
}

/// The most cells per side (a million vertices).
pub const MAX_CELLS: u32 = 1000;

/// A square grid of side `size` with `cells` cells per side (clamped to 1 to
/// [`MAX_CELLS`]).
pub fn grid(size: f64, cells: u32) -> Grid {
    let n = cells.clamp(1, MAX_CELLS);
    let step = size / f64::from(n);
    let half = size / 2.0;
    let row = n as i32 + 1;
    let points = (0..=n)
        .flat_map(|iz| (0..=n).map(move |ix| DVec3::new(f64::from(ix) * step - half, 0.0, f64::from(iz) * step - half)))
        .collect();
    let mut indices = Vec::with_capacity(6 * (n * n) as usize);
    for iz in 0..n as i32 {
        for ix in 0..n as i32 {
            let a = iz * row + ix;
            let (b, c, d) = (a + 1, a + row, a + row + 1);
            // cross(b - a, c - a) is -Y: clockwise seen from above, Godot's front.
            indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    Grid { points, indices }
}

/// The grid's points moved onto the water, and the surface normals, in node space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// Moved points.
    pub points: Vec<DVec3>,
    /// Unit normals.
    pub normals: Vec<DVec3>,
}

/// Moves `grid`'s points onto `world`'s water at its time, for a node at `node_global`.
pub fn surface(world: &World, grid: &Grid, node_global: DAffine3) -> Result<Surface, String> {
    let world_points: Vec<DVec3> = grid.points.iter().map(|p| node_global.transform_point3(*p)).collect();
    let mut heights = vec![0.0; world_points.len()];
    let mut normals = vec![DVec3::Y; world_points.len()];
    world
        .sample_water(&world_points, &mut heights, Some(&mut normals), None)
        .map_err(|e| e.to_string())?;
    let to_node = node_global.inverse();
    let normal_to_node = node_global.matrix3.transpose();
    Ok(Surface {
        points: world_points
            .iter()
            .zip(&heights)
            .map(|(p, h)| to_node.transform_point3(DVec3::new(p.x, *h, p.z)))
            .collect(),
        normals: normals
            .iter()
            .map(|n| (normal_to_node * *n).normalize_or(DVec3::Y))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use keel::{WaterSurface, WorldDesc};

    use super::super::water::{default_gerstner_waves, flat, gerstner};
    use super::*;

    #[test]
    fn grid_is_square_and_faces_up_in_godots_winding() {
        let g = grid(10.0, 4);
        assert_eq!(g.points.len(), 25);
        assert_eq!(g.indices.len(), 4 * 4 * 6);
        assert_eq!(g.points[0], DVec3::new(-5.0, 0.0, -5.0));
        assert_eq!(g.points[24], DVec3::new(5.0, 0.0, 5.0));
        for t in g.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|i| g.points[t[i] as usize]);
            // Godot's front face is clockwise: keel's cross product points down.
            assert!((b - a).cross(c - a).y < 0.0);
        }
    }

    #[test]
    fn vertices_sit_on_keels_water() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        world.set_water(gerstner(&default_gerstner_waves(), 1.0, 9.81).unwrap());
        world.set_time(3.7).unwrap();
        let node = DAffine3::from_translation(DVec3::new(20.0, 0.5, -10.0));
        let g = grid(30.0, 16);
        let s = surface(&world, &g, node).unwrap();
        let mut spread = 0.0_f64;
        for (rest, moved) in g.points.iter().zip(&s.points) {
            let w = node.transform_point3(*moved);
            assert!((w.x - (rest.x + 20.0)).abs() < 1e-9 && (w.z - (rest.z - 10.0)).abs() < 1e-9);
            let expected = world.water().height(w.x, w.z, 3.7);
            // The batch and the single-point query solve Gerstner's rest point each to
            // its own tolerance: a micron apart at most.
            assert!((w.y - expected).abs() < 1e-6, "{} vs {expected}", w.y);
            spread = spread.max((w.y - 1.0).abs());
        }
        assert!(spread > 0.1, "the sea must not be flat");
        assert!(s.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-9 && n.y > 0.0));
    }

    #[test]
    fn flat_water_lies_level_in_node_space() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        world.set_water(flat(2.0));
        let s = surface(&world, &grid(4.0, 2), DAffine3::from_translation(DVec3::Y * 0.5)).unwrap();
        assert!(s.points.iter().all(|p| (p.y - 1.5).abs() < 1e-12));
        assert!(s.normals.iter().all(|n| (*n - DVec3::Y).length() < 1e-12));
    }
}
