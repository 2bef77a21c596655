//! `KeelWater`: the scene's water, its keel world, and the batch step of its bodies.

use std::sync::Arc;

use glam::DVec3;
use godot::classes::notify::Node3DNotification;
use godot::classes::physics_server_3d::BodyState as BodyState3D;
use godot::classes::{
    Engine, INode3D, Image, Node3D, PhysicsDirectBodyState3D, PhysicsServer3D, ProjectSettings, RigidBody3D,
};
use godot::prelude::*;
use keel::{BodyDesc, BodyState, GerstnerWave, Water, World, WorldDesc};

use super::body::{BODY_GROUP, BuoyantBody3D};
use super::body_params::KeelBodyParams;
use super::callable_water;
use super::direct::{DirectCalls, Read};
use super::tasks::GodotTasks;
use super::wave::KeelGerstnerWave;
use crate::convert::{dmat3, dvec2, dvec3, vector3};
use crate::logic::fleet::{Fleet, NO_HULL, Outcome, Transition};
use crate::logic::mesh::BakedMesh;
use crate::logic::params::MassProperties;
use crate::logic::rollback::{self, BodyRecord, Snapshot};
use crate::logic::state::{DirectState, body_state, principal_inertia};
use crate::logic::water::{self as models, HeightfieldLayout, Model, PerlinParams, SpectrumParams};
use rustc_hash::FxHashMap;

/// `t` as the physics server keeps it once set: GodotPhysics orthonormalises a basis it is
/// given and Jolt keeps a quaternion, so a transform read back and set again may move in
/// its last bits. Setting and reading back until nothing moves (one or two rounds; at
/// most eight) leaves the body at a transform a later set restores to the bit, moved
/// from where it was by a rounding. Where the roundings cycle instead, the transform
/// returned is the one set last: the server then holds what setting it gives, and a
/// load, setting it again, gets the same.
fn settled_transform(server: &mut Gd<PhysicsServer3D>, rid: Rid, mut t: Transform3D) -> Transform3D {
    for _ in 0..8 {
        server.body_set_state(rid, BodyState3D::TRANSFORM, &t.to_variant());
        let back: Transform3D = server.body_get_state(rid, BodyState3D::TRANSFORM).try_to().unwrap_or(t);
        if back == t {
            return t;
        }
        t = back;
    }
    // No fixed point: the server's orthonormalisation can cycle between two roundings
    // (GodotPhysics3D and Jolt alike, for some rotations). Set `t` once more, so that the
    // server holds what setting `t` gives, which is what a load of `t` repeats.
    server.body_set_state(rid, BodyState3D::TRANSFORM, &t.to_variant());
    t
}

/// The group every `KeelWater` joins; bodies and oceans find their water through it.
pub const GROUP: &str = "keel_water";

/// Where a KeelWater steps in the physics frame: before the nodes of the default
/// priority, so that their `_physics_process` sees this frame's forces.
const PHYSICS_PRIORITY: i32 = -1_000_000;

/// What a body tells its water: itself and its parameters.
pub struct BodyLink {
    /// The body.
    pub body: Gd<BuoyantBody3D>,
    /// Its physics server id.
    pub rid: Rid,
    /// Its parameters but the resource's (`hull_length`, `water_patch_cells`).
    pub own: BodyDesc,
    /// Its parameter resource, which the water watches.
    pub params: Option<Gd<KeelBodyParams>>,
}

/// A body as the water steps it, with what it needs of Godot each frame held, so that a
/// frame makes no engine call it can avoid: through gdext each costs a class-name
/// lookup under a lock, a thread check and an ObjectDB lookup besides Godot's own work.
struct Member {
    link: BodyLink,
    /// The body's PhysicsDirectBodyState3D: the physics server keeps one object per body
    /// for the body's lifetime, so it is looked up once.
    direct: Option<Gd<PhysicsDirectBodyState3D>>,
    /// The inverse mass and principal inverse inertia last read, and the mass properties
    /// they gave: the principal axes are read again only when these change.
    mass: Option<(f64, Vector3, MassProperties)>,
    /// What the body was last told about its step.
    reported: Vec<String>,
}

/// A parameter resource some bodies share, and what it said at the last frame.
struct ParamSource {
    resource: Gd<KeelBodyParams>,
    desc: BodyDesc,
}

/// The inspector's hint for `gerstner_waves`: an array of `KeelGerstnerWave` resources
/// (Variant type 24, Object, with hint 17, resource type).
const WAVES_HINT: &str = "24/17:KeelGerstnerWave";

/// A body's submerged triangles and waterline segments, world coordinates.
pub type DebugGeometry = (Vec<[DVec3; 3]>, Vec<[DVec3; 2]>);

/// What the water model is built from; rebuilt when any of it changes.
#[derive(Clone, Debug, PartialEq)]
enum Config {
    Flat(f64),
    Perlin(PerlinParams, f64),
    Gerstner(Vec<GerstnerWave>, f64),
    Spectrum(SpectrumParams, f64),
    Heightfield(Option<InstanceId>, HeightfieldLayout, f64),
    Callable(Option<Callable>),
}

