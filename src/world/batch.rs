//! A batch: many bodies stepped in one call ([`World::step_bodies`]), in parallel, with
//! the bits of stepping them one by one.
//!
//! The stages: check every id and group the bodies by lane key, and by how the water cut
//! them at their last step, in one pass over them ([`Batch::check_and_group`]); sample serial water from the calling thread
//! ([`Batch::prepare_serial`]); step the groups on the world's threads
//! ([`World::step_batch`], each group by [`Stepping::step_group`]); undo every step if
//! one failed ([`Batch::failure`]); write the outputs ([`World::write_out`]).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use super::{BodyId, Workers, World, lock, not_a_body};
use crate::body::{Body, BodyForces, BodyState, CHECKED_BYTES, LANES_HOT_BYTES, LaneKey, check_dt, sides_of};
use crate::error::{Error, ErrorKind, Result};
use crate::handle::Slots;
use crate::loops::lanes::LANES;
use crate::runtime::profile::{self, Section};
use crate::runtime::team::Team;
use crate::step::{Environment, step_in_lanes};

/// Batches of this many bodies or more ask for the bodies their checks will read, and for
/// each next body's buffers when bodies are stepped one at a time ([`Body::prefetch`]):
/// big hulls outgrow the caches, as do many small bodies (boxes on Perlin water, when
/// they were stepped one at a time: 1000 and 10000 of them 7 % faster per step with it),
/// while a hundred small ones stay in them and only pay for the asking (4 % slower).
const PREFETCH_FROM_BODIES: usize = 256;

/// Batches of this many bodies or more prefetch for their groups of small bodies (in the
/// lanes) the next group's memory. Fewer small bodies stay in the caches from one step to
/// the next, and asking costs more than it saves: on Perlin water, two threads, 1024
/// boxes were 2 % slower with it, 2000 the same, 3000 3-6 % faster.
const PREFETCH_LANES_FROM_BODIES: usize = 2048;

/// Batches of this many bodies or more have their outputs written by every thread (each
/// output is then a cache miss read and one written; a smaller batch's are in the caches,
/// and sharing them would cost more than it saves).
pub(super) const PARALLEL_WRITE_FROM: usize = 2048;

/// How many bodies ahead a batch's checks ask for the body they will check.
const CHECK_AHEAD: usize = 8;

/// Bodies of a batch stepped together: up to [`LANES`] of one lane key
/// ([`Body::lane_key`]), or one body alone.
pub(crate) struct BatchGroup {
    /// Indices into the batch.
    members: [u32; LANES],
    len: usize,
    in_lanes: bool,
    /// The members whose state was refused (a bit each): their results hold why.
    refused: u8,
    /// Whether any member's result is an error (noted by the thread that stepped the
    /// group, while the results are in its caches: a successful batch of 10000 bodies
    /// then reads 1250 flags, not 10000 results, before writing out).
    failed: bool,
    /// Whether the water cut the members differently at their last step (some triangle
    /// dry in some and wet or cut in others: `crate::loops::lanes::cut_alike`), noted by
    /// the thread that stepped them.
    mixed: bool,
    results: [Result<BodyForces>; LANES],
}

const _: () = assert!(
    LANES <= u8::BITS as usize,
    "a group's refused members are a bit each in a u8"
);

impl BatchGroup {
    fn new(first: usize, in_lanes: bool) -> Self {
        Self {
            members: [first as u32; LANES],
            len: 1,
            in_lanes,
            refused: 0,
            failed: false,
            mixed: false,
            results: std::array::from_fn(|_| Ok(BodyForces::default())),
        }
    }

    fn is_full(&self) -> bool {
        !self.in_lanes || self.len == LANES
    }

    fn push(&mut self, member: usize) {
        self.members[self.len] = member as u32;
        self.len += 1;
    }

    fn members(&self) -> &[u32] {
        &self.members[..self.len]
    }
}

