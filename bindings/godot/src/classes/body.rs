//! `BuoyantBody3D`: a RigidBody3D that keel floats.

use glam::{DAffine3, DVec3};
use godot::classes::base_material_3d::{Flags, ShadingMode, Transparency};
use godot::classes::mesh::PrimitiveType;
use godot::classes::node::InternalMode;
use godot::classes::{
    ArrayMesh, Engine, IRigidBody3D, ImmediateMesh, Mesh, MeshInstance3D, PhysicsDirectBodyState3D, RigidBody3D,
    StandardMaterial3D,
};
use godot::prelude::*;

use super::water::{GROUP, KeelWater};
use crate::convert::{daffine3, dmat3, dvec3, vector3};
use crate::logic::fleet::{Outcome, Transition};
use crate::logic::mesh::{BakedMesh, Surface, bake};
use crate::logic::params::{BodyParams, ForceSwitches};
use crate::logic::state::scale_of;

/// A rigid body that floats: keel computes the forces the water and the air put on its
/// hull every physics frame, and Godot integrates them. Give it a hull (the
/// `hull_mesh`, or else the first MeshInstance3D child), a CollisionShape3D as for any
/// RigidBody3D, and put a [KeelWater] in the scene. Its centre of mass and inertia are
/// the ones Godot uses. Floating bodies do not sleep: the water moves under them.
#[derive(GodotClass)]
#[class(tool, base=RigidBody3D)]
pub struct BuoyantBody3D {
    base: Base<RigidBody3D>,
    /// The hull's mesh; empty = the first MeshInstance3D child's mesh, with that node's
    /// transform (and scale) baked in. A closed mesh works best.
    #[export_group(name = "Hull")]
    #[export]
    hull_mesh: Option<Gd<Mesh>>,
    /// Length for the Reynolds number of the skin friction, m; 0 = the hull's extent
    /// along its local Z.
    #[export(range = (0.0, 500.0, 0.01, or_greater, suffix = "m"))]
    hull_length: f64,

    /// How buoyancy is computed: pressure on every submerged triangle at its exact centre
    /// of pressure (the default), at its centroid (Kerner), the submerged volume at its
    /// centroid (closed hulls), the wetted area's share of the hull's volume, or none.
    #[export_group(name = "Buoyancy")]
    #[export(enum = (Pressure = 0, PressureCentroid = 1, Volume = 2, AreaRatio = 3, None = 4))]
    buoyancy_model: i64,
    /// Keep only the vertical part of the hydrostatic force (as the thesis does).
    #[export]
    vertical_buoyancy_only: bool,
    /// Cells per side of the water patch sampled under the hull; 0 = sample at every
    /// vertex. Raise it for hulls as long as the shortest waves.
    #[export(range = (0.0, 1024.0, 1.0))]
    water_patch_cells: i64,

    /// Skin friction along the hull.
    #[export_group(name = "Forces")]
    #[export]
    viscous_force: bool,
    /// Pressure and suction drag on faces moving through the water.
    #[export]
    pressure_drag_force: bool,
    /// Slamming when the hull hits the water.
    #[export]
    slamming_force: bool,
    /// Air resistance on what is above the water.
    #[export]
    air_force: bool,
    /// Linear and angular damping, scaled by the wetted share of the hull.
    #[export]
    damping_force: bool,
    /// Bourg's lumped hull resistance instead of per-triangle drag.
    #[export]
    lumped_resistance_force: bool,

    /// Linear pressure drag coefficient C_PD1, N/m^2.
    #[export_group(name = "Pressure Drag")]
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    pressure_drag_linear: f64,
    /// Quadratic pressure drag coefficient C_PD2, N/m^2.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    pressure_drag_quadratic: f64,
    /// Linear suction drag coefficient C_SD1, N/m^2.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    suction_drag_linear: f64,
    /// Quadratic suction drag coefficient C_SD2, N/m^2.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    suction_drag_quadratic: f64,
    /// Pressure falloff power f_P.
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    pressure_falloff: f64,
    /// Suction falloff power f_S.
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    suction_falloff: f64,
    /// Reference speed v_r of the drag, m/s.
    #[export(range = (0.01, 100.0, 0.01, or_greater, suffix = "m/s"))]
    reference_speed: f64,

