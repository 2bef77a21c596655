//! The threads one body's step can share its work with.
//!
//! A big hull stepped alone (`World::step_body`) splits its step into a few sections
//! (the patch's halves, the whole-triangle pass beside the cut triangles, the drag pass),
//! each a few microseconds long. Handing such a section to a thread that is asleep costs
//! about as much as the section saves: the host's thread sleeps on a latch while a pool
//! thread runs the step, a second pool thread is woken for each section, and on a
//! virtual machine each wake-up of an idle core can take tens of microseconds. So the
//! step runs on the host's own thread, and one [`Helper`] thread waits for its sections by
//! spinning, for [`SPIN`] after each (then it parks, and the next step wakes it at its
//! start, while the host transforms the vertices). A section the helper has not picked up
//! by the time the host is done with its own share is taken back and run on the host's
//! thread: a late helper costs nothing but its help.
//!
//! A batch in a two-thread world is shared with the helper too, group of bodies by group
//! ([`Team::share`]: the host's thread from the front, the helper from the back): a batch
//! of small bodies is over in a few hundred microseconds, where handing it to the pool
//! and waking its threads cost a tenth of that (1024 boxes: A/B minimum 687 -> 581 µs).
//! Worlds of more threads keep rayon's pool ([`Team::Pool`]): there every thread has
//! bodies of its own.

use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long the helper waits for the next section by spinning before it parks: longer
/// than the gaps between a step's sections and between back-to-back steps, short enough
/// that a host stepping at 60 Hz loses well under 1 % of a core to it.
pub(crate) const SPIN: Duration = Duration::from_micros(50);

/// Who works on one body's step besides the thread that steps it.
#[derive(Clone, Copy)]
pub(crate) enum Team<'a> {
    /// No one: everything on this thread.
    Alone,
    /// The rayon pool this thread belongs to (a batch with fewer bodies than threads).
    Pool,
    /// The world's helper thread (a body stepped on its own).
    Helper(&'a Helper),
    /// The host's job system (a body stepped on its own in a world given one).
    Host(&'a dyn crate::runtime::tasks::TaskSystem),
}

impl std::fmt::Debug for Team<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Team::Alone => "Alone",
            Team::Pool => "Pool",
            Team::Helper(_) => "Helper",
            Team::Host(_) => "Host",
        })
    }
}

impl Team<'_> {
    /// Whether anyone helps.
    pub(crate) fn is_shared(self) -> bool {
        !matches!(self, Team::Alone)
    }

    /// Runs `a` on this thread and `b` on a helper if one takes it in time, else after
    /// `a` on this thread too.
    pub(crate) fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        match self {
            Team::Alone => (a(), b()),
            Team::Pool => rayon::join(a, b),
            Team::Helper(helper) => helper.join(a, b),
            Team::Host(tasks) => crate::runtime::tasks::join(tasks, a, b),
        }
    }

    /// Runs `first` on this thread, then calls `each` on items from the front as they
    /// come, while the team's other threads start at once on items from the back. Every
    /// thread takes one item at a time as it is free, so the order of processing is
    /// unknown and each item should write its own output. `first` is for work best done
    /// by the thread whose caches hold its data; the two ends keep each thread on much
    /// the same items from one step to the next, whose data its caches still hold.
    pub(crate) fn share<I, R>(self, first: impl FnOnce() -> R + Send, items: I, each: impl Fn(I::Item) + Sync) -> R
    where
        I: DoubleEndedIterator + Send,
        I::Item: Send,
        R: Send,
    {
        self.share_from_both_ends(first, items, |item, _| each(item))
    }

    /// [`Team::share`], telling `each` whether its thread takes items from the front
    /// (`true`) or the back: which items it takes next, so that it can ask for their
    /// memory ahead.
    pub(crate) fn share_from_both_ends<I, R>(
        self,
        first: impl FnOnce() -> R + Send,
        items: I,
        each: impl Fn(I::Item, bool) + Sync,
    ) -> R
    where
        I: DoubleEndedIterator + Send,
        I::Item: Send,
        R: Send,
    {
        match self {
            Team::Alone => {
                let first = first();
                items.for_each(|item| each(item, true));
                first
            }
            _ => {
                let items = Mutex::new(items);
                let take = |front: bool| loop {
                    let next = {
                        let mut items = items.lock().unwrap_or_else(PoisonError::into_inner);
                        if front { items.next() } else { items.next_back() }
                    };
                    match next {
                        Some(item) => each(item, front),
                        None => break,
                    }
                };
                match self {
                    // One task of the host's for the whole section: the front and every
                    // worker's back in it, none started from inside another.
                    Team::Host(tasks) => crate::runtime::tasks::share(tasks, first, &take),
                    // The helper is one thread: it takes the back, and has nothing to
                    // hand on.
                    Team::Helper(helper) => helper.join(|| first_then(first, &take), || take(false)).0,
                    // Rayon's joins nest by design (a thread waiting on a join steals).
                    _ => {
                        let back = || spread(rayon::current_num_threads(), &|| take(false));
                        self.join(|| first_then(first, &take), back).0
                    }
                }
            }
        }
    }
}

