//! A body's store: its description, hull, buffers and histories, laid out for the
//! caches; its lifecycle (creation, a new hull or description), its snapshot, and what a
//! batch groups bodies by.

use std::sync::Arc;

use glam::{DMat3, DVec3};

use super::desc::{BodyDesc, BuoyancyModel, HostInertia, StepDesc};
use super::records::{Detail, KeptReplay};
use super::state::BodyState;
use crate::error::{Error, Result};
use crate::forces::FORCE_LUMPED_RESISTANCE;
use crate::hull::Hull;
use crate::loops::whole::{ChunkOutput, History, LANES_MAX_ROWS, PARALLEL_ROWS, WetTriangles, is_fast_power};
use crate::water::FroudeKrylov;
use crate::water::patch::WaterPatch;

/// What a body's lock adds before it in its slot (`std`'s `Mutex` keeps its lock word and
/// poison flag ahead of the value; were that to change, prefetches would only be a line
/// off).
const LOCK_BYTES: usize = 8;

/// The bytes of a body's slot a batch's checks read: its lock, then its fields up to its
/// description.
pub(crate) const CHECKED_BYTES: usize = LOCK_BYTES + std::mem::offset_of!(Body, sample_sets);

/// The bytes of a body's slot its step in the lanes reads besides its replays and
/// buffers: its lock, then its fields up to the replays.
pub(crate) const LANES_HOT_BYTES: usize = LOCK_BYTES + std::mem::offset_of!(Body, replays);

/// Bodies of equal keys can be stepped in one group of lanes ([`Body::lane_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct LaneKey {
    hull: usize,
    flags: u64,
    numbers: [u64; 9],
}

/// A floating rigid body's force model and history.
#[derive(Debug)]
// `repr(C)`, in this order: what a batch's checks read first (`batch_mark` to the
// description), then everything else a small body's step in the lanes reads or writes,
// then what only big hulls and detail use. 10000 boxes outgrow the caches, and a step's
// misses are then counted in cache lines: fields a step touches together are best in
// consecutive lines, which a batch asks for ahead (`Body::prefetch_for_lanes`,
// `CHECKED_BYTES`, `LANES_HOT_BYTES`).
#[repr(C)]
pub struct Body {
    /// Marks the body as listed in the batch being validated (duplicate detection).
    pub(crate) batch_mark: u64,
    /// Whether a step of this hull has been taken.
    pub(crate) has_history: bool,
    /// What `has_history` was before the last step (to undo it).
    pub(crate) had_history: bool,
    /// Whether `patch` is used (here among the fields every step reads, where the patch
    /// is not: a box's step would miss a line to learn that it is not).
    pub(crate) uses_patch: bool,
    /// Whether the host gave the inertia (`host_inertia`, then read) or the step takes
    /// the hull's at uniform density.
    pub(crate) uses_host_inertia: bool,
    /// Which of `sample_sets` is the last step's (`true`: the second). (Here, in the
    /// padding before `latest`: the layout the prefetches count on is unchanged.)
    pub(crate) sampled: bool,
    pub(crate) latest: usize,
    pub(crate) hull: Arc<Hull>,
    /// What a step reads of the description (`whole_desc` is the host's, kept with the
    /// fields no step reads).
    pub(crate) desc: StepDesc,
    /// The water under the hull at the last step, `sample_sets[sampled as usize]` (see
    /// [`Body::samples`]), and the one being sampled, the other: the two change roles only
    /// when sampling succeeds, so that a failed step changes nothing. (Two sets and an
    /// index rather than two fields swapped: a swap copied the sets, some 90 instructions
    /// of `memcpy` a body a step.)
    pub(crate) sample_sets: [Samples; 2],
    /// The slamming history the last step produced ...
    pub(crate) committed: History,
    /// ... and a spare one a step writes into, swapped in only when the step succeeds.
    /// Right after a step it holds what the step replaced, so that a batch can undo it.
    /// (Histories only: a step's pieces are lent from `pieces`. Two empty piece lists
    /// each among the fields every step reads were a cache line and a half per body.)
    pub(crate) spare: History,
    /// The slamming history the last step compared with.
    pub(crate) prior_history: History,
    /// The last step's detail, once asked for (boxed: every step clears it, and a step
    /// of a small body then writes a line it has in cache already).
    pub(crate) detail: Option<Box<Detail>>,
    /// Whether `replay_descs[k]` holds the description `replays[k]`'s step used (the
    /// host changed it since); otherwise that is `desc`.
    pub(crate) replay_desc_kept: [bool; 2],
    /// The last step's replay and the one before it, `replays[latest]` the last: a step
    /// writes over the older one, and undoing it points back at the other (rather than
    /// copying 280 bytes aside every step, which 10000 small bodies feel).
    pub(crate) replays: [Option<KeptReplay>; 2],
    /// The descriptions replays used, when the body's has changed since.
    pub(crate) replay_descs: [BodyDesc; 2],
    /// The description as the host gave it ([`Body::desc`]).
    pub(crate) whole_desc: BodyDesc,
    /// The host's inertia, when `uses_host_inertia`.
    pub(crate) host_inertia: HostInertia,
    /// Kerner's water patch, for hulls with more vertices than it has samples.
    pub(crate) patch: WaterPatch,
    /// The step's triangles cut by the water ...
    pub(crate) cut: Vec<u32>,
    /// ... and their slamming history, kept aside while the whole triangles' pass writes
    /// every row's.
    pub(crate) cut_history: Vec<(u32, DVec3)>,
    /// The triangles as the drag pass needs them.
    pub(crate) wet: WetTriangles,
    /// What the loops leave of each chunk of rows.
    pub(crate) chunks: Vec<ChunkOutput>,
    /// Per usable triangle: its outward unit normal and the water velocity at it.
    pub(crate) normals: Vec<DVec3>,
    pub(crate) triangle_water_velocities: Vec<DVec3>,
    /// The pieces a step clips, lent to its output while it runs: one set, since nothing
    /// reads them after the step (its detail replays it), rather than one in each of
    /// `committed` and `spare` (for 10000 boxes, memory a step touches is time).
    pub(crate) pieces: (Vec<[DVec3; 3]>, Vec<u32>),
}

