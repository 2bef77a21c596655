//! The calls a `KeelWater` makes on every body's `PhysicsDirectBodyState3D` every physics
//! frame, made straight through Godot's method binds.
//!
//! Through gdext's generated methods each call also takes the class name from a global
//! table under a mutex, asks the thread for its id twice or more, and looks the object
//! up in Godot's ObjectDB: in a profile of 400 floating boxes those checks took about as
//! long as Keel's step of them (issue 39 item 4). Here the method binds are looked up
//! once (by name and the hash of Godot's `extension_api.json`, which Godot keeps for
//! compatibility) and each call is one `object_method_bind_ptrcall`. What the checks
//! guarded is guaranteed by the caller instead: the state object lives as long as its
//! body (the physics server owns it and frees it with the body's RID, when the node is
//! destroyed), the water checks that each body is alive before it touches its state,
//! and it runs on the main thread (physics on its own thread is not supported).

use godot::builtin::{StringName, Transform3D, Vector3};
use godot::obj::InstanceId;
use godot::sys;
use godot::sys::GodotFfi;

/// One body's state as a frame reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Read {
    /// `get_transform()`.
    pub transform: Transform3D,
    /// `get_linear_velocity()`.
    pub linear_velocity: Vector3,
    /// `get_angular_velocity()`.
    pub angular_velocity: Vector3,
    /// `get_center_of_mass()`: the centre of mass's offset from the origin, world axes.
    pub center_of_mass: Vector3,
    /// `get_inverse_mass()` (Godot passes a float as a double through a ptrcall).
    pub inverse_mass: f64,
    /// `get_inverse_inertia()`.
    pub inverse_inertia: Vector3,
}

/// The method binds of `PhysicsDirectBodyState3D` a frame calls.
#[derive(Debug)]
pub struct DirectCalls {
    ptrcall: sys::GDExtensionInterfaceObjectMethodBindPtrcall,
    instance_from_id: sys::GDExtensionInterfaceObjectGetInstanceFromId,
    get_transform: sys::GDExtensionMethodBindPtr,
    get_linear_velocity: sys::GDExtensionMethodBindPtr,
    get_angular_velocity: sys::GDExtensionMethodBindPtr,
    get_center_of_mass: sys::GDExtensionMethodBindPtr,
    get_inverse_mass: sys::GDExtensionMethodBindPtr,
    get_inverse_inertia: sys::GDExtensionMethodBindPtr,
    apply_central_force: sys::GDExtensionMethodBindPtr,
    apply_torque: sys::GDExtensionMethodBindPtr,
}

impl DirectCalls {
    /// Looks the methods up; `None` if Godot lacks one (then the caller uses gdext's
    /// methods).
    pub fn new() -> Option<Self> {
        let class = StringName::from("PhysicsDirectBodyState3D");
        let bind = |name: &str, hash: i64| {
            let method = StringName::from(name);
            // SAFETY: both are valid StringNames; Godot returns null for an unknown method.
            let p =
                unsafe { sys::interface_fn!(classdb_get_method_bind)(class.sys().cast(), method.sys().cast(), hash) };
            (!p.is_null()).then_some(p)
        };
        Some(Self {
            ptrcall: sys::interface_fn!(object_method_bind_ptrcall),
            instance_from_id: sys::interface_fn!(object_get_instance_from_id),
            get_transform: bind("get_transform", 3229777777)?,
            get_linear_velocity: bind("get_linear_velocity", 3360562783)?,
            get_angular_velocity: bind("get_angular_velocity", 3360562783)?,
            get_center_of_mass: bind("get_center_of_mass", 3360562783)?,
            get_inverse_mass: bind("get_inverse_mass", 1740695150)?,
            get_inverse_inertia: bind("get_inverse_inertia", 3360562783)?,
            apply_central_force: bind("apply_central_force", 2007698547)?,
            apply_torque: bind("apply_torque", 3460891852)?,
        })
    }

    /// Whether the object `id` is alive: Godot's ObjectDB asked directly. (gdext's
    /// `Gd::is_instance_valid` calls Godot's `is_instance_id_valid` through its utility
    /// function table, which checks the thread on each call: with 400 bodies a frame,
    /// about a hundredth of a frame's samples in a profile of the bench.)
    ///
    /// # Safety
    /// This is the main thread.
    pub unsafe fn is_alive(&self, id: InstanceId) -> bool {
        // SAFETY: Godot's lookup, which answers null for an id that names no object.
        !unsafe { (self.instance_from_id)(id.to_i64() as u64) }.is_null()
    }

    /// A getter's value.
    ///
    /// # Safety
    /// `state` is a live PhysicsDirectBodyState3D, `method` one of its getters with no
    /// argument whose ptrcall return value is a `T`, and this is the main thread.
    unsafe fn get<T: Default>(&self, method: sys::GDExtensionMethodBindPtr, state: sys::GDExtensionObjectPtr) -> T {
        let mut out = T::default();
        // SAFETY: as the caller promises; `out` is the return slot Godot writes.
        unsafe { (self.ptrcall)(method, state, std::ptr::null(), (&raw mut out).cast()) };
        out
    }

    /// Reads a body's state.
    ///
    /// # Safety
    /// `state` is a live PhysicsDirectBodyState3D, on the main thread.
    pub unsafe fn read(&self, state: sys::GDExtensionObjectPtr) -> Read {
        // SAFETY: as the caller promises, and each getter returns what is read into.
        unsafe {
            Read {
                transform: self.get(self.get_transform, state),
                linear_velocity: self.get(self.get_linear_velocity, state),
                angular_velocity: self.get(self.get_angular_velocity, state),
                center_of_mass: self.get(self.get_center_of_mass, state),
                inverse_mass: self.get(self.get_inverse_mass, state),
                inverse_inertia: self.get(self.get_inverse_inertia, state),
            }
        }
    }

    /// `apply_central_force(force)` and `apply_torque(torque)`.
    ///
    /// # Safety
    /// `state` is a live PhysicsDirectBodyState3D, on the main thread.
    pub unsafe fn apply(&self, state: sys::GDExtensionObjectPtr, force: Vector3, torque: Vector3) {
        let force_arg: [sys::GDExtensionConstTypePtr; 1] = [(&raw const force).cast()];
        let torque_arg: [sys::GDExtensionConstTypePtr; 1] = [(&raw const torque).cast()];
        // SAFETY: as the caller promises; each method takes one Vector3 and returns nothing.
        unsafe {
            (self.ptrcall)(
                self.apply_central_force,
                state,
                force_arg.as_ptr(),
                std::ptr::null_mut(),
            );
            (self.ptrcall)(self.apply_torque, state, torque_arg.as_ptr(), std::ptr::null_mut());
        }
    }
}
