//! Snapshots of the dynamic state a step reads from the past, for rollback netcode and
//! replays: restore a past frame, step the same frames again, get the same bits.
//!
//! What a step of a body reads besides its inputs is whether it has a last step and the
//! slamming history that step left (each triangle's swept volume rate `A v`). Nothing
//! else carries over: the water patch and the samples of the water are taken anew at every
//! step, and the last step's detail is replayed from what that step saw. A world adds its
//! water time, wind, current and origin. The water itself (its kind and parameters, a
//! heightfield's heights, a callback) and the bodies' descriptions are the host's
//! configuration, set again by the host if it changed them.
//!
//! A snapshot is plain little-endian bytes, the same on every machine (docs/SNAPSHOT.md
//! gives every offset, what a restore refuses, and the compatibility rule):
//!
//! ```text
//! body  = magic "KEEL" (u32), FORMAT_VERSION (u32), KIND_BODY (u32), flags (u32:
//!         bit 0 = has a last step, the others 0), hull fingerprint (u64), rows (u32),
//!         reserved (u32, 0), then the history: rows x f32 of x, then of y, then of z,
//!         every one finite, the padding rows past the hull's triangles zero
//! world = magic (u32), FORMAT_VERSION (u32), KIND_WORLD (u32), body count (u32),
//!         time (f64), wind (3 x f64), current (3 x f64), origin (3 x f64),
//!         then per body, in the world's slot order: its id (u64), its body snapshot
//! ```
//!
//! A restore checks every value before it applies any: what a step could not have
//! written (a NaN or an infinity in the history, a padding row not zero) would jam the
//! body, and a non-zero reserved word is a later format's.
//!
//! The hull fingerprint is FNV-1a over the hull's welded vertices and triangles: a
//! snapshot restores into any body of a hull of the same geometry, and is refused
//! (`InvalidArgument`) by another, as it is from another format version.
//!
//! The world's state hash ([`crate::World::state_hash`]) is FNV-1a over the world
//! snapshot's bytes but its body ids, which come from a process-wide counter, with the
//! history's zeros all taken as +0: two peers that created the same bodies in the same
//! order agree on it, whatever their thread counts and whether they step bodies in
//! batches or one at a time.

use glam::DVec3;

use crate::error::{Error, ErrorKind, Result};

/// "KEEL" read as a little-endian u32: the first four bytes of every snapshot.
pub const MAGIC: u32 = u32::from_le_bytes(*b"KEEL");
/// The snapshot format's version: a buffer of another is refused.
pub const FORMAT_VERSION: u32 = 1;
/// A body's snapshot.
pub(crate) const KIND_BODY: u32 = 1;
/// A world's snapshot.
pub(crate) const KIND_WORLD: u32 = 2;
/// Bytes of a body snapshot before its history.
pub(crate) const BODY_HEADER_BYTES: usize = 32;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, 64 bits, fed as bytes come.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(FNV_OFFSET)
    }
}

impl Fnv {
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }
}

/// Where a snapshot's bytes go: a buffer, a hash, or nowhere (to count them). One writer
/// for the three, so that the size asked for, the bytes written and the bytes hashed can
/// never disagree.
pub(crate) trait Sink {
    fn bytes(&mut self, bytes: &[u8]);
    /// A body's id: written to a buffer, left out of a hash.
    fn id(&mut self, id: u64) {
        self.bytes(&id.to_le_bytes());
    }
    fn u32(&mut self, x: u32) {
        self.bytes(&x.to_le_bytes());
    }
    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
    fn f64(&mut self, x: f64) {
        self.bytes(&x.to_le_bytes());
    }
    fn vec3(&mut self, v: DVec3) {
        self.f64(v.x);
        self.f64(v.y);
        self.f64(v.z);
    }
    fn f32s(&mut self, xs: &[f32]) {
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }
}

/// Counts bytes.
#[derive(Default)]
pub(crate) struct Count(pub usize);

impl Sink for Count {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

/// Writes into a buffer known to be large enough.
pub(crate) struct Writer<'a> {
    pub out: &'a mut [u8],
    pub at: usize,
}

impl Sink for Writer<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        self.out[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

/// Hashes, leaving ids out, and zeros of either sign alike: a body stepped alone and one
/// stepped in a group of the lanes get the same forces to the bit, but a triangle with
/// nothing to remember may keep a zero of either sign in its history.
impl Sink for Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        Fnv::bytes(self, bytes);
    }
    fn id(&mut self, _id: u64) {}
    fn f32s(&mut self, xs: &[f32]) {
        for x in xs {
            let x = if *x == 0.0 { 0.0f32 } else { *x };
            Fnv::bytes(self, &x.to_le_bytes());
        }
    }
}

/// FNV-1a over a hull's welded vertices (f64 bits) and triangles.
pub(crate) fn hull_fingerprint(positions: &[DVec3], triangles: &[[u32; 3]]) -> u64 {
    let mut h = Fnv::default();
    h.u64(positions.len() as u64);
    for p in positions {
        h.vec3(*p);
    }
    h.u64(triangles.len() as u64);
    for t in triangles {
        t.iter().for_each(|&i| h.u32(i));
    }
    h.0
}