impl Body {
    /// A body with a validated description and its hull.
    pub(crate) fn new(desc: BodyDesc, hull: Arc<Hull>) -> Self {
        let mut body = Self {
            desc: StepDesc::of(&desc),
            whole_desc: desc,
            uses_host_inertia: false,
            host_inertia: HostInertia {
                moments: DVec3::ZERO,
                axes: DMat3::ZERO,
            },
            hull: Arc::clone(&hull),
            sample_sets: [Samples::default(), Samples::default()],
            sampled: false,
            patch: WaterPatch::default(),
            cut: Vec::new(),
            cut_history: Vec::new(),
            wet: WetTriangles::default(),
            chunks: Vec::new(),
            normals: Vec::new(),
            triangle_water_velocities: Vec::new(),
            pieces: Default::default(),
            committed: History::default(),
            spare: History::default(),
            prior_history: History::default(),
            has_history: false,
            replay_desc_kept: [false; 2],
            replays: [None; 2],
            replay_descs: [desc; 2],
            latest: 0,
            had_history: false,
            uses_patch: false,
            detail: None,
            batch_mark: 0,
        };
        body.set_hull(hull);
        body.set_desc(desc);
        body
    }

    /// Asks the processor to start loading the memory this body's next step works in. A
    /// batch asks it of the next body before it steps one: 10000 small bodies hold more
    /// than the caches do, and each body's buffers are a dozen separate allocations whose
    /// misses the processor's own prefetcher does not foresee (1000 and 10000 boxes on
    /// Perlin water: -7 % per step, on one thread and on two).
    pub(crate) fn prefetch(&self) {
        self.buffers(&mut |start, bytes| crate::runtime::prefetch::prefetch(start, bytes.min(PREFETCH_BYTES)));
    }

    /// Asks the processor to start loading what a step in the lanes
    /// ([`crate::step::step_in_lanes`]) reads or writes of this body, before its `prepare`: the replay
    /// it writes, the samples of the water `prepare` writes, and the slamming histories it
    /// compares and writes. (Its fields before
    /// the replays, [`LANES_HOT_BYTES`], are asked for a group earlier, by address: reading
    /// the buffers' addresses here waits for them.)
    pub(crate) fn prefetch_for_lanes(&self) {
        fn buffer<T>(v: &[T]) {
            crate::runtime::prefetch::prefetch(v.as_ptr().cast(), std::mem::size_of_val(v).min(PREFETCH_BYTES));
        }
        let written = &self.replays[self.latest ^ 1];
        crate::runtime::prefetch::prefetch(std::ptr::from_ref(written).cast(), std::mem::size_of_val(written));
        // (Not `samples`: `prepare` writes the next set, which the lanes then read.)
        // (Nor its vertices: a body of the lanes' does not keep them.)
        let next = self.next_samples();
        buffer(&next.heights);
        buffer(&next.velocities);
        buffer(self.committed.as_slice());
        buffer(self.spare.as_slice());
    }

