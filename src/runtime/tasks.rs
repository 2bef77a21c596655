//! The host's job system: a world created with a [`TaskSystem`] runs its parallel work on
//! the host's workers (Box2D v3's `enqueueTask` / `finishTask`) and starts no thread of its
//! own.
//!
//! Two kinds of work go to it: a batch's groups of bodies, one run of neighbouring groups
//! per worker, shared from their ends when a worker is done with its own
//! (`World::step_bodies`, `share_in_regions`), and the sections of a big body stepped alone (`World::step_body`,
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

/// The most regions [`share_in_regions`] cuts: a world's thread limit (`World::with_tasks`
/// refuses a job system of more workers; the world's layer is above this one).
const MAX_REGIONS: usize = 256;

/// `each(item, forward)` for every item of `items`, once, on the host's workers: the
/// items are cut into one run of neighbours per worker, each worker steps its own from
/// the front (`forward`), then helps the others from their backs (`!forward`). What the
/// host did not run is run here after.
///
/// Why regions: handed out one at a time, neighbouring items go to different workers,
/// and each worker's look-ahead (`forward` says which way it prefetches) loads the item
/// another is writing. Two of Godot's workers stepping alternate groups of a batch ran
/// each group 1.7-2.6x slower than one thread alone.
pub(crate) fn share_in_regions<T: Send>(
    tasks: &dyn TaskSystem,
    items: &mut [T],
    each: &(impl Fn(&mut T, bool) + Sync),
) {
    let n = items.len();
    let regions_count = (tasks.worker_count() as usize).clamp(1, n.clamp(1, MAX_REGIONS));
    let mut rest = items;
    let regions: [Mutex<std::slice::IterMut<'_, T>>; MAX_REGIONS] = std::array::from_fn(|k| {
        let len = if k < regions_count {
            (k + 1) * n / regions_count - k * n / regions_count
        } else {
            0
        };
        let (region, after) = std::mem::take(&mut rest).split_at_mut(len);
        rest = after;
        Mutex::new(region.iter_mut())
    });
    let regions = &regions[..regions_count];
    let take = |k: usize, forward: bool| loop {
        let item = {
            let mut region = regions[k].lock().unwrap_or_else(PoisonError::into_inner);
            if forward { region.next() } else { region.next_back() }
        };
        match item {
            Some(item) => each(item, forward),
            None => break,
        }
    };
    let work = |k: usize| {
        take(k, true);
        (1..regions_count).for_each(|d| take((k + d) % regions_count, false));
    };
    // (One region still goes to the host: its workers may be other threads than this
    // one, and a host given a job system expects it used.)
    if inside_task() {
        return work(0);
    }
    tasks.run(regions_count as u32, 1, &|start, end, _| {
        as_task(|| (start as usize..(end as usize).min(regions_count)).for_each(work));
    });
    work(0);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    /// A host of `workers` threads that runs each item on a thread of its own (all at
    /// once), or only the items `keep` allows.
    #[derive(Debug)]
    struct Threads {
        workers: u32,
        keep: fn(u32) -> bool,
    }

    impl TaskSystem for Threads {
        fn worker_count(&self) -> u32 {
            self.workers
        }

        fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
            let min_range = min_range.max(1);
            std::thread::scope(|s| {
                for (w, start) in (0..item_count).step_by(min_range as usize).enumerate() {
                    if (self.keep)(start) {
                        s.spawn(move || task(start, (start + min_range).min(item_count), w as u32));
                    }
                }
            });
        }
    }

    #[test]
    fn regions_step_every_item_once_whoever_runs_them() {
        let keeps: [fn(u32) -> bool; 3] = [|_| true, |_| false, |start| start % 2 == 1];
        for keep in keeps {
            for workers in [1, 2, 3, 5, 256] {
                let tasks = Threads { workers, keep };
                for n in [0, 1, 2, 3, 7, 50, 301] {
                    let mut items: Vec<(usize, AtomicU32)> = (0..n).map(|i| (i, AtomicU32::new(0))).collect();
                    share_in_regions(&tasks, &mut items, &|(_, count), _| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                    for (i, count) in &items {
                        assert_eq!(count.load(Ordering::Relaxed), 1, "item {i} of {n}, {workers} workers");
                    }
                }
            }
        }
    }

    #[test]
    fn each_worker_starts_on_a_run_of_neighbours() {
        // A serial host: the first worker steps its run of three forward, then helps the
        // two others from their backs (there is nothing left for them).
        #[derive(Debug)]
        struct InOrder;
        impl TaskSystem for InOrder {
            fn worker_count(&self) -> u32 {
                3
            }
            fn run(&self, item_count: u32, _: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
                (0..item_count).for_each(|k| task(k, k + 1, k));
            }
        }
        let mut items: Vec<usize> = (0..9).collect();
        let order = Mutex::new(Vec::new());
        share_in_regions(&InOrder, &mut items, &|i, forward| {
            order.lock().unwrap().push((*i, forward));
        });
        let order = order.into_inner().unwrap();
        let expected = [0, 1, 2]
            .map(|i| (i, true))
            .into_iter()
            .chain([5, 4, 3, 8, 7, 6].map(|i| (i, false)));
        assert_eq!(order, expected.collect::<Vec<_>>());
    }
}