/// What a world keeps from one batch to the next: the buffers (a batch allocates nothing
/// once they have grown) and, while the last batch's checks and groups hold, its ids.
#[derive(Default)]
pub(crate) struct BatchMemory {
    /// Marks the bodies listed in the batch being checked (duplicate detection).
    mark: u64,
    /// A batch's states, validated in the checks when they run on the calling thread
    /// anyway (a batch of new ids, or water asked from the calling thread); empty when
    /// each group's thread validates its own. Either way `state_of` is called once per
    /// body.
    states: Vec<BodyState>,
    /// The batch's bodies in the groups they are stepped in, with their forces (written
    /// out only once every body is done); the lane keys met, numbered; the bodies that go
    /// in the lanes, by lane key and sides ([`Batch::group_lanes`]).
    groups: Vec<BatchGroup>,
    keys: HashMap<LaneKey, u32>,
    lane_members: Vec<u128>,
    /// How many groups the water cut differently at their first step.
    mixed_when_grouped: usize,
    /// The last batch's ids, when its checks and groups serve a next batch of the same
    /// ids (`reusable`): cleared by what can change a body's lane key or end it
    /// (`set_body_desc`, `destroy_body`) and by a failed batch (which may undo a first
    /// step). Set after a batch that succeeded with every body past its first step: a
    /// first step changes a lane key (`has_history`), and groups split by it would stay
    /// split (the forces would be the same, the groups less full). A game steps the same
    /// bodies every frame; their checks were a serial 0.75 ms of a 10000-box batch
    /// (50 ns a body with every body in the caches).
    ids: Vec<BodyId>,
    pub(super) reusable: bool,
}

#[cfg(test)]
impl BatchMemory {
    /// The members of the last batch's groups in the lanes (batch indices), group by group.
    pub(super) fn lane_groups(&self) -> Vec<Vec<u32>> {
        let lanes = self.groups.iter().filter(|g| g.in_lanes);
        lanes.map(|g| g.members().to_vec()).collect()
    }
}

/// One batch on its way: the world's buffers lent to it, and what its checks found.
struct Batch {
    groups: Vec<BatchGroup>,
    keys: HashMap<LaneKey, u32>,
    lane_members: Vec<u128>,
    mixed_when_grouped: usize,
    validated: Vec<BodyState>,
    /// The last batch's ids again, with nothing changed since: its checks of the bodies
    /// hold, and its groups are these (only the states are new, and each group's
    /// thread validates its own unless the water is asked from this thread).
    reuse: bool,
    mark: u64,
    every_body_has_history: bool,
    serial_water: bool,
    prefetch: bool,
}

impl Batch {
    /// A batch of `ids`, with the world's buffers.
    fn open(memory: &mut BatchMemory, ids: &[BodyId], serial_water: bool) -> Self {
        memory.mark += 1;
        let reuse = std::mem::take(&mut memory.reusable) && memory.ids == ids;
        let mut batch = Self {
            groups: std::mem::take(&mut memory.groups),
            keys: std::mem::take(&mut memory.keys),
            lane_members: std::mem::take(&mut memory.lane_members),
            mixed_when_grouped: memory.mixed_when_grouped,
            validated: std::mem::take(&mut memory.states),
            reuse,
            mark: memory.mark,
            every_body_has_history: true,
            serial_water,
            prefetch: ids.len() >= PREFETCH_FROM_BODIES,
        };
        batch.validated.clear();
        if !reuse {
            batch.groups.clear();
            batch.keys.clear();
            batch.lane_members.clear();
        }
        batch
    }

    /// Gives the buffers back to the world; after a success with every body past its
    /// first step, its checks and groups serve a next batch of the same ids, unless the
    /// water now cuts the members of more groups differently than when they were made
    /// (bodies that turn: grouped again by how the water cuts them now).
    fn close(mut self, memory: &mut BatchMemory, ids: &[BodyId], succeeded: bool) {
        if succeeded && self.every_body_has_history && !self.regroup() {
            if !self.reuse {
                memory.ids.clear();
                memory.ids.extend_from_slice(ids);
            }
            memory.reusable = true;
        }
        memory.groups = self.groups;
        memory.keys = self.keys;
        memory.lane_members = self.lane_members;
        memory.mixed_when_grouped = self.mixed_when_grouped;
        memory.states = self.validated;
    }