    /// The start and length in bytes of every buffer a step reads or writes.
    fn buffers(&self, each: &mut impl FnMut(*const u8, usize)) {
        fn buffer<T>(each: &mut impl FnMut(*const u8, usize), v: &Vec<T>) {
            each(v.as_ptr().cast(), v.capacity() * std::mem::size_of::<T>());
        }
        fn slice<T>(each: &mut impl FnMut(*const u8, usize), v: &[T]) {
            each(v.as_ptr().cast(), std::mem::size_of_val(v));
        }
        for samples in &self.sample_sets {
            slice(each, &samples.vertices);
            slice(each, &samples.heights);
            slice(each, &samples.velocities);
        }
        buffer(each, &self.cut);
        buffer(each, &self.cut_history);
        buffer(each, &self.normals);
        buffer(each, &self.triangle_water_velocities);
        buffer(each, &self.pieces.0);
        buffer(each, &self.pieces.1);
        slice(each, self.wet.area());
        buffer(each, &self.chunks);
        for chunk in self.chunks.iter().take(1) {
            buffer(each, &chunk.cut);
        }
        for history in [&self.committed, &self.spare, &self.prior_history] {
            let columns = history.as_slice();
            each(columns.as_ptr().cast(), std::mem::size_of_val(columns));
        }
    }

    /// Replaces the hull and starts a fresh history; every buffer is sized for the
    /// largest step so that stepping never allocates.
    pub(crate) fn set_hull(&mut self, hull: Arc<Hull>) {
        let (n, t, rows) = (hull.positions.len(), hull.triangles.len(), hull.columns.len());
        self.sample_sets = [Samples::sized(n), Samples::sized(n)];
        self.normals = vec![DVec3::ZERO; t];
        self.cut = Vec::with_capacity(t);
        self.cut_history = Vec::with_capacity(t);
        self.wet = WetTriangles::sized(rows);
        self.chunks = ChunkOutput::chunks(rows);
        self.triangle_water_velocities = vec![DVec3::ZERO; t];
        self.pieces = piece_buffers(t);
        self.committed = History::sized(rows);
        self.spare = History::sized(rows);
        self.prior_history = History::sized(rows);
        self.has_history = false;
        self.replays = [None; 2];
        self.replay_desc_kept = [false; 2];
        self.had_history = false;
        self.detail = None;
        self.hull = hull;
        self.size_patch();
    }

    pub(crate) fn set_desc(&mut self, desc: BodyDesc) {
        for k in 0..2 {
            if self.replays[k].is_some() && !self.replay_desc_kept[k] {
                self.replay_descs[k] = self.whole_desc;
                self.replay_desc_kept[k] = true;
            }
        }
        self.desc = StepDesc::of(&desc);
        self.whole_desc = desc;
        let host = HostInertia::of(&desc);
        self.uses_host_inertia = host.is_some();
        if let Some(host) = host {
            self.host_inertia = host;
        }
        self.size_patch();
    }

    /// The patch, only for hulls that can use it (more vertices than samples).
    fn size_patch(&mut self) {
        let cells = self.whole_desc.water_patch_cells as usize;
        let used = cells > 0 && (cells + 1).pow(2) < self.hull.positions.len();
        self.patch = WaterPatch::sized(if used { cells } else { 0 });
        self.uses_patch = self.patch.is_used();
    }

    /// Bytes of this body's snapshot ([`crate::snapshot`]).
    pub(crate) fn snapshot_len(&self) -> usize {
        crate::snapshot::BODY_HEADER_BYTES + 12 * self.hull.columns.len()
    }

    /// Writes this body's snapshot ([`crate::snapshot`]).
    pub(crate) fn write_snapshot(&self, sink: &mut impl crate::snapshot::Sink) {
        use crate::snapshot::{FORMAT_VERSION, KIND_BODY, MAGIC};
        sink.u32(MAGIC);
        sink.u32(FORMAT_VERSION);
        sink.u32(KIND_BODY);
        sink.u32(u32::from(self.has_history));
        sink.u64(self.hull.fingerprint);
        sink.u32(self.hull.columns.len() as u32);
        sink.u32(0);
        sink.f32s(self.committed.as_slice());
    }