/// The water of a scene: its surface model, its current and wind, and its time. Every
/// `BuoyantBody3D` floats on the first KeelWater of the scene tree (the group
/// `keel_water`), and all of them are stepped together, once per physics frame. The
/// water's mean level is this node's global Y.
#[derive(GodotClass)]
#[class(tool, base=Node3D)]
pub struct KeelWater {
    base: Base<Node3D>,
    /// The surface model: a level plane (MODEL_FLAT), the thesis's Perlin noise
    /// (MODEL_PERLIN), the listed Gerstner waves (MODEL_GERSTNER), Gerstner waves from a
    /// wind-sea spectrum (MODEL_SPECTRUM), heights from an image (MODEL_HEIGHTFIELD), or a
    /// script's callable (MODEL_CALLABLE). Other values are refused with an error.
    #[export(enum = (Flat = 0, Perlin = 1, Gerstner = 2, Spectrum = 3, Heightfield = 4, Callable = 5))]
    #[var(set = set_model)]
    model: i64,
    /// Scene time multiplier of the waves (0 freezes them).
    #[export(range = (0.0, 10.0, 0.01, or_greater))]
    time_scale: f64,
    /// Run Keel's parallel work (the batch's groups of bodies, a big hull's sections) on
    /// Godot's WorkerThreadPool, so Keel starts no thread of its own, at the frames where
    /// that pays (`worker_thread_pool_min_usec`); off = all of it on the physics thread.
    /// The forces are the same to the bit either way. Read when the scene starts.
    #[export]
    use_worker_thread_pool: bool,
    /// With the pool on, the work above which a physics frame's step goes to the pool:
    /// microseconds of Keel's step on one thread at the last frame. -1, the default: when
    /// it pays, from what handing work to the pool costs as measured while the scene runs
    /// (medians of the last few frames; Godot wakes a worker per frame, woken before the
    /// bodies are read: on a 2-core VM a step of under about 0.1 ms, some 100 boxes, ran
    /// slower on the pool); 0: every frame. Read when the scene starts.
    #[export(range = (-1.0, 100000.0, 1.0, or_greater))]
    worker_thread_pool_min_usec: f64,

    /// Velocity of the water, m/s: bodies drift with it.
    #[export_group(name = "Environment")]
    #[export]
    current: Vector3,
    /// Velocity of the air, m/s: it pushes on what is above the water.
    #[export]
    wind: Vector3,
    /// Density of the water, kg/m^3 (sea water about 1025). Read when the scene starts.
    #[export(range = (1.0, 20000.0, 0.1, or_greater, suffix = "kg/m3"))]
    water_density: f64,
    /// Density of the air, kg/m^3. Read when the scene starts.
    #[export(range = (0.0, 100.0, 0.001, or_greater, suffix = "kg/m3"))]
    air_density: f64,

    /// Noise cells per metre (the thesis's `perlinScale`).
    #[export_group(name = "Perlin", prefix = "perlin_")]
    #[export(range = (0.0, 10.0, 0.001, or_greater))]
    perlin_scale: f64,
    /// Noise drift per second (`wavespeed`).
    #[export(range = (0.0, 10.0, 0.01, or_greater))]
    perlin_speed: f64,
    /// Crest to trough, m (`waveHeight`).
    #[export(range = (0.0, 20.0, 0.01, or_greater, suffix = "m"))]
    perlin_wave_height: f64,
    /// Waves along X only (`onlyX`).
    #[export]
    perlin_only_x: bool,

    /// The Gerstner waves (KeelGerstnerWave resources); empty shows three crossing swells
    /// (empty slots are skipped). A script may assign an untyped Array (kept as it is) or
    /// an `Array[KeelGerstnerWave]` (kept as an untyped copy); one holding anything but
    /// waves is refused with an error.
    #[export_group(name = "Gerstner", prefix = "gerstner_")]
    #[var(set = set_gerstner_waves, hint = TYPE_STRING, hint_string = WAVES_HINT, usage_flags = [DEFAULT])]
    gerstner_waves: VarArray,

    /// JONSWAP (a young, peaky sea) instead of Pierson-Moskowitz (a fully developed one).
    #[export_group(name = "Spectrum", prefix = "spectrum_")]
    #[export]
    spectrum_jonswap: bool,
    /// Wind speed that raised the sea, m/s (10 m/s: waves about 2 m high).
    #[export(range = (0.1, 40.0, 0.1, or_greater, suffix = "m/s"))]
    spectrum_wind_speed: f64,
    /// Direction the waves travel, (x, z).
    #[export]
    spectrum_direction: Vector2,
    /// Number of waves.
    #[export(range = (1.0, 256.0, 1.0))]
    spectrum_wave_count: i64,
    /// Seed of the waves' phases and directions.
    #[export]
    spectrum_seed: i64,

    /// Heights image: the red channel of each pixel (row order: X along a row, rows
    /// along Z) times `heightfield_height_scale`, above the mean level.
    #[export_group(name = "Heightfield", prefix = "heightfield_")]
    #[export]
    heightfield_image: Option<Gd<Image>>,
    /// Distance between pixels, m.
    #[export(range = (0.01, 100.0, 0.01, or_greater, suffix = "m"))]
    heightfield_cell_size: f64,
    /// Height of a red value of 1, m.
    #[export(range = (-100.0, 100.0, 0.01, or_greater, or_less, suffix = "m"))]
    heightfield_height_scale: f64,
    /// World (x, z) of the first pixel.
    #[export]
    heightfield_origin: Vector2,
    /// Repeat the image beyond its edges.
    #[export]
    heightfield_tiled: bool,

    /// Script water (model Callable): called as `f(points: PackedVector3Array, time:
    /// float)` and returns the heights (`PackedFloat32Array` or `PackedFloat64Array`),
    /// or a Dictionary with `heights` and optionally `normals` and `velocities`. It is
    /// called during physics and must not call back into this KeelWater.
    #[var]
    height_callable: Callable,

