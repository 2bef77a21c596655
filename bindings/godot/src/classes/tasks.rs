//! Godot's `WorkerThreadPool` as Keel's job system ([`keel::runtime::tasks::TaskSystem`]): a
//! `KeelWater` world runs its parallel work (a batch's groups of bodies, a big body's
//! sections) on Godot's workers and starts no thread of its own inside Godot.
//!
//! Keel's task is a range function `task(start, end, worker)` over `0..item_count` in
//! ranges of at least `min_range` items; Godot's native group task calls a function once
//! per element. One element is one range here. The element function runs on Godot's
//! worker threads and touches nothing of Godot: only the Keel closure behind the pointer,
//! which outlives the group because [`TaskSystem::run`] waits for it.

use std::ffi::c_void;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use godot::classes::{Os, ProjectSettings, WorkerThreadPool};
use godot::prelude::*;
use godot::sys;
use godot::sys::GodotFfi;
use keel::runtime::tasks::TaskSystem;

/// Keel's limit on a job system's workers (`World::with_tasks` refuses more).
const MAX_WORKERS: u32 = 64;

/// Godot's worker pool, as many workers as it runs.
#[derive(Debug)]
pub struct GodotTasks {
    workers: u32,
}

impl GodotTasks {
    /// The pool's size: the project's `threading/worker_pool/max_threads`, or (when that
    /// is -1, the default) the processor count, as Godot sizes the pool.
    pub fn new() -> Self {
        let setting = ProjectSettings::singleton()
            .get_setting("threading/worker_pool/max_threads")
            .try_to::<i64>()
            .unwrap_or(-1);
        let count = if setting > 0 {
            setting
        } else {
            i64::from(Os::singleton().get_processor_count())
        };
        Self {
            workers: u32::try_from(count).unwrap_or(1).clamp(1, MAX_WORKERS),
        }
    }
}

impl Default for GodotTasks {
    fn default() -> Self {
        Self::new()
    }
}

/// What one group's elements share.
struct Group<'a> {
    task: &'a (dyn Fn(u32, u32, u32) + Sync),
    item_count: u32,
    min_range: u32,
    /// The next range nobody has taken: Godot's workers and the waiting thread take
    /// ranges from it, so whoever is awake does the work.
    next: AtomicU32,
    /// A panic on a worker, raised again on the thread that waits (it must not unwind
    /// into Godot's C++).
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl Group<'_> {
    /// Runs ranges until none is left (a panic is kept for the waiting thread).
    fn take_ranges(&self) {
        loop {
            let range = self.next.fetch_add(1, Ordering::Relaxed);
            let start = range.saturating_mul(self.min_range);
            if start >= self.item_count {
                return;
            }
            let end = start.saturating_add(self.min_range).min(self.item_count);
            // Keel does not read the worker index; Godot does not give one.
            if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(|| (self.task)(start, end, 0))) {
                *self.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(panic);
            }
        }
    }
}

/// Godot's element function: ranges of the group behind `userdata`, as many as are left
/// (the element's own index is not used: ranges go to whoever asks first).
unsafe extern "C" fn run_element(userdata: *mut c_void, _element: u32) {
    // SAFETY: `userdata` is the `Group` of a `GodotTasks::run` that waits for the whole
    // group before it returns.
    let group = unsafe { &*userdata.cast::<Group<'_>>() };
    group.take_ranges();
}

impl TaskSystem for GodotTasks {
    fn worker_count(&self) -> u32 {
        self.workers
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        if item_count == 0 {
            return;
        }
        let min_range = min_range.max(1);
        let elements = item_count.div_ceil(min_range);
        let group = Group {
            task,
            item_count,
            min_range,
            next: AtomicU32::new(0),
            panic: Mutex::new(None),
        };
        // The waiting thread works too: Godot's workers take what it has not (waking
        // them costs tens of microseconds on a busy machine; the caller is awake now).
        let helpers = elements - 1;
        if helpers == 0 {
            group.take_ranges();
            if let Some(panic) = group.panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
                std::panic::resume_unwind(panic);
            }
            return;
        }
        let Ok(element_count) = i32::try_from(helpers) else {
            // Too many for Godot's count: run here (Keel runs what is left anyway).
            task(0, item_count, 0);
            return;
        };
        let description = GString::from("Keel");
        let mut pool = WorkerThreadPool::singleton();
        let add = sys::interface_fn!(worker_thread_pool_add_native_group_task);
        // SAFETY: Godot's documented native group task; `group` and `description` live
        // until the group has completed (waited for just below).
        let id = unsafe {
            add(
                pool.obj_sys(),
                Some(run_element),
                (&raw const group).cast_mut().cast::<c_void>(),
                element_count,
                -1,
                sys::conv::SYS_TRUE,
                description.sys().cast(),
            )
        };
        group.take_ranges();
        pool.wait_for_group_task_completion(id);
        if let Some(panic) = group.panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
            std::panic::resume_unwind(panic);
        }
    }
}
