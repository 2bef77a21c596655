//! A world's and a body's snapshots (rollback and replay), in the byte format of
//! [`crate::snapshot`]: what the world writes, reads back and hashes.

use super::{BodyId, World};
use crate::error::{Error, Result};
use crate::snapshot::{Count, FORMAT_VERSION, Fnv, KIND_WORLD, MAGIC, Reader, Sink, Writer, too_small};

impl World {
    /// Bytes of a body's snapshot: 32 plus 12 per row of its hull (its triangles padded
    /// to a multiple of the step's loops' width).
    pub fn body_snapshot_size(&self, id: BodyId) -> Result<usize> {
        Ok(self.body(id)?.snapshot_len())
    }

    /// Writes a body's snapshot into `out` and returns its length
    /// ([`World::body_snapshot_size`]; a shorter `out` is an `ErrorKind::BufferTooSmall`
    /// with nothing written).
    pub fn snapshot_body(&self, id: BodyId, out: &mut [u8]) -> Result<usize> {
        let body = self.body(id)?;
        let needed = body.snapshot_len();
        if out.len() < needed {
            return Err(too_small(out.len(), needed));
        }
        let mut w = Writer { out, at: 0 };
        body.write_snapshot(&mut w);
        debug_assert_eq!(w.at, needed);
        Ok(needed)
    }

    /// Restores a body's snapshot: its next step gives the bits the step after the
    /// snapshot gave. A snapshot of another hull's geometry or another format version,
    /// or bytes that are not a whole snapshot, are refused (`ErrorKind::InvalidArgument`)
    /// with nothing changed.
    pub fn restore_body(&mut self, id: BodyId, bytes: &[u8]) -> Result<()> {
        let mut reader = Reader::new(bytes);
        let record = reader.body()?;
        reader.finish()?;
        let mut body = self.body(id)?;
        body.check_snapshot(&record)?;
        body.restore_snapshot(&record);
        drop(body);
        // The last batch's groups were keyed on whether each body had a last step.
        self.forget_batch();
        Ok(())
    }

    fn write_snapshot(&self, sink: &mut impl Sink) {
        sink.u32(MAGIC);
        sink.u32(FORMAT_VERSION);
        sink.u32(KIND_WORLD);
        sink.u32(self.body_count() as u32);
        sink.f64(self.time());
        sink.vec3(self.wind());
        sink.vec3(self.current());
        sink.vec3(self.origin());
        for (id, body) in self.bodies() {
            sink.id(id.0);
            body.write_snapshot(sink);
        }
    }

    /// Bytes of the world's snapshot: 96, and per body 8 plus its own
    /// ([`World::body_snapshot_size`]).
    pub fn snapshot_size(&self) -> usize {
        let mut count = Count::default();
        self.write_snapshot(&mut count);
        count.0
    }

    /// Writes the world's snapshot (its water time, wind, current and origin, and every
    /// body's) into `out` and returns its length ([`World::snapshot_size`]; a shorter
    /// `out` is an `ErrorKind::BufferTooSmall` with nothing written).
    pub fn snapshot(&self, out: &mut [u8]) -> Result<usize> {
        let needed = self.snapshot_size();
        if out.len() < needed {
            return Err(too_small(out.len(), needed));
        }
        let mut w = Writer { out, at: 0 };
        self.write_snapshot(&mut w);
        debug_assert_eq!(w.at, needed);
        Ok(needed)
    }

    /// Restores a world's snapshot into this world, which must hold the same bodies (the
    /// same ids: the world it was taken of, with no body created or destroyed since) with
    /// hulls of the same geometry; otherwise, or for a snapshot of another format
    /// version or bytes that are not a whole snapshot, it is refused
    /// (`ErrorKind::InvalidArgument`) with nothing changed. (A game whose rollback
    /// recreates bodies restores each with [`World::restore_body`].)
    pub fn restore(&mut self, bytes: &[u8]) -> Result<()> {
        // Everything checked first, then applied: a refusal changes nothing.
        for apply in [false, true] {
            let mut reader = Reader::new(bytes);
            reader.header(KIND_WORLD)?;
            let count = reader.u32()? as usize;
            let time = reader.f64()?;
            let (wind, current, origin) = (reader.vec3()?, reader.vec3()?, reader.vec3()?);
            if count != self.body_count() {
                return Err(Error::argument(format!(
                    "the snapshot holds {count} bodies, this world {}",
                    self.body_count()
                )));
            }
            // The world's bodies in the order the snapshot lists them (slot order).
            let mut live = self.bodies();
            for i in 0..count {
                let id = BodyId(reader.u64()?);
                let record = reader
                    .body()
                    .map_err(|e| Error::argument(format!("body {i}: {}", e.message)))?;
                let (live_id, mut body) = live
                    .next()
                    .ok_or_else(|| Error::argument("the world has fewer bodies"))?;
                if live_id != id {
                    return Err(Error::argument(format!(
                        "body {i} of the snapshot is {:#x}, of this world {:#x}: bodies were created or destroyed \
                         since the snapshot (restore each with keel_body_restore)",
                        id.0, live_id.0
                    )));
                }
                if apply {
                    body.restore_snapshot(&record);
                } else {
                    body.check_snapshot(&record)
                        .map_err(|e| Error::argument(format!("body {i} ({:#x}): {}", id.0, e.message)))?;
                }
            }
            drop(live);
            reader.finish()?;
            if apply {
                self.restore_conditions(time, wind, current, origin)?;
            } else {
                self.check_conditions(time, wind, current, origin)?;
            }
        }
        self.forget_batch();
        Ok(())
    }

    /// FNV-1a (64 bits) over the world's snapshot but its body ids: equal on two peers
    /// whose worlds hold the same bodies, created in the same order, in the same state.
    /// Compare it between peers to detect a desync. (It covers what keel keeps; the
    /// bodies' positions and velocities are the host's, to hash beside it.)
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv::default();
        self.write_snapshot(&mut h);
        h.0
    }
}
