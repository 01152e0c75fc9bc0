import { AppError } from '../../shared/errors.js';
import type { AuditRow } from '../../store/audit-repo.js';
import type { Store } from '../../store/store-contract.js';
import { hashOf } from './canonical.js';

/** Records read per round trip while walking the chain. */
const PAGE = 1000;

/** What `sds audit verify` reports when the trail is whole. */
export interface AuditVerifyReport {
  ok: true;
  /** Records checked. */
  records: number;
  /** The last record pruned (0: none) and its hash, where the kept chain starts. */
  anchor_seq: number;
  anchor_hash: string;
  /** The last record and its hash: write these down to detect later a rewrite of the whole tail (verify --expect). */
  head_seq: number;
  head_hash: string;
  /** Records up to this seq are in a backup. */
  backed_up_seq: number;
  /** The result of `expect`, when given: `found` (the record still has that hash) or `pruned` (removed by retention: not checkable). */
  expected?: 'found' | 'pruned';
}

/** A head written down earlier: record `seq` had hash `hash`. */
export interface ExpectedHead {
  seq: number;
  hash: string;
}

const fail = (
  code: 'AUDIT_RECORD_ALTERED' | 'AUDIT_CHAIN_BROKEN' | 'AUDIT_RECORD_MISSING' | 'AUDIT_HEAD_MISMATCH',
  seq: number,
  msg: string,
  more = {},
) => new AppError(code, `audit record ${seq}: ${msg}`, { seq, ...more });

/** Checks one record against the one expected at its place; throws the first problem. */
function checkRecord(r: AuditRow, seq: number, prev: string, headSeq: number): void {
  if (r.seq > headSeq) {
    throw fail('AUDIT_HEAD_MISMATCH', r.seq, `comes after the head of the trail (record ${headSeq}): it was added outside sds`, {
      head_seq: headSeq,
    });
  }
  if (r.seq !== seq) throw fail('AUDIT_RECORD_MISSING', seq, `is missing (the next one found is ${r.seq}): it was deleted`);
  if (hashOf(r) !== r.hash) throw fail('AUDIT_RECORD_ALTERED', seq, 'its content does not have its hash: it was edited');
  if (r.prev_hash !== prev) {
    throw fail(
      'AUDIT_CHAIN_BROKEN',
      seq,
      `does not follow record ${seq - 1} (its prev_hash is not that record's hash): a record was replaced, inserted or reordered`,
    );
  }
}

/**
 * Walks the whole audit trail in one read snapshot, from the anchor a prune left to the head
 * row, and checks every record: consecutive seqs, its hash that of its canonical form, its
 * prev_hash the hash of the record before; then that the last record is the head. Throws the
 * first problem as AUDIT_RECORD_MISSING, AUDIT_RECORD_ALTERED, AUDIT_CHAIN_BROKEN or
 * AUDIT_HEAD_MISMATCH naming its seq; with `expect`, also AUDIT_HEAD_UNKNOWN when that record no
 * longer has that hash (docs/supervision.md#verifying-the-trail).
 */
export async function verifyAudit(store: Store, opts: { expect?: ExpectedHead } = {}): Promise<AuditVerifyReport> {
  return store.readTransaction(async (tx) => {
    const head = await tx.audit.head();
    let seq = head.anchorSeq + 1;
    let prev = head.anchorHash;
    let records = 0;
    for (;;) {
      const rows = await tx.audit.page(seq - 1, PAGE);
      for (const r of rows) {
        checkRecord(r, seq, prev, head.headSeq);
        prev = r.hash;
        seq++;
        records++;
      }
      if (rows.length < PAGE) break;
    }
    if (seq - 1 !== head.headSeq || prev !== head.headHash) {
      const missing = seq - 1 < head.headSeq;
      throw fail(
        'AUDIT_HEAD_MISMATCH',
        missing ? seq : seq - 1,
        missing
          ? `is missing: the trail ends at record ${seq - 1} but its head row says ${head.headSeq} (the last records were deleted)`
          : `is the last record but not the one the head row names (record ${head.headSeq}, hash ${head.headHash}): the head row or the last record was changed`,
        { head_seq: head.headSeq },
      );
    }
    const report: AuditVerifyReport = {
      ok: true,
      records,
      anchor_seq: head.anchorSeq,
      anchor_hash: head.anchorHash,
      head_seq: head.headSeq,
      head_hash: head.headHash,
      backed_up_seq: head.backedUpSeq,
    };
    if (opts.expect) report.expected = await checkExpected(tx, opts.expect, head.anchorSeq, head.anchorHash);
    return report;
  });
}

/** Whether the record of a head written down earlier still has its hash (the chain behind it was checked). */
async function checkExpected(
  tx: { audit: { get(seq: number): Promise<AuditRow | undefined> } },
  e: ExpectedHead,
  anchorSeq: number,
  anchorHash: string,
): Promise<'found' | 'pruned'> {
  if (e.seq === anchorSeq && e.hash === anchorHash) return 'found';
  if (e.seq < anchorSeq) return 'pruned';
  const r = await tx.audit.get(e.seq);
  if (r?.hash !== e.hash) {
    throw new AppError(
      'AUDIT_HEAD_UNKNOWN',
      `audit record ${e.seq} ${r ? `now has the hash ${r.hash}, not ${e.hash}` : 'does not exist'}: the trail up to it was rewritten since that head was written down`,
      { seq: e.seq },
    );
  }
  return 'found';
}
