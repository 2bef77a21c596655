//! Stage 3, pass one: every triangle clipped at the waterline and the hydrostatic,
//! slamming and air forces summed. Whole triangles (wholly under or above the water) go
//! through the vectorised loops of [`crate::loops::whole`] by chunks of rows, shared
//! with the step's team for a big hull; the cut ones through [`super::cut`].

use glam::DVec3;

use super::{Rows, Step};
use crate::body::{Output, Sink};
use crate::forces::buoyancy;
use crate::loops::whole::{
    ChunkOutput, History, HistoryChunk, HistoryChunkMut, Mesh, PARALLEL_ROWS, Scratch, WetRowsMut, WetTriangles,
    WholeSums, chunk_ranges, whole_pass,
};
use crate::runtime::profile::{self, Section};
use crate::runtime::team::Team;

/// What the first pass sums: the hydrostatic, slamming and air forces with their moments
/// about the centre of mass, and the wetted and emerged surfaces' integrals.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PassOne {
    pub buoyancy: Sum,
    pub slamming: Sum,
    pub air: Sum,
    pub volume: buoyancy::SubmergedVolume,
    pub wetted_area: f64,
    pub wetted_moment: DVec3,
    pub projected_area: f64,
    pub emerged_area: f64,
    pub emerged_moment: DVec3,
}

/// What the cut triangles add up to (the whole triangles' pass has its own sums).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CutSums {
    pub buoyancy: Sum,
    pub slamming: Sum,
    pub air: Sum,
    pub volume: buoyancy::SubmergedVolume,
    pub wetted_area: f64,
    pub wetted_moment: DVec3,
    pub projected_area: f64,
    pub emerged_area: f64,
    pub emerged_moment: DVec3,
    /// Pieces under the water, when they were not kept in the step's output.
    pub pieces: usize,
}

/// Running sums of one kind of force and its moment about the centre of mass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sum {
    pub force: DVec3,
    pub torque: DVec3,
}

impl Sum {
    #[inline]
    pub(crate) fn add(&mut self, arm: DVec3, force: DVec3) {
        self.force += force;
        self.torque += arm.cross(force);
    }
}

