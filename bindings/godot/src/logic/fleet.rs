//! The bodies of one `KeelWater`, stepped in one batch per physics frame.
//!
//! Each physics frame the water collects every registered body's state, calls
//! [`keel::World::step_bodies`] once, and hands each body its [`Application`] for its
//! `_integrate_forces`, with whether it has just entered or left the water. A batch that
//! fails (one body's state is refused) is stepped body by body so that the others still
//! float and the bad one is named.

use std::hash::Hash;

use keel::{BodyDesc, BodyForces, BodyId, BodyState, HullId, World};

use super::apply::{Application, application};
use super::mesh::BakedMesh;
use super::params::{MassProperties, body_desc};
use rustc_hash::FxHashMap;

/// Why a body without a mesh is not stepped (the host may say why it has none instead).
pub const NO_HULL: &str = "no hull mesh: give it a Mesh or a MeshInstance3D child";

/// A body's entries in a world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its keel body.
    pub body: BodyId,
    /// Its own hull (one per body: each is baked with its node's scale).
    pub hull: HullId,
}

/// Adds a hull and a body for `mesh`; `desc.hull` is replaced by the new hull's.
pub fn attach(world: &mut World, mesh: &BakedMesh, desc: &BodyDesc) -> Result<Member, String> {
    let hull = world.create_hull(&mesh.hull_desc()).map_err(|e| e.to_string())?;
    match world.create_body(&BodyDesc { hull, ..*desc }) {
        Ok(body) => Ok(Member { body, hull }),
        Err(e) => {
            let _ = world.destroy_hull(hull);
            Err(e.to_string())
        }
    }
}

/// Removes a body and its hull.
pub fn detach(world: &mut World, member: Member) {
    // Either may already be gone with a replaced world; nothing else to undo then.
    let _ = world.destroy_body(member.body);
    let _ = world.destroy_hull(member.hull);
}

/// Whether a body's step found it in the water.
pub fn is_wet(forces: &BodyForces) -> bool {
    forces.submerged_triangle_count > 0
}

/// A change of a body's wetness this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    /// Touched the water.
    Entered,
    /// Left it.
    Exited,
}

/// The transition from `was_wet` to `now_wet`.
pub fn transition(was_wet: bool, now_wet: bool) -> Option<Transition> {
    match (was_wet, now_wet) {
        (false, true) => Some(Transition::Entered),
        (true, false) => Some(Transition::Exited),
        _ => None,
    }
}

/// One body's outcome of a frame.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Keel's forces (kept for the debug view and the scripts' queries).
    pub forces: BodyForces,
    /// What to apply.
    pub application: Application,
}

/// A frame's batch: ids and states pushed in the bodies' order, stepped at once.
#[derive(Debug, Default)]
pub struct Batch {
    ids: Vec<BodyId>,
    states: Vec<BodyState>,
}

impl Batch {
    /// Empties the batch, keeping its buffers.
    pub fn clear(&mut self) {
        self.ids.clear();
        self.states.clear();
    }

    /// Adds a body.
    pub fn push(&mut self, body: BodyId, state: BodyState) {
        self.ids.push(body);
        self.states.push(state);
    }

    /// Number of bodies pushed.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no body was pushed.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Steps every body for `dt` and hands each body's outcome (or its own error) to
    /// `write` with `out[i]`, the output of the `i`-th body pushed.
    ///
    /// The outcome goes straight where the caller keeps it: through a buffer of the
    /// batch's own, each body's 300 bytes of outcome were copied twice more a frame
    /// (some 190 instructions of `memcpy` a box in the replay of the bench scene,
    /// `examples/scene_cost.rs`).
    pub fn step<O: Send>(
        &self,
        world: &mut World,
        dt: f64,
        out: &mut [O],
        write: impl Fn(Result<Outcome, String>, &mut O) + Sync,
    ) {
        assert_eq!(out.len(), self.ids.len(), "one output per body pushed");
        let outcome = |forces: &BodyForces| Outcome {
            forces: *forces,
            application: application(forces),
        };
        let stepped = world.step_bodies(
            &self.ids,
            &self.states,
            dt,
            out,
            |s| *s,
            |f, o| {
                write(Ok(outcome(f)), o);
            },
        );
        // A refused batch wrote nothing: each body is stepped alone, so that the others
        // still float and the bad one has its own error.
        if stepped.is_err() {
            for ((id, state), o) in self.ids.iter().zip(&self.states).zip(out) {
                let result = world
                    .step_body(*id, state, dt)
                    .map(|f| outcome(&f))
                    .map_err(|e| e.to_string());
                write(result, o);
            }
        }
    }
}

