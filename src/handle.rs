//! Generational handles: 64-bit ids that can be checked, never dereferenced.
//!
//! Layout of an id: `kind (4 bits) | slot index (20 bits) | generation (40 bits)`.
//! Generations come from one process-wide counter, so an id is never issued twice: a
//! destroyed, forged or foreign id (a hull of another world, a body passed as a hull)
//! finds no live entry with its generation and is refused. Id 0 is never issued.

use std::sync::atomic::{AtomicU64, Ordering};

const GENERATION_BITS: u32 = 40;
const INDEX_BITS: u32 = 20;
const GENERATION_MASK: u64 = (1 << GENERATION_BITS) - 1;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;

/// The most live objects of one kind in one table.
pub const MAX_SLOTS: usize = (1 << INDEX_BITS) - 1;

/// A hull's id within its world (a C ABI `KeelHull`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct HullId(pub u64);

/// A body's id within its world (a C ABI `KeelBody`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct BodyId(pub u64);

static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// What an id refers to; part of the id, so kinds cannot be confused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum HandleKind {
    /// A world (issued by the C ABI's registry).
    World = 1,
    /// A hull of a world.
    Hull = 2,
    /// A body of a world.
    Body = 3,
}

fn next_generation() -> u64 {
    // 2^40 creations would take decades at a million a second; wrap past zero anyway.
    let g = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed) & GENERATION_MASK;
    if g == 0 { next_generation() } else { g }
}

/// `repr(C)`: the generation, then the object, so that the first bytes of a slot hold
/// both ([`Slots::prefetch`]).
#[repr(C)]
struct Entry<T> {
    generation: u64,
    value: Option<T>,
}

/// A table of objects addressed by generational ids.
pub struct Slots<T> {
    kind: HandleKind,
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Slots<T> {
    /// An empty table issuing ids of `kind`.
    pub const fn new(kind: HandleKind) -> Self {
        Self {
            kind,
            entries: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }

    fn encode(&self, index: usize, generation: u64) -> u64 {
        ((self.kind as u64) << (GENERATION_BITS + INDEX_BITS)) | ((index as u64) << GENERATION_BITS) | generation
    }

    fn decode(&self, id: u64) -> Option<(usize, u64)> {
        if id >> (GENERATION_BITS + INDEX_BITS) != self.kind as u64 {
            return None;
        }
        let index = ((id >> GENERATION_BITS) & INDEX_MASK) as usize;
        Some((index, id & GENERATION_MASK))
    }

    /// Stores `value` and returns its id, or `None` when the table is full.
    pub fn insert(&mut self, value: T) -> Option<u64> {
        let generation = next_generation();
        let index = match self.free.pop() {
            Some(index) => index as usize,
            None => {
                if self.entries.len() >= MAX_SLOTS {
                    return None;
                }
                self.entries.push(Entry {
                    generation: 0,
                    value: None,
                });
                self.entries.len() - 1
            }
        };
        self.entries[index] = Entry {
            generation,
            value: Some(value),
        };
        self.live += 1;
        Some(self.encode(index, generation))
    }

    /// Asks the processor to start loading the slot of `id`, its generation and the first
    /// `bytes` bytes of its object, without reading them: a batch of many bodies asks for
    /// the ones it will check or step next, whose addresses it knows before their
    /// contents.
    #[inline]
    pub fn prefetch(&self, id: u64, bytes: usize) {
        if let Some((index, _)) = self.decode(id) {
            let entry = self.entries.as_ptr().wrapping_add(index);
            let bytes = (std::mem::offset_of!(Entry<T>, value) + bytes).min(std::mem::size_of::<Entry<T>>());
            crate::runtime::prefetch::prefetch(entry.cast(), bytes);
        }
    }

    /// The live object with this id.
    pub fn get(&self, id: u64) -> Option<&T> {
        let (index, generation) = self.decode(id)?;
        let entry = self.entries.get(index)?;
        if entry.generation == generation {
            entry.value.as_ref()
        } else {
            None
        }
    }

    /// The live object with this id, mutably.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        let (index, generation) = self.decode(id)?;
        let entry = self.entries.get_mut(index)?;
        if entry.generation == generation {
            entry.value.as_mut()
        } else {
            None
        }
    }

    /// Removes and returns the object with this id.
    pub fn remove(&mut self, id: u64) -> Option<T> {
        let (index, generation) = self.decode(id)?;
        let entry = self.entries.get_mut(index)?;
        if entry.generation != generation {
            return None;
        }
        let value = entry.value.take()?;
        entry.generation = 0;
        self.free.push(index as u32);
        self.live -= 1;
        Some(value)
    }

    /// Every live object with its id, in slot order (the same order for two tables that
    /// saw the same inserts and removals).
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((self.encode(i, e.generation), e.value.as_ref()?)))
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Removes and returns every live object; their ids stay dead.
    pub fn take_all(&mut self) -> Vec<T> {
        let mut taken = Vec::with_capacity(self.live);
        for (index, entry) in self.entries.iter_mut().enumerate() {
            if let Some(value) = entry.value.take() {
                entry.generation = 0;
                self.free.push(index as u32);
                taken.push(value);
            }
        }
        self.live = 0;
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_never_reused_and_kinds_never_mix() {
        let mut hulls = Slots::new(HandleKind::Hull);
        let bodies: Slots<u32> = Slots::new(HandleKind::Body);
        let a = hulls.insert(1).unwrap();
        assert_ne!(a, 0);
        assert_eq!(hulls.get(a), Some(&1));
        assert!(bodies.get(a).is_none(), "a hull id must not name a body");
        assert_eq!(hulls.remove(a), Some(1));
        assert!(hulls.get(a).is_none());
        let b = hulls.insert(2).unwrap();
        assert_ne!(a, b, "the slot is reused but the id is not");
        assert!(hulls.get(a).is_none());
        assert_eq!(hulls.get(b), Some(&2));
        assert!(hulls.remove(a).is_none());
        assert_eq!(hulls.len(), 1);
    }

    #[test]
    fn ids_of_another_table_of_the_same_kind_are_refused() {
        let mut first = Slots::new(HandleKind::Hull);
        let mut second = Slots::new(HandleKind::Hull);
        let a = first.insert('a').unwrap();
        let b = second.insert('b').unwrap();
        assert!(second.get(a).is_none());
        assert!(first.get(b).is_none());
    }

    #[test]
    fn taking_all_kills_every_id_and_frees_every_slot() {
        let mut slots = Slots::new(HandleKind::Body);
        let ids: Vec<u64> = (0..5).map(|i| slots.insert(i).unwrap()).collect();
        slots.remove(ids[2]);
        let mut taken = slots.take_all();
        taken.sort();
        assert_eq!(taken, [0, 1, 3, 4]);
        assert_eq!(slots.len(), 0);
        assert!(ids.iter().all(|&id| slots.get(id).is_none()));
        let again = slots.insert(9).unwrap();
        assert!(!ids.contains(&again));
        assert_eq!(slots.len(), 1);
    }

    #[test]
    fn forged_ids_are_refused() {
        let mut table = Slots::new(HandleKind::Body);
        table.insert(5u8).unwrap();
        for forged in [0u64, 1, u64::MAX, 3 << 60, (3 << 60) | 12345, 0xdead_beef] {
            assert!(table.get(forged).is_none(), "{forged:#x}");
        }
    }
}