    /// Whether the bodies should be grouped again: the water cut the members of more
    /// groups differently ([`BatchGroup::mixed`]) than at the first step of these groups,
    /// by one group in sixteen or more. (Groups just made are measured, not judged: a
    /// group of bodies cut alike can still hold some triangles cut differently.)
    fn regroup(&mut self) -> bool {
        let mixed = self.groups.iter().filter(|g| g.mixed).count();
        if !self.reuse {
            self.mixed_when_grouped = mixed;
            return false;
        }
        let lanes = self.groups.iter().filter(|g| g.in_lanes).count();
        mixed >= self.mixed_when_grouped + (lanes / 16).max(1)
    }

    /// Checks every id and (unless reused) groups the bodies: those of one small hull and
    /// one lane key in groups of eight, one in each vector lane (`crate::loops::lanes`; each
    /// body's forces are the same bits in any group, or alone), [`Batch::group_lanes`];
    /// the others one at a time. In the same pass over the bodies as the checks (each
    /// pass is a cache miss per body in a big batch). The states are validated here when
    /// this thread needs them anyway.
    fn check_and_group<S>(
        &mut self,
        bodies: &mut Slots<Mutex<Body>>,
        ids: &[BodyId],
        states: &[S],
        state_of: &impl Fn(&S) -> BodyState,
    ) -> Result<()> {
        if self.reuse {
            // With serial water the states are needed before the groups (for
            // `prepare`, on this thread): checked here, in order.
            if self.serial_water {
                for (i, state) in states.iter().enumerate() {
                    self.validated
                        .push(state_of(state).validated().map_err(|e| refused(i, e))?);
                }
            }
            return Ok(());
        }
        let mut last: Option<(LaneKey, u32)> = None;
        for (i, (id, state)) in ids.iter().zip(states).enumerate() {
            // The bodies a few places on start loading (each a cache miss in a big
            // batch, which the processor would otherwise wait for one at a time).
            if let Some(ahead) = ids.get(i + CHECK_AHEAD).filter(|_| self.prefetch) {
                bodies.prefetch(ahead.0, CHECKED_BYTES);
            }
            // Not locked: the world is borrowed mutably, so no other thread holds a
            // body, and a lock is an atomic read-modify-write that waits for its cache
            // line (10000 of them in a row were a serial millisecond of a batch).
            let body = bodies
                .get_mut(id.0)
                .ok_or_else(|| Error::handle(not_a_body(*id)))
                .map_err(|e| Error::new(e.kind, format!("bodies[{i}]: {e}")))?;
            let body = body.get_mut().unwrap_or_else(PoisonError::into_inner);
            if body.batch_mark == self.mark {
                return Err(Error::argument(format!("bodies[{i}] ({:#x}) is listed twice", id.0)));
            }
            body.batch_mark = self.mark;
            self.every_body_has_history &= body.has_history();
            // In the order of the batch with the bodies, so that the first thing wrong
            // is the one reported.
            self.validated
                .push(state_of(state).validated().map_err(|e| refused(i, e))?);
            if !body.can_step_in_lanes() {
                self.groups.push(BatchGroup::new(i, false));
                continue;
            }
            let key = self.key_number(body.lane_key(), last);
            last = Some(key);
            let sides = sides_of(&body.samples().heights);
            self.lane_members
                .push(u128::from(key.1) << 96 | u128::from(sides) << 32 | i as u128);
        }
        self.group_lanes();
        Ok(())
    }

    /// The number of lane key `key` in this batch; `last` is the previous body's.
    fn key_number(&mut self, key: LaneKey, last: Option<(LaneKey, u32)>) -> (LaneKey, u32) {
        // Most batches are of few kinds of bodies, often one after the other.
        let number = match last {
            Some((k, n)) if k == key => n,
            _ => {
                let next = self.keys.len() as u32;
                *self.keys.entry(key).or_insert(next)
            }
        };
        (key, number)
    }

    /// The bodies that go in the lanes, in groups of up to eight of one lane key: by lane
    /// key, then by how the water cut them at their last step ([`sides_of`] their last
    /// samples' heights), then in the order of the batch. A group whose bodies the water cuts alike has each triangle
    /// dry, wet or cut the same way in every lane, and takes that kind's kernel (tumbling
    /// boxes, grouped in the order of the batch, had most triangles cut differently in
    /// some lane: the general kernel, 1.5 times the instructions a box).
    fn group_lanes(&mut self) {
        // (Numbers in one word: a batch of one kind, already in order, is sorted in one pass.)
        self.lane_members.sort_unstable();
        // The group being filled: its lane key and its place.
        let mut filling: Option<(u128, usize)> = None;
        for &member in &self.lane_members {
            let (key, i) = (member >> 96, member as u32 as usize);
            match filling {
                Some((k, g)) if k == key && !self.groups[g].is_full() => self.groups[g].push(i),
                _ => {
                    self.groups.push(BatchGroup::new(i, true));
                    filling = Some((key, self.groups.len() - 1));
                }
            }
        }
    }