/// Whether a body's mass properties moved enough to tell keel again. Godot's principal
/// axes come back turned to world axes every frame, so the body-axes rotation wobbles
/// in its last bits; a relative change of 1e-6 is a real one.
pub fn mass_changed(old: &MassProperties, new: &MassProperties) -> bool {
    let relative = |a: f64, b: f64| (a - b).abs() > 1e-6 * a.abs().max(b.abs());
    relative(old.mass, new.mass)
        || (0..3).any(|i| relative(old.inertia[i], new.inertia[i]))
        || old.inertia_rotation.dot(new.inertia_rotation).abs() < 1.0 - 1e-10
}

/// One registered body of a [`Fleet`].
#[derive(Clone, Debug)]
pub struct Entry<K> {
    /// The host's key (Godot: the node's instance id).
    pub key: K,
    mesh: Option<BakedMesh>,
    shape_changed: bool,
    params: BodyDesc,
    params_changed: bool,
    mass: Option<MassProperties>,
    member: Option<Member>,
    wet: bool,
    /// The last frame's outcome; `None` until stepped, or after an error.
    pub outcome: Option<Outcome>,
    /// Why the body was not stepped last frame.
    pub error: Option<String>,
    /// What is wrong with its hull although it is stepped (a hull that encloses no
    /// volume), since the hull was built.
    pub notice: Option<String>,
    transition: Option<Transition>,
}

impl<K> Entry<K> {
    /// The body's keel ids, once created.
    pub fn member(&self) -> Option<Member> {
        self.member
    }

    /// Takes the last wetness change, once.
    pub fn take_transition(&mut self) -> Option<Transition> {
        self.transition.take()
    }

    /// Whether the last frame found it in the water.
    pub fn is_wet(&self) -> bool {
        self.wet
    }
}

/// Every body of a water, keyed by the host, kept in step with a [`World`]: the host
/// says what changed (mesh, parameters), the fleet creates, updates and destroys keel's
/// hulls and bodies, and steps them all in one [`Batch`] a frame.
#[derive(Debug)]
pub struct Fleet<K> {
    entries: Vec<Entry<K>>,
    /// Where each key's entry is: every body looks itself up several times a frame, and
    /// a search of the list made a crowd's frame quadratic.
    positions: FxHashMap<K, usize>,
    batch: Batch,
    stepped: Vec<usize>,
    /// Wall-clock seconds of the last batch step alone.
    step_seconds: f64,
}

impl<K> Default for Fleet<K> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            positions: FxHashMap::default(),
            batch: Batch::default(),
            stepped: Vec::new(),
            step_seconds: 0.0,
        }
    }
}

impl<K: Copy + Eq + Hash + Send> Fleet<K> {
    fn index(&self, key: K) -> Option<usize> {
        self.positions.get(&key).copied()
    }

