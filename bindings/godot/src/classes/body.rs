//! `BuoyantBody3D`: a RigidBody3D that keel floats.

use glam::{DAffine3, DVec3};
use godot::classes::base_material_3d::{Flags, ShadingMode, Transparency};
use godot::classes::mesh::PrimitiveType;
use godot::classes::node::InternalMode;
use godot::classes::object::ConnectFlags;
use godot::classes::{
    ArrayMesh, CollisionPolygon3D, CollisionShape3D, Engine, IRigidBody3D, ImmediateMesh, Mesh, MeshInstance3D,
    RigidBody3D, StandardMaterial3D,
};
use godot::prelude::*;

use keel::BodyDesc;

use super::body_params::KeelBodyParams;
use super::water::{BodyLink, GROUP, KeelWater};
use crate::convert::{daffine3, dmat3, dvec3, vector3};
use crate::logic::fleet::Outcome;
use crate::logic::mesh::{BakedMesh, Surface, bake};
use crate::logic::state::scale_of;

/// The group every `BuoyantBody3D` joins at run time: a KeelWater that enters the tree
/// takes the bodies of this group that have no water.
pub const BODY_GROUP: &str = "keel_buoyant_bodies";

/// A hull's source: its mesh and its node's local transform.
type MeshKey = (InstanceId, [f64; 12]);

