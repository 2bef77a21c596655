//! Godot's `WorkerThreadPool` as Keel's job system ([`keel::runtime::tasks::TaskSystem`]): a
//! `KeelWater` world runs its parallel work (a batch's groups of bodies, a big body's
//! sections) on Godot's workers and starts no thread of its own inside Godot. How the work
//! is handed over, and when it is not (when the pool would be slower than the physics
//! thread alone), is [`crate::logic::handoff`]'s.

use std::ffi::c_void;

use godot::classes::{Os, ProjectSettings, WorkerThreadPool};
use godot::prelude::*;
use godot::sys;
use godot::sys::GodotFfi;
use keel::runtime::tasks::TaskSystem;

use crate::logic::handoff::{Handoff, Pool, run_element};

/// Keel's limit on a job system's workers (`World::with_tasks` refuses more).
const MAX_WORKERS: u32 = 64;

/// Godot's worker pool, as many workers as it runs.
#[derive(Debug)]
pub struct GodotTasks {
    workers: u32,
    /// The workers woken ahead of a frame's step: one core fewer than the machine has
    /// (the physics thread keeps one while they wait).
    ahead: u32,
    handoff: Handoff,
}

impl GodotTasks {
    /// The pool's size: the project's `threading/worker_pool/max_threads`, or (when that
    /// is -1, the default) the processor count, as Godot sizes the pool. `min_work_usec`:
    /// the work (us on one thread) above which Keel's work goes to the pool, negative for
    /// when it pays (measured as the scene runs).
    pub fn new(min_work_usec: f64) -> Self {
        let setting = ProjectSettings::singleton()
            .get_setting("threading/worker_pool/max_threads")
            .try_to::<i64>()
            .unwrap_or(-1);
        let cores = i64::from(Os::singleton().get_processor_count());
        let count = if setting > 0 { setting } else { cores };
        let workers = u32::try_from(count).unwrap_or(1).clamp(1, MAX_WORKERS);
        Self {
            workers,
            ahead: workers.min(u32::try_from(cores - 1).unwrap_or(0)),
            handoff: Handoff::new(min_work_usec),
        }
    }

    /// How many times Keel's work went to the pool.
    pub fn pooled(&self) -> u64 {
        self.handoff.pooled()
    }

    /// Before a frame's own work that precedes Keel's step (reading the bodies): wakes
    /// the pool's workers now when the step is expected to go to them, so that they are
    /// there when it starts ([`Handoff::prepare`]); they go back to the pool when the
    /// returned guard goes, after the step.
    pub fn ahead(&self) -> Ahead<'_> {
        if self.ahead > 0 {
            self.handoff.prepare(&GodotPool, self.ahead);
        }
        Ahead(self)
    }
}

/// A frame whose workers may have been woken ahead ([`GodotTasks::ahead`]): they go back
/// to the pool when this goes.
pub struct Ahead<'a>(&'a GodotTasks);

impl Drop for Ahead<'_> {
    fn drop(&mut self) {
        self.0.handoff.rest();
    }
}

impl Drop for GodotTasks {
    fn drop(&mut self) {
        // (Godot frees a group when it is waited for.)
        self.handoff.settle(&GodotPool);
    }
}

/// Godot's `WorkerThreadPool`, as the handoff posts to it.
struct GodotPool;

impl Pool for GodotPool {
    fn post(&self, userdata: *mut c_void, elements: u32) -> Option<i64> {
        let elements = i32::try_from(elements).ok()?;
        let description = GString::from("Keel");
        let pool = WorkerThreadPool::singleton();
        let add = sys::interface_fn!(worker_thread_pool_add_native_group_task);
        // SAFETY: Godot's documented native group task; each call of `run_element` owns
        // one reference of `userdata` (the handoff's contract). Godot copies the
        // description.
        let id = unsafe {
            add(
                pool.obj_sys(),
                Some(run_element),
                userdata,
                elements,
                -1,
                sys::conv::SYS_TRUE,
                description.sys().cast(),
            )
        };
        Some(id)
    }

    fn is_done(&self, group: i64) -> bool {
        WorkerThreadPool::singleton().is_group_task_completed(group)
    }

    fn wait(&self, group: i64) {
        WorkerThreadPool::singleton().wait_for_group_task_completion(group);
    }
}

impl TaskSystem for GodotTasks {
    fn worker_count(&self) -> u32 {
        self.workers
    }

    fn run(&self, item_count: u32, min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        self.handoff.run(&GodotPool, self.workers, item_count, min_range, task);
    }
}