    time: f64,
    world: Option<World>,
    /// The world's job system when it runs on Godot's pool (for `get_pool_run_count`).
    tasks: Option<Arc<GodotTasks>>,
    config: Option<Config>,
    fleet: Fleet<InstanceId>,
    /// The bodies, by instance id (with a multiplicative hash: a frame looks every
    /// body up twice, and SipHash was a few percent of the addon's own work).
    members: FxHashMap<InstanceId, Member>,
    /// The distinct parameter resources of the bodies (rebuilt when `None`).
    sources: Option<Vec<ParamSource>>,
    /// The direct-state methods the frame calls, looked up at the first frame (an
    /// inner `None`: not found, gdext's methods are used).
    calls: Option<Option<DirectCalls>>,
    stepped_frame: Option<u64>,
    error: GString,
}

#[godot_api]
impl INode3D for KeelWater {
    fn init(base: Base<Node3D>) -> Self {
        let world = WorldDesc::default();
        let perlin = PerlinParams::default();
        let spectrum = SpectrumParams::default();
        Self {
            base,
            model: 0,
            time_scale: 1.0,
            use_worker_thread_pool: true,
            worker_thread_pool_min_usec: -1.0,
            current: Vector3::ZERO,
            wind: Vector3::ZERO,
            water_density: world.water_density,
            air_density: world.air_density,
            perlin_scale: perlin.scale,
            perlin_speed: perlin.speed,
            perlin_wave_height: perlin.wave_height,
            perlin_only_x: perlin.only_x,
            gerstner_waves: VarArray::new(),
            spectrum_jonswap: spectrum.jonswap,
            spectrum_wind_speed: spectrum.wind_speed,
            spectrum_direction: Vector2::new(spectrum.direction.x as f32, spectrum.direction.y as f32),
            spectrum_wave_count: spectrum.wave_count,
            spectrum_seed: spectrum.seed,
            heightfield_image: None,
            heightfield_cell_size: 1.0,
            heightfield_height_scale: 1.0,
            heightfield_origin: Vector2::ZERO,
            heightfield_tiled: false,
            height_callable: Callable::invalid(),
            time: 0.0,
            world: None,
            tasks: None,
            config: None,
            fleet: Fleet::default(),
            members: FxHashMap::default(),
            sources: None,
            calls: None,
            stepped_frame: None,
            error: GString::new(),
        }
    }

    fn enter_tree(&mut self) {
        self.base_mut().add_to_group(GROUP);
        // Internal: a script extending KeelWater may have its own `_physics_process`.
        self.base_mut().set_physics_process_internal(true);
        if Engine::singleton().is_editor_hint() {
            return;
        }
        // The bodies without a water take this one (deferred: they call into it).
        self.run_deferred_gd(|water| {
            if !water.is_instance_valid() || !water.is_inside_tree() {
                return;
            }
            for node in water.get_tree().get_nodes_in_group(BODY_GROUP).iter_shared() {
                if let Ok(mut body) = node.try_cast::<BuoyantBody3D>() {
                    body.bind_mut().join_water();
                }
            }
        });
    }

    fn exit_tree(&mut self) {
        // Out of the group first, so that the bodies find another water.
        self.base_mut().remove_from_group(GROUP);
        if let Some(world) = self.world.as_mut() {
            for key in self.fleet.keys().collect::<Vec<_>>() {
                self.fleet.remove(world, key);
            }
        }
        self.sources = None;
        for (_, member) in self.members.drain() {
            let mut body = member.link.body;
            if body.is_instance_valid() {
                // Deferred: the tree may be going away altogether.
                body.run_deferred_gd(|mut body| {
                    if body.is_instance_valid() {
                        body.bind_mut().water_left();
                    }
                });
            }
        }
    }

    fn ready(&mut self) {
        self.base_mut().set_physics_process_priority(PHYSICS_PRIORITY);
        self.ensure_world();
    }

    fn on_notification(&mut self, what: Node3DNotification) {
        if what != Node3DNotification::INTERNAL_PHYSICS_PROCESS {
            return;
        }
        if Engine::singleton().is_editor_hint() {
            self.ensure_world();
            return;
        }
        // The step sees the time the previous frames reached; the time then moves on.
        let delta = self.base().get_physics_process_delta_time();
        self.step_frame(Engine::singleton().get_physics_frames(), delta);
        self.time += delta * self.time_scale;
        self.ensure_world();
    }

    fn on_set(&mut self, property: StringName, value: Variant) -> bool {
        // A script's `Array[KeelGerstnerWave]`: gdext converts only an untyped Array to
        // the setter's argument, so a typed one is taken here (Godot asks the class
        // before it calls the property's setter) as an untyped copy. Anything else goes
        // the usual way.
        if property != "gerstner_waves" {
            return false;
        }
        let Ok(array) = value.try_to::<AnyArray>() else {
            return false;
        };
        match array.try_cast_array::<Variant>() {
            Ok(_) => false,
            Err(typed) => {
                self.set_gerstner_waves(typed.iter_shared().collect());
                true
            }
        }
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        let mut warnings = PackedStringArray::new();
        if self.base().is_inside_tree() {
            let count = self.base().get_tree().get_nodes_in_group(GROUP).len();
            if count > 1 {
                warnings.push("More than one KeelWater in the scene: bodies float on the first one only.");
            }
        }
        match models::model(self.model) {
            Some(Model::Heightfield) if self.heightfield_image.is_none() => {
                warnings.push("The Heightfield model needs a heightfield_image.");
            }
            Some(Model::Callable) if !self.height_callable.is_valid() => {
                warnings
                    .push("The Callable model needs height_callable, set from a script; the water is flat until then.");
            }
            _ => {}
        }
        if !self.error.is_empty() {
            warnings.push(&self.error);
        }
        warnings
    }
}

#[godot_api]
impl KeelWater {
    /// Height of the water surface under the world point (x, z) now, m.
    #[func]
    pub fn get_height(&self, x: f64, z: f64) -> f64 {
        self.world.as_ref().map_or(self.level(), |w| w.water_height(x, z))
    }

