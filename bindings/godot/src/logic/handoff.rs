//! Handing Keel's parallel work to a pool of workers that is slow to start (Godot's
//! `WorkerThreadPool`, `classes::tasks`), without paying for the pool when it does not pay.
//!
//! Keel's task is a range function `task(start, end, worker)` over `0..item_count` in
//! ranges of at least `min_range` items; whoever is awake takes the next range: the thread
//! that called [`Handoff::run`] and the pool's workers alike.
//!
//! **What handing work over costs**, measured in Godot 4.6 on a 2-vCPU VM
//! (`godot-addon/README.md`, round 7): posting a group task takes 20 to 30 us of the
//! calling thread (Godot wakes a worker), the worker starts 40 to 150 us after that, and
//! waiting for Godot to mark the group done took another 10 to 60 us after the last range.
//! A step shorter than about twice that ran slower on the pool than on one thread (24
//! boxes: 0.16 to 0.24 ms against 0.04). So:
//! - the calling thread does not wait for the pool's bookkeeping: once every range is done
//!   and no worker is inside one (`Shared::active`), `run` returns; the group is waited
//!   for at a later run, once the pool says it is done, or when the handoff goes;
//! - a run goes to the pool only when it pays ([`Schedule`]): when its work on one thread
//!   (the last run's, measured) is more than twice the posting plus the worker's start
//!   (medians of this machine's last runs on the pool, which one hiccup does not move), or
//!   more than a fixed threshold when the user set one;
//! - a frame decides at its start ([`Handoff::prepare`]), and when its run goes to the
//!   pool the workers are woken then, while the host still reads its bodies: they wait
//!   for the frame's runs until [`Handoff::rest`], so the worker's start is hidden behind
//!   the host's own work instead of delaying the step (round 8).
//!
//! Which thread runs which range never changes the bits (Keel's sums are in a fixed order).

use std::ffi::c_void;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A pool of workers that runs [`run_element`] calls.
pub trait Pool {
    /// Posts `elements` calls of `run_element(userdata, i)`, each owning one reference
    /// of `userdata` (an `Arc<Shared>` from `Arc::into_raw`, incremented to `elements`):
    /// the group's id, or `None` if nothing was posted (then none of the references is
    /// taken, and the caller gives them back).
    fn post(&self, userdata: *mut c_void, elements: u32) -> Option<i64>;
    /// Whether every call of the group has returned.
    fn is_done(&self, group: i64) -> bool;
    /// Waits for the group and frees it.
    fn wait(&self, group: i64);
}

/// What the pool's calls find: the work of the run in progress.
#[derive(Debug)]
pub struct Shared {
    /// The open run's [`Job`], null between runs.
    job: AtomicPtr<Job<'static>>,
    /// Calls inside [`Self::job`]: the run does not return while one is.
    active: AtomicU32,
    /// The serial of the last run that opened its job (stored after [`Self::job`]).
    opened: AtomicU64,
    /// A prepared frame is on: calls wait for its runs ([`Handoff::prepare`]).
    awaiting: AtomicBool,
    /// Calls waiting for a run.
    waiting: AtomicU32,
    /// The longest a call waits for a run ([`MOST_WAIT`]; tests on a loaded machine wait
    /// longer).
    most_wait: Duration,
}

impl Default for Shared {
    fn default() -> Self {
        Self {
            job: AtomicPtr::default(),
            active: AtomicU32::default(),
            opened: AtomicU64::default(),
            awaiting: AtomicBool::default(),
            waiting: AtomicU32::default(),
            most_wait: MOST_WAIT,
        }
    }
}

/// The longest a call waits for the next run of a prepared frame (in case the frame's
/// end, [`Handoff::rest`], never comes): well over a frame's reading of its bodies.
const MOST_WAIT: Duration = Duration::from_millis(4);