    fn entry_mut(&mut self, key: K) -> &mut Entry<K> {
        let i = match self.index(key) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    key,
                    mesh: None,
                    shape_changed: true,
                    params: BodyDesc::default(),
                    params_changed: true,
                    mass: None,
                    member: None,
                    wet: false,
                    outcome: None,
                    error: None,
                    notice: None,
                    transition: None,
                });
                self.positions.insert(key, self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        &mut self.entries[i]
    }

    /// Registers `key` if new and sets its hull mesh (`None`: it has none, and is not
    /// stepped).
    pub fn set_mesh(&mut self, key: K, mesh: Option<BakedMesh>) {
        let e = self.entry_mut(key);
        if e.mesh != mesh {
            e.mesh = mesh;
            e.shape_changed = true;
        }
    }

    /// Registers `key` if new and sets its parameters (a description whose hull, mass
    /// and inertia the fleet fills in).
    pub fn set_params(&mut self, key: K, params: BodyDesc) {
        let e = self.entry_mut(key);
        if e.params != params {
            e.params = params;
            e.params_changed = true;
        }
    }

    /// Forgets `key` and removes its keel body and hull.
    pub fn remove(&mut self, world: &mut World, key: K) {
        let Some(i) = self.index(key) else {
            return;
        };
        let removed = self.entries.remove(i);
        self.positions.remove(&key);
        for (j, e) in self.entries.iter().enumerate().skip(i) {
            self.positions.insert(e.key, j);
        }
        if let Some(m) = removed.member {
            detach(world, m);
        }
    }

    /// The world was replaced: every body is created anew at the next step.
    pub fn forget_world(&mut self) {
        for e in &mut self.entries {
            e.member = None;
            e.shape_changed = true;
        }
    }

    /// The entry of `key`.
    pub fn entry(&self, key: K) -> Option<&Entry<K>> {
        self.index(key).map(|i| &self.entries[i])
    }

    /// Takes the entry's last wetness change, once.
    pub fn take_transition(&mut self, key: K) -> Option<Transition> {
        let i = self.index(key)?;
        self.entries[i].transition.take()
    }

    /// Every entry, in registration order.
    pub fn entries_mut(&mut self) -> impl Iterator<Item = &mut Entry<K>> + '_ {
        self.entries.iter_mut()
    }

    /// The registered bodies' keys, in registration order.
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.entries.iter().map(|e| e.key)
    }

    /// Sets whether `key` is in the water, as a rollback restores it, without a
    /// transition.
    pub fn set_wet(&mut self, key: K, wet: bool) {
        if let Some(i) = self.index(key) {
            self.entries[i].wet = wet;
            self.entries[i].transition = None;
        }
    }

    /// Wall-clock seconds of the last step's Keel batch alone (not the reading of the
    /// states before it), for profiling.
    pub fn step_seconds(&self) -> f64 {
        self.step_seconds
    }

    /// Number of registered bodies.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no body is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Steps every body whose state `read` gives (with its mass properties) for `dt`,
    /// in one batch, after bringing keel's bodies up to date.
    pub fn step(&mut self, world: &mut World, dt: f64, mut read: impl FnMut(K) -> Option<(BodyState, MassProperties)>) {
        self.batch.clear();
        self.stepped.clear();
        for (i, e) in self.entries.iter_mut().enumerate() {
            let Some((state, mass)) = read(e.key) else {
                e.outcome = None;
                continue;
            };
            match sync(world, e, mass) {
                Ok(body) => {
                    self.batch.push(body, state);
                    self.stepped.push(i);
                    e.error = None;
                }
                Err(message) => {
                    e.outcome = None;
                    e.error = Some(message);
                }
            }
        }
        // The stepped bodies' entries, in the batch's order: the batch writes each
        // outcome into its entry. (A vector of references a frame, 8 bytes a body.)
        let mut out: Vec<&mut Entry<K>> = Vec::with_capacity(self.stepped.len());
        let mut next = self.stepped.iter().peekable();
        for (i, e) in self.entries.iter_mut().enumerate() {
            if next.next_if_eq(&&i).is_some() {
                out.push(e);
            }
        }
        let start = std::time::Instant::now();
        self.batch.step(world, dt, &mut out, |result, e| match result {
            Ok(outcome) => {
                let wet = is_wet(&outcome.forces);
                if let Some(t) = transition(e.wet, wet) {
                    e.transition = Some(t);
                }
                e.wet = wet;
                e.outcome = Some(outcome);
            }
            Err(message) => {
                e.outcome = None;
                e.error = Some(message);
            }
        });
        self.step_seconds = start.elapsed().as_secs_f64();
    }
}

/// What to tell the user about a hull keel accepted: one that encloses no volume (a
/// plane, an open or inside-out mesh) floats nothing with the volume models, and its
/// pressure forces cancel out.
fn hull_notice(world: &World, hull: HullId) -> Option<String> {
    let info = world.hull_info(hull).ok()?;
    // Relative to the hull's size: the volume of a box of the hull's area's side is
    // about area^1.5 / 7; a millionth of that is a sheet.
    let tiny = 1e-6 * info.area.powf(1.5);
    (info.volume.abs() <= tiny).then(|| {
        format!(
            "the hull encloses no volume ({} triangles, area {:.3} m^2, volume {:.3e} m^3): nothing floats it. \
             Give a closed mesh (a plane or a single-sided surface is not a hull)",
            info.triangle_count, info.area, info.volume
        )
    })
}

