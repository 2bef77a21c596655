//! `BuoyantBody3D`: a RigidBody3D that keel floats.

use glam::{DAffine3, DVec3};
use godot::classes::base_material_3d::{Flags, ShadingMode, Transparency};
use godot::classes::mesh::PrimitiveType;
use godot::classes::node::InternalMode;
use godot::classes::{
    ArrayMesh, CollisionPolygon3D, CollisionShape3D, Engine, IRigidBody3D, ImmediateMesh, Mesh, MeshInstance3D,
    PhysicsDirectBodyState3D, RigidBody3D, StandardMaterial3D,
};
use godot::prelude::*;

use keel::BodyDesc;

use super::body_params::KeelBodyParams;
use super::water::{GROUP, KeelWater};
use crate::convert::{daffine3, dmat3, dvec3, vector3};
use crate::logic::fleet::{NO_HULL, Outcome, Transition};
use crate::logic::mesh::{BakedMesh, Surface, bake};
use crate::logic::state::scale_of;

/// A hull's source: its mesh and its node's local transform.
type MeshKey = (InstanceId, [f64; 12]);

/// A rigid body that floats: keel computes the forces the water and the air put on its
/// hull every physics frame, and Godot integrates them. Give it a hull (the
/// `hull_mesh`, or else the first MeshInstance3D child), a CollisionShape3D as for any
/// RigidBody3D, and put a [KeelWater] in the scene. How the water acts on the hull is a
/// [KeelBodyParams] resource (`body_params`), which bodies may share. Its centre of mass
/// and inertia are the ones Godot uses. Floating bodies do not sleep: the water moves
/// under them. What is wrong with the body (no collision shape, no water, no hull...)
/// is warned once when it appears, shown in the Scene dock and given by `get_error()`.
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

    /// Cells per side of the water patch sampled under the hull; 0 = sample at every
    /// vertex. Raise it for hulls as long as the shortest waves. Negative values are
    /// refused with an error.
    #[export(range = (0.0, 1024.0, 1.0))]
    #[var(set = set_water_patch_cells)]
    water_patch_cells: i64,

    /// How the water and the air act on the hull (buoyancy model, forces, coefficients):
    /// a KeelBodyParams resource, which many bodies may share; empty = Keel's defaults.
    #[export_group(name = "Forces")]
    #[export]
    body_params: Option<Gd<KeelBodyParams>>,

    /// Draw the submerged triangles (blue), the waterline (white) and the centre of
    /// buoyancy (a yellow cross) while the game runs.
    #[export_group(name = "Debug")]
    #[export]
    #[var(set = set_debug_draw)]
    debug_draw: bool,

    water: Option<Gd<KeelWater>>,
    /// The hull's source when it was last sent to the water: the mesh and its node's
    /// local transform, both exact. Not the body's scale: it is read from the basis
    /// physics rewrites in f32 every frame, so it wobbles as the body turns.
    mesh_key: Option<MeshKey>,
    last: Option<Outcome>,
    /// What the body finds wrong with itself ([`Self::sync`]) ...
    own_problems: Vec<String>,
    /// The child count, whether a water was found and the hull key at the last scan of
    /// the children ...
    seen: Option<(i32, bool, Option<MeshKey>)>,
    /// ... and the hull's MeshInstance3D it found.
    hull_node: Option<Gd<MeshInstance3D>>,
    /// ... why its mesh could not be a hull, since it was baked ...
    bake_error: Option<String>,
    /// ... and what the water said about it at the last step.
    engine_problems: Vec<String>,
    /// Both as last reported: each is warned once when it appears.
    problems: Vec<String>,
    debug: Option<Gd<MeshInstance3D>>,
}

#[godot_api]
impl IRigidBody3D for BuoyantBody3D {
    fn init(base: Base<RigidBody3D>) -> Self {
        let d = BodyDesc::default();
        Self {
            base,
            hull_mesh: None,
            hull_length: d.hull_length,
            water_patch_cells: i64::from(d.water_patch_cells),
            body_params: None,
            debug_draw: false,
            water: None,
            mesh_key: None,
            last: None,
            own_problems: Vec::new(),
            bake_error: None,
            seen: None,
            hull_node: None,
            engine_problems: Vec::new(),
            problems: Vec::new(),
            debug: None,
        }
    }