/// `first`, then the items from the front.
fn first_then<R>(first: impl FnOnce() -> R, take: &impl Fn(bool)) -> R {
    let first = first();
    take(true);
    first
}

/// `work` on `threads` of this rayon pool's threads, this one first.
fn spread(threads: usize, work: &(impl Fn() + Sync)) {
    if threads <= 1 {
        work();
    } else {
        rayon::join(work, || spread(threads - 1, work));
    }
}

/// The states of the helper's one slot for a section.
const EMPTY: u8 = 0;
/// The host is writing a task into the slot.
const WRITING: u8 = 1;
/// A task waits in the slot.
const POSTED: u8 = 2;
/// The helper runs it.
const TAKEN: u8 = 3;
/// The helper is done with it; the host reads the result and empties the slot.
const DONE: u8 = 4;

/// A section handed to the helper: the address of a [`Job`] on the host's stack and the
/// function that runs it.
#[derive(Clone, Copy)]
struct Task {
    job: *const (),
    run: unsafe fn(*const ()),
}

/// On cache lines of its own: the helper reads it in a loop, and another thread's writes
/// to anything sharing its line would stall both.
#[repr(align(128))]
struct Shared {
    state: AtomicU8,
    /// Written by the host between `WRITING` and `POSTED`, read by the helper after it
    /// has moved the state from `POSTED` to `TAKEN`.
    task: UnsafeCell<Option<Task>>,
    /// Set by the helper before it parks, so that a host posting a task unparks it.
    sleeping: AtomicBool,
    exit: AtomicBool,
}

// SAFETY: `task` is written and read only by the side that owns the slot, as its state
// says (see `Shared::task`); the job behind a task outlives the task's run, because the
// host waits for `DONE` before its `Job` goes out of scope.
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// What a posted section runs and where its result goes, on the host's stack.
struct Job<F, R> {
    work: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<thread::Result<R>>>,
}

/// Runs the [`Job<F, R>`] at `job`.
///
/// # Safety
/// `job` points to a live `Job<F, R>` that no other thread touches until this returns.
unsafe fn run_job<F: FnOnce() -> R + Send, R: Send>(job: *const ()) {
    // SAFETY: the caller's contract.
    let job = unsafe { &*job.cast::<Job<F, R>>() };
    // SAFETY: this thread has the job to itself until it says `DONE`.
    let work = unsafe { (*job.work.get()).take() };
    if let Some(work) = work {
        let result = panic::catch_unwind(AssertUnwindSafe(work));
        // SAFETY: as above.
        unsafe { *job.result.get() = Some(result) };
    }
}

/// A thread that takes one section of a step at a time from the thread stepping a body.
pub(crate) struct Helper {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Helper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Helper").finish_non_exhaustive()
    }
}