    /// Whether `record` can be restored into this body (a snapshot of its hull's).
    pub(crate) fn check_snapshot(&self, record: &crate::snapshot::BodyRecord<'_>) -> Result<()> {
        if record.fingerprint != self.hull.fingerprint || record.rows != self.hull.columns.len() {
            return Err(Error::argument(format!(
                "the snapshot is of another hull (fingerprint {:#018x}, {} rows) than this body's ({:#018x}, {} rows)",
                record.fingerprint,
                record.rows,
                self.hull.fingerprint,
                self.hull.columns.len()
            )));
        }
        // The rows past the hull's triangles pad its columns (`crate::hull::TriangleColumns`):
        // triangles of no area, whose rates every step leaves at zero (of either sign).
        let triangles = self.hull.triangles.len();
        for (axis, column) in record.history.chunks_exact(4 * record.rows.max(1)).enumerate() {
            if let Some(k) = column[4 * triangles..]
                .chunks_exact(4)
                .position(|x| f32::from_le_bytes(x.try_into().expect("4 bytes")) != 0.0)
            {
                return Err(Error::argument(format!(
                    "the snapshot's slamming history has a non-zero rate in padding row {} ({}): rows {triangles} \
                     to {} are no triangle's and must hold zeros",
                    triangles + k,
                    ["x", "y", "z"][axis],
                    record.rows - 1
                )));
            }
        }
        Ok(())
    }

    /// Restores a snapshot checked by [`Body::check_snapshot`]: the next step compares
    /// with its history. The last step's detail is gone (a body restored has no last step
    /// to tell of until it steps), and no step can be undone past the restore.
    pub(crate) fn restore_snapshot(&mut self, record: &crate::snapshot::BodyRecord<'_>) {
        let columns = self.committed.as_mut_slice();
        for (x, bytes) in columns.iter_mut().zip(record.history.chunks_exact(4)) {
            *x = f32::from_le_bytes(bytes.try_into().expect("4 bytes"));
        }
        self.has_history = record.has_history;
        self.had_history = record.has_history;
        self.replays = [None; 2];
        self.replay_desc_kept = [false; 2];
        self.detail = None;
    }

    /// Whether the body has taken a step (slamming then has one to compare with).
    pub(crate) fn has_history(&self) -> bool {
        self.has_history
    }

    /// The body's parameters.
    pub fn desc(&self) -> &BodyDesc {
        &self.whole_desc
    }

    /// The body's hull.
    pub fn hull(&self) -> &Hull {
        &self.hull
    }

    /// Inertia tensor about the centre of mass, world axes: the host's principal moments
    /// `host` when the description gives them, else a body of the hull's shape at uniform
    /// density and `mass`.
    #[inline(always)]
    pub(crate) fn inertia(&self, host: Option<&HostInertia>, mass: f64, state: &BodyState, com: DVec3) -> DMat3 {
        let rotation = DMat3::from_quat(state.rotation);
        if let Some(host) = host {
            let axes = rotation * host.axes;
            return axes * DMat3::from_diagonal(host.moments) * axes.transpose();
        }
        crate::hull::inertia::hull_inertia(&rotation, &self.hull.unit_inertia, self.hull.info.centroid, com, mass)
    }

    /// The host's inertia, if the description gives it.
    #[inline(always)]
    pub(crate) fn host_inertia(&self) -> Option<&HostInertia> {
        self.uses_host_inertia.then_some(&self.host_inertia)
    }

    /// Whether the step's loops can share this body's triangles among threads (a hull of
    /// more than [`PARALLEL_ROWS`] rows).
    pub(crate) fn is_divisible(&self) -> bool {
        self.hull.columns.len() > PARALLEL_ROWS
    }

    /// Whether [`crate::step::step_in_lanes`] can step this body: a small hull (its slamming history
    /// one chunk of rows) and the forces the lanes compute (exact pressure, no lumped
    /// resistance, the default drag falloffs, a slamming power the loops take).
    /// The water under the hull at the last step.
    #[inline(always)]
    pub(crate) fn samples(&self) -> &Samples {
        &self.sample_sets[self.sampled as usize]
    }

    /// The set the next step samples into.
    #[inline(always)]
    pub(crate) fn next_samples(&self) -> &Samples {
        &self.sample_sets[!self.sampled as usize]
    }

    pub(crate) fn can_step_in_lanes(&self) -> bool {
        let d = &self.desc;
        self.hull.columns.len() <= LANES_MAX_ROWS
            && !self.hull.triangles.is_empty()
            && d.buoyancy == BuoyancyModel::Pressure
            && d.forces & FORCE_LUMPED_RESISTANCE == 0
            && d.pressure_falloff == 0.5
            && d.suction_falloff == 0.5
            && is_fast_power(d.slamming_power)
    }

