/**
 * What a download chunk answers, from what was read (pure). CSWeb's rules (docs/sync.md,
 * "Download"): `x-csw-case-range-count: <sent>/<total>`, 206 while cases remain after
 * this chunk, 200 when this chunk ends the range. The chunk's revision (ETag and
 * `x-csw-chunk-max-revision`) is the revision of the last case sent when more remain, so the
 * client resumes there with the guid cursor; the snapshot when the range is complete (nothing at
 * or below it is left to send) or when nothing was sent.
 */

export interface ChunkPlan {
  status: 200 | 206;
  chunkMaxRevision: number;
  rangeCount: string;
}

export function planChunk(sentRevisions: readonly number[], total: number, snapshot: number): ChunkPlan {
  const sent = sentRevisions.length;
  const partial = sent < total;
  const last = sentRevisions[sent - 1];
  return {
    status: partial ? 206 : 200,
    chunkMaxRevision: partial && last !== undefined ? last : snapshot,
    rangeCount: `${sent}/${total}`,
  };
}