impl Shared {
    /// In a prepared frame, waits until a run after `served` opens (true), or the frame
    /// is over (false). Out of one, false at once.
    fn next_run(&self, served: u64, since: Instant) -> bool {
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let mut spins = 0u32;
        let mut next = false;
        while self.awaiting.load(Ordering::Acquire) {
            if self.opened.load(Ordering::Acquire) != served {
                next = true;
                break;
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) {
                if since.elapsed() > self.most_wait {
                    break;
                }
                // (Another thread that wants this core gets it.)
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        next
    }
}

/// One run's work.
struct Job<'a> {
    /// The run's serial (from 1).
    serial: u64,
    task: &'a (dyn Fn(u32, u32, u32) + Sync),
    item_count: u32,
    min_range: u32,
    /// The next range nobody has taken.
    next: AtomicU32,
    /// A panic on a worker, raised again on the calling thread (it must not unwind into
    /// the pool's C++).
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// When the run started; when a worker first came (ns after `origin`, 0: none yet);
    /// how long workers spent in ranges (ns).
    origin: Instant,
    worker_came: AtomicU64,
    worker_busy: AtomicU64,
}

impl Job<'_> {
    /// Runs ranges until none is left (a panic is kept for the calling thread); how many
    /// it ran.
    fn take_ranges(&self) -> u32 {
        let mut ran = 0;
        loop {
            let range = self.next.fetch_add(1, Ordering::Relaxed);
            let start = range.saturating_mul(self.min_range);
            if start >= self.item_count {
                return ran;
            }
            let end = start.saturating_add(self.min_range).min(self.item_count);
            ran += 1;
            // Keel does not read the worker index.
            if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(|| (self.task)(start, end, 0))) {
                *self.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(panic);
            }
        }
    }

    fn elapsed_ns(&self) -> u64 {
        nanos(self.origin)
    }
}

fn nanos(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// The pool's element function: ranges of the open run, if one is open (a call that
/// comes after its run has ended finds none, or helps the next one); in a prepared frame,
/// of each run of the frame as it opens, until the frame is over.
///
/// # Safety
///
/// `userdata` is one reference of an `Arc<Shared>` from `Arc::into_raw`, given back here.
pub unsafe extern "C" fn run_element(userdata: *mut c_void, _element: u32) {
    // SAFETY: the caller's contract.
    let shared = unsafe { Arc::from_raw(userdata.cast_const().cast::<Shared>()) };
    let mut since = Instant::now();
    let mut served = 0;
    loop {
        // (Read before the job: the run stores its job, then its serial. A job closed by
        // then was that run's, or a later one's.)
        let opened = shared.opened.load(Ordering::Acquire);
        // (Counted before the job is read: a run that has closed its job and then sees no
        // call inside returns, and its job is gone.)
        shared.active.fetch_add(1, Ordering::SeqCst);
        let job = shared.job.load(Ordering::SeqCst);
        if job.is_null() {
            served = opened;
        } else {
            // SAFETY: the run that opened `job` does not return while `active` counts this
            // call (it closes the job, then waits for `active` to be 0).
            let job = unsafe { &*job };
            if job.serial != served {
                served = job.serial;
                let came = job.elapsed_ns().max(1);
                let _ = job
                    .worker_came
                    .compare_exchange(0, came, Ordering::Relaxed, Ordering::Relaxed);
                let busy = Instant::now();
                if job.take_ranges() > 0 {
                    job.worker_busy.fetch_add(nanos(busy), Ordering::Relaxed);
                }
                since = Instant::now();
            }
        }
        shared.active.fetch_sub(1, Ordering::SeqCst);
        if !shared.next_run(served, since) {
            return;
        }
    }
}

/// When a run goes to the pool: from the work of the last run and what handing work over
/// cost at the last runs that did (medians of the last few).
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The last run's work on one thread, ns (its ranges' times added).
    pub work: f64,
    /// Posting a group, ns of the calling thread.
    pub post: Recent,
    /// From the post to a worker's first range, ns (in a prepared frame, what is left of
    /// it when the run opens).
    pub start: Recent,
    /// Runs in a row kept on the calling thread (a run on the pool now and then measures
    /// the costs again).
    pub kept: u32,
    /// The user's threshold in ns (`None`: when it pays).
    pub min_work: Option<f64>,
}

/// Runs kept on the calling thread after which one goes to the pool to measure the costs
/// again (one frame in two seconds at 60 Hz, which costs a small scene a post).
pub const PROBE_EVERY: u32 = 120;

/// The last few measures of a cost; the cost is their median, which one hiccup of the
/// machine does not move. (A mean did: one post that took 2 ms in a virtual machine kept
/// the threshold above the work for good, and no probe ran again.) It starts as that
/// many guesses: the first measures, which can be Godot's slowest (its worker's first
/// wake-up), move it only once they are most of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recent {
    values: [f64; RECENT],
    next: usize,
}

/// How many measures [`Recent`] keeps.
const RECENT: usize = 7;