    /// Slamming power p.
    #[export_group(name = "Slamming")]
    #[export(range = (0.0, 8.0, 0.01, or_greater))]
    slamming_power: f64,
    /// Cap of the slamming acceleration, m/s^2; 0 = from speed and step.
    #[export(range = (0.0, 1000.0, 0.1, or_greater, suffix = "m/s2"))]
    slamming_max_acceleration: f64,
    /// Slamming force multiplier.
    #[export(range = (0.0, 20.0, 0.01, or_greater))]
    slamming_multiplier: f64,

    /// Air drag coefficient.
    #[export_group(name = "Air and Damping")]
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    air_drag_coefficient: f64,
    /// Linear damping, N per m/s, times the wetted share.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    linear_damping: f64,
    /// Angular damping, N m per rad/s, times the wetted share.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    angular_damping: f64,
    /// Added-mass ratio (the body moves as if its mass were m (1 + ratio)).
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    added_mass_ratio: f64,
    /// Residual-resistance coefficient C_r of the lumped resistance.
    #[export(range = (0.0, 0.1, 0.0001, or_greater))]
    residual_resistance: f64,

    /// Draw the submerged triangles (blue), the waterline (white) and the centre of
    /// buoyancy (a yellow cross) while the game runs.
    #[export_group(name = "Debug")]
    #[export]
    debug_draw: bool,

    water: Option<Gd<KeelWater>>,
    mesh_key: Option<(InstanceId, [f64; 12])>,
    last: Option<Outcome>,
    error: Option<String>,
    debug: Option<Gd<MeshInstance3D>>,
}

#[godot_api]
impl IRigidBody3D for BuoyantBody3D {
    fn init(base: Base<RigidBody3D>) -> Self {
        let p = BodyParams::default();
        Self {
            base,
            hull_mesh: None,
            hull_length: p.hull_length,
            buoyancy_model: p.buoyancy_model,
            vertical_buoyancy_only: p.vertical_buoyancy_only,
            water_patch_cells: p.water_patch_cells,
            viscous_force: p.forces.viscous,
            pressure_drag_force: p.forces.pressure_drag,
            slamming_force: p.forces.slamming,
            air_force: p.forces.air,
            damping_force: p.forces.damping,
            lumped_resistance_force: p.forces.lumped_resistance,
            pressure_drag_linear: p.pressure_drag_linear,
            pressure_drag_quadratic: p.pressure_drag_quadratic,
            suction_drag_linear: p.suction_drag_linear,
            suction_drag_quadratic: p.suction_drag_quadratic,
            pressure_falloff: p.pressure_falloff,
            suction_falloff: p.suction_falloff,
            reference_speed: p.reference_speed,
            slamming_power: p.slamming_power,
            slamming_max_acceleration: p.slamming_max_acceleration,
            slamming_multiplier: p.slamming_multiplier,
            air_drag_coefficient: p.air_drag_coefficient,
            linear_damping: p.linear_damping,
            angular_damping: p.angular_damping,
            added_mass_ratio: p.added_mass_ratio,
            residual_resistance: p.residual_resistance,
            debug_draw: false,
            water: None,
            mesh_key: None,
            last: None,
            error: None,
            debug: None,
        }
    }

    fn ready(&mut self) {
        if Engine::singleton().is_editor_hint() {
            return;
        }
        self.base_mut().set_can_sleep(false);
        self.sync();
    }