    /// What bodies stepped in one group of lanes must share: the hull, what the lanes
    /// compute the same for all (which forces, the coefficients the loops read), and
    /// whether slamming has a last step to compare with. (Mass, inertia, damping and the
    /// rest are each body's own.)
    pub(crate) fn lane_key(&self) -> LaneKey {
        let d = &self.desc;
        let c = d.drag_coefficients();
        LaneKey {
            hull: Arc::as_ptr(&self.hull) as usize,
            flags: u64::from(d.forces) | u64::from(d.vertical_buoyancy_only) << 32 | u64::from(self.has_history) << 33,
            numbers: [
                d.slamming_power,
                d.slamming_max_acceleration,
                d.slamming_multiplier,
                d.air_drag_coefficient,
                c.pressure_linear,
                c.pressure_quadratic,
                c.suction_linear,
                c.suction_quadratic,
                c.reference_speed,
            ]
            .map(f64::to_bits),
        }
    }
}

/// Which vertices are under the water (`h < 0`, as the clipping tests it), from their
/// heights above it: bit `v % 64` for vertex `v`, folded by exclusive or past 64 (equal
/// sides give equal bits; a rare collision only makes a group less alike). A batch groups
/// small bodies by it, from their last step's heights (`Body::samples`).
#[inline]
pub(crate) fn sides_of(heights: &[f64]) -> u64 {
    heights
        .iter()
        .enumerate()
        .fold(0, |bits, (v, &h)| bits ^ (u64::from(h < 0.0) << (v % 64)))
}

/// At most this many bytes of each buffer are prefetched: a small body's buffers whole,
/// a big one's beginnings (its loops stream through the rest, which the processor
/// prefetches by itself).
const PREFETCH_BYTES: usize = 1024;

/// What a step writes besides its forces.
#[derive(Clone, Debug, Default)]
pub(crate) struct Output {
    /// Submerged pieces and the triangle each comes from.
    pub(crate) pieces: Vec<[DVec3; 3]>,
    pub(crate) sources: Vec<u32>,
    /// Per usable triangle, what slamming remembers for the next step.
    pub(crate) history: History,
}

impl Output {
    /// For `triangles` triangles kept in `rows` rows (the loops' padding).
    pub(crate) fn sized(triangles: usize, rows: usize) -> Self {
        let (pieces, sources) = piece_buffers(triangles);
        Self {
            pieces,
            sources,
            history: History::sized(rows),
        }
    }
}

/// Room for the pieces of `triangles` triangles: each clips into at most two on either
/// side.
pub(crate) fn piece_buffers(triangles: usize) -> (Vec<[DVec3; 3]>, Vec<u32>) {
    (Vec::with_capacity(2 * triangles), Vec::with_capacity(2 * triangles))
}

/// Per-vertex results of sampling the water.
#[derive(Clone, Debug, Default)]
pub(crate) struct Samples {
    /// Hull vertices relative to the body origin, world axes. (Boxed slices: sized once
    /// with the hull, and 8 bytes fewer each than a `Vec` among the fields every step
    /// reads.)
    pub vertices: Box<[DVec3]>,
    /// Height of each vertex above the water.
    pub heights: Box<[f64]>,
    /// Water particle velocity at each vertex, current included (when sampled).
    pub velocities: Box<[DVec3]>,
    /// Mean water velocity over the vertices under water.
    pub mean_velocity: DVec3,
    /// The Froude-Krylov correction over the body's footprint
    /// (`crate::water::Water::froude_krylov`), its mean surface height relative to the
    /// body's origin; zero where it does not apply.
    pub froude_krylov: FroudeKrylov,
    /// The body origin's height and the level of flat water: every vertex's height is then
    /// `(origin + y) - level`, which the loops compute instead of reading it.
    pub flat: Option<(f64, f64)>,
    /// Whether `vertices` holds this step's: a body of the lanes' leaves them to be
    /// turned again where they are read (the lanes, a replay), since writing them is
    /// three cache lines per box among 10000 ([`Samples::turn`]).
    pub turned: bool,
}

impl Samples {
    pub(crate) fn sized(n: usize) -> Self {
        Self {
            vertices: vec![DVec3::ZERO; n].into_boxed_slice(),
            heights: vec![0.0; n].into_boxed_slice(),
            velocities: vec![DVec3::ZERO; n].into_boxed_slice(),
            mean_velocity: DVec3::ZERO,
            froude_krylov: FroudeKrylov::default(),
            flat: None,
            turned: false,
        }
    }

    /// The hull's vertices turned by `state`'s rotation into `vertices`, if they are not
    /// there yet: the same arithmetic as `Body::sample_water`, the same bits.
    pub(crate) fn turn(&mut self, positions: &[DVec3], state: &BodyState) {
        if !self.turned {
            let rotation = DMat3::from_quat(state.rotation);
            for (rel, local) in self.vertices.iter_mut().zip(positions) {
                *rel = rotation * *local;
            }
            self.turned = true;
        }
    }
}