    fn ready(&mut self) {
        if Engine::singleton().is_editor_hint() {
            return;
        }
        self.base_mut().set_can_sleep(false);
        // Idle frames only draw: a body that does not draw skips them (one engine call
        // less a body a frame in a crowd).
        let draw = self.debug_draw;
        self.base_mut().set_process(draw);
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
        // (Cloning a freed object's Gd panics: check before.)
        if self.water.as_ref().is_some_and(|w| !w.is_instance_valid()) {
            self.water = None;
        }
        let (Some(mut state), Some(mut water)) = (state, self.water.clone()) else {
            return;
        };
        let id = self.base().instance_id();
        let (outcome, transition, problems) = {
            let mut w = water.bind_mut();
            w.step_frame(Engine::singleton().get_physics_frames(), f64::from(state.get_step()));
            w.take_outcome(id)
        };
        // A body without a mesh has said why itself (no hull, or the mesh's flaw).
        let problems: Vec<String> = problems.into_iter().filter(|p| p != NO_HULL).collect();
        if problems != self.engine_problems {
            self.engine_problems = problems;
            self.report();
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
        if Engine::singleton().is_editor_hint() {
            for p in self.find_problems() {
                warnings.push(p.as_str());
            }
            if self.base().get_mass() <= 0.0 {
                warnings.push("The mass must be positive.");
            }
        } else {
            for p in &self.problems {
                warnings.push(p.as_str());
            }
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

    /// What is wrong with the body now, one line each (empty when nothing is): no
    /// collision shape, no KeelWater, no hull, a hull that encloses no volume, or a
    /// parameter Keel refused. Each was warned once in the output when it appeared.
    #[func]
    pub fn get_error(&self) -> GString {
        GString::from(self.problems.join("\n").as_str())
    }

    /// Sets `water_patch_cells`; a negative value is refused with an error.
    #[func]
    pub fn set_water_patch_cells(&mut self, cells: i64) {
        if u32::try_from(cells).is_err() {
            godot_error!(
                "BuoyantBody3D.water_patch_cells: {cells} refused (0 = sample at every vertex, or a positive cell count); kept {}",
                self.water_patch_cells
            );
            return;
        }
        self.water_patch_cells = cells;
    }

    /// Sets `debug_draw`: drawing starts at the next frame, or the drawing goes now.
    #[func]
    pub fn set_debug_draw(&mut self, on: bool) {
        self.debug_draw = on;
        if !on && let Some(mut d) = self.debug.take() {
            d.queue_free();
        }
        if !Engine::singleton().is_editor_hint() && self.base().is_inside_tree() {
            self.base_mut().set_process(on);
        }
    }

    /// Builds the hull again at the next physics frame. The hull is built when the body
    /// joins a water and when its mesh or the mesh node's transform changes; call this
    /// after changing the body's own scale, or a mesh resource's vertices in place.
    #[func]
    pub fn rebuild_hull(&mut self) {
        self.mesh_key = None;
    }
}

impl BuoyantBody3D {
    /// Keel's description of this body, but for what the fleet fills in (hull, mass,
    /// inertia).
    fn params(&self) -> BodyDesc {
        let mut desc = BodyDesc {
            hull_length: self.hull_length,
            water_patch_cells: u32::try_from(self.water_patch_cells).unwrap_or(0),
            ..BodyDesc::default()
        };
        if let Some(params) = &self.body_params {
            params.bind().write(&mut desc);
        }
        desc
    }

    /// Whether a CollisionShape3D (with a shape) or a CollisionPolygon3D child gives the
    /// body its inertia and collisions.
    fn has_collision_shape(&self) -> bool {
        self.base().get_children().iter_shared().any(|c| {
            if let Ok(shape) = c.clone().try_cast::<CollisionShape3D>() {
                shape.get_shape().is_some() && !shape.is_disabled()
            } else {
                c.try_cast::<CollisionPolygon3D>().is_ok_and(|p| !p.is_disabled())
            }
        })
    }

    /// What the body finds wrong with itself, each with what to do.
    fn find_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.has_collision_shape() {
            out.push(
                "No collision shape: Godot then gives the body an inertia of 1 kg m^2 whatever its mass and size (a \
                 boat spins wildly) and it collides with nothing. Add a CollisionShape3D child with a shape (a box, or a \
                 ConvexPolygonShape3D of the hull)."
                    .to_string(),
            );
        }
        if self.hull_source().is_none() {
            out.push("No hull: set hull_mesh, or add a MeshInstance3D child with a mesh.".to_string());
        }
        let tree = self.base().is_inside_tree().then(|| self.base().get_tree());
        if tree.is_some_and(|t| t.get_first_node_in_group(GROUP).is_none()) {
            out.push("No KeelWater in the scene: this body does not float. Add a KeelWater node.".to_string());
        }
        out
    }

    /// Warns once for each problem that appeared, and refreshes the dock's warnings when
    /// the list changed.
    fn report(&mut self) {
        let now: Vec<String> = self.own_problems.iter().chain(&self.engine_problems).cloned().collect();
        if now == self.problems {
            return;
        }
        for p in now.iter().filter(|p| !self.problems.contains(p)) {
            godot_warn!("BuoyantBody3D {}: {p}", self.base().get_name());
        }
        self.problems = now;
        self.base_mut().call_deferred("update_configuration_warnings", &[]);
    }

    /// The hull's mesh and its node's local transform (exact: physics does not rewrite
    /// it): the `hull_mesh` as is, or the first MeshInstance3D child's.
    fn hull_source(&self) -> Option<(Gd<Mesh>, DAffine3)> {
        if let Some(mesh) = &self.hull_mesh {
            return Some((mesh.clone(), DAffine3::IDENTITY));
        }
        let child = self
            .base()
            .get_children()
            .iter_shared()
            .find_map(|c| c.try_cast::<MeshInstance3D>().ok())?;
        let mesh = child.get_mesh()?;
        Some((mesh, daffine3(child.get_transform())))
    }

    /// The first MeshInstance3D child.
    fn hull_node(&self) -> Option<Gd<MeshInstance3D>> {
        self.base()
            .get_children()
            .iter_shared()
            .find_map(|c| c.try_cast::<MeshInstance3D>().ok())
    }

    /// [`Self::hull_source`] through the child found at the last scan.
    fn cached_hull_source(&self) -> Option<(Gd<Mesh>, DAffine3)> {
        if let Some(mesh) = &self.hull_mesh {
            return Some((mesh.clone(), DAffine3::IDENTITY));
        }
        let child = self.hull_node.as_ref().filter(|c| c.is_instance_valid())?;
        Some((child.get_mesh()?, daffine3(child.get_transform())))
    }

    /// Finds the water and tells it this body's mesh (when it changed) and parameters.
    fn sync(&mut self) {
        // The children are scanned again only when their number changes (or the water
        // or the hull's bake did): a scan every frame of a crowd cost more than Keel.
        let count = self.base().get_child_count();
        let seen = (
            count,
            self.water.as_ref().is_some_and(|w| w.is_instance_valid()),
            self.mesh_key,
        );
        if self.seen != Some(seen) {
            self.seen = Some(seen);
            self.hull_node = self.hull_node();
            let mut own = self.find_problems();
            own.extend(self.bake_error.clone());
            if own != self.own_problems {
                self.own_problems = own;
                self.report();
            }
        }
        if self
            .water
            .as_ref()
            .is_none_or(|w| !w.is_instance_valid() || !w.is_inside_tree())
        {
            // A water taken out of the tree but kept forgets this body.
            let id = self.base().instance_id();
            if let Some(mut old) = self.water.take().filter(|w| w.is_instance_valid()) {
                old.bind_mut().remove_body(id);
            }
            self.water = self
                .base()
                .get_tree()
                .get_first_node_in_group(GROUP)
                .and_then(|n| n.try_cast::<KeelWater>().ok());
            // A new water has not seen this body's hull yet.
            self.mesh_key = None;
        }
        let Some(mut water) = self.water.clone() else {
            return;
        };
        let source = self.cached_hull_source();
        let key = source.as_ref().map(|(mesh, t)| (mesh.instance_id(), affine_key(t)));
        let mesh = if key != self.mesh_key {
            self.mesh_key = key;
            // The body's scale, read once here (physics keeps it, up to f32 wobble).
            let body_scale = DAffine3::from_scale(scale_of(dmat3(self.base().get_transform().basis)));
            let baked = source.map(|(mesh, t)| bake_mesh(&mesh, body_scale * t));
            // Reported with the other problems from the next frame on.
            self.bake_error = baked
                .as_ref()
                .and_then(|b| b.as_ref().err())
                .map(|e| format!("The hull mesh: {e}"));
            Some(baked.and_then(Result::ok))
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
        let Some(water) = self.water.as_ref().filter(|w| w.is_instance_valid()).cloned() else {
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
        // Godot refuses (with an error) a surface without vertices: a body out of the
        // water has no triangles, no waterline and no centre of buoyancy to draw.
        let mut lines: Vec<(DVec3, Color)> = waterline
            .iter()
            .flat_map(|s| [(s[0], Color::WHITE), (s[1], Color::WHITE)])
            .collect();
        if let Some(c) = self
            .last
            .map(|o| o.forces.center_of_buoyancy)
            .filter(|_| self.is_in_water())
        {
            for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
                lines.push((c - axis * 0.25, Color::YELLOW));
                lines.push((c + axis * 0.25, Color::YELLOW));
            }
        }
        if triangles.is_empty() && lines.is_empty() {
            node.set_visible(false);
            return;
        }
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
        if !lines.is_empty() {
            mesh.surface_begin(PrimitiveType::LINES);
            for (v, color) in &lines {
                mesh.surface_set_color(*color);
                mesh.surface_add_vertex(vector3(*v));
            }
            mesh.surface_end();
        }
        node.set_mesh(&mesh);
        node.set_visible(true);
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
