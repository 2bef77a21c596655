//! Job systems of the tests' own, for worlds created with `World::with_tasks`: a serial
//! one and a small thread pool.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use keel::runtime::tasks::TaskSystem;

/// Runs every task on the calling thread, in one range.
#[derive(Debug, Default)]
pub struct Serial {
    pub tasks: AtomicU64,
}

impl TaskSystem for Serial {
    fn worker_count(&self) -> u32 {
        1
    }

    fn run(&self, item_count: u32, _min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        self.tasks.fetch_add(1, Ordering::Relaxed);
        task(0, item_count, 0);
    }
}

/// A range of a task, its function's address made `'static` (the task outlives it:
/// `Pool::run` waits for every range before it returns).
struct Range {
    task: &'static (dyn Fn(u32, u32, u32) + Sync),
    start: u32,
    end: u32,
    done: Arc<AtomicUsize>,
}

#[derive(Default)]
struct Queue {
    ranges: VecDeque<Range>,
    exit: bool,
}

/// A pool of `workers - 1` threads and the caller's: ranges of `min_range` items go in a
/// queue that every thread takes from.
pub struct Pool {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    threads: Vec<JoinHandle<()>>,
    workers: u32,
    /// Ranges run by the pool's own threads (not the caller's).
    pub on_workers: Arc<AtomicU64>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("workers", &self.workers).finish()
    }
}

fn run_range(r: Range) {
    (r.task)(r.start, r.end, 0);
    r.done.fetch_add((r.end - r.start) as usize, Ordering::Release);
}

impl Pool {
    pub fn new(workers: u32) -> Self {
        let queue = Arc::new((Mutex::new(Queue::default()), Condvar::new()));
        let on_workers = Arc::new(AtomicU64::new(0));
        let threads = (1..workers)
            .map(|i| {
                let queue = Arc::clone(&queue);
                let counter = Arc::clone(&on_workers);
                std::thread::Builder::new()
                    .name(format!("test-pool-{i}"))
                    .spawn(move || {
                        let (lock, ready) = &*queue;
                        loop {
                            let mut q = lock.lock().unwrap();
                            while q.ranges.is_empty() && !q.exit {
                                q = ready.wait(q).unwrap();
                            }
                            let Some(range) = q.ranges.pop_front() else { return };
                            drop(q);
                            counter.fetch_add(1, Ordering::Relaxed);
                            run_range(range);
                        }
                    })
                    .unwrap()
            })
            .collect();
        Self {
            queue,
            threads,
            workers,
            on_workers,
        }
    }
}

impl TaskSystem for Pool {
    fn worker_count(&self) -> u32 {
        self.workers
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        // SAFETY: only the lifetime is changed; every range has run before this returns.
        let task: &'static (dyn Fn(u32, u32, u32) + Sync) = unsafe { std::mem::transmute(task) };
        let done = Arc::new(AtomicUsize::new(0));
        let step = min_range.max(1);
        let (lock, ready) = &*self.queue;
        {
            let mut q = lock.lock().unwrap();
            let mut start = 0;
            while start < item_count {
                let end = (start + step).min(item_count);
                q.ranges.push_back(Range {
                    task,
                    start,
                    end,
                    done: Arc::clone(&done),
                });
                start = end;
            }
        }
        ready.notify_all();
        // The caller works too, then waits for the ranges the others took.
        loop {
            let range = lock.lock().unwrap().ranges.pop_front();
            match range {
                Some(range) => run_range(range),
                None => break,
            }
        }
        while done.load(Ordering::Acquire) < item_count as usize {
            std::thread::yield_now();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.queue.0.lock().unwrap().exit = true;
        self.queue.1.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