    /// The scene time the waves are at, s.
    #[func]
    pub fn get_time(&self) -> f64 {
        self.time
    }

    /// Number of bodies floating on this water.
    #[func]
    pub fn get_body_count(&self) -> i64 {
        self.fleet.len() as i64
    }

    /// How many times Keel's work went to Godot's WorkerThreadPool since the scene
    /// started (0 with `use_worker_thread_pool` off): with `worker_thread_pool_min_usec`
    /// at -1, the steps for which handing work to the pool paid. For profiling.
    #[func]
    pub fn get_pool_run_count(&self) -> i64 {
        self.tasks
            .as_ref()
            .map_or(0, |t| i64::try_from(t.pooled()).unwrap_or(i64::MAX))
    }

    /// Wall-clock time of Keel's batch step at the last physics frame, s: the forces of
    /// every body, without reading their states from Godot or applying the forces. For
    /// profiling: the rest of the frame's cost of the bodies is Godot's and the addon's.
    #[func]
    pub fn get_step_time(&self) -> f64 {
        self.fleet.step_seconds()
    }

    /// Why the water model could not be built (empty if it could).
    #[func]
    pub fn get_error(&self) -> GString {
        self.error.clone()
    }

    /// The water's and every body's dynamic state (the scene time, the floating origin,
    /// each body's slamming history) as bytes, for rollback netcode and replays: after
    /// restoring the bodies' transforms and velocities, `load_state` with these bytes
    /// makes the next physics frames give the same forces to the bit. Empty before the
    /// first physics frame.
    #[func]
    pub fn save_state(&self) -> PackedByteArray {
        let Some(world) = self.world.as_ref() else {
            return PackedByteArray::new();
        };
        let mut bytes = vec![0u8; world.snapshot_size()];
        match world.snapshot(&mut bytes) {
            Ok(n) => PackedByteArray::from(&bytes[..n]),
            Err(e) => {
                godot_error!("KeelWater.save_state: {}", e.message);
                PackedByteArray::new()
            }
        }
    }

    /// Restores `save_state`'s bytes. Returns false, with the reason in the output and
    /// nothing changed, for bytes of another scene (bodies added or removed since, other
    /// hulls) or of another Keel version.
    #[func]
    pub fn load_state(&mut self, state: PackedByteArray) -> bool {
        let Some(world) = self.world.as_mut() else {
            godot_error!("KeelWater.load_state: the water has no world yet (before its first physics frame)");
            return false;
        };
        match world.restore(state.as_slice()) {
            Ok(()) => {
                self.time = world.time();
                true
            }
            Err(e) => {
                godot_error!("KeelWater.load_state: {}", e.message);
                false
            }
        }
    }

    /// A 64-bit hash of `save_state` (body handles left out): two peers stepping the same
    /// scene the same way agree on it. Compare it to detect a desync.
    #[func]
    pub fn get_state_hash(&self) -> i64 {
        self.world.as_ref().map_or(0, |w| w.state_hash() as i64)
    }

    /// Floating origin: call it when the game moves every node by -`shift` to keep the
    /// player near the origin. The waves keep their true phase (the water is evaluated
    /// at position + origin in double precision), so a boat 1000 km out feels the sea it
    /// would at home.
    #[func]
    pub fn shift_origin(&mut self, shift: Vector3) {
        let Some(world) = self.world.as_mut() else {
            godot_error!("KeelWater.shift_origin: the water has no world yet (before its first physics frame)");
            return;
        };
        if let Err(e) = world.shift_origin(dvec3(shift)) {
            godot_error!("KeelWater.shift_origin: {}", e.message);
        }
    }

    /// The water's origin (the sum of every `shift_origin`), m.
    #[func]
    pub fn get_origin(&self) -> Vector3 {
        self.world.as_ref().map_or(Vector3::ZERO, |w| {
            let o = w.origin();
            Vector3::new(o.x as f32, o.y as f32, o.z as f32)
        })
    }

    /// `model`: a level plane.
    #[constant]
    pub const MODEL_FLAT: i64 = 0;
    /// `model`: the thesis's Perlin noise waves.
    #[constant]
    pub const MODEL_PERLIN: i64 = 1;
    /// `model`: the `gerstner_waves`.
    #[constant]
    pub const MODEL_GERSTNER: i64 = 2;
    /// `model`: Gerstner waves from a wind-sea spectrum.
    #[constant]
    pub const MODEL_SPECTRUM: i64 = 3;
    /// `model`: heights from `heightfield_image`.
    #[constant]
    pub const MODEL_HEIGHTFIELD: i64 = 4;
    /// `model`: heights from `height_callable`.
    #[constant]
    pub const MODEL_CALLABLE: i64 = 5;

    /// Sets `model`; a value that is not one of the MODEL_* constants is refused with an
    /// error and the model stays as it was.
    #[func]
    pub fn set_model(&mut self, model: i64) {
        if models::model(model).is_none() {
            godot_error!(
                "KeelWater.model: {model} is not a model; use one of KeelWater.MODEL_* (0 to {}). Kept {}.",
                models::MODELS.len() - 1,
                self.model
            );
            return;
        }
        self.model = model;
        self.base_mut().update_configuration_warnings();
    }

    /// Sets `gerstner_waves` from an Array of KeelGerstnerWave (nulls are skipped; a
    /// typed Array assigned to the property arrives as an untyped copy); an Array holding
    /// anything else is refused with an error naming the first wrong element, and the
    /// waves stay as they were.
    #[func]
    pub fn set_gerstner_waves(&mut self, waves: VarArray) {
        let wrong = waves
            .iter_shared()
            .enumerate()
            .find(|(_, w)| !w.is_nil() && w.try_to::<Gd<KeelGerstnerWave>>().is_err());
        if let Some((i, w)) = wrong {
            godot_error!(
                "KeelWater.gerstner_waves: element {i} is {} ({}), not a KeelGerstnerWave; the waves are unchanged",
                w,
                w.get_type().godot_type_name()
            );
            return;
        }
        self.gerstner_waves = waves;
    }

