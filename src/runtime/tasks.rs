//! The host's job system: a world created with a [`TaskSystem`] runs its parallel work on
//! the host's workers (Box2D v3's `enqueueTask` / `finishTask`) and starts no thread of its
//! own.
//!
//! Two kinds of work go to it: a batch's groups of bodies, each group by one task item
//! (`World::step_bodies`), and the sections of a big body stepped alone (`World::step_body`,
//! a batch of one): its halves and chunks, whose sums are added in a fixed order whatever
//! ran them. The results are the bits the world's own threads give.
//!
//! Keel never calls [`TaskSystem::run`] from inside one of its own task items: a host whose
//! workers block until a task is finished (a one-worker pool, say) would wait for itself.
//! Every item Keel hands the host marks its thread as running Keel's task while it runs
//! (`inside_task`), and work started there (a big body's section inside a batch's group)
//! runs inline on that thread instead. Each section is one task: the items that share it
//! are all enqueued at once, none from inside another. (Keel's own helper thread is marked
//! the same way: it never hands work to itself.)
//!
//! Keel does not rely on the host to run each item exactly once: every item is claimed
//! before it runs (an item run twice does nothing the second time), and what the host did
//! not run when [`TaskSystem::run`] returns is run then on the calling thread.

use std::cell::Cell;
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

thread_local! {
    /// Whether this thread is running one of Keel's task items (or is Keel's helper
    /// thread): work it starts runs here rather than going to the host or the helper.
    static INSIDE_TASK: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is running one of Keel's tasks: a section started here runs inline.
pub(crate) fn inside_task() -> bool {
    INSIDE_TASK.with(Cell::get)
}

/// Marks this thread as one of Keel's for good (the world's helper thread).
pub(crate) fn mark_thread_as_keels() {
    INSIDE_TASK.with(|t| t.set(true));
}

/// Runs `work` with this thread marked as inside one of Keel's tasks, and restores the
/// mark after (a host's worker runs other tasks too), a panic included.
fn as_task<R>(work: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            INSIDE_TASK.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(INSIDE_TASK.with(|t| t.replace(true)));
    work()
}

/// `item(i)` for every `i` in `0..item_count`, as one task of the host's: each item on
/// one of its workers, marked as inside Keel's task. From inside one of Keel's tasks, every
/// item runs here, in order, and the host is not called.
pub(crate) fn run(tasks: &dyn TaskSystem, item_count: u32, item: &(dyn Fn(u32) + Sync)) {
    if inside_task() {
        (0..item_count).for_each(item);
        return;
    }
    tasks.run(item_count, 1, &|start, end, _| {
        as_task(|| (start..end.min(item_count)).for_each(item));
    });
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
    run(tasks, 2, &|item| if item == 0 { run_a() } else { run_b() });
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

/// `first`, then `take(true)`, as item 0 of one task, and `take(false)` as each of the
/// others (one per worker but the first's), returning what `first` returned: the one task
/// of a section shared from both ends (`crate::runtime::team::Team::share_from_both_ends`).
/// `take` takes what is left to do, one piece at a time, and is harmless when nothing is.
/// What the host did not run is run here after.
pub(crate) fn share<R: Send>(
    tasks: &dyn TaskSystem,
    first: impl FnOnce() -> R + Send,
    take: &(impl Fn(bool) + Sync),
) -> R {
    let first = Mutex::new(Some(first));
    let result = Mutex::new(None);
    let front = || {
        let work = first.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(work) = work {
            let r = work();
            *result.lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
            take(true);
        }
    };
    let workers = tasks.worker_count().max(1);
    run(tasks, workers, &|item| if item == 0 { front() } else { take(false) });
    front();
    take(true);
    match result.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(r) => r,
        // (Only if `first` panicked, which the host's worker then reports.)
        None => panic!("a task's work did not finish"),
    }
}
