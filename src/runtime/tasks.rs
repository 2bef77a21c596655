//! The host's job system: a world created with a [`TaskSystem`] runs its parallel work on
//! the host's workers (Box2D v3's `enqueueTask` / `finishTask`) and starts no thread of its
//! own.
//!
//! Two kinds of work go to it: a batch's groups of bodies, each group by one task item
//! (`World::step_bodies`), and the sections of a big body stepped alone (`World::step_body`,
//! a batch of one): its halves and chunks, whose sums are added in a fixed order whatever
//! ran them. The results are the bits the world's own threads give.
//!
//! Keel does not rely on the host to run each item exactly once: every item is claimed
//! before it runs (an item run twice does nothing the second time), and what the host did
//! not run when [`TaskSystem::run`] returns is run then on the calling thread.

use std::sync::Mutex;
use std::sync::PoisonError;

/// A host's job system.
pub trait TaskSystem: Send + Sync + std::fmt::Debug {
    /// How many workers the host runs tasks on (at least 1): how many items a section
    /// shared among "every thread" is split into.
    fn worker_count(&self) -> u32;

    /// Runs `task(start, end, worker)` over ranges that cover `0..item_count`, of at least
    /// `min_range` items each but the last, on any of the host's workers (the calling
    /// thread included), and returns once every range is done. `worker` is the index of
    /// the worker in `0..worker_count()` (keel does not use it).
    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync));
}

/// `a` and `b` as two items of one task; what the host did not run, run here after.
pub(crate) fn join<A, B, RA, RB>(tasks: &dyn TaskSystem, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
    let (ra, rb) = (Mutex::new(None), Mutex::new(None));
    let run_a = || {
        let work = a.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(work) = work {
            *ra.lock().unwrap_or_else(PoisonError::into_inner) = Some(work());
        }
    };
    let run_b = || {
        let work = b.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(work) = work {
            *rb.lock().unwrap_or_else(PoisonError::into_inner) = Some(work());
        }
    };
    tasks.run(2, 1, &|start, end, _| {
        for item in start..end.min(2) {
            if item == 0 { run_a() } else { run_b() }
        }
    });
    run_a();
    run_b();
    let ra = ra.into_inner().unwrap_or_else(PoisonError::into_inner);
    let rb = rb.into_inner().unwrap_or_else(PoisonError::into_inner);
    match (ra, rb) {
        (Some(ra), Some(rb)) => (ra, rb),
        // (Only if one of them panicked, which the host's worker then reports.)
        _ => panic!("a task's work did not finish"),
    }
}

/// `work` once per worker, then once more here (`work` takes what is left to do, and is
/// harmless when nothing is).
pub(crate) fn everyone(tasks: &dyn TaskSystem, work: &(impl Fn() + Sync)) {
    let workers = tasks.worker_count().max(1);
    tasks.run(workers, 1, &|start, end, _| {
        for _ in start..end {
            work();
        }
    });
    work();
}