    /// The whole state a rollback needs, as bytes: Keel's (the scene time, the floating
    /// origin, each body's slamming history), every floating body's pose and linear and
    /// angular velocities as the physics server has them, whether each is in the water,
    /// and, taken in `_physics_process`, the forces Keel has applied this frame and the
    /// server has not integrated yet. `load_snapshot` with these bytes, at the same point
    /// of a later frame, makes the following frames repeat to the bit (on one machine,
    /// with one physics engine; bodies that touch other bodies keep contact state Godot
    /// does not expose). Saving settles each body's transform where the physics server
    /// gives back the same bits when it is set again (a change in the last bits of its
    /// rotation), so that a load restores it exactly. Empty, with an error, before the
    /// first physics frame.
    #[func]
    pub fn save_snapshot(&mut self) -> PackedByteArray {
        match self.snapshot() {
            Ok(s) => PackedByteArray::from(s.encode().as_slice()),
            Err(e) => {
                godot_error!("KeelWater.save_snapshot: {e}");
                PackedByteArray::new()
            }
        }
    }

    /// Restores `save_snapshot`'s bytes: Keel's state, and each body's pose, velocities
    /// and pending forces through the PhysicsServer3D (and its node). Call it where the
    /// snapshot was taken: both in `_physics_process`, or both outside physics. Returns
    /// false, with the reason in the output and nothing changed, for bytes of other
    /// bodies (added or removed since), of another scene, or damaged ones.
    #[func]
    pub fn load_snapshot(&mut self, snapshot: PackedByteArray) -> bool {
        match self.restore_snapshot(snapshot.as_slice()) {
            Ok(()) => true,
            Err(e) => {
                godot_error!("KeelWater.load_snapshot: {e}");
                false
            }
        }
    }
}

impl KeelWater {
    fn level(&self) -> f64 {
        if self.base().is_inside_tree() {
            f64::from(self.base().get_global_position().y)
        } else {
            0.0
        }
    }

    fn gravity() -> f64 {
        let g = ProjectSettings::singleton().get_setting("physics/3d/default_gravity");
        g.try_to::<f64>()
            .ok()
            .filter(|g| *g > 0.0)
            .unwrap_or(WorldDesc::default().gravity)
    }

    fn config(&self) -> Config {
        let level = self.level();
        match models::model(self.model).unwrap_or(Model::Flat) {
            Model::Flat => Config::Flat(level),
            Model::Perlin => Config::Perlin(
                PerlinParams {
                    scale: self.perlin_scale,
                    speed: self.perlin_speed,
                    wave_height: self.perlin_wave_height,
                    only_x: self.perlin_only_x,
                },
                level,
            ),
            Model::Gerstner => {
                // (The setter let only waves and nils in.)
                let waves: Vec<GerstnerWave> = self
                    .gerstner_waves
                    .iter_shared()
                    .filter_map(|w| w.try_to::<Gd<KeelGerstnerWave>>().ok())
                    .map(|w| w.bind().wave())
                    .collect();
                Config::Gerstner(waves, level)
            }
            Model::Spectrum => Config::Spectrum(
                SpectrumParams {
                    jonswap: self.spectrum_jonswap,
                    wind_speed: self.spectrum_wind_speed,
                    direction: dvec2(self.spectrum_direction),
                    wave_count: self.spectrum_wave_count,
                    seed: self.spectrum_seed,
                },
                level,
            ),
            Model::Heightfield => Config::Heightfield(
                self.heightfield_image.as_ref().map(|i| i.instance_id()),
                HeightfieldLayout {
                    origin: dvec2(self.heightfield_origin),
                    cell_size: self.heightfield_cell_size,
                    height_scale: self.heightfield_height_scale,
                    tiled: self.heightfield_tiled,
                },
                level,
            ),
            Model::Callable => Config::Callable(self.height_callable.is_valid().then(|| self.height_callable.clone())),
        }
    }

    fn build(&self, config: &Config, gravity: f64) -> Result<Water, String> {
        match config {
            Config::Flat(level) => Ok(models::flat(*level)),
            Config::Perlin(p, level) => models::perlin(p, *level),
            Config::Gerstner(waves, level) if waves.is_empty() => {
                models::gerstner(&models::default_gerstner_waves(), *level, gravity)
            }
            Config::Gerstner(waves, level) => models::gerstner(waves, *level, gravity),
            Config::Spectrum(p, level) => models::gerstner(&models::spectrum_waves(p, gravity)?, *level, gravity),
            Config::Heightfield(_, layout, level) => {
                let image = self
                    .heightfield_image
                    .as_ref()
                    .ok_or("the Heightfield model needs an image")?;
                let (width, height) = (image.get_width(), image.get_height());
                let values: Vec<f32> = (0..height)
                    .flat_map(|y| (0..width).map(move |x| (x, y)))
                    .map(|(x, y)| image.get_pixel(x, y).r)
                    .collect();
                models::heightfield(&values, width as usize, height as usize, *level, layout)
            }
            Config::Callable(Some(callable)) => Ok(callable_water::water(callable.clone())),
            Config::Callable(None) => Ok(models::flat(self.level())),
        }
    }

