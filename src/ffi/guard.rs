//! The edge: panics caught, errors recorded per thread, pointers checked, worlds looked up.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use super::types::KeelStatus;
use crate::error::{Error, ErrorKind, Result};
use crate::handle::{HandleKind, Slots};
use crate::world::World;

thread_local! {
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Worlds whose lock this thread holds: a water callback that calls back into its
    /// own world would otherwise wait for itself forever.
    static HELD: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

fn held(handle: u64) -> bool {
    HELD.with(|h| h.borrow().contains(&handle))
}

fn reentrant(handle: u64) -> Error {
    Error::argument(format!(
        "world {handle:#x} is busy in a call on this thread: a water callback must not call keel on its own world"
    ))
}

/// Marks a world as held by this thread for as long as it lives.
struct Holding(u64);

impl Holding {
    fn new(handle: u64) -> Self {
        HELD.with(|h| h.borrow_mut().push(handle));
        Holding(handle)
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        HELD.with(|h| {
            let mut h = h.borrow_mut();
            if let Some(i) = h.iter().rposition(|&w| w == self.0) {
                h.remove(i);
            }
        });
    }
}

type WorldCell = Arc<Mutex<World>>;

/// Every live world. Each world has its own lock, so calls on different worlds never
/// wait for each other; the registry is held only to find or change the table.
static WORLDS: Mutex<Slots<WorldCell>> = Mutex::new(Slots::new(HandleKind::World));

fn worlds() -> std::sync::MutexGuard<'static, Slots<WorldCell>> {
    WORLDS.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn with_last_error<R>(f: impl FnOnce(&[u8]) -> R) -> R {
    LAST_ERROR.with(|e| f(&e.borrow()))
}

fn set_last_error(function: &str, message: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.extend_from_slice(function.as_bytes());
        e.extend_from_slice(b": ");
        // A NUL inside the message would cut it short in C.
        e.extend(message.bytes().filter(|&b| b != 0));
    });
}

/// Runs `body`, turning its error or panic into a status and the thread's last message.
pub(crate) fn call(function: &str, body: impl FnOnce() -> Result<()>) -> KeelStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => KeelStatus::KEEL_OK,
        Ok(Err(error)) => {
            set_last_error(function, &error.message);
            error.kind.into()
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(
                function,
                &format!("internal error (a bug in keel, please report it): {what}"),
            );
            KeelStatus::KEEL_ERROR_INTERNAL
        }
    }
}

/// Stores a new world and returns its handle.
pub(crate) fn register(world: World) -> Result<u64> {
    worlds()
        .insert(Arc::new(Mutex::new(world)))
        .ok_or_else(|| Error::argument("too many worlds"))
}

/// Removes a world; calls already running on it finish first.
pub(crate) fn unregister(handle: u64) -> Result<()> {
    if held(handle) {
        return Err(reentrant(handle));
    }
    let cell = worlds().remove(handle).ok_or_else(|| unknown_world(handle))?;
    // Wait for calls in flight, then drop the world (and its threads) outside the registry lock.
    drop(cell.lock().unwrap_or_else(PoisonError::into_inner));
    Ok(())
}

/// Unregisters every world and drops each once no call is using it. Refused from inside
/// a call on a world (a water callback), which would wait for itself.
pub(crate) fn unregister_all() -> Result<u32> {
    if HELD.with(|h| !h.borrow().is_empty()) {
        return Err(Error::argument(
            "called from inside a call on a world (a water callback): nothing was destroyed",
        ));
    }
    let cells = worlds().take_all();
    let count = cells.len() as u32;
    for cell in cells {
        drop(cell.lock().unwrap_or_else(PoisonError::into_inner));
    }
    Ok(count)
}

pub(crate) fn live_world_count() -> u32 {
    worlds().len() as u32
}

fn unknown_world(handle: u64) -> Error {
    Error::handle(format!(
        "world {handle:#x} is not a live world (destroyed or never created)"
    ))
}

/// Runs `f` on a world, holding the world's lock.
pub(crate) fn with_world<R>(handle: u64, f: impl FnOnce(&mut World) -> Result<R>) -> Result<R> {
    let cell = worlds().get(handle).cloned().ok_or_else(|| unknown_world(handle))?;
    if held(handle) {
        return Err(reentrant(handle));
    }
    let mut world = cell.lock().unwrap_or_else(PoisonError::into_inner);
    let _holding = Holding::new(handle);
    f(&mut world)
}

fn check_aligned<T>(ptr: *const T, name: &str) -> Result<()> {
    if !(ptr as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(Error::argument(format!("{name} is not aligned for its type")));
    }
    Ok(())
}

fn null(name: &str) -> Error {
    Error::new(ErrorKind::NullPointer, format!("{name} must not be NULL"))
}

/// Reads a required input struct.
///
/// # Safety
/// `ptr` is NULL or points to a valid `T`.
pub(crate) unsafe fn read<T: Copy>(ptr: *const T, name: &str) -> Result<T> {
    if ptr.is_null() {
        return Err(null(name));
    }
    check_aligned(ptr, name)?;
    // SAFETY: non-NULL and aligned; validity is the caller's contract.
    Ok(unsafe { *ptr })
}

/// A required output.
///
/// # Safety
/// `ptr` is NULL or points to a valid, writable `T` not aliased during the call.
pub(crate) unsafe fn output<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut T> {
    if ptr.is_null() {
        return Err(null(name));
    }
    check_aligned(ptr, name)?;
    // SAFETY: as above.
    Ok(unsafe { &mut *ptr })
}

/// An input array; NULL is accepted only with a count of 0.
///
/// # Safety
/// `ptr` is NULL or points to `count` valid `T`s.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, count: u32, name: &str) -> Result<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null(name));
    }
    check_aligned(ptr, name)?;
    // SAFETY: as above.
    Ok(unsafe { std::slice::from_raw_parts(ptr, count as usize) })
}

/// An output array; NULL is accepted only with a count of 0.
///
/// # Safety
/// `ptr` is NULL or points to `count` writable `T`s not aliased during the call.
pub(crate) unsafe fn slice_mut<'a, T>(ptr: *mut T, count: u32, name: &str) -> Result<&'a mut [T]> {
    if count == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(null(name));
    }
    check_aligned(ptr, name)?;
    // SAFETY: as above.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, count as usize) })
}

/// An optional output array: `None` for NULL.
///
/// # Safety
/// As [`slice_mut`].
pub(crate) unsafe fn optional_slice_mut<'a, T>(ptr: *mut T, count: u32, name: &str) -> Result<Option<&'a mut [T]>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        unsafe { slice_mut(ptr, count, name) }.map(Some)
    }
}
