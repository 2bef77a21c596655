//! A hasher for the maps a frame looks bodies up in by the host's id.
//!
//! Godot's instance ids are unique 64-bit numbers (an ObjectDB slot in the low bits, a
//! validator above it) that no one outside the process chooses, so the flooding SipHash
//! guards against cannot happen; SipHash of one `u64` is some 20 ns, and a frame looked
//! every body up twice (issue 39 item 4). Here the id is multiplied by an odd constant
//! (Fibonacci hashing, Knuth's multiplicative method): a bijection whose low bits, which
//! pick the bucket, are distinct for distinct slots, and whose high bits, which the map
//! compares first, are mixed from every bit of the id.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// 2^64 divided by the golden ratio, odd.
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Multiplies what it is given by [`K`]; a key written in pieces (not a Godot id) mixes
/// each piece in turn.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(K);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by ids, with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::{BuildHasher, Hash};

    use super::*;

    fn hash<T: Hash>(t: T) -> u64 {
        BuildHasherDefault::<IdHasher>::default().hash_one(t)
    }

    #[test]
    fn consecutive_slots_fill_distinct_buckets() {
        // Godot's ids: a slot in the low 24 bits, a validator above. 4096 consecutive
        // slots under one validator land in 4096 distinct buckets of a 4096-bucket table.
        let validator = 0x5a5a_u64 << 24;
        let buckets: HashSet<u64> = (0..4096u64).map(|slot| hash(validator | slot) & 4095).collect();
        assert_eq!(buckets.len(), 4096);
    }

    #[test]
    fn high_bits_depend_on_the_validator() {
        // The same slot under two validators (a freed object's slot reused) must differ
        // in the top seven bits hashbrown compares first, not only somewhere.
        let top = |id: u64| hash(id) >> 57;
        let differ = (1..200u64).filter(|v| top(v << 24) != top((v + 1) << 24)).count();
        assert!(differ > 150, "{differ} of 199");
    }

    #[test]
    fn a_map_finds_what_it_holds() {
        let mut map: IdMap<u64, usize> = IdMap::default();
        for i in 0..1000u64 {
            map.insert((i * 7919) << 24 | i, i as usize);
        }
        for i in 0..1000u64 {
            assert_eq!(map.get(&((i * 7919) << 24 | i)), Some(&(i as usize)));
        }
        assert_eq!(map.get(&1), None);
    }
}