impl Helper {
    /// Starts the helper thread (named `name`).
    pub(crate) fn start(name: &str) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            state: AtomicU8::new(EMPTY),
            task: UnsafeCell::new(None),
            sleeping: AtomicBool::new(false),
            exit: AtomicBool::new(false),
        });
        let theirs = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || help(&theirs))?;
        Ok(Self {
            shared,
            thread: Some(thread),
        })
    }

    /// Wakes the helper if it sleeps, so that it is spinning by the time the step posts
    /// its first section.
    pub(crate) fn wake(&self) {
        if self.shared.sleeping.load(Ordering::SeqCst)
            && let Some(thread) = &self.thread
        {
            thread.thread().unpark();
        }
    }

    /// `a` on this thread, `b` on the helper if it takes it before `a` is done (else on
    /// this thread after `a`). Panics in either are passed on, once neither runs.
    pub(crate) fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA,
        B: FnOnce() -> RB + Send,
        RB: Send,
    {
        let shared = &*self.shared;
        // The slot is free unless another section is posted (a section that joins again,
        // or a second thread stepping with this helper): then both run here. So do both
        // on the helper thread itself, which would otherwise hand itself work.
        if crate::runtime::tasks::inside_task()
            || shared
                .state
                .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            let ra = a();
            return (ra, b());
        }
        let job = Job {
            work: UnsafeCell::new(Some(b)),
            result: UnsafeCell::new(None),
        };
        let task = Task {
            job: (&raw const job).cast(),
            run: run_job::<B, RB>,
        };
        // SAFETY: this thread owns the slot while its state is `WRITING`.
        unsafe { *shared.task.get() = Some(task) };
        shared.state.store(POSTED, Ordering::SeqCst);
        self.wake();
        let ra = panic::catch_unwind(AssertUnwindSafe(a));
        let rb = if shared
            .state
            .compare_exchange(POSTED, WRITING, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            // Not taken: back to this thread (unless `a` panicked).
            shared.state.store(EMPTY, Ordering::Release);
            let work = job.work.into_inner();
            match (&ra, work) {
                (Ok(_), Some(work)) => panic::catch_unwind(AssertUnwindSafe(work)),
                _ => Err(Box::new("not run: the other half panicked") as Box<dyn std::any::Any + Send>),
            }
        } else {
            // Taken: the job lives on this stack until the helper is done with it.
            let mut spins = 0u32;
            while shared.state.load(Ordering::Acquire) != DONE {
                spins = spins.saturating_add(1);
                if spins < 1 << 16 {
                    std::hint::spin_loop();
                } else {
                    thread::yield_now();
                }
            }
            let result = job.result.into_inner();
            shared.state.store(EMPTY, Ordering::Release);
            result.unwrap_or_else(|| Err(Box::new("the helper lost its work")))
        };
        match (ra, rb) {
            (Ok(ra), Ok(rb)) => (ra, rb),
            (Err(panic), _) | (_, Err(panic)) => panic::resume_unwind(panic),
        }
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.shared.exit.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            // The helper catches its sections' panics, so it only ends by leaving.
            let _ = thread.join();
        }
    }
}