    fn exit_tree(&mut self) {
        let id = self.base().instance_id();
        if let Some(mut water) = self.water.take().filter(|w| w.is_instance_valid()) {
            water.bind_mut().remove_body(id);
        }
        self.mesh_key = None;
    }

    fn physics_process(&mut self, _delta: f64) {
        if !Engine::singleton().is_editor_hint() {
            self.sync();
        }
    }

    fn process(&mut self, _delta: f64) {
        if !Engine::singleton().is_editor_hint() {
            self.draw_debug();
        }
    }

    fn integrate_forces(&mut self, state: Option<Gd<PhysicsDirectBodyState3D>>) {
        let (Some(mut state), Some(mut water)) = (state, self.water.clone()) else {
            return;
        };
        if !water.is_instance_valid() {
            self.water = None;
            return;
        }
        let id = self.base().instance_id();
        let (outcome, transition, error) = {
            let mut w = water.bind_mut();
            w.step_frame(Engine::singleton().get_physics_frames(), f64::from(state.get_step()));
            w.take_outcome(id)
        };
        if error != self.error {
            if let Some(message) = &error {
                godot_warn!("BuoyantBody3D {}: {message}", self.base().get_name());
            }
            self.error = error;
            self.base_mut().call_deferred("update_configuration_warnings", &[]);
        }
        self.last = outcome;
        if let Some(o) = outcome {
            state
                .apply_central_force_ex()
                .force(vector3(o.application.central_force))
                .done();
            state.apply_torque(vector3(o.application.torque));
        }
        // Deferred: a handler may change the scene, which Godot forbids mid-physics.
        match transition {
            Some(Transition::Entered) => {
                self.base_mut()
                    .call_deferred("emit_signal", &["entered_water".to_variant()]);
            }
            Some(Transition::Exited) => {
                self.base_mut()
                    .call_deferred("emit_signal", &["exited_water".to_variant()]);
            }
            None => {}
        }
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        let mut warnings = PackedStringArray::new();
        if self.hull_source().is_none() {
            warnings.push("No hull: set hull_mesh, or add a MeshInstance3D child with a mesh.");
        }
        if self.base().is_inside_tree() && self.base().get_tree().get_first_node_in_group(GROUP).is_none() {
            warnings.push("No KeelWater in the scene: this body will not float.");
        }
        if self.base().get_mass() <= 0.0 {
            warnings.push("The mass must be positive.");
        }
        if let Some(message) = &self.error {
            warnings.push(message.as_str());
        }
        warnings
    }
}

#[godot_api]
impl BuoyantBody3D {
    /// Emitted when the hull first touches the water.
    #[signal]
    fn entered_water();

    /// Emitted when the hull leaves the water altogether.
    #[signal]
    fn exited_water();

    /// Whether the hull touched the water at the last physics frame.
    #[func]
    pub fn is_in_water(&self) -> bool {
        self.last.is_some_and(|o| o.forces.submerged_triangle_count > 0)
    }

    /// Submerged volume at the last physics frame, m^3.
    #[func]
    pub fn get_submerged_volume(&self) -> f64 {
        self.last.map_or(0.0, |o| o.forces.submerged_volume)
    }

    /// Centre of buoyancy at the last physics frame, world coordinates.
    #[func]
    pub fn get_center_of_buoyancy(&self) -> Vector3 {
        self.last
            .map_or(Vector3::ZERO, |o| vector3(o.forces.center_of_buoyancy))
    }

    /// Total force keel applied at the last physics frame (gravity excluded), N.
    #[func]
    pub fn get_water_force(&self) -> Vector3 {
        self.last.map_or(Vector3::ZERO, |o| vector3(o.forces.force))
    }

    /// Torque keel applied about the centre of mass at the last physics frame, N m.
    #[func]
    pub fn get_water_torque(&self) -> Vector3 {
        self.last.map_or(Vector3::ZERO, |o| vector3(o.forces.torque))
    }

