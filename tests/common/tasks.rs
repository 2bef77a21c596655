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

thread_local! {
    /// Whether this thread is running one of Keel's task items right now (set by the
    /// job systems below around every range they run).
    static IN_TASK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `task(start, end, worker)` with this thread marked as inside one of Keel's tasks.
fn run_marked(task: &(dyn Fn(u32, u32, u32) + Sync), start: u32, end: u32, worker: u32) {
    let was = IN_TASK.with(|t| t.replace(true));
    task(start, end, worker);
    IN_TASK.with(|t| t.set(was));
}

/// What a job system saw of Keel's calls.
#[derive(Debug, Default)]
pub struct Calls {
    /// Every call of `run` (an enqueue and its finish).
    pub runs: AtomicU64,
    /// Calls made from inside one of Keel's task items: each breaks the header's promise.
    pub nested: AtomicU64,
    /// The names of the threads those nested calls came from.
    pub nested_threads: Mutex<Vec<String>>,
}

impl Calls {
    fn note(&self) {
        self.runs.fetch_add(1, Ordering::Relaxed);
        if IN_TASK.with(std::cell::Cell::get) {
            self.nested.fetch_add(1, Ordering::Relaxed);
            let name = std::thread::current().name().unwrap_or("unnamed").to_owned();
            self.nested_threads.lock().unwrap().push(name);
        }
    }
}

/// A serial executor that records its calls: every item runs on the calling thread,
/// one range at a time of `min_range` items.
#[derive(Debug, Default)]
pub struct RecordingSerial {
    pub calls: Calls,
}

impl TaskSystem for RecordingSerial {
    fn worker_count(&self) -> u32 {
        1
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        self.calls.note();
        let step = min_range.max(1);
        let mut start = 0;
        while start < item_count {
            let end = (start + step).min(item_count);
            run_marked(task, start, end, 0);
            start = end;
        }
    }
}

/// A job to one worker: the task's ranges, and how many items are done.
struct Job {
    task: &'static (dyn Fn(u32, u32, u32) + Sync),
    item_count: u32,
    min_range: u32,
    done: Arc<(Mutex<bool>, Condvar)>,
}

/// The jobs waiting for a worker, and whether the pool is closing.
type Jobs = Arc<(Mutex<(VecDeque<Job>, bool)>, Condvar)>;

/// A pool of `workers` threads of its own on which every range runs; the caller only
/// waits (`finish` blocks until the task is done, as Box2D's samples' finishTask does).
/// A call made from inside a task on a pool of one worker waits for itself: a deadlock.
/// Every call is recorded.
pub struct Waiting {
    queue: Jobs,
    threads: Vec<JoinHandle<()>>,
    workers: u32,
    pub calls: Arc<Calls>,
    /// Ranges run, on the pool's threads (all of them).
    pub ranges: Arc<AtomicU64>,
}

impl std::fmt::Debug for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiting").field("workers", &self.workers).finish()
    }
}

impl Waiting {
    pub fn new(workers: u32) -> Self {
        let queue: Jobs = Arc::default();
        let ranges = Arc::new(AtomicU64::new(0));
        let threads = (0..workers)
            .map(|i| {
                let queue = Arc::clone(&queue);
                let ranges = Arc::clone(&ranges);
                std::thread::Builder::new()
                    .name(format!("test-waiting-{i}"))
                    .spawn(move || {
                        let (lock, ready) = &*queue;
                        loop {
                            let mut q = lock.lock().unwrap();
                            while q.0.is_empty() && !q.1 {
                                q = ready.wait(q).unwrap();
                            }
                            let Some(job) = q.0.pop_front() else { return };
                            drop(q);
                            // One worker runs a job's ranges one after the other (the
                            // others take the next job): enough to tell a nested call.
                            let step = job.min_range.max(1);
                            let mut start = 0;
                            while start < job.item_count {
                                let end = (start + step).min(job.item_count);
                                run_marked(job.task, start, end, i);
                                ranges.fetch_add(1, Ordering::Relaxed);
                                start = end;
                            }
                            let (finished, signal) = &*job.done;
                            *finished.lock().unwrap() = true;
                            signal.notify_all();
                        }
                    })
                    .unwrap()
            })
            .collect();
        Self {
            queue,
            threads,
            workers,
            calls: Arc::default(),
            ranges,
        }
    }
}

impl TaskSystem for Waiting {
    fn worker_count(&self) -> u32 {
        self.workers
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        self.calls.note();
        // SAFETY: only the lifetime is changed; the job has run before this returns.
        let task: &'static (dyn Fn(u32, u32, u32) + Sync) = unsafe { std::mem::transmute(task) };
        let done: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let (lock, ready) = &*self.queue;
        lock.lock().unwrap().0.push_back(Job {
            task,
            item_count,
            min_range,
            done: Arc::clone(&done),
        });
        ready.notify_one();
        let (finished, signal) = &*done;
        let mut finished = finished.lock().unwrap();
        while !*finished {
            finished = signal.wait(finished).unwrap();
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.queue.0.lock().unwrap().1 = true;
        self.queue.1.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// [`Pool`] with every call recorded, and whether it came from inside one of Keel's
/// tasks (the pool's threads and the caller run the ranges).
#[derive(Debug)]
pub struct RecordingPool {
    pool: Pool,
    pub calls: Calls,
}

impl RecordingPool {
    pub fn new(workers: u32) -> Self {
        Self {
            pool: Pool::new(workers),
            calls: Calls::default(),
        }
    }
}

impl TaskSystem for RecordingPool {
    fn worker_count(&self) -> u32 {
        self.pool.worker_count()
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        self.calls.note();
        self.pool.run(item_count, min_range, &|start, end, worker| {
            run_marked(task, start, end, worker)
        });
    }
}