    /// Creates the world on first use, rebuilds the water when its properties changed,
    /// and passes on the time, current and wind.
    fn ensure_world(&mut self) {
        if self.world.is_none() {
            let desc = WorldDesc {
                gravity: Self::gravity(),
                water_density: self.water_density,
                air_density: self.air_density,
                ..WorldDesc::default()
            };
            self.tasks = None;
            let world = if self.use_worker_thread_pool {
                let tasks = Arc::new(GodotTasks::new(self.worker_thread_pool_min_usec));
                self.tasks = Some(Arc::clone(&tasks));
                World::with_tasks(&desc, tasks)
            } else {
                World::new(&WorldDesc {
                    thread_count: 1,
                    ..desc
                })
            };
            match world {
                Ok(world) => {
                    self.world = Some(world);
                    self.fleet.forget_world();
                    self.config = None;
                }
                Err(e) => {
                    self.set_error(format!("KeelWater: {e}"));
                    return;
                }
            }
        }
        let config = self.config();
        if self.config.as_ref() != Some(&config) {
            let gravity = self.world.as_ref().map_or(9.81, |w| w.desc().gravity);
            match self.build(&config, gravity) {
                Ok(water) => {
                    if let Some(w) = self.world.as_mut() {
                        w.set_water(water);
                    }
                    self.set_error(String::new());
                }
                Err(e) => self.set_error(format!("KeelWater: {e}")),
            }
            self.config = Some(config);
        }
        let (time, current, wind) = (self.time, dvec3(self.current), dvec3(self.wind));
        if let Some(w) = self.world.as_mut() {
            let results = [w.set_time(time), w.set_current(current), w.set_wind(wind)];
            if let Some(Err(e)) = results.into_iter().find(Result::is_err) {
                godot_warn!("KeelWater: {e}");
            }
        }
    }

    fn set_error(&mut self, message: String) {
        if message != self.error.to_string() {
            if !message.is_empty() {
                godot_warn!("{message}");
            }
            self.error = GString::from(message.as_str());
            self.base_mut().update_configuration_warnings();
        }
    }

    /// Whether this frame's forces are applied and not integrated yet: inside the
    /// physics frame, after the bodies' `_integrate_forces` stepped Keel.
    fn forces_pending(&self) -> bool {
        let engine = Engine::singleton();
        engine.is_in_physics_frame() && self.stepped_frame == Some(engine.get_physics_frames())
    }

    /// The bodies in the fleet's order with their physics server ids.
    fn bodies(&self) -> Vec<(InstanceId, Rid)> {
        self.fleet
            .keys()
            .filter_map(|k| self.members.get(&k).map(|m| (k, m.link.rid)))
            .collect()
    }