impl Recent {
    fn new(guess: f64) -> Self {
        Self {
            values: [guess; RECENT],
            next: 0,
        }
    }

    /// A new measure (ns), in place of the oldest.
    pub fn push(&mut self, value: f64) {
        self.values[self.next] = value.max(0.0);
        self.next = (self.next + 1) % RECENT;
    }

    /// The median of the measures kept.
    pub fn median(&self) -> f64 {
        let mut v = self.values;
        v.sort_by(f64::total_cmp);
        v[RECENT / 2]
    }
}

impl Schedule {
    /// A schedule with a fast machine's costs until measured; `min_work_usec` negative:
    /// when it pays, else the work (us on one thread) above which a run goes to the pool.
    pub fn new(min_work_usec: f64) -> Self {
        Self {
            work: 0.0,
            post: Recent::new(10e3),
            start: Recent::new(20e3),
            kept: 0,
            min_work: (min_work_usec >= 0.0).then_some(min_work_usec * 1e3),
        }
    }

    /// The work above which a run goes to the pool, ns: handing it over costs the calling
    /// thread `post`, and a worker comes `start` later; the work then ends about
    /// `post + (work + start) / 2` after the call instead of `work`.
    pub fn threshold(&self) -> f64 {
        self.min_work
            .unwrap_or_else(|| 2.0 * self.post.median() + self.start.median())
    }

    /// Whether the next run goes to the pool.
    pub fn use_pool(&mut self) -> bool {
        let threshold = self.threshold();
        if self.work >= threshold {
            return true;
        }
        self.kept += 1;
        self.min_work.is_none() && self.kept >= PROBE_EVERY
    }

    /// A run on the pool cost `post` (or nothing new, `None`: its group was posted
    /// earlier) and `start` (ns).
    pub fn measured(&mut self, post: Option<f64>, start: f64) {
        if let Some(post) = post {
            self.post.push(post);
        }
        self.start.push(start);
        self.kept = 0;
    }
}

/// A world's handoff to a pool: the work the pool's calls find, when to use the pool, and
/// the group posted last.
#[derive(Debug)]
pub struct Handoff {
    shared: Arc<Shared>,
    state: Mutex<State>,
    /// Runs that went to the pool.
    pooled: AtomicU64,
}

#[derive(Debug)]
struct State {
    schedule: Schedule,
    /// The group posted last, not yet waited for.
    pending: Option<i64>,
    /// The last run's serial.
    serial: u64,
    /// Whether the prepared frame's run goes to the pool ([`Handoff::prepare`]).
    decided: Option<bool>,
}

impl Handoff {
    /// `min_work_usec`: [`Schedule::new`]'s.
    pub fn new(min_work_usec: f64) -> Self {
        Self {
            shared: Arc::default(),
            state: Mutex::new(State {
                schedule: Schedule::new(min_work_usec),
                pending: None,
                serial: 0,
                decided: None,
            }),
            pooled: AtomicU64::new(0),
        }
    }

    /// How many runs went to the pool.
    pub fn pooled(&self) -> u64 {
        self.pooled.load(Ordering::Relaxed)
    }

    /// The schedule as it stands.
    pub fn schedule(&self) -> Schedule {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .schedule
            .clone()
    }

    /// Waits for the group posted last, if any (before the pool goes).
    pub fn settle(&self, pool: &impl Pool) {
        self.rest();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(id) = state.pending.take() {
            pool.wait(id);
        }
    }