    /// Hydrostatic part of the force at the last physics frame, N.
    #[func]
    pub fn get_buoyancy_force(&self) -> Vector3 {
        self.last.map_or(Vector3::ZERO, |o| vector3(o.forces.buoyancy_force))
    }

    /// Why the body was not floated at the last physics frame (empty if it was).
    #[func]
    pub fn get_error(&self) -> GString {
        GString::from(self.error.as_deref().unwrap_or(""))
    }
}

impl BuoyantBody3D {
    fn params(&self) -> BodyParams {
        BodyParams {
            buoyancy_model: self.buoyancy_model,
            vertical_buoyancy_only: self.vertical_buoyancy_only,
            forces: ForceSwitches {
                viscous: self.viscous_force,
                pressure_drag: self.pressure_drag_force,
                slamming: self.slamming_force,
                air: self.air_force,
                damping: self.damping_force,
                lumped_resistance: self.lumped_resistance_force,
            },
            hull_length: self.hull_length,
            pressure_drag_linear: self.pressure_drag_linear,
            pressure_drag_quadratic: self.pressure_drag_quadratic,
            suction_drag_linear: self.suction_drag_linear,
            suction_drag_quadratic: self.suction_drag_quadratic,
            pressure_falloff: self.pressure_falloff,
            suction_falloff: self.suction_falloff,
            reference_speed: self.reference_speed,
            slamming_power: self.slamming_power,
            slamming_max_acceleration: self.slamming_max_acceleration,
            slamming_multiplier: self.slamming_multiplier,
            air_drag_coefficient: self.air_drag_coefficient,
            linear_damping: self.linear_damping,
            angular_damping: self.angular_damping,
            added_mass_ratio: self.added_mass_ratio,
            residual_resistance: self.residual_resistance,
            water_patch_cells: self.water_patch_cells,
        }
    }

    /// The hull's mesh and its transform into the body's frame: the `hull_mesh` as is,
    /// or the first MeshInstance3D child's, through the local transforms between it and
    /// the body (exact, unlike global transforms that physics rewrites every frame).
    fn hull_source(&self) -> Option<(Gd<Mesh>, DAffine3)> {
        let body_scale = DAffine3::from_scale(scale_of(dmat3(self.base().get_transform().basis)));
        if let Some(mesh) = &self.hull_mesh {
            return Some((mesh.clone(), body_scale));
        }
        let child = self
            .base()
            .get_children()
            .iter_shared()
            .find_map(|c| c.try_cast::<MeshInstance3D>().ok())?;
        let mesh = child.get_mesh()?;
        Some((mesh, body_scale * daffine3(child.get_transform())))
    }

    /// Finds the water and tells it this body's mesh (when it changed) and parameters.
    fn sync(&mut self) {
        if self.water.as_ref().is_none_or(|w| !w.is_instance_valid()) {
            self.water = self
                .base()
                .get_tree()
                .get_first_node_in_group(GROUP)
                .and_then(|n| n.try_cast::<KeelWater>().ok());
        }
        let Some(mut water) = self.water.clone() else {
            return;
        };
        let source = self.hull_source();
        let key = source.as_ref().map(|(mesh, t)| (mesh.instance_id(), affine_key(t)));
        let mesh = if key != self.mesh_key {
            self.mesh_key = key;
            Some(source.and_then(|(mesh, t)| match bake_mesh(&mesh, t) {
                Ok(baked) => Some(baked),
                Err(e) => {
                    godot_warn!("BuoyantBody3D {}: {e}", self.base().get_name());
                    None
                }
            }))
        } else {
            None
        };
        let (id, rid, params) = (self.base().instance_id(), self.base().get_rid(), self.params());
        water.bind_mut().update_body(id, rid, mesh, params);
    }