    fn snapshot(&mut self) -> Result<Snapshot, String> {
        let world = self
            .world
            .as_ref()
            .ok_or("the water has no world yet (before its first physics frame)")?;
        let mut keel = vec![0u8; world.snapshot_size()];
        let n = world.snapshot(&mut keel).map_err(|e| e.message.clone())?;
        keel.truncate(n);
        let pending = self.forces_pending();
        let mut server = PhysicsServer3D::singleton();
        let mut bodies = Vec::new();
        for (id, rid) in self.bodies() {
            let s = server
                .body_get_direct_state(rid)
                .ok_or_else(|| format!("body {id} has no physics state"))?;
            let t = settled_transform(&mut server, rid, s.get_transform());
            if let Ok(mut node) = Gd::<RigidBody3D>::try_from_instance_id(id) {
                node.set_global_transform(t);
            }
            let (b, o) = (t.basis, t.origin);
            let e = self.fleet.entry(id);
            let applied = e
                .and_then(|e| e.outcome)
                .filter(|_| pending)
                .map(|o| o.application)
                .unwrap_or_default();
            let f = vector3(applied.central_force);
            let q = vector3(applied.torque);
            let (v, w) = (s.get_linear_velocity(), s.get_angular_velocity());
            bodies.push(BodyRecord {
                id: id.to_i64() as u64,
                wet: e.is_some_and(|e| e.is_wet()),
                transform: [
                    b.rows[0].x,
                    b.rows[0].y,
                    b.rows[0].z,
                    b.rows[1].x,
                    b.rows[1].y,
                    b.rows[1].z,
                    b.rows[2].x,
                    b.rows[2].y,
                    b.rows[2].z,
                    o.x,
                    o.y,
                    o.z,
                ],
                linear_velocity: [v.x, v.y, v.z],
                angular_velocity: [w.x, w.y, w.z],
                force: [f.x, f.y, f.z],
                torque: [q.x, q.y, q.z],
            });
        }
        Ok(Snapshot {
            pending,
            time: self.time,
            keel,
            bodies,
        })
    }

    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), String> {
        let snapshot = Snapshot::decode(bytes)?;
        let bodies = self.bodies();
        let ids: Vec<u64> = bodies.iter().map(|(id, _)| id.to_i64() as u64).collect();
        rollback::check_bodies(&snapshot, &ids)?;
        let pending = self.forces_pending();
        if snapshot.pending != pending {
            return Err(if snapshot.pending {
                "the snapshot was taken in _physics_process: load it there too"
            } else {
                "the snapshot was taken outside _physics_process: load it outside too"
            }
            .into());
        }
        let world = self
            .world
            .as_mut()
            .ok_or("the water has no world yet (before its first physics frame)")?;
        // Keel's part first: it checks the bytes against its bodies and hulls, and
        // refuses without changing anything.
        world.restore(&snapshot.keel).map_err(|e| e.message.clone())?;
        self.time = snapshot.time;
        let mut server = PhysicsServer3D::singleton();
        for ((id, rid), record) in bodies.iter().zip(&snapshot.bodies) {
            let t = record.transform;
            let transform = Transform3D::new(
                Basis::from_rows(
                    Vector3::new(t[0], t[1], t[2]),
                    Vector3::new(t[3], t[4], t[5]),
                    Vector3::new(t[6], t[7], t[8]),
                ),
                Vector3::new(t[9], t[10], t[11]),
            );
            let v = Vector3::from_array(record.linear_velocity);
            let w = Vector3::from_array(record.angular_velocity);
            // The node first (its setters tell the server too, through its own
            // arithmetic), then the server with the saved bits, last.
            if let Ok(mut node) = Gd::<RigidBody3D>::try_from_instance_id(*id) {
                node.set_global_transform(transform);
                node.set_linear_velocity(v);
                node.set_angular_velocity(w);
            }
            server.body_set_state(*rid, BodyState3D::TRANSFORM, &transform.to_variant());
            server.body_set_state(*rid, BodyState3D::LINEAR_VELOCITY, &v.to_variant());
            server.body_set_state(*rid, BodyState3D::ANGULAR_VELOCITY, &w.to_variant());
            if pending {
                // This frame's forces, from the state before the load, out; the saved
                // ones in: 0 + f - f + g is g exactly.
                if let Some(o) = self.fleet.entry(*id).and_then(|e| e.outcome) {
                    server.body_apply_central_force(*rid, -vector3(o.application.central_force));
                    server.body_apply_torque(*rid, -vector3(o.application.torque));
                }
                server.body_apply_central_force(*rid, Vector3::from_array(record.force));
                server.body_apply_torque(*rid, Vector3::from_array(record.torque));
            }
            self.fleet.set_wet(*id, record.wet);
        }
        Ok(())
    }

    /// The keel world, once built.
    pub fn world(&self) -> Option<&World> {
        self.world.as_ref()
    }

    /// Registers (or updates) a body: itself, its parameters and, when `mesh` is
    /// `Some`, its hull mesh.
    pub fn update_body(&mut self, link: BodyLink, mesh: Option<Option<BakedMesh>>) {
        let id = link.body.instance_id();
        let source = link.params.as_ref().map(|p| p.instance_id());
        let desc = self.desc_of(&link);
        if let Some(mesh) = mesh {
            self.fleet.set_mesh(id, mesh);
        }
        self.fleet.set_params(id, desc);
        match self.members.get_mut(&id) {
            Some(m) => {
                if m.link.params.as_ref().map(|p| p.instance_id()) != source {
                    self.sources = None;
                }
                m.link = link;
            }
            None => {
                self.sources = None;
                self.members.insert(
                    id,
                    Member {
                        link,
                        direct: None,
                        mass: None,
                        reported: Vec::new(),
                    },
                );
            }
        }
    }

    /// The description of a body: its own part, and its resource's as last read.
    fn desc_of(&self, link: &BodyLink) -> BodyDesc {
        let Some(params) = &link.params else {
            return link.own;
        };
        let id = params.instance_id();
        let resource = self
            .sources
            .iter()
            .flatten()
            .find(|s| s.resource.instance_id() == id)
            .map(|s| s.desc)
            .unwrap_or_else(|| {
                let mut d = BodyDesc::default();
                params.bind().write(&mut d);
                d
            });
        with_own(&resource, &link.own)
    }

    /// Forgets a body.
    pub fn remove_body(&mut self, id: InstanceId) {
        if self.members.remove(&id).is_some() {
            self.sources = None;
        }
        if let Some(world) = self.world.as_mut() {
            self.fleet.remove(world, id);
        }
    }

    /// Reads each parameter resource the bodies use, once a frame, and gives the bodies
    /// of one that changed their new description.
    fn refresh_params(&mut self) {
        let sources = self.sources.get_or_insert_with(|| {
            let mut out: Vec<ParamSource> = Vec::new();
            for m in self.members.values() {
                if let Some(p) = &m.link.params
                    && !out.iter().any(|s| s.resource == *p)
                {
                    let mut desc = BodyDesc::default();
                    p.bind().write(&mut desc);
                    out.push(ParamSource {
                        resource: p.clone(),
                        desc,
                    });
                }
            }
            out
        });
        for source in sources.iter_mut() {
            if !source.resource.is_instance_valid() {
                continue;
            }
            let mut desc = BodyDesc::default();
            source.resource.bind().write(&mut desc);
            if desc == source.desc {
                continue;
            }
            source.desc = desc;
            for (id, m) in &self.members {
                if m.link.params.as_ref() == Some(&source.resource) {
                    self.fleet.set_params(*id, with_own(&desc, &m.link.own));
                }
            }
        }
    }

    /// Steps every body once for physics frame `frame` (`delta` long): reads each body's state from its
    /// PhysicsDirectBodyState3D, steps them in one Keel batch, applies each body's force
    /// and torque, and tells the bodies what changed (water entered or left, problems).
    pub fn step_frame(&mut self, frame: u64, delta: f64) {
        if self.stepped_frame == Some(frame) {
            return;
        }
        self.stepped_frame = Some(frame);
        self.ensure_world();
        self.refresh_params();
        let Some(world) = self.world.as_mut() else {
            return;
        };
        if self.members.is_empty() {
            return;
        }
        let mut server = PhysicsServer3D::singleton();
        let calls = self.calls.get_or_insert_with(DirectCalls::new).as_ref();
        // A body freed without leaving the tree the usual way is forgotten.
        let gone: Vec<InstanceId> = self
            .members
            .iter()
            .filter(|(id, m)| match calls {
                // SAFETY: the physics frame runs on the main thread (see `direct`).
                Some(c) => !unsafe { c.is_alive(**id) },
                None => !m.link.body.is_instance_valid(),
            })
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.members.remove(&id);
            self.fleet.remove(world, id);
            self.sources = None;
        }
        for m in self.members.values_mut() {
            if m.direct.is_none() {
                m.direct = server.body_get_direct_state(m.link.rid);
            }
        }
        // The step the physics server integrates with (its own rounding of it; zero
        // before its first step).
        let Some(step) = self
            .members
            .values()
            .find_map(|m| m.direct.as_ref())
            .map(|s| s.get_step())
        else {
            return;
        };
        let dt = if step > 0.0 { step } else { delta as f32 };
        let calls = self.calls.as_ref().and_then(Option::as_ref);
        let members = &mut self.members;
        // Godot's workers take 40-150 us to start: woken now, they are there when Keel's
        // step starts, after the bodies are read (godot-addon/README.md, round 8).
        let ahead = self.tasks.as_deref().map(GodotTasks::ahead);
        self.fleet.step(world, f64::from(dt), |key| {
            let m = members.get_mut(&key)?;
            let s = m.direct.as_ref()?;
            let r = read(calls, s);
            let t = r.transform;
            let direct = DirectState {
                origin: dvec3(t.origin),
                basis: dmat3(t.basis),
                linear_velocity: dvec3(r.linear_velocity),
                angular_velocity: dvec3(r.angular_velocity),
                center_of_mass_offset: dvec3(r.center_of_mass),
            };
            let state: BodyState = body_state(&direct);
            // The mass properties change only when the game changes the body's mass or
            // shapes: the principal axes (in world axes, so turning with the body) are
            // read again only when the inverse mass or inertia moved.
            let (inverse_mass, inverse_inertia) = (r.inverse_mass, r.inverse_inertia);
            let mass = match m.mass {
                Some((im, ii, mass)) if im == inverse_mass && ii == inverse_inertia => mass,
                _ => {
                    let (inertia, inertia_rotation) = principal_inertia(
                        dvec3(inverse_inertia),
                        dmat3(s.get_principal_inertia_axes()),
                        state.rotation,
                    );
                    let mass = MassProperties {
                        mass: if inverse_mass > 0.0 { 1.0 / inverse_mass } else { 0.0 },
                        inertia,
                        inertia_rotation,
                    };
                    m.mass = Some((inverse_mass, inverse_inertia, mass));
                    mass
                }
            };
            Some((state, mass))
        });
        drop(ahead);
        // Script water ran scripts during the step: a body may be gone since.
        let recheck = matches!(self.config, Some(Config::Callable(Some(_))));
        let calls = self.calls.as_ref().and_then(Option::as_ref);
        for e in self.fleet.entries_mut() {
            let Some(m) = self.members.get_mut(&e.key) else {
                continue;
            };
            if recheck && !m.link.body.is_instance_valid() {
                continue;
            }
            // (By reference: the outcome is 300 bytes, of which two vectors are applied.)
            if let (Some(o), Some(s)) = (e.outcome.as_ref(), m.direct.as_mut()) {
                apply(
                    calls,
                    s,
                    vector3(o.application.central_force),
                    vector3(o.application.torque),
                );
            }
            // Deferred: a handler may change the scene, which Godot forbids mid-physics.
            let signal = match e.take_transition() {
                Some(Transition::Entered) => Some("entered_water"),
                Some(Transition::Exited) => Some("exited_water"),
                None => None,
            };
            if let Some(signal) = signal {
                m.link.body.call_deferred("emit_signal", &[signal.to_variant()]);
            }
            // A body without a mesh has said why itself (no hull, or the mesh's flaw).
            let problems = e.error.iter().chain(&e.notice).filter(|p| *p != NO_HULL);
            if !problems.clone().eq(m.reported.iter()) {
                m.reported = problems.cloned().collect();
                m.link.body.bind_mut().set_engine_problems(m.reported.clone());
            }
        }
    }

    /// A body's last outcome.
    pub fn outcome(&self, id: InstanceId) -> Option<Outcome> {
        self.fleet.entry(id).and_then(|e| e.outcome)
    }

    /// The debug view of a body's last step: submerged triangles and waterline segments
    /// in world coordinates.
    pub fn debug_geometry(&self, id: InstanceId) -> Option<DebugGeometry> {
        let member = self.fleet.entry(id)?.member()?;
        let mut body = self.world.as_ref()?.body(member.body).ok()?;
        let triangles = body.submerged_triangles().collect();
        let waterline = body.waterline().collect();
        Some((triangles, waterline))
    }
}