/// The helper thread: takes posted sections, spins [`SPIN`] after each, then parks.
fn help(shared: &Shared) {
    // What a section starts here runs here (`Helper::join`).
    crate::runtime::tasks::mark_thread_as_keels();
    let mut idle_since = Instant::now();
    let mut spins = 0u32;
    loop {
        if shared.exit.load(Ordering::Acquire) {
            return;
        }
        if shared.state.load(Ordering::Relaxed) == POSTED
            && shared
                .state
                .compare_exchange(POSTED, TAKEN, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            // SAFETY: the slot is this thread's between `TAKEN` and `DONE`, and the job
            // lives until the host sees `DONE`.
            unsafe {
                if let Some(task) = *shared.task.get() {
                    (task.run)(task.job);
                }
            }
            shared.state.store(DONE, Ordering::Release);
            idle_since = Instant::now();
            continue;
        }
        spins = spins.wrapping_add(1);
        // (The clock only now and then: reading it costs more than a spin.)
        if !spins.is_multiple_of(64) || idle_since.elapsed() < SPIN {
            std::hint::spin_loop();
            continue;
        }
        shared.sleeping.store(true, Ordering::SeqCst);
        if shared.state.load(Ordering::SeqCst) != POSTED && !shared.exit.load(Ordering::SeqCst) {
            thread::park();
        }
        shared.sleeping.store(false, Ordering::SeqCst);
        idle_since = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn message(panic: Box<dyn std::any::Any + Send>) -> String {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    }

    /// A second half that, given time, the helper takes: its thread.
    fn taken(helper: &Helper) -> bool {
        let here = thread::current().id();
        let (_, id) = helper.join(|| thread::sleep(Duration::from_millis(2)), || thread::current().id());
        id != here
    }

    #[test]
    fn both_halves_run_once_and_return_their_results() {
        let helper = Helper::start("test-helper").unwrap();
        let runs = AtomicUsize::new(0);
        for i in 0..2000u64 {
            let (a, b) = helper.join(
                || i * 2,
                || {
                    runs.fetch_add(1, Ordering::Relaxed);
                    i * 3
                },
            );
            assert_eq!((a, b), (i * 2, i * 3));
        }
        assert_eq!(runs.load(Ordering::Relaxed), 2000);
    }

    #[test]
    fn the_caller_waits_for_a_section_the_helper_runs() {
        // The second half writes into the caller's frame after the first is done: the
        // caller must not return before it has.
        let helper = Helper::start("test-helper").unwrap();
        let here = thread::current().id();
        let mut there = 0;
        for i in 0..50u64 {
            let mut out = [0u64; 16];
            let (_, id) = helper.join(
                || thread::sleep(Duration::from_micros(200)),
                || {
                    thread::sleep(Duration::from_millis(1));
                    out.fill(i);
                    thread::current().id()
                },
            );
            assert_eq!(out, [i; 16]);
            there += usize::from(id != here);
        }
        assert!(there > 0, "the helper never took a section");
    }

    #[test]
    fn a_parked_helper_is_woken_and_takes_sections() {
        let helper = Helper::start("test-helper").unwrap();
        let mut there = 0;
        for _ in 0..20 {
            // Parked by now.
            thread::sleep(SPIN * 10);
            there += usize::from(taken(&helper));
        }
        assert!(there >= 10, "the helper took {there} of 20");
    }

    #[test]
    fn the_panic_that_reaches_the_caller_is_the_one_that_happened_and_the_helper_lives_on() {
        let helper = Helper::start("test-helper").unwrap();
        for (a_panics, b_panics, expected) in [
            (true, false, "first half"),
            (false, true, "second half"),
            (true, true, "first half"),
        ] {
            let caught = panic::catch_unwind(AssertUnwindSafe(|| {
                helper.join(
                    || {
                        thread::sleep(Duration::from_micros(300));
                        assert!(!a_panics, "first half");
                    },
                    || assert!(!b_panics, "second half"),
                )
            }));
            assert_eq!(message(caught.unwrap_err()), expected);
        }
        assert!((0..20).any(|_| taken(&helper)), "the helper no longer takes sections");
    }

    #[test]
    fn every_item_is_taken_once_first_runs_here_and_the_helper_takes_some() {
        let helper = Helper::start("test-helper").unwrap();
        let here = thread::current().id();
        let mut items: Vec<(u32, Option<thread::ThreadId>, bool)> = vec![(0, None, false); 200];
        let first = Team::Helper(&helper).share_from_both_ends(
            || thread::current().id(),
            items.iter_mut(),
            |(count, by, from_front), front| {
                thread::sleep(Duration::from_micros(50));
                *count += 1;
                *by = Some(thread::current().id());
                *from_front = front;
            },
        );
        assert_eq!(first, here);
        assert!(items.iter().all(|&(count, _, _)| count == 1));
        assert!(
            items.iter().any(|&(_, by, _)| by != Some(here)),
            "the helper took no item"
        );
        // Told apart as taken: the items said to come from the front are the first ones,
        // those from the back the rest, and the helper took from the back.
        let taken_from_front = items.iter().take_while(|&&(_, _, front)| front).count();
        assert!(
            items[taken_from_front..].iter().all(|&(_, _, front)| !front),
            "the front's items are not the first"
        );
        assert!(
            items
                .iter()
                .filter(|&&(_, by, _)| by != Some(here))
                .all(|&(_, _, front)| !front),
            "the helper's items are said to come from the front"
        );
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for team in [Team::Alone, Team::Pool] {
            let mut seen = vec![0u32; 1000];
            let first = pool.install(|| team.share(|| 7, seen.iter_mut(), |s| *s += 1));
            assert_eq!(first, 7);
            assert!(seen.iter().all(|&s| s == 1), "{team:?}");
        }
    }

    #[test]
    fn nested_joins_and_two_callers_at_once_run_what_the_helper_cannot_take_themselves() {
        let helper = Helper::start("test-helper").unwrap();
        let ((a, b), (c, d)) = helper.join(|| helper.join(|| 1, || 2), || helper.join(|| 3, || 4));
        assert_eq!((a, b, c, d), (1, 2, 3, 4));
        let runs = AtomicUsize::new(0);
        thread::scope(|s| {
            for caller in 0..2u64 {
                let (helper, runs) = (&helper, &runs);
                s.spawn(move || {
                    for i in 0..2000u64 {
                        let (a, b) = helper.join(
                            || caller * i,
                            || {
                                runs.fetch_add(1, Ordering::Relaxed);
                                caller + i
                            },
                        );
                        assert_eq!((a, b), (caller * i, caller + i));
                    }
                });
            }
        });
        assert_eq!(runs.load(Ordering::Relaxed), 4000);
        assert!((0..20).any(|_| taken(&helper)), "the helper no longer takes sections");
    }
}