    /// The host's water is asked from this thread, one body after the other; a bad
    /// answer fails the batch before any body has changed.
    fn prepare_serial(&self, bodies: &Slots<Mutex<Body>>, ids: &[BodyId], env: &Environment<'_>) -> Result<()> {
        if !self.serial_water {
            return Ok(());
        }
        let body = |i: usize| bodies.get(ids[i].0).map(lock);
        let failure = (0..ids.len()).find_map(|i| {
            let mut b = body(i)?;
            let e = b.prepare(&self.validated[i], env).err()?;
            drop(b);
            (0..i).filter_map(body).for_each(|mut b| b.undo_prepare());
            Some(Error::new(e.kind, format!("bodies[{i}]: {e}")))
        });
        failure.map_or(Ok(()), Err)
    }

    /// All or nothing: one body that could not be stepped undoes the others' steps. A
    /// refused state is reported first, as the checks before any step would have.
    fn failure(&self, bodies: &Slots<Mutex<Body>>, ids: &[BodyId]) -> Result<()> {
        if !self.groups.iter().any(|g| g.failed) {
            return Ok(());
        }
        let members = || {
            self.groups.iter().flat_map(|g| {
                (0..g.len).map(move |k| (g.members[k] as usize, g.refused & (1 << k) != 0, &g.results[k]))
            })
        };
        let refusal = || members().filter(|&(_, refused, _)| refused).min_by_key(|&(i, _, _)| i);
        let failed = || members().filter(|(_, _, r)| r.is_err()).min_by_key(|&(i, _, _)| i);
        let Some((failed, refused, result)) = refusal().or_else(failed) else {
            return Ok(());
        };
        let error = match result {
            Err(e) if refused => e.clone(),
            Err(e) => Error::new(e.kind, format!("bodies[{failed}]: {e}")),
            Ok(_) => Error::new(ErrorKind::Internal, "a failed body without its error"),
        };
        for (i, _, result) in members() {
            if result.is_ok()
                && let Some(mut b) = bodies.get(ids[i].0).map(lock)
            {
                b.undo_step();
            }
        }
        Err(error)
    }
}

/// Body `i`'s state refused.
fn refused(i: usize, e: Error) -> Error {
    Error::new(ErrorKind::InvalidArgument, format!("states[{i}]: {e}"))
}

/// What every group of a batch reads, shared by the threads that step them.
struct Stepping<'a, S, F> {
    ids: &'a [BodyId],
    states: &'a [S],
    /// Every state validated, or none (each group's thread then validates its own).
    validated: &'a [BodyState],
    state_of: &'a F,
    bodies: &'a Slots<Mutex<Body>>,
    env: Environment<'a>,
    dt: f64,
    serial_water: bool,
    prefetch: bool,
    prefetch_lanes: bool,
}