    /// Starts a frame: decides now whether its run goes to the pool (the schedule's
    /// decision, made here instead of in the run), and if it does, wakes up to `workers`
    /// of the pool's now, before the run; they wait for the frame's runs until
    /// [`Self::rest`] (at most 4 ms for each). The host calls this before its own
    /// work that precedes the step (reading its bodies), which then hides the workers'
    /// start; whether a frame was prepared never changes a run's result. Whether workers
    /// were woken.
    pub fn prepare(&self, pool: &impl Pool, workers: u32) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let to_pool = workers > 0 && state.schedule.use_pool();
        state.decided = Some(to_pool);
        if !to_pool {
            return false;
        }
        self.shared.awaiting.store(true, Ordering::Release);
        if let Some(id) = state.pending
            && pool.is_done(id)
        {
            pool.wait(id);
            state.pending = None;
        }
        // (A group not run yet is not posted again: its calls, when they come, wait too.)
        if state.pending.is_none() {
            let start = Instant::now();
            state.pending = self.post(pool, workers);
            state.schedule.post.push(nanos(start) as f64);
        }
        true
    }

    /// Ends a frame [`Self::prepare`] started: the waiting calls return, and a later run
    /// decides for itself.
    pub fn rest(&self) {
        self.shared.awaiting.store(false, Ordering::Release);
        self.state.lock().unwrap_or_else(PoisonError::into_inner).decided = None;
    }

    /// Runs `task` over ranges covering `0..item_count` (at least `min_range` items each
    /// but the last), on this thread and, when it pays, on up to `workers` of the pool's;
    /// returns once every range is done. A panic in a range is raised here.
    pub fn run(
        &self,
        pool: &impl Pool,
        workers: u32,
        item_count: u32,
        min_range: u32,
        task: &(dyn Fn(u32, u32, u32) + Sync),
    ) {
        if item_count == 0 {
            return;
        }
        let min_range = min_range.max(1);
        // The pool's workers, at most one a range after the first (this thread takes it).
        let helpers = (item_count.div_ceil(min_range) - 1).min(workers);
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        // (A prepared frame's first run takes the frame's decision.)
        let to_pool = match state.decided.take() {
            Some(decided) => decided,
            None => state.schedule.use_pool(),
        };
        if helpers == 0 || !to_pool {
            let start = Instant::now();
            task(0, item_count, 0);
            state.schedule.work = nanos(start) as f64;
            return;
        }
        self.pooled.fetch_add(1, Ordering::Relaxed);
        state.serial += 1;
        let job = Job {
            serial: state.serial,
            task,
            item_count,
            min_range,
            next: AtomicU32::new(0),
            panic: Mutex::new(None),
            origin: Instant::now(),
            worker_came: AtomicU64::new(0),
            worker_busy: AtomicU64::new(0),
        };
        // Open the job, then hand it over: the last group's calls, if the pool has not
        // run them yet, take ranges of this one when they come.
        self.shared
            .job
            .store((&raw const job).cast_mut().cast::<Job<'static>>(), Ordering::SeqCst);
        self.shared.opened.store(job.serial, Ordering::Release);
        if let Some(id) = state.pending
            && pool.is_done(id)
        {
            pool.wait(id);
            state.pending = None;
        }
        let before = job.elapsed_ns();
        let fresh = state.pending.is_none();
        if fresh {
            state.pending = self.post(pool, helpers);
        }
        let posted = job.elapsed_ns();
        let busy = Instant::now();
        job.take_ranges();
        let mine = nanos(busy) as f64;
        // Close the job: no call enters it now, and those inside finish their range (the
        // ranges are all taken).
        self.shared.job.store(std::ptr::null_mut(), Ordering::SeqCst);
        while self.shared.active.load(Ordering::SeqCst) != 0 {
            std::hint::spin_loop();
        }
        let came = match job.worker_came.load(Ordering::Relaxed) {
            // (No worker came while the job was open: one starts at least that late.)
            0 => job.elapsed_ns(),
            came => came,
        };
        let schedule = &mut state.schedule;
        schedule.work = mine + job.worker_busy.load(Ordering::Relaxed) as f64;
        let post = fresh.then_some((posted - before) as f64);
        schedule.measured(post, came.saturating_sub(posted) as f64);
        drop(state);
        if let Some(panic) = job.panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
            std::panic::resume_unwind(panic);
        }
    }

    /// Posts `elements` calls, each with its own reference to `shared`.
    fn post(&self, pool: &impl Pool, elements: u32) -> Option<i64> {
        let userdata = Arc::into_raw(Arc::clone(&self.shared));
        for _ in 1..elements {
            // SAFETY: `userdata` came from `Arc::into_raw` of a live `Arc`.
            unsafe { Arc::increment_strong_count(userdata) };
        }
        let id = pool.post(userdata.cast_mut().cast::<c_void>(), elements);
        if id.is_none() {
            for _ in 0..elements {
                // SAFETY: the references taken just above, which the pool did not take.
                unsafe { Arc::decrement_strong_count(userdata) };
            }
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::thread::JoinHandle;
    use std::time::Duration;

    use super::*;

    /// A pool of threads that start each call after `delay(group)` (a late worker).
    struct Threads {
        delay: fn(i64) -> Duration,
        groups: Mutex<Vec<(i64, Vec<JoinHandle<()>>)>>,
        next: AtomicU64,
        posted: AtomicU32,
    }

    impl Threads {
        fn new(delay: fn(i64) -> Duration) -> Self {
            Self {
                delay,
                groups: Mutex::new(Vec::new()),
                next: AtomicU64::new(1),
                posted: AtomicU32::new(0),
            }
        }
    }

    impl Pool for Threads {
        fn post(&self, userdata: *mut c_void, elements: u32) -> Option<i64> {
            let id = self.next.fetch_add(1, Ordering::Relaxed) as i64;
            self.posted.fetch_add(1, Ordering::Relaxed);
            let delay = (self.delay)(id);
            let address = userdata as usize;
            let handles = (0..elements)
                .map(|i| {
                    std::thread::spawn(move || {
                        std::thread::sleep(delay);
                        // SAFETY: one reference each, as `post` gives them.
                        unsafe { run_element(address as *mut c_void, i) };
                    })
                })
                .collect();
            self.groups.lock().unwrap().push((id, handles));
            Some(id)
        }

        fn is_done(&self, group: i64) -> bool {
            let groups = self.groups.lock().unwrap();
            let (_, handles) = groups.iter().find(|(id, _)| *id == group).unwrap();
            handles.iter().all(JoinHandle::is_finished)
        }

        fn wait(&self, group: i64) {
            let mut groups = self.groups.lock().unwrap();
            let at = groups.iter().position(|(id, _)| *id == group).unwrap();
            let (_, handles) = groups.remove(at);
            drop(groups);
            handles.into_iter().for_each(|h| h.join().unwrap());
        }
    }

    /// Runs `runs` runs of 40 items in ranges of 3, checking each item is done once; every
    /// third run in a prepared frame, and one frame in two of those with two runs.
    fn check_runs(handoff: &Handoff, pool: &Threads, workers: u32, runs: u32) {
        for run in 0..runs {
            if run % 3 == 0 {
                handoff.prepare(pool, workers);
            }
            let counts: Vec<AtomicU32> = (0..40).map(|_| AtomicU32::new(0)).collect();
            handoff.run(pool, workers, 40, 3, &|start, end, _| {
                // (Slow enough that a worker can come while the run is open.)
                std::thread::sleep(Duration::from_micros(200));
                for i in start..end {
                    counts[i as usize].fetch_add(1, Ordering::Relaxed);
                }
            });
            let done: Vec<u32> = counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
            assert!(done.iter().all(|&n| n == 1), "run {run}: {done:?}");
            if run % 6 != 0 {
                handoff.rest();
            }
        }
    }

    #[test]
    fn every_range_runs_once_whenever_the_workers_come() {
        // Workers on time, late by more than a run (they help a later run, or find none),
        // and a mix.
        let delays: [fn(i64) -> Duration; 3] = [
            |_| Duration::ZERO,
            |_| Duration::from_millis(30),
            |id| Duration::from_micros(if id % 3 == 0 { 5000 } else { 100 }),
        ];
        for delay in delays {
            for workers in [1, 2, 5] {
                let pool = Threads::new(delay);
                let handoff = Handoff::new(0.0);
                check_runs(&handoff, &pool, workers, 30);
                assert_eq!(handoff.pooled(), 30);
                handoff.settle(&pool);
                // Every group was waited for, and every call gave its reference back.
                assert!(pool.groups.lock().unwrap().is_empty());
                assert_eq!(Arc::strong_count(&handoff.shared), 1);
            }
        }
    }

    /// Records which threads ran `runs` runs of 40 items in ranges of 3 (each item once).
    fn runs_by_thread(handoff: &Handoff, pool: &Threads, runs: u32) -> Vec<Vec<std::thread::ThreadId>> {
        (0..runs)
            .map(|_| {
                let ran = Mutex::new(Vec::new());
                let counts: Vec<AtomicU32> = (0..40).map(|_| AtomicU32::new(0)).collect();
                handoff.run(pool, 1, 40, 3, &|start, end, _| {
                    std::thread::sleep(Duration::from_micros(200));
                    ran.lock().unwrap().push(std::thread::current().id());
                    for i in start..end {
                        counts[i as usize].fetch_add(1, Ordering::Relaxed);
                    }
                });
                assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
                ran.into_inner().unwrap()
            })
            .collect()
    }

    /// Waits up to five seconds (a loaded machine's scheduling) for `done`.
    fn within_seconds(what: &str, done: impl Fn() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(5), "{what}");
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    #[test]
    fn a_prepared_frame_has_its_worker_waiting_for_every_run_until_it_rests() {
        // A worker that starts 200 ms after its post, and runs of ~3 ms on one thread: on
        // time only when woken ahead (the host reading its bodies meanwhile).
        let pool = Threads::new(|_| Duration::from_millis(200));
        let me = std::thread::current().id();
        let unprepared = runs_by_thread(&Handoff::new(0.0), &pool, 1);
        assert!(unprepared[0].iter().all(|&t| t == me), "the late worker helped");
        // (Waiting up to 5 s between runs, not 4 ms: on a loaded machine this thread can
        // lose its core for longer between two runs, and a test must not depend on it.)
        let handoff = Handoff {
            shared: Arc::new(Shared {
                most_wait: Duration::from_secs(5),
                ..Shared::default()
            }),
            ..Handoff::new(0.0)
        };
        assert!(handoff.prepare(&pool, 1));
        // (The host reads its bodies until the worker is there.)
        within_seconds("the worker never came", || {
            handoff.shared.waiting.load(Ordering::Relaxed) > 0
        });
        // Three runs in the frame, one group posted for them all, the same worker in each:
        // this thread's ranges wait for it (it may lose its core for a whole run).
        let posted = pool.posted.load(Ordering::Relaxed);
        for run in 0..3 {
            let ran = Mutex::new(Vec::new());
            handoff.run(&pool, 1, 40, 3, &|_, _, _| {
                let this = std::thread::current().id();
                if this == me {
                    within_seconds(&format!("run {run}: no worker"), || {
                        ran.lock().unwrap().iter().any(|&t| t != me)
                    });
                }
                ran.lock().unwrap().push(this);
            });
        }
        assert_eq!(pool.posted.load(Ordering::Relaxed), posted);
        // The waiting call returns once the frame rests, and gives its reference back.
        handoff.rest();
        let group = handoff.state.lock().unwrap().pending.unwrap();
        within_seconds("the waiting call is still waiting", || pool.is_done(group));
        handoff.settle(&pool);
        assert_eq!(Arc::strong_count(&handoff.shared), 1);
    }

    #[test]
    fn a_prepared_frame_that_never_rests_lets_its_workers_go_after_a_while() {
        let pool = Threads::new(|_| Duration::ZERO);
        let handoff = Handoff::new(0.0);
        assert!(handoff.prepare(&pool, 2));
        std::thread::sleep(MOST_WAIT);
        let group = handoff.state.lock().unwrap().pending.unwrap();
        within_seconds("the waiting calls are still waiting", || pool.is_done(group));
        // The next frame posts a new group, and a frame the schedule keeps on this
        // thread wakes nobody.
        assert!(handoff.prepare(&pool, 2));
        assert_eq!(pool.posted.load(Ordering::Relaxed), 2);
        handoff.settle(&pool);
        let kept = Handoff::new(1e6);
        assert!(!kept.prepare(&pool, 2));
        assert_eq!(pool.posted.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_group_not_yet_run_is_not_posted_again() {
        // (A worker 500 ms late: five runs of ~3 ms are over long before, even on a
        // loaded machine.)
        let pool = Threads::new(|_| Duration::from_millis(500));
        let handoff = Handoff::new(0.0);
        check_runs(&handoff, &pool, 1, 5);
        // The first group's worker had not come by the later runs: no other was posted.
        assert_eq!(pool.posted.load(Ordering::Relaxed), 1);
        handoff.settle(&pool);
    }

    #[test]
    fn a_panic_on_a_worker_is_raised_on_the_calling_thread() {
        let pool = Threads::new(|_| Duration::ZERO);
        let handoff = Handoff::new(0.0);
        let on_worker = AtomicBool::new(false);
        let caller = std::thread::current().id();
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            handoff.run(&pool, 1, 2, 1, &|start, _, _| {
                if std::thread::current().id() == caller {
                    // (The caller's first range: the worker takes the other meanwhile.)
                    within_seconds("the worker never came", || on_worker.load(Ordering::Relaxed));
                } else {
                    on_worker.store(true, Ordering::Relaxed);
                    panic!("range {start}");
                }
            })
        }));
        handoff.settle(&pool);
        assert!(on_worker.load(Ordering::Relaxed), "the worker never came");
        assert!(result.is_err());
    }

    #[test]
    fn small_work_stays_on_the_calling_thread_and_big_work_goes_to_the_pool() {
        let mut s = Schedule::new(-1.0);
        // Costs as measured on the slow machine: posting 25 us, a worker 40 us later.
        for _ in 0..40 {
            s.measured(Some(25e3), 40e3);
        }
        assert!((s.threshold() - 90e3).abs() < 1e3, "{s:?}");
        s.work = 40e3;
        assert!(!s.use_pool());
        s.work = 500e3;
        assert!(s.use_pool());
        // A fixed threshold wins; 0 sends every run.
        let mut always = Schedule::new(0.0);
        assert!(always.use_pool());
        let mut fixed = Schedule::new(300.0);
        fixed.work = 299e3;
        assert!(!fixed.use_pool());
        fixed.work = 300e3;
        assert!(fixed.use_pool());
    }

    #[test]
    fn the_pool_is_tried_again_now_and_then_when_the_work_is_below_the_threshold() {
        let mut s = Schedule::new(-1.0);
        s.measured(Some(100e3), 200e3);
        s.work = 0.6 * s.threshold();
        let tries: Vec<u32> = (1..=3 * PROBE_EVERY)
            .filter(|_| {
                let pool = s.use_pool();
                if pool {
                    s.measured(Some(100e3), 200e3);
                }
                pool
            })
            .collect();
        assert_eq!(tries.len(), 3);
    }

    #[test]
    fn a_hiccup_of_the_machine_does_not_keep_the_pool_away() {
        // Posting 25 us and a worker 40 us later, then one post of 2 ms (a virtual
        // machine's vCPU taken away): 150 us of work still goes to the pool.
        let mut s = Schedule::new(-1.0);
        for _ in 0..10 {
            s.measured(Some(25e3), 40e3);
        }
        s.measured(Some(2e6), 40e3);
        s.measured(None, 3e6);
        s.work = 150e3;
        assert!(s.use_pool(), "{s:?}");
        // Costs that really rose (most of the last measures) keep it away.
        for _ in 0..4 {
            s.measured(Some(2e6), 40e3);
        }
        assert!(!s.use_pool(), "{s:?}");
    }

    #[test]
    fn recent_costs_are_their_median() {
        let mut r = Recent::new(5.0);
        assert_eq!(r.median(), 5.0);
        // The guesses go only once the measures are most of them.
        for (v, median) in [(1e9, 5.0), (3.0, 5.0), (1e9, 5.0), (1e9, 5.0), (1e9, 1e9)] {
            r.push(v);
            assert_eq!(r.median(), median);
        }
        // Each new measure takes the oldest one's place.
        for (v, median) in [(9.0, 1e9), (4.0, 1e9), (2.0, 9.0), (8.0, 9.0), (7.0, 8.0)] {
            r.push(v);
            assert_eq!(r.median(), median, "after {v}");
        }
    }

    #[test]
    fn slow_first_handoffs_do_not_keep_the_pool_away() {
        // Godot's first posts and wake-ups can take milliseconds: 600 us of work still
        // goes to the pool after three of them, and the probes bring it back after more.
        let mut s = Schedule::new(-1.0);
        s.work = 600e3;
        for _ in 0..3 {
            s.measured(Some(3e6), 5e6);
        }
        assert!(s.use_pool(), "{s:?}");
        for _ in 0..4 {
            s.measured(Some(3e6), 5e6);
        }
        assert!(!s.use_pool());
        let mut probes = 0;
        for _ in 0..10 * PROBE_EVERY {
            if s.use_pool() {
                probes += 1;
                s.measured(Some(25e3), 40e3);
            }
        }
        // Four probes at 25 + 40 us make the median, and then every run goes.
        assert!(probes > 9 * PROBE_EVERY - 4 * PROBE_EVERY, "{probes}");
    }

    #[test]
    fn a_run_kept_here_measures_its_work() {
        let pool = Threads::new(|_| Duration::ZERO);
        let handoff = Handoff::new(1e6);
        handoff.run(&pool, 2, 4, 1, &|_, _, _| std::thread::sleep(Duration::from_millis(2)));
        assert_eq!(handoff.pooled(), 0);
        assert!(handoff.schedule().work >= 2e6);
        assert_eq!(pool.posted.load(Ordering::Relaxed), 0);
    }
}
