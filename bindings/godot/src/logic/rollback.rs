//! `KeelWater.save_snapshot`'s bytes: the whole state a rollback needs, Keel's and
//! Godot's, in one buffer.
//!
//! Godot steps a frame in this order: the bodies' `_integrate_forces` (where the first
//! body steps Keel's batch and each applies its force), then the nodes'
//! `_physics_process`, then the physics server integrates. A snapshot taken in
//! `_physics_process` therefore holds the bodies' poses and velocities *before* this
//! frame's integration, Keel's state *after* its step, and the forces Keel has applied
//! and the server has not yet used: all three are saved, and loading puts the same three
//! back (taking out the forces applied since). The bytes:
//!
//! ```text
//! "KGDS" u32 version | u8 pending | f64 scene time | u32 n, n bytes of Keel's snapshot
//! u32 bodies | per body: u64 instance id, u8 wet, 12 f32 transform (basis rows, origin),
//!              3 f32 linear velocity, 3 f32 angular velocity, 3 f32 force, 3 f32 torque
//! ```
//!
//! all little-endian. Floats are stored as their bits: a load gives back what was saved,
//! to the bit.

/// The first four bytes.
pub const MAGIC: &[u8; 4] = b"KGDS";
/// The format's version.
pub const VERSION: u32 = 1;

/// One body's part of a snapshot, in Godot's f32 numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyRecord {
    /// The node's instance id.
    pub id: u64,
    /// Whether Keel found it in the water (its signals' memory).
    pub wet: bool,
    /// `Transform3D`: basis rows x, y, z then the origin.
    pub transform: [f32; 12],
    /// m/s.
    pub linear_velocity: [f32; 3],
    /// rad/s, world axes.
    pub angular_velocity: [f32; 3],
    /// The central force Keel applied this frame, not integrated yet (zero when not
    /// pending), N.
    pub force: [f32; 3],
    /// Likewise the torque, N m.
    pub torque: [f32; 3],
}

/// A decoded snapshot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Taken between Keel's step of a frame and the server's integration (in
    /// `_physics_process`): the forces are pending.
    pub pending: bool,
    /// `KeelWater`'s scene time, s.
    pub time: f64,
    /// `World::snapshot`'s bytes.
    pub keel: Vec<u8>,
    /// The bodies, in the water's order.
    pub bodies: Vec<BodyRecord>,
}

fn put_f32s(out: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        out.extend_from_slice(&v.to_bits().to_le_bytes());
    }
}

impl Snapshot {
    /// The bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(25 + self.keel.len() + self.bodies.len() * 105);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(u8::from(self.pending));
        out.extend_from_slice(&self.time.to_bits().to_le_bytes());
        out.extend_from_slice(&(self.keel.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.keel);
        out.extend_from_slice(&(self.bodies.len() as u32).to_le_bytes());
        for b in &self.bodies {
            out.extend_from_slice(&b.id.to_le_bytes());
            out.push(u8::from(b.wet));
            put_f32s(&mut out, &b.transform);
            put_f32s(&mut out, &b.linear_velocity);
            put_f32s(&mut out, &b.angular_velocity);
            put_f32s(&mut out, &b.force);
            put_f32s(&mut out, &b.torque);
        }
        out
    }

    /// Reads `bytes`; the error says what is wrong with them.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != MAGIC {
            return Err("not a KeelWater snapshot (save_snapshot's bytes start with KGDS)".into());
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!(
                "a snapshot of format {version}; this addon reads format {VERSION}"
            ));
        }
        let pending = r.u8()? != 0;
        let time = f64::from_bits(r.u64()?);
        let n = r.u32()? as usize;
        let keel = r.take(n)?.to_vec();
        let count = r.u32()? as usize;
        let mut bodies = Vec::with_capacity(count.min(bytes.len() / 105 + 1));
        for _ in 0..count {
            let id = r.u64()?;
            let wet = r.u8()? != 0;
            let mut b = BodyRecord {
                id,
                wet,
                ..BodyRecord::default()
            };
            r.f32s(&mut b.transform)?;
            r.f32s(&mut b.linear_velocity)?;
            r.f32s(&mut b.angular_velocity)?;
            r.f32s(&mut b.force)?;
            r.f32s(&mut b.torque)?;
            bodies.push(b);
        }
        if r.at != bytes.len() {
            return Err(format!("{} bytes after the snapshot's end", bytes.len() - r.at));
        }
        Ok(Self {
            pending,
            time,
            keel,
            bodies,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "the snapshot is cut short ({} bytes, more expected at {})",
                    self.bytes.len(),
                    self.at
                )
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("four bytes")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("eight bytes")))
    }
    fn f32s(&mut self, out: &mut [f32]) -> Result<(), String> {
        for v in out {
            *v = f32::from_bits(self.u32()?);
        }
        Ok(())
    }
}

/// Whether the snapshot's bodies are `ids`, in that order: a snapshot restores the
/// bodies it was taken of, no others.
pub fn check_bodies(snapshot: &Snapshot, ids: &[u64]) -> Result<(), String> {
    let saved: Vec<u64> = snapshot.bodies.iter().map(|b| b.id).collect();
    if saved == ids {
        return Ok(());
    }
    Err(format!(
        "the snapshot holds {} bodies and the water has {}{}: bodies were added or removed since (or it is \
         another scene's)",
        saved.len(),
        ids.len(),
        if saved.len() == ids.len() { ", other ones" } else { "" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Snapshot {
        Snapshot {
            pending: true,
            time: 12.345_678_9,
            keel: vec![1, 2, 3, 4, 5],
            bodies: vec![
                BodyRecord {
                    id: 0xdead_beef_0000_0001,
                    wet: true,
                    transform: std::array::from_fn(|i| i as f32 * 0.1 - 0.3),
                    linear_velocity: [1.0, -2.5, f32::MIN_POSITIVE],
                    angular_velocity: [0.0, -0.0, 3.25],
                    force: [1e6, 2.0, -3.0],
                    torque: [4.0, 5.0, 6.0],
                },
                BodyRecord {
                    id: 7,
                    ..BodyRecord::default()
                },
            ],
        }
    }

    #[test]
    fn bytes_give_back_every_bit() {
        let s = sample();
        let bytes = s.encode();
        assert_eq!(&bytes[..4], MAGIC);
        let back = Snapshot::decode(&bytes).unwrap();
        assert_eq!(back, s);
        // -0.0 == 0.0 for PartialEq: check the sign bit survived too.
        assert!(back.bodies[0].angular_velocity[1].is_sign_negative());
    }

    #[test]
    fn damaged_bytes_are_refused_with_a_reason() {
        let bytes = sample().encode();
        assert!(
            Snapshot::decode(&bytes[..bytes.len() - 1])
                .unwrap_err()
                .contains("cut short")
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Snapshot::decode(&longer).unwrap_err().contains("after"));
        let mut other = bytes.clone();
        other[0] = b'X';
        assert!(Snapshot::decode(&other).unwrap_err().contains("KGDS"));
        let mut newer = bytes;
        newer[4] = 2;
        assert!(Snapshot::decode(&newer).unwrap_err().contains("format 2"));
        assert!(Snapshot::decode(&[]).is_err());
    }

    #[test]
    fn only_the_same_bodies_in_the_same_order_are_restored() {
        let s = sample();
        let ids = [0xdead_beef_0000_0001, 7];
        assert!(check_bodies(&s, &ids).is_ok());
        assert!(check_bodies(&s, &[7, 0xdead_beef_0000_0001]).is_err());
        assert!(check_bodies(&s, &ids[..1]).unwrap_err().contains("added or removed"));
    }
}