impl<S, F: Fn(&S) -> BodyState> Stepping<'_, S, F> {
    fn body(&self, i: usize) -> Option<MutexGuard<'_, Body>> {
        self.bodies.get(self.ids[i].0).map(lock)
    }

    /// Steps `group` and notes whether any member failed. `forward`: whether this thread
    /// takes the groups after this one next, or those before it (a two-thread batch's
    /// helper goes from the back).
    fn step_group(&self, group: &mut BatchGroup, forward: bool) {
        if let Some(valid) = self.member_states(group) {
            if group.in_lanes {
                self.step_lanes(group, &valid, forward);
            } else {
                self.step_alone(group, &valid[0], forward);
            }
        }
        group.failed = group.results[..group.len].iter().any(Result::is_err);
    }

    /// The batch index `d` places past `group`, the way this thread goes (to ask for
    /// memory ahead: a guess, where groups made by how the water cuts their bodies are
    /// not in the batch's order).
    fn ahead(group: &BatchGroup, d: usize, forward: bool) -> Option<usize> {
        let members = group.members();
        if forward {
            Some(members[members.len() - 1] as usize + 1 + d)
        } else {
            (members[0] as usize).checked_sub(1 + d)
        }
    }

    /// Each member's state, checked by this thread (its part of the batch's serial
    /// checks), the spare lanes repeating the first; `None` if one is refused: the batch
    /// fails, and the others are not stepped (nor undone after). (Only where no body was
    /// prepared before the groups: serial water's states are checked before its
    /// `prepare`.)
    fn member_states(&self, group: &mut BatchGroup) -> Option<[BodyState; LANES]> {
        group.refused = 0;
        // (On the stack, which the caches hold.)
        let mut valid = [BodyState::default(); LANES];
        let n = group.len;
        for (k, &i) in group.members[..n].iter().enumerate() {
            let i = i as usize;
            match self
                .validated
                .get(i)
                .map_or_else(|| (self.state_of)(&self.states[i]).validated(), |s| Ok(*s))
            {
                Ok(state) => valid[k] = state,
                Err(e) => {
                    group.results[k] = Err(refused(i, e));
                    group.refused |= 1 << k;
                }
            }
        }
        if group.refused != 0 {
            for (k, result) in group.results[..n].iter_mut().enumerate() {
                if group.refused & (1 << k) == 0 {
                    *result = Err(Error::argument("not stepped: another body's state was refused"));
                }
            }
            return None;
        }
        let first = valid[0];
        valid[n..].fill(first);
        Some(valid)
    }

    /// A body that does not go in the lanes.
    fn step_alone(&self, group: &mut BatchGroup, state: &BodyState, forward: bool) {
        let i = group.members[0] as usize;
        // The next body's buffers start loading while this one is stepped (never
        // waiting for its lock: another thread may be stepping it).
        if self.prefetch
            && let Some(Ok(next)) = Self::ahead(group, 0, forward)
                .and_then(|i| self.ids.get(i))
                .and_then(|id| self.bodies.get(id.0))
                .map(Mutex::try_lock)
        {
            next.prefetch();
        }
        if let Some(mut b) = self.body(i) {
            let env = &self.env;
            group.results[0] = if self.serial_water {
                Ok(())
            } else {
                b.prepare(state, env)
            }
            .and_then(|()| b.compute(state, self.dt, env));
        }
    }

    /// The bodies after these (in a batch of one kind of body, the next group's) start
    /// loading while these are stepped, one after each of these is prepared: asked for
    /// all at once, their few hundred lines overflow the processor's queue of misses,
    /// and it stalls. (Ahead the way this thread goes: the helper of a two-thread batch,
    /// taking groups from the back, asked for those it had just stepped, and waited for
    /// every miss of half the batch.)
    fn ask_ahead(&self, group: &BatchGroup, k: usize, forward: bool) {
        if !self.prefetch_lanes {
            return;
        }
        if let Some(Ok(b)) = Self::ahead(group, k, forward)
            .and_then(|i| self.ids.get(i))
            .and_then(|id| self.bodies.get(id.0))
            .map(Mutex::try_lock)
        {
            b.prefetch_for_lanes();
        }
        // And the group after it, by address only (the line above reads these
        // bodies' fields, which should then be in the caches).
        if let Some(id) = Self::ahead(group, LANES + k, forward).and_then(|i| self.ids.get(i)) {
            self.bodies.prefetch(id.0, LANES_HOT_BYTES);
        }
        // And the host's state of the next group's body, which this thread reads
        // (and checks) first.
        if let Some(state) = Self::ahead(group, k, forward).and_then(|i| self.states.get(i)) {
            crate::runtime::prefetch::prefetch(std::ptr::from_ref(state).cast(), std::mem::size_of_val(state));
        }
    }

    /// A group of small bodies, each in a lane.
    fn step_lanes(&self, group: &mut BatchGroup, valid: &[BodyState; LANES], forward: bool) {
        let n = group.len;
        let mut guards: [Option<MutexGuard<'_, Body>>; LANES] =
            std::array::from_fn(|k| group.members().get(k).and_then(|&i| self.body(i as usize)));
        // (Every member is live: its id was checked with the world borrowed mutably
        // since, and `destroy_body` ends the reuse of a batch's checks. A member
        // missing here would keep its last batch's result.)
        debug_assert!(guards[..n].iter().all(Option::is_some));
        // (The spare lanes' entries repeat the first body: never read.)
        let states: [&BodyState; LANES] = std::array::from_fn(|k| &valid[k]);
        let mut prepared = [true; LANES];
        for k in 0..LANES {
            let result = &mut group.results[k];
            if !self.serial_water
                && let Some(Err(e)) = guards[k].as_mut().map(|b| b.prepare(states[k], &self.env))
            {
                *result = Err(e);
                prepared[k] = false;
            }
            self.ask_ahead(group, k, forward);
            // Its result too, which the lanes write at the end: the groups' results
            // are megabytes in a big batch, out of the caches by the next step.
            if self.prefetch_lanes {
                let result = &group.results[k];
                crate::runtime::prefetch::prefetch(std::ptr::from_ref(result).cast(), std::mem::size_of_val(result));
            }
        }
        if prepared.iter().all(|&p| p) {
            let mut lanes = guards.each_mut().map(|b| b.as_deref_mut());
            // (For the next batch's grouping: `Batch::regroup`.)
            group.mixed = !step_in_lanes(&mut lanes[..n], &states, self.dt, &self.env, &mut group.results);
        } else {
            // (A body whose water could not be sampled: the batch fails, and the
            // others' steps are undone; they are taken one at a time meanwhile.)
            for (k, (b, result)) in guards.iter_mut().zip(group.results.iter_mut()).enumerate() {
                if let (Some(b), true) = (b, prepared[k]) {
                    *result = b.compute(states[k], self.dt, &self.env);
                }
            }
        }
    }
}