/// A body's description: a resource's, with the body's own `hull_length` and
/// `water_patch_cells` (the two a resource does not set).
fn with_own(resource: &BodyDesc, own: &BodyDesc) -> BodyDesc {
    BodyDesc {
        hull_length: own.hull_length,
        water_patch_cells: own.water_patch_cells,
        ..*resource
    }
}

/// A body's state, through the method binds when they were found.
fn read(calls: Option<&DirectCalls>, state: &Gd<PhysicsDirectBodyState3D>) -> Read {
    match calls {
        // SAFETY: the state of a body found alive this frame, on the main thread (see
        // `direct`).
        Some(c) => unsafe { c.read(state.obj_sys()) },
        None => Read {
            transform: state.get_transform(),
            linear_velocity: state.get_linear_velocity(),
            angular_velocity: state.get_angular_velocity(),
            center_of_mass: state.get_center_of_mass(),
            inverse_mass: f64::from(state.get_inverse_mass()),
            inverse_inertia: state.get_inverse_inertia(),
        },
    }
}

/// Applies a force at the centre of mass and a torque.
fn apply(calls: Option<&DirectCalls>, state: &mut Gd<PhysicsDirectBodyState3D>, force: Vector3, torque: Vector3) {
    match calls {
        // SAFETY: as in `read`.
        Some(c) => unsafe { c.apply(state.obj_sys(), force, torque) },
        None => {
            state.apply_central_force_ex().force(force).done();
            state.apply_torque(torque);
        }
    }
}