/// A rigid body that floats: keel computes the forces the water and the air put on its
/// hull every physics frame, and Godot integrates them. Give it a hull (the
/// `hull_mesh`, or else the first MeshInstance3D child), a CollisionShape3D as for any
/// RigidBody3D, and put a [KeelWater] in the scene. How the water acts on the hull is a
/// [KeelBodyParams] resource (`body_params`), which bodies may share. Its centre of mass
/// and inertia are the ones Godot uses. Floating bodies do not sleep: the water moves
/// under them. The KeelWater steps all its bodies in one pass a physics frame (before
/// the nodes' `_physics_process`), so the body's own `_physics_process` and
/// `_integrate_forces` stay free for a script. What is wrong with the body (no
/// collision shape, no water, no hull...) is warned once when it appears, shown in the
/// Scene dock and given by `get_error()`.
#[derive(GodotClass)]
#[class(tool, base=RigidBody3D)]
pub struct BuoyantBody3D {
    base: Base<RigidBody3D>,
    /// The hull's mesh; empty = the first MeshInstance3D child's mesh, with that node's
    /// transform (and scale) baked in. A closed mesh works best.
    #[export_group(name = "Hull")]
    #[export]
    #[var(set = set_hull_mesh)]
    hull_mesh: Option<Gd<Mesh>>,
    /// Length for the Reynolds number of the skin friction, m; 0 = the hull's extent
    /// along its local Z.
    #[export(range = (0.0, 500.0, 0.01, or_greater, suffix = "m"))]
    #[var(set = set_hull_length)]
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
    #[var(set = set_body_params)]
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
    /// What the body finds wrong with itself ([`Self::scan`]) ...
    own_problems: Vec<String>,
    /// The hull's MeshInstance3D found at the last scan of the children, and the
    /// callable that tells the body when that node's mesh is replaced.
    hull_node: Option<(Gd<MeshInstance3D>, Callable)>,
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
            own_problems: Vec::new(),
            bake_error: None,
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
        self.base_mut().add_to_group(BODY_GROUP);
        // Children come and go rarely: the body looks at them then, not every frame.
        // Deferred: the body may be busy (adding its debug drawing) when it fires.
        let callable = self.deferred_callable("keel_children_changed", |b| b.on_hull_changed(true));
        self.base_mut()
            .connect_flags("child_order_changed", &callable, ConnectFlags::DEFERRED);
        self.scan();
        self.join_water();
    }

    fn enter_tree(&mut self) {
        // Back in the tree after leaving it: `ready` is not called again.
        if !Engine::singleton().is_editor_hint() && self.base().is_node_ready() {
            self.base_mut().add_to_group(BODY_GROUP);
            self.join_water();
        }
    }

    fn exit_tree(&mut self) {
        self.leave_water();
    }

    fn process(&mut self, _delta: f64) {
        if !Engine::singleton().is_editor_hint() {
            self.draw_debug();
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
        self.last().is_some_and(|o| o.forces.submerged_triangle_count > 0)
    }

    /// Submerged volume at the last physics frame, m^3.
    #[func]
    pub fn get_submerged_volume(&self) -> f64 {
        self.last().map_or(0.0, |o| o.forces.submerged_volume)
    }

    /// Centre of buoyancy at the last physics frame, world coordinates.
    #[func]
    pub fn get_center_of_buoyancy(&self) -> Vector3 {
        self.last()
            .map_or(Vector3::ZERO, |o| vector3(o.forces.center_of_buoyancy))
    }

    /// Total force keel applied at the last physics frame (gravity excluded), N.
    #[func]
    pub fn get_water_force(&self) -> Vector3 {
        self.last().map_or(Vector3::ZERO, |o| vector3(o.forces.force))
    }

    /// Torque keel applied about the centre of mass at the last physics frame, N m.
    #[func]
    pub fn get_water_torque(&self) -> Vector3 {
        self.last().map_or(Vector3::ZERO, |o| vector3(o.forces.torque))
    }

    /// Hydrostatic part of the force at the last physics frame, N.
    #[func]
    pub fn get_buoyancy_force(&self) -> Vector3 {
        self.last().map_or(Vector3::ZERO, |o| vector3(o.forces.buoyancy_force))
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
        self.push_params();
    }

    /// Sets `hull_mesh`; the hull is built again.
    #[func]
    pub fn set_hull_mesh(&mut self, mesh: Option<Gd<Mesh>>) {
        self.hull_mesh = mesh;
        self.on_hull_changed(false);
    }

    /// Sets `hull_length`.
    #[func]
    pub fn set_hull_length(&mut self, length: f64) {
        self.hull_length = length;
        self.push_params();
    }

    /// Sets `body_params`. Edits of the resource itself reach the body at the next
    /// physics frame.
    #[func]
    pub fn set_body_params(&mut self, params: Option<Gd<KeelBodyParams>>) {
        self.body_params = params;
        self.push_params();
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

    /// Builds the hull again. The hull is built when the body joins a water, when
    /// `hull_mesh` is set, and when the hull's MeshInstance3D child is added, removed or
    /// given another mesh; call this after changing the body's own scale, moving the
    /// hull's MeshInstance3D, or changing a mesh resource's vertices in place.
    #[func]
    pub fn rebuild_hull(&mut self) {
        self.mesh_key = None;
        self.on_hull_changed(false);
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
        let (child, _) = self.hull_node.as_ref().filter(|(c, _)| c.is_instance_valid())?;
        Some((child.get_mesh()?, daffine3(child.get_transform())))
    }

    /// A callable that runs `f` on this body, if the body still exists (linked to the
    /// body: Godot drops it with the body).
    fn deferred_callable(&self, name: &'static str, f: fn(&mut Self)) -> Callable {
        let gd = self.to_gd();
        Callable::from_linked_fn(name, &gd.clone(), move |_| {
            let mut body = gd.clone();
            if body.is_instance_valid() {
                f(&mut body.bind_mut());
            }
        })
    }

    /// Looks at the children: which MeshInstance3D is the hull (and hears when its mesh
    /// is replaced), and what the body finds wrong with itself.
    fn scan(&mut self) {
        let node = self.hull_node();
        if self.hull_node.as_ref().map(|(n, _)| n) != node.as_ref() {
            if let Some((mut old, callable)) = self.hull_node.take()
                && old.is_instance_valid()
                && old.is_connected("property_list_changed", &callable)
            {
                old.disconnect("property_list_changed", &callable);
            }
            // (MeshInstance3D.set_mesh notifies a change of its property list.)
            self.hull_node = node.map(|mut n| {
                let callable = self.deferred_callable("keel_hull_mesh_changed", |b| b.on_hull_changed(false));
                n.connect_flags("property_list_changed", &callable, ConnectFlags::DEFERRED);
                (n, callable)
            });
        }
        let mut own = self.find_problems();
        own.extend(self.bake_error.clone());
        if own != self.own_problems {
            self.own_problems = own;
            self.report();
        }
    }

    /// The hull's source may have changed (`children`: so may the children): tells the
    /// water if it did.
    fn on_hull_changed(&mut self, children: bool) {
        if Engine::singleton().is_editor_hint() || !self.base().is_inside_tree() {
            return;
        }
        if children {
            self.scan();
        }
        if let Some(mesh) = self.mesh_update() {
            self.send(Some(mesh));
            // The bake's verdict joins the other problems.
            self.scan();
        }
    }

    /// The hull's mesh baked, when its source changed since it was sent.
    fn mesh_update(&mut self) -> Option<Option<BakedMesh>> {
        let source = self.cached_hull_source();
        let key = source.as_ref().map(|(mesh, t)| (mesh.instance_id(), affine_key(t)));
        if key == self.mesh_key {
            return None;
        }
        self.mesh_key = key;
        // The body's scale, read once here (physics keeps it, up to f32 wobble).
        let body_scale = DAffine3::from_scale(scale_of(dmat3(self.base().get_transform().basis)));
        let baked = source.map(|(mesh, t)| bake_mesh(&mesh, body_scale * t));
        self.bake_error = baked
            .as_ref()
            .and_then(|b| b.as_ref().err())
            .map(|e| format!("The hull mesh: {e}"));
        Some(baked.and_then(Result::ok))
    }

    /// Tells the water the body's parameters (they changed).
    fn push_params(&mut self) {
        if !Engine::singleton().is_editor_hint() && self.base().is_inside_tree() {
            self.send(None);
        }
    }

    /// Sends the water this body's mesh (`Some`: it changed) and parameters.
    fn send(&mut self, mesh: Option<Option<BakedMesh>>) {
        let Some(mut water) = self.water.clone().filter(|w| w.is_instance_valid()) else {
            return;
        };
        let link = BodyLink {
            body: self.to_gd(),
            rid: self.base().get_rid(),
            own: self.params(),
            params: self.body_params.clone(),
        };
        water.bind_mut().update_body(link, mesh);
    }

    /// Floats on the scene's water (the first KeelWater of the tree), if it is not
    /// already on it: registers with it, hull and parameters.
    pub(crate) fn join_water(&mut self) {
        if !self.base().is_inside_tree() {
            return;
        }
        let water = self
            .base()
            .get_tree()
            .get_first_node_in_group(GROUP)
            .and_then(|n| n.try_cast::<KeelWater>().ok());
        let current = self.water.as_ref().filter(|w| w.is_instance_valid());
        if water.is_some() && current == water.as_ref() {
            return;
        }
        self.leave_water();
        self.water = water;
        // A new water has not seen this body's hull yet.
        self.mesh_key = None;
        let mesh = self.mesh_update();
        self.send(mesh);
        self.scan();
    }

    /// Leaves its water, if any.
    fn leave_water(&mut self) {
        let id = self.base().instance_id();
        if let Some(mut water) = self.water.take().filter(|w| w.is_instance_valid()) {
            water.bind_mut().remove_body(id);
        }
        self.mesh_key = None;
    }

    /// Its water left the tree and has forgotten it: it looks for another.
    pub(crate) fn water_left(&mut self) {
        self.water = None;
        self.mesh_key = None;
        self.join_water();
        if self.water.is_none() {
            self.scan();
        }
    }

    /// What the water said about this body at its last step changed.
    pub(crate) fn set_engine_problems(&mut self, problems: Vec<String>) {
        self.engine_problems = problems;
        self.report();
    }

    /// The outcome of the body's last step.
    fn last(&self) -> Option<Outcome> {
        let water = self.water.as_ref().filter(|w| w.is_instance_valid())?;
        water.bind().outcome(self.base().instance_id())
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
            .last()
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