impl World {
    /// Steps `ids[i]` from `state_of(&states[i])` and writes its forces with
    /// `write(&forces, &mut out[i])`, in parallel. Every id and state is checked, and the
    /// outputs are written only once every body is done: on error no body and no output
    /// has changed, and the error is the first by index among the ids and states that
    /// were refused (a batch of the last batch's ids has its states checked by the threads
    /// that step them, any other before anything is stepped). `state_of` is called once
    /// per body, on any of the world's threads.
    pub fn step_bodies<S, O>(
        &mut self,
        ids: &[BodyId],
        states: &[S],
        dt: f64,
        out: &mut [O],
        state_of: impl Fn(&S) -> BodyState + Sync,
        write: impl Fn(&BodyForces, &mut O) + Sync,
    ) -> Result<()>
    where
        S: Sync,
        O: Send,
    {
        let dt = check_dt(dt)?;
        if states.len() != ids.len() || out.len() != ids.len() {
            return Err(Error::argument("ids, states and outputs must have the same length"));
        }
        // In a two-thread world the helper thread shares a batch's bodies with this
        // thread, woken now so that it is running by the time the checks are done.
        let batch_helper = ids.len() > 1 && self.wake_helper(true);
        let mut batch = Batch::open(&mut self.batch, ids, self.water.is_serial());
        let checks = profile::time(Section::BatchChecks);
        let checked = batch.check_and_group(&mut self.bodies, ids, states, &state_of);
        checks.stop();
        let stepped = checked.and_then(|()| {
            // Every state, or none (each group's thread then validates its own).
            debug_assert!(batch.validated.is_empty() || batch.validated.len() == ids.len());
            self.step_batch(&mut batch, ids, states, dt, batch_helper, &state_of)
        });
        let result = stepped.map(|()| self.write_out(&batch.groups, out, batch_helper, &write));
        batch.close(&mut self.batch, ids, result.is_ok());
        result
    }