/// Reads a snapshot, refusing with a message that says what is wrong.
pub(crate) struct Reader<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                Error::argument(format!(
                    "the snapshot is cut short: {} bytes, more than {} needed",
                    self.bytes.len(),
                    self.at
                ))
            })?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    pub fn vec3(&mut self) -> Result<DVec3> {
        Ok(DVec3::new(self.f64()?, self.f64()?, self.f64()?))
    }

    /// The magic, the version and the kind.
    pub fn header(&mut self, kind: u32) -> Result<()> {
        let magic = self.u32()?;
        if magic != MAGIC {
            return Err(Error::argument(format!(
                "not a keel snapshot (its first bytes are {magic:#010x}, not \"KEEL\")"
            )));
        }
        let version = self.u32()?;
        if version != FORMAT_VERSION {
            return Err(Error::argument(format!(
                "the snapshot is of format version {version}; this library reads version {FORMAT_VERSION}"
            )));
        }
        let found = self.u32()?;
        if found != kind {
            let name = |k| match k {
                KIND_BODY => "a body's",
                KIND_WORLD => "a world's",
                _ => "an unknown kind of",
            };
            return Err(Error::argument(format!(
                "the snapshot is {} snapshot, not {}",
                name(found),
                name(kind)
            )));
        }
        Ok(())
    }

    /// Whether every byte has been read.
    pub fn finish(&self) -> Result<()> {
        if self.at != self.bytes.len() {
            return Err(Error::argument(format!(
                "the snapshot is {} bytes, {} more than its contents",
                self.bytes.len(),
                self.bytes.len() - self.at
            )));
        }
        Ok(())
    }
}

/// A body's snapshot as read, checked against its format but not yet against a body.
pub(crate) struct BodyRecord<'a> {
    pub has_history: bool,
    pub fingerprint: u64,
    pub rows: usize,
    /// `3 * rows` little-endian f32.
    pub history: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A body's snapshot (its header's magic and version included).
    pub fn body(&mut self) -> Result<BodyRecord<'a>> {
        self.header(KIND_BODY)?;
        let flags = self.u32()?;
        if flags & !1 != 0 {
            return Err(Error::argument(format!(
                "the snapshot's flags {flags:#x} are not a body's"
            )));
        }
        let fingerprint = self.u64()?;
        let rows = self.u32()? as usize;
        let reserved = self.u32()?;
        if reserved != 0 {
            // (Zero in this version, so that a later one can give it a meaning.)
            return Err(Error::argument(format!(
                "the snapshot's reserved word is {reserved:#x}, not 0: a later format's, or damaged"
            )));
        }
        let history = self.take(rows.saturating_mul(12))?;
        // Every rate a step can leave is finite (`loops::whole::narrow` clamps it to
        // f32's range): a NaN or an infinity would make every next step's forces
        // non-finite, so the body could not step until another snapshot came.
        if let Some(at) = history
            .chunks_exact(4)
            .position(|x| !f32::from_le_bytes(x.try_into().expect("4 bytes")).is_finite())
        {
            let value = f32::from_le_bytes(history[4 * at..4 * at + 4].try_into().expect("4 bytes"));
            return Err(Error::argument(format!(
                "the snapshot's slamming history holds {value} (row {}, {}): every rate must be finite",
                at % rows,
                ["x", "y", "z"][at / rows]
            )));
        }
        Ok(BodyRecord {
            has_history: flags & 1 != 0,
            fingerprint,
            rows,
            history,
        })
    }
}

pub(crate) fn too_small(capacity: usize, needed: usize) -> Error {
    Error::new(
        ErrorKind::BufferTooSmall,
        format!("the buffer is {capacity} bytes but the snapshot needs {needed}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_1a_matches_its_published_test_vectors() {
        // From the FNV reference (Fowler, Noll, Vo): "" and "a" and "foobar".
        for (text, hash) in [
            ("", 0xcbf2_9ce4_8422_2325u64),
            ("a", 0xaf63_dc4c_8601_ec8c),
            ("foobar", 0x8594_4171_f739_67e8),
        ] {
            let mut h = Fnv::default();
            h.bytes(text.as_bytes());
            assert_eq!(h.0, hash, "{text:?}");
        }
    }

    #[test]
    fn a_reader_refuses_what_is_not_a_snapshot_of_its_kind() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&MAGIC.to_le_bytes());
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&KIND_WORLD.to_le_bytes());
        assert!(Reader::new(&bytes).header(KIND_WORLD).is_ok());
        let err = Reader::new(&bytes).header(KIND_BODY).unwrap_err();
        assert!(
            err.message.contains("a world's snapshot, not a body's"),
            "{}",
            err.message
        );
        let mut old = bytes.clone();
        old[4..8].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        let err = Reader::new(&old).header(KIND_WORLD).unwrap_err();
        assert!(err.message.contains("format version"), "{}", err.message);
        let err = Reader::new(&bytes[..6]).header(KIND_WORLD).unwrap_err();
        assert!(err.message.contains("cut short"), "{}", err.message);
        let err = Reader::new(b"nope nope nope").header(KIND_WORLD).unwrap_err();
        assert!(err.message.contains("not a keel snapshot"), "{}", err.message);
    }
}
