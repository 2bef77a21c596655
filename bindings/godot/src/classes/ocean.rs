//! `KeelOcean`: a visible sea whose vertices move with keel's own water heights.

use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::notify::Node3DNotification;
use godot::classes::{ArrayMesh, Engine, IMeshInstance3D, Mesh, MeshInstance3D};
use godot::prelude::*;

use super::water::{GROUP, KeelWater};
use crate::convert::{daffine3, vector3};
use crate::logic::ocean::{self, Grid};

/// A square patch of sea drawn from the same heights bodies feel: each frame its
/// vertices are moved to the [KeelWater]'s surface (found through the `keel_water`
/// group). Give it a material of your own; the mesh is rebuilt every frame, so keep
/// `cells` modest (64 x 64 cells is 4225 vertices).
#[derive(GodotClass)]
#[class(tool, base=MeshInstance3D)]
pub struct KeelOcean {
    base: Base<MeshInstance3D>,
    /// Side of the square, m.
    #[export(range = (1.0, 2000.0, 0.5, or_greater, suffix = "m"))]
    size: f64,
    /// Cells per side.
    #[export(range = (1.0, 1000.0, 1.0))]
    cells: i64,
    /// Follow the water in the editor too (otherwise a flat grid).
    #[export]
    preview_in_editor: bool,

    grid: Option<(f64, i64, Grid)>,
    mesh: Option<Gd<ArrayMesh>>,
}

#[godot_api]
impl IMeshInstance3D for KeelOcean {
    fn init(base: Base<MeshInstance3D>) -> Self {
        Self {
            base,
            size: 100.0,
            cells: 64,
            preview_in_editor: true,
            grid: None,
            mesh: None,
        }
    }

    fn process(&mut self, _delta: f64) {
        if Engine::singleton().is_editor_hint() && !self.preview_in_editor {
            return;
        }
        self.update();
    }

    fn ready(&mut self) {
        self.update();
    }

    // The generated mesh is not scene data: kept out of the saved scene, which would
    // otherwise carry thousands of vertices that the next frame replaces anyway.
    fn on_notification(&mut self, what: Node3DNotification) {
        match what {
            Node3DNotification::EDITOR_PRE_SAVE => self.base_mut().set_mesh(Gd::<Mesh>::null_arg()),
            Node3DNotification::EDITOR_POST_SAVE => {
                if let Some(mesh) = self.mesh.clone() {
                    self.base_mut().set_mesh(&mesh);
                }
            }
            _ => {}
        }
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        let mut warnings = PackedStringArray::new();
        if self.base().is_inside_tree() && self.base().get_tree().get_first_node_in_group(GROUP).is_none() {
            warnings.push("No KeelWater in the scene: the ocean stays flat.");
        }
        warnings
    }
}

impl KeelOcean {
    fn update(&mut self) {
        if !self.base().is_inside_tree() {
            return;
        }
        let cells = u32::try_from(self.cells.clamp(1, i64::from(ocean::MAX_CELLS))).unwrap_or(1);
        if self
            .grid
            .as_ref()
            .is_none_or(|(s, c, _)| *s != self.size || *c != self.cells)
        {
            self.grid = Some((self.size, self.cells, ocean::grid(self.size, cells)));
        }
        let Some((_, _, grid)) = &self.grid else {
            return;
        };
        let water = self
            .base()
            .get_tree()
            .get_first_node_in_group(GROUP)
            .and_then(|n| n.try_cast::<KeelWater>().ok());
        let node = daffine3(self.base().get_global_transform());
        let surface = water.as_ref().and_then(|w| {
            let w = w.bind();
            w.world().and_then(|world| ocean::surface(world, grid, node).ok())
        });
        let (points, normals) = match surface {
            Some(s) => (s.points, s.normals),
            None => (grid.points.clone(), vec![glam::DVec3::Y; grid.points.len()]),
        };
        let vertices: PackedVector3Array = points.iter().map(|p| vector3(*p)).collect();
        let normals: PackedVector3Array = normals.iter().map(|n| vector3(*n)).collect();
        let indices = PackedInt32Array::from(grid.indices.as_slice());
        let mut arrays = VarArray::new();
        arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
        arrays.set(ArrayType::VERTEX.ord() as usize, &vertices.to_variant());
        arrays.set(ArrayType::NORMAL.ord() as usize, &normals.to_variant());
        arrays.set(ArrayType::INDEX.ord() as usize, &indices.to_variant());
        let mut mesh = match &self.mesh {
            Some(m) => m.clone(),
            None => {
                let m = ArrayMesh::new_gd();
                self.base_mut().set_mesh(&m);
                self.mesh = Some(m.clone());
                m
            }
        };
        // Keep the user's material across rebuilds.
        let material = (mesh.get_surface_count() > 0)
            .then(|| mesh.surface_get_material(0))
            .flatten();
        mesh.clear_surfaces();
        mesh.add_surface_from_arrays(PrimitiveType::TRIANGLES, &arrays);
        if let Some(m) = material {
            mesh.surface_set_material(0, &m);
        }
    }
}