    /// The batch's groups stepped, into the groups' buffers (the world's), to be copied
    /// out at the end, so that even a panic (a bug) in one body leaves every output
    /// untouched. On error, every body is as it was.
    fn step_batch<S: Sync, F: Fn(&S) -> BodyState + Sync>(
        &mut self,
        batch: &mut Batch,
        ids: &[BodyId],
        states: &[S],
        dt: f64,
        batch_helper: bool,
        state_of: &F,
    ) -> Result<()> {
        let alone = ids.len() == 1 && self.bodies.get(ids[0].0).is_some_and(|b| lock(b).is_divisible());
        let helper = if self.wake_helper(alone) {
            self.helper.as_ref()
        } else {
            None
        };
        let env = Environment {
            // Bodies enough to keep every thread busy: each keeps its triangles.
            share_triangles: ids.len() < self.thread_count(),
            helper,
            // (A batch's bodies are each one item of the host's tasks, and a task does not
            // start tasks of its own: only a big body alone shares its sections. Were it
            // given them inside a task, they would run inline: `crate::runtime::tasks::run`.)
            tasks: self.tasks.as_deref().filter(|_| alone),
            ..self.environment()
        };
        debug_assert_eq!(batch.serial_water, env.water.is_serial());
        batch.prepare_serial(&self.bodies, ids, &env)?;
        let stepping = Stepping {
            ids,
            states,
            validated: &batch.validated,
            state_of,
            bodies: &self.bodies,
            env,
            dt,
            serial_water: batch.serial_water,
            prefetch: batch.prefetch,
            prefetch_lanes: ids.len() >= PREFETCH_LANES_FROM_BODIES,
        };
        let batch_helper = if batch_helper { self.helper.as_ref() } else { None };
        let timer = profile::time(Section::BatchGroups);
        let step_group = |group: &mut BatchGroup, forward: bool| stepping.step_group(group, forward);
        let groups = &mut batch.groups;
        match &self.pool {
            // Two threads: this one from the front of the groups, the helper from the back
            // (no pool to hand the batch to and wake, and this thread works too).
            _ if let Some(h) = batch_helper => {
                Team::Helper(h).share_from_both_ends(|| (), groups.iter_mut(), step_group);
            }
            // Waking the workers costs more than stepping a lone body, unless its hull is
            // big enough to share among them; and one group of small bodies (up to eight of
            // one hull) is one thread's work: handed to the pool, it would only wait for a
            // worker to wake.
            Some(Workers { pool: Some(pool), .. }) if groups.len() > 1 || (alone && helper.is_none()) => {
                pool.install(|| groups.par_iter_mut().for_each(|g| step_group(g, true)))
            }
            _ if let Some(tasks) = self.tasks.as_deref().filter(|_| groups.len() > 1) => {
                crate::runtime::tasks::share_in_regions(tasks, groups, &step_group);
            }
            _ => groups.iter_mut().for_each(|g| step_group(g, true)),
        }
        timer.stop();
        batch.failure(&self.bodies, ids)
    }

    /// The outputs from the groups. A big batch's outputs are written by every thread,
    /// each a range of them: read from the groups and written to the host's memory, they
    /// are two cache misses a body, which one thread alone took 4 % of 10000 boxes' step
    /// to wait for.
    fn write_out<O: Send>(
        &self,
        groups: &[BatchGroup],
        out: &mut [O],
        batch_helper: bool,
        write: &(impl Fn(&BodyForces, &mut O) + Sync),
    ) {
        let _timer = profile::time(Section::BatchWrite);
        // The outputs from `start` on, in `part`: every group is looked at, the members
        // in that range written.
        let write_part = |start: usize, part: &mut [O]| {
            for group in groups {
                for (&i, result) in group.members().iter().zip(&group.results) {
                    let o = (i as usize).checked_sub(start).and_then(|k| part.get_mut(k));
                    if let (Ok(forces), Some(o)) = (result, o) {
                        write(forces, o);
                    }
                }
            }
        };
        let batch_helper = if batch_helper { self.helper.as_ref() } else { None };
        let parts = if out.len() >= PARALLEL_WRITE_FROM {
            self.thread_count().max(usize::from(batch_helper.is_some()) + 1)
        } else {
            1
        };
        let part_len = out.len().div_ceil(parts).max(1);
        match (batch_helper, &self.pool) {
            (Some(h), _) if parts > 1 => {
                let (front, back) = out.split_at_mut(part_len);
                Team::Helper(h).join(|| write_part(0, front), || write_part(part_len, back));
            }
            (None, Some(Workers { pool: Some(pool), .. })) if parts > 1 => pool.install(|| {
                out.par_chunks_mut(part_len)
                    .enumerate()
                    .for_each(|(k, part)| write_part(k * part_len, part))
            }),
            _ => write_part(0, out),
        }
    }
}
