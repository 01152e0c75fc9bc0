import { createHash } from 'node:crypto';
import type { Connection } from 'mysql2/promise';
import type { Store } from '../../store/open-store.js';
import { toAppError } from '../../shared/errors.js';
import { parseDictionary } from '../../cspro/dictionary/parse-dictionary.js';
import { checkCswebSchema, currentDatabase } from '../../csweb/schema-check.js';
import { readCswebCasePages, readCswebDictionaries, readHighestRevision } from '../../csweb/case-reader.js';
import { limitsOf } from '../home/index.js';
import { resolveTimeZone, selectDictionaries } from './import-csweb.js';
import { decodeCswebRow } from './decode-row.js';

/** The figures compared on each side, per dictionary. */
export interface VerifyFigures {
  cases: number;
  deleted: number;
  verified: number;
  notes: number;
  /** Source only: cases that cannot be decoded (never in sds). */
  undecodable: number;
  /** Order-free checksum (XOR of SHA-256) of every case's guid, caseids, label, flags, content and notes as sds stores them. */
  checksum: string;
  /** Binary items (case, signature pairs). */
  binaryItems: number;
  /** Order-free checksum of every case's guid with the sorted signatures of its binary items. */
  binaryChecksum: string;
}

export interface VerifyDictionary {
  name: string;
  csweb: VerifyFigures;
  /** Null when sds has no such dictionary. */
  sds: VerifyFigures | null;
  /** One sentence per figure that differs; empty when the two sides agree. */
  differences: string[];
}

export interface CswebVerifyReport {
  source: { database: string; serverDeviceId: string; highestRevision: number; schemaVersion: number };
  dictionaries: VerifyDictionary[];
  /** True when no dictionary has a difference. */
  same: boolean;
}

class Figures {
  cases = 0;
  deleted = 0;
  verified = 0;
  notes = 0;
  undecodable = 0;
  binaryItems = 0;
  private readonly sum = Buffer.alloc(32);
  private readonly binarySum = Buffer.alloc(32);

  addBinary(guid: string, signatures: string[]): void {
    if (signatures.length === 0) return;
    this.binaryItems += signatures.length;
    const h = createHash('sha256')
      .update(JSON.stringify([guid, [...signatures].sort()]))
      .digest();
    for (let i = 0; i < 32; i++) this.binarySum[i]! ^= h[i]!;
  }

  add(c: { guid: string; caseKey: string; label: string; data: string; deleted: boolean; verified: boolean; notes: unknown[] }): void {
    const h = createHash('sha256')
      .update(JSON.stringify([c.guid, c.caseKey, c.label, c.deleted, c.verified, c.data, c.notes]))
      .digest();
    for (let i = 0; i < 32; i++) this.sum[i]! ^= h[i]!;
  }

  out(): VerifyFigures {
    const { cases, deleted, verified, notes, undecodable, binaryItems } = this;
    return {
      cases,
      deleted,
      verified,
      notes,
      undecodable,
      checksum: this.sum.toString('hex'),
      binaryItems,
      binaryChecksum: this.binarySum.toString('hex'),
    };
  }
}

/**
 * Compares a CSWeb database with the store, per dictionary (docs/migrating-from-csweb.md#verifying):
 * case counts, deleted, verified, notes, binary items (signatures per case), and a checksum of
 * every case decoded as the import decodes it. Reads both sides page by page; writes nothing. CSWeb's side stops at its highest
 * revision when the comparison starts.
 */
export async function verifyCsweb(
  store: Store,
  conn: Connection,
  opts: { dictionaries?: string[]; timeZone?: string; cswebConfig?: string } = {},
): Promise<CswebVerifyReport> {
  const zone = resolveTimeZone(opts);
  const database = await currentDatabase(conn);
  const source = await checkCswebSchema(conn, database);
  const highest = await readHighestRevision(conn);
  const wanted = selectDictionaries(await readCswebDictionaries(conn, source.layout), opts.dictionaries);
  const limits = limitsOf(store);
  const out: VerifyDictionary[] = [];
  for (const d of wanted) {
    const csweb = new Figures();
    let model;
    try {
      model = parseDictionary(Buffer.from(d.content, 'utf8'), { file: d.name });
    } catch (err) {
      out.push({
        name: d.name,
        csweb: csweb.out(),
        sds: null,
        differences: [`the CSWeb dictionary cannot be read: ${toAppError(err).message}`],
      });
      continue;
    }
    for await (const page of readCswebCasePages(conn, source.layout, d.table, { revision: 0, guid: '' }, highest, limits.cswebPageCases)) {
      for (const row of page) {
        csweb.cases += 1;
        if (row.deleted) csweb.deleted += 1;
        if (row.verified) csweb.verified += 1;
        csweb.addBinary(
          row.guid,
          row.binaryItems.map((b) => b.signature),
        );
        try {
          const { write } = decodeCswebRow(row, model, zone, limits);
          // 8.1 keeps notes inside the case, 8.0 in their own table.
          csweb.notes += row.form === 'v3' ? write.notes.length : row.notes.length;
          csweb.add(write);
        } catch {
          csweb.notes += row.notes.length;
          csweb.undecodable += 1;
        }
      }
    }
    const dict = await store.dictionaries.find(d.name);
    if (!dict) {
      out.push({ name: d.name, csweb: csweb.out(), sds: null, differences: ['the dictionary is not in sds'] });
      continue;
    }
    const sds = new Figures();
    let after = { revision: 0, guid: '' };
    for (;;) {
      const page = await store.cases.changedPage(dict.id, after, Number.MAX_SAFE_INTEGER, limits.cswebPageCases, false);
      if (page.length === 0) break;
      const binary = await store.binaryItems.forCases(
        dict.id,
        page.map((c) => c.guid),
      );
      for (const c of page) {
        sds.addBinary(
          c.guid,
          (binary.get(c.guid) ?? []).map((b) => b.signature),
        );
        sds.cases += 1;
        if (c.deleted) sds.deleted += 1;
        if (c.verified) sds.verified += 1;
        sds.notes += c.notes.length;
        sds.add(c);
      }
      const last = page[page.length - 1]!;
      after = { revision: last.revision, guid: last.guid };
    }
    const a = csweb.out();
    const b = sds.out();
    const differences: string[] = [];
    for (const k of ['cases', 'deleted', 'verified', 'notes', 'binaryItems'] as const) {
      if (a[k] !== b[k]) differences.push(`${k}: ${a[k]} in CSWeb, ${b[k]} in sds`);
    }
    if (a.undecodable > 0) differences.push(`${a.undecodable} CSWeb case(s) cannot be decoded`);
    if (a.checksum !== b.checksum) differences.push('the checksum of the case contents differs');
    if (a.binaryChecksum !== b.binaryChecksum) differences.push('the binary items (signatures per case) differ');
    out.push({ name: d.name, csweb: a, sds: b, differences });
  }
  return {
    source: { database, serverDeviceId: source.serverDeviceId, highestRevision: highest, schemaVersion: source.schemaVersion },
    dictionaries: out,
    same: out.every((d) => d.differences.length === 0),
  };
}