    fn draw_debug(&mut self) {
        if !self.debug_draw {
            if let Some(mut d) = self.debug.take() {
                d.queue_free();
            }
            return;
        }
        let Some(water) = self.water.clone().filter(|w| w.is_instance_valid()) else {
            return;
        };
        let Some((triangles, waterline)) = water.bind().debug_geometry(self.base().instance_id()) else {
            return;
        };
        let mut node = match &self.debug {
            Some(node) => node.clone(),
            None => {
                let node = debug_node();
                // Internal: not a child scripts or `hull_source` see.
                self.base_mut().add_child_ex(&node).internal(InternalMode::BACK).done();
                self.debug = Some(node.clone());
                node
            }
        };
        let mut mesh = ImmediateMesh::new_gd();
        if !triangles.is_empty() {
            mesh.surface_begin(PrimitiveType::TRIANGLES);
            mesh.surface_set_color(Color::from_rgba(0.2, 0.5, 1.0, 0.5));
            // Godot's front faces wind the other way round from keel's outward order.
            for t in &triangles {
                for v in [t[0], t[2], t[1]] {
                    mesh.surface_add_vertex(vector3(v));
                }
            }
            mesh.surface_end();
        }
        let cob = self.last.map(|o| o.forces.center_of_buoyancy);
        if !waterline.is_empty() || cob.is_some() {
            mesh.surface_begin(PrimitiveType::LINES);
            mesh.surface_set_color(Color::WHITE);
            for s in &waterline {
                mesh.surface_add_vertex(vector3(s[0]));
                mesh.surface_add_vertex(vector3(s[1]));
            }
            if let Some(c) = cob.filter(|_| self.is_in_water()) {
                mesh.surface_set_color(Color::YELLOW);
                for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
                    mesh.surface_add_vertex(vector3(c - axis * 0.25));
                    mesh.surface_add_vertex(vector3(c + axis * 0.25));
                }
            }
            mesh.surface_end();
        }
        node.set_mesh(&mesh);
    }
}

/// A top-level (world space) mesh node with an unshaded, vertex-coloured material.
fn debug_node() -> Gd<MeshInstance3D> {
    let mut node = MeshInstance3D::new_alloc();
    node.set_as_top_level(true);
    node.set_transform(Transform3D::IDENTITY);
    let mut material = StandardMaterial3D::new_gd();
    material.set_shading_mode(ShadingMode::UNSHADED);
    material.set_flag(Flags::ALBEDO_FROM_VERTEX_COLOR, true);
    material.set_transparency(Transparency::ALPHA);
    node.set_material_override(&material);
    node
}

fn affine_key(t: &DAffine3) -> [f64; 12] {
    let m = t.to_cols_array();
    [m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11]]
}

/// The triangle surfaces of `mesh`, baked through `to_body`.
fn bake_mesh(mesh: &Gd<Mesh>, to_body: DAffine3) -> Result<BakedMesh, String> {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    // Primitive meshes (BoxMesh...) are triangles; an ArrayMesh may hold lines or points.
    let array_mesh = mesh.clone().try_cast::<ArrayMesh>().ok();
    for s in 0..mesh.get_surface_count() {
        if array_mesh
            .as_ref()
            .is_some_and(|m| m.surface_get_primitive_type(s) != PrimitiveType::TRIANGLES)
        {
            continue;
        }
        let arrays = mesh.surface_get_arrays(s);
        let v: PackedVector3Array = arrays.get(0).and_then(|v| v.try_to().ok()).unwrap_or_default();
        let i: PackedInt32Array = arrays.get(12).and_then(|v| v.try_to().ok()).unwrap_or_default();
        vertices.push(v.as_slice().iter().map(|p| dvec3(*p).as_vec3()).collect::<Vec<_>>());
        indices.push(i.as_slice().to_vec());
    }
    let surfaces: Vec<Surface<'_>> = vertices
        .iter()
        .zip(&indices)
        .map(|(v, i)| Surface {
            vertices: v,
            indices: i,
        })
        .collect();
    bake(&surfaces, to_body)
}