/// Brings `e`'s keel body up to date with its mesh, parameters and `mass`.
fn sync<K>(world: &mut World, e: &mut Entry<K>, mass: MassProperties) -> Result<BodyId, String> {
    let mass_moved = e.mass.is_none_or(|old| mass_changed(&old, &mass));
    if mass_moved {
        e.mass = Some(mass);
    }
    let mass = e.mass.unwrap_or(mass);
    match e.member {
        Some(member) if !e.shape_changed => {
            if e.params_changed || mass_moved {
                let desc = body_desc(&e.params, member.hull, &mass)?;
                world.set_body_desc(member.body, &desc).map_err(|err| err.to_string())?;
                e.params_changed = false;
            }
            Ok(member.body)
        }
        old => {
            if let Some(old) = old {
                detach(world, old);
                e.member = None;
            }
            let mesh = e.mesh.as_ref().ok_or(NO_HULL)?;
            let desc = body_desc(&e.params, HullId(0), &mass)?;
            let member = attach(world, mesh, &desc)?;
            e.notice = hull_notice(world, member.hull);
            e.member = Some(member);
            e.shape_changed = false;
            e.params_changed = false;
            Ok(member.body)
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{DAffine3, DVec3, Vec3};
    use keel::hull::box_mesh;
    use keel::{BuoyancyModel, WorldDesc};

    use super::super::mesh::{Surface, bake};
    use super::super::params::MassProperties;
    use super::*;

    fn cube_mesh(side: f32) -> BakedMesh {
        let (vertices, indices) = box_mesh(Vec3::splat(side));
        // Godot's winding, as a mesh resource has it.
        let indices: Vec<i32> = indices
            .chunks(3)
            .flat_map(|t| [t[0] as i32, t[2] as i32, t[1] as i32])
            .collect();
        bake(
            &[Surface {
                vertices: &vertices,
                indices: &indices,
            }],
            DAffine3::IDENTITY,
        )
        .unwrap()
    }

    fn at(y: f64) -> BodyState {
        BodyState {
            position: DVec3::new(0.0, y, 0.0),
            center_of_mass: DVec3::new(0.0, y, 0.0),
            ..BodyState::default()
        }
    }

    /// What no step wrote.
    const UNWRITTEN: &str = "not written";

    /// Steps `batch` into outputs that say so where nothing was written.
    fn step_all(batch: &Batch, world: &mut World) -> Vec<Result<Outcome, String>> {
        let mut out = vec![Err(UNWRITTEN.to_string()); batch.len()];
        batch.step(world, 1.0 / 60.0, &mut out, |result, o| *o = result);
        out
    }

    fn floating_desc() -> BodyDesc {
        BodyDesc {
            mass: 500.0,
            buoyancy: BuoyancyModel::Volume,
            forces: 0,
            ..BodyDesc::default()
        }
    }

    #[test]
    fn one_batch_gives_each_body_its_archimedes_force() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let mesh = cube_mesh(1.0);
        let members: Vec<Member> = (0..3)
            .map(|_| attach(&mut world, &mesh, &floating_desc()).unwrap())
            .collect();
        let mut batch = Batch::default();
        // Drafts 0.25 m, 0.5 m, and dry (bottom 1 m above the water).
        for (m, y) in members.iter().zip([0.25, 0.0, 1.5]) {
            batch.push(m.body, at(y));
        }
        let out = step_all(&batch, &mut world);
        assert_eq!(out.len(), 3);
        let lift = |i: usize| out[i].as_ref().unwrap().application.central_force.y;
        assert!((lift(0) - 1000.0 * 9.81 * 0.25).abs() < 1e-6 * 2452.5);
        assert!((lift(1) - 1000.0 * 9.81 * 0.5).abs() < 1e-6 * 4905.0);
        assert_eq!(lift(2), 0.0);
        assert!(is_wet(&out[0].as_ref().unwrap().forces));
        assert!(!is_wet(&out[2].as_ref().unwrap().forces));
    }

    #[test]
    fn a_refused_state_spoils_only_its_own_body() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let mesh = cube_mesh(1.0);
        let a = attach(&mut world, &mesh, &floating_desc()).unwrap();
        let b = attach(&mut world, &mesh, &floating_desc()).unwrap();
        let mut batch = Batch::default();
        batch.push(a.body, at(f64::NAN));
        batch.push(b.body, at(0.25));
        let out = step_all(&batch, &mut world);
        assert!(
            out[0].as_ref().is_err_and(|e| e != UNWRITTEN),
            "{:?}",
            out[0].as_ref().err()
        );
        let lift = out[1].as_ref().unwrap().application.central_force.y;
        assert!((lift - 1000.0 * 9.81 * 0.25).abs() < 1e-3);
    }

    #[test]
    fn every_output_is_written_with_its_own_bodys_outcome() {
        // After a refused state (the batch falls back to one body at a time), a batch of
        // more bodies, and one of fewer, every output is written, with its own body's.
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let mesh = cube_mesh(1.0);
        let members: Vec<Member> = (0..3)
            .map(|_| attach(&mut world, &mesh, &floating_desc()).unwrap())
            .collect();
        let lift = |out: &[Result<Outcome, String>], i: usize| out[i].as_ref().unwrap().application.central_force.y;
        let archimedes = |draft: f64| 1000.0 * 9.81 * draft;
        let mut batch = Batch::default();
        for (frame, drafts) in [vec![f64::NAN, 0.25], vec![0.5, 0.25, 0.75], vec![0.75]]
            .into_iter()
            .enumerate()
        {
            batch.clear();
            for (m, draft) in members.iter().zip(&drafts) {
                batch.push(m.body, at(0.5 - draft));
            }
            let out = step_all(&batch, &mut world);
            assert_eq!(out.len(), drafts.len(), "frame {frame}");
            for (i, draft) in drafts.iter().enumerate() {
                if draft.is_nan() {
                    assert!(out[i].as_ref().is_err_and(|e| e != UNWRITTEN), "frame {frame}");
                } else {
                    let expected = archimedes(*draft);
                    assert!(
                        (lift(&out, i) - expected).abs() < 1e-6 * expected,
                        "frame {frame} body {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn attach_and_detach_leave_the_world_as_found() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let m = attach(&mut world, &cube_mesh(1.0), &floating_desc()).unwrap();
        assert_eq!((world.body_count(), world.hull_count()), (1, 1));
        detach(&mut world, m);
        assert_eq!((world.body_count(), world.hull_count()), (0, 0));
        // A description the engine refuses leaves no hull behind.
        let bad = BodyDesc {
            mass: -1.0,
            ..floating_desc()
        };
        assert!(attach(&mut world, &cube_mesh(1.0), &bad).is_err());
        assert_eq!(world.hull_count(), 0);
    }

    fn mass(kg: f64) -> MassProperties {
        MassProperties {
            mass: kg,
            ..MassProperties::default()
        }
    }

    #[test]
    fn fleet_follows_its_hosts_changes() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let mut fleet = Fleet::<u32>::default();
        // Buoyancy alone: a new hull starts a fresh history, which slamming would see as
        // a sudden wetting.
        let still = BodyDesc {
            forces: 0,
            ..BodyDesc::default()
        };
        fleet.set_params(1, still);
        fleet.set_mesh(1, Some(cube_mesh(1.0)));
        fleet.set_mesh(2, None);
        let read = |k: u32| Some((at(if k == 1 { 0.25 } else { 0.0 }), mass(250.0)));
        fleet.step(&mut world, 1.0 / 60.0, read);
        // Body 2 has no mesh: named, not stepped.
        assert!(
            fleet
                .entry(2)
                .unwrap()
                .error
                .as_deref()
                .unwrap()
                .contains("no hull mesh")
        );
        assert_eq!(world.body_count(), 1);
        let lift = |f: &Fleet<u32>| f.entry(1).unwrap().outcome.unwrap().application.central_force.y;
        // The default pressure model at rest: Archimedes.
        assert!(
            (lift(&fleet) - 1000.0 * 9.81 * 0.25).abs() < 1e-3 * 2452.5,
            "{}",
            lift(&fleet)
        );
        assert_eq!(fleet.take_transition(1), Some(Transition::Entered));
        assert_eq!(fleet.take_transition(1), None);
        // A bigger mesh replaces the hull (one hull per body, no leak)...
        fleet.set_mesh(1, Some(cube_mesh(2.0)));
        fleet.step(&mut world, 1.0 / 60.0, read);
        assert_eq!((world.body_count(), world.hull_count()), (1, 1));
        // (A 2 m cube centred 0.25 m above the water: 0.75 m of draft.)
        assert!(
            (lift(&fleet) - 1000.0 * 9.81 * 4.0 * 0.75).abs() < 1e-3 * 29430.0,
            "{}",
            lift(&fleet)
        );
        // ... a parameter reaches the body ...
        fleet.set_params(
            1,
            BodyDesc {
                buoyancy: BuoyancyModel::None,
                ..still
            },
        );
        fleet.step(&mut world, 1.0 / 60.0, read);
        assert_eq!(
            world
                .body(fleet.entry(1).unwrap().member().unwrap().body)
                .unwrap()
                .desc()
                .buoyancy,
            keel::BuoyancyModel::None
        );
        assert!(lift(&fleet).abs() < 1e-9);
        // ... and removal leaves nothing behind.
        fleet.remove(&mut world, 1);
        fleet.remove(&mut world, 2);
        assert_eq!((world.body_count(), world.hull_count(), fleet.len()), (0, 0, 0));
    }

    #[test]
    fn removing_a_body_keeps_the_others_found() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let mut fleet = Fleet::<u32>::default();
        for key in 0..5 {
            fleet.set_params(
                key,
                BodyDesc {
                    hull_length: f64::from(key),
                    ..BodyDesc::default()
                },
            );
        }
        fleet.remove(&mut world, 1);
        fleet.remove(&mut world, 3);
        assert_eq!(fleet.keys().collect::<Vec<_>>(), [0, 2, 4]);
        for key in [0, 2, 4] {
            assert_eq!(fleet.entry(key).unwrap().params.hull_length, f64::from(key));
        }
        assert!(fleet.entry(1).is_none() && fleet.entry(3).is_none());
        // A key added after the removals gets its own entry.
        fleet.set_params(9, BodyDesc::default());
        assert_eq!(fleet.entry(9).unwrap().key, 9);
        assert_eq!(fleet.len(), 4);
    }

    #[test]
    fn leaving_the_water_is_reported() {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let mut fleet = Fleet::<u32>::default();
        fleet.set_mesh(7, Some(cube_mesh(1.0)));
        for (y, expected) in [
            (0.0, Some(Transition::Entered)),
            (0.2, None),
            (3.0, Some(Transition::Exited)),
        ] {
            fleet.step(&mut world, 1.0 / 60.0, |_| Some((at(y), mass(500.0))));
            assert_eq!(fleet.take_transition(7), expected, "at y = {y}");
        }
        assert!(!fleet.entry(7).unwrap().is_wet());
    }

    #[test]
    fn mass_noise_is_not_a_change() {
        let a = MassProperties {
            mass: 10.0,
            inertia: DVec3::new(1.0, 2.0, 3.0),
            inertia_rotation: glam::DQuat::from_rotation_y(0.3),
        };
        let noisy = MassProperties {
            inertia: a.inertia * (1.0 + 1e-9),
            inertia_rotation: glam::DQuat::from_rotation_y(0.3 + 1e-9),
            ..a
        };
        assert!(!mass_changed(&a, &noisy));
        assert!(mass_changed(&a, &MassProperties { mass: 11.0, ..a }));
        assert!(mass_changed(
            &a,
            &MassProperties {
                inertia_rotation: glam::DQuat::from_rotation_y(0.31),
                ..a
            }
        ));
    }

    #[test]
    fn transitions_fire_on_change_only() {
        assert_eq!(transition(false, true), Some(Transition::Entered));
        assert_eq!(transition(true, false), Some(Transition::Exited));
        assert_eq!(transition(true, true), None);
        assert_eq!(transition(false, false), None);
    }
}