/// A chunk of rows as the whole-triangle pass takes it: its rows, its output, its history
/// to write, its wet triangles to write, and its last history.
type WholeChunk<'a> = (
    (std::ops::Range<usize>, &'a mut ChunkOutput),
    ((HistoryChunkMut<'a>, WetRowsMut<'a>), HistoryChunk<'a>),
);

impl Step<'_> {
    /// Pass one over every triangle: the whole ones' sums (from the loops, chunk after
    /// chunk) and the cut ones' added together, the slamming history of every row written
    /// into `out`, the cut triangles' pieces kept in `out` (when taken one at a time),
    /// and how many submerged pieces were not kept there.
    #[inline(always)]
    pub(crate) fn pass_one<S: Sink + Send>(
        &self,
        rows: &mut Rows<'_>,
        out: &mut Output,
        sink: &mut S,
        team: Team<'_>,
    ) -> (PassOne, usize) {
        let hull = self.hull;
        let Rows {
            cut,
            cut_history,
            wet,
            chunks,
            normals,
            water_velocities,
        } = rows;
        let Output {
            pieces,
            sources,
            history,
        } = out;
        pieces.clear();
        sources.clear();
        cut.clear();
        cut_history.clear();
        // Whole triangles go through the vectorised loops unless the sink wants every piece;
        // the loops write every row's slamming history, then the cut triangles' is written
        // over it.
        if !self.loops {
            cut.extend(0..hull.triangles.len() as u32);
        }
        let mut found = super::cut::Found {
            normals,
            water_velocities,
            pieces,
            sources,
        };
        let shared = self.loops && team.is_shared() && hull.columns.len() > PARALLEL_ROWS;
        let (sums, cut_sums) = if shared {
            // The cut triangles on this thread, whose caches hold the vertices and heights
            // it just computed, while the team starts on the whole triangles' chunks; then
            // this thread takes chunks too (with the cut triangles on the other thread,
            // they took 60 % longer).
            let _timer = profile::time(Section::WholePass);
            let mesh = self.mesh();
            let cut_sums = team.share(
                || {
                    self.find_cut(cut);
                    self.cut_triangles(
                        cut,
                        cut_history,
                        &mut found,
                        |aside, j, now| aside.push((j as u32, now)),
                        sink,
                    )
                },
                whole_chunks(chunks, history, wet, self.prior, hull.columns.len()),
                |chunk| self.whole_chunk(&mesh, chunk),
            );
            debug_assert!(chunks.iter().flat_map(|c| &c.cut).eq(cut.iter()));
            (whole_sums(chunks), cut_sums)
        } else {
            let sums = if self.loops {
                {
                    let _timer = profile::time(Section::WholePass);
                    let mesh = self.mesh();
                    whole_chunks(chunks, history, wet, self.prior, hull.columns.len())
                        .for_each(|chunk| self.whole_chunk(&mesh, chunk));
                }
                for chunk in chunks.iter() {
                    cut.extend_from_slice(&chunk.cut);
                }
                whole_sums(chunks)
            } else {
                WholeSums::default()
            };
            let record = |_: &mut Vec<(u32, DVec3)>, j: usize, now: DVec3| history.set(j, now);
            (sums, self.cut_triangles(cut, cut_history, &mut found, record, sink))
        };
        for &(j, now) in cut_history.iter() {
            history.set(j as usize, now);
        }
        (add_sums(&sums, &cut_sums), sums.wet_count + cut_sums.pieces)
    }

    /// The triangles the water cuts, from their corners' heights, as the whole
    /// triangles' pass finds them (from the same heights; for flat water computed in the
    /// loop with the same arithmetic, to the bit). (Without a second thread they are
    /// taken from the pass's chunks.)
    #[inline(always)]
    fn find_cut(&self, cut: &mut Vec<u32>) {
        let heights = &self.samples.heights;
        for (j, tri) in self.hull.triangles.iter().enumerate() {
            let under = tri.iter().filter(|&&i| heights[i as usize] < 0.0).count();
            if under != 0 && under != 3 {
                cut.push(j as u32);
            }
        }
    }

    /// One chunk of rows through the whole triangles' loops: its sums, its slamming
    /// history, what the drag pass reads of it, and its cut triangles.
    #[inline(always)]
    fn whole_chunk(&self, mesh: &Mesh<'_>, ((range, chunk), ((mut history, mut wet), prior)): WholeChunk<'_>) {
        let mut scratch = Scratch::take();
        chunk.sums = whole_pass(
            mesh,
            &self.motion,
            &self.params,
            range,
            &prior,
            &mut history,
            &mut wet,
            &mut chunk.cut,
            &mut scratch,
        );
        Scratch::give_back(scratch);
    }
}

/// The chunks of rows with what the whole triangles' pass writes and reads of each.
#[inline(always)]
fn whole_chunks<'c>(
    chunks: &'c mut [ChunkOutput],
    history: &'c mut History,
    wet: &'c mut WetTriangles,
    prior: &'c History,
    rows: usize,
) -> impl DoubleEndedIterator<Item = WholeChunk<'c>> + Send + 'c {
    chunk_ranges(rows)
        .zip(chunks.iter_mut())
        .zip(history.chunks_mut().zip(wet.chunks_mut()).zip(prior.chunks()))
}

/// The whole triangles' sums, chunk after chunk (in order, whatever thread did which).
fn whole_sums(chunks: &[ChunkOutput]) -> WholeSums {
    let mut sums = WholeSums::default();
    for chunk in chunks {
        sums += chunk.sums;
    }
    sums
}

/// The cut triangles' sums, then the whole ones' added (in this order, as always).
#[inline(always)]
fn add_sums(sums: &WholeSums, cut: &CutSums) -> PassOne {
    let mut totals = PassOne {
        buoyancy: cut.buoyancy,
        slamming: cut.slamming,
        air: cut.air,
        volume: cut.volume,
        wetted_area: cut.wetted_area,
        wetted_moment: cut.wetted_moment,
        projected_area: cut.projected_area,
        emerged_area: cut.emerged_area,
        emerged_moment: cut.emerged_moment,
    };
    totals.buoyancy.force += sums.buoyancy_force;
    totals.buoyancy.torque += sums.buoyancy_torque;
    totals.slamming.force += sums.slamming_force;
    totals.slamming.torque += sums.slamming_torque;
    totals.volume.volume += sums.volume;
    totals.volume.moment += sums.volume_moment;
    totals.wetted_area += sums.area;
    totals.wetted_moment += sums.area_moment;
    totals.air.force += sums.air_force;
    totals.air.torque += sums.air_torque;
    totals.projected_area += sums.projected_area;
    totals.emerged_area += sums.emerged_area;
    totals.emerged_moment += sums.emerged_moment;
    totals
}
