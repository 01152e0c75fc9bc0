/**
 * The CSPro 8.1 "CSWeb data source" (docs/sync.md#the-81-data-source): an application reads,
 * queries, writes and deletes the cases of a dictionary on the server while it runs. Writes are
 * the sync upload (`uploadCases`); this file holds what is the data source's own: the metadata,
 * the queries of `GET …/cases` with `x-csw-cases-options`, clearing a dictionary's cases and the
 * binary content of one signature.
 */
import type { Readable } from 'node:stream';
import type { Store } from '../../store/open-store.js';
import type { Right } from '../auth/index.js';
import { fitting } from '../../store/cases-repo.js';
import type { CaseIdentifierRow, CaseSummaryQueryRow } from '../../store/case-queries-repo.js';
import { v3CaseJson } from '../../sync/case-json-v3.js';
import { dictionaryKeyStructure } from '../../cspro/dictionary/key-structure.js';
import type { CasesOptions } from '../../sync/cases-options.js';
import type { CasesCache } from '../../sync/cases-cache-header.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionary, requireDictionaryRow } from '../dictionaries/index.js';
import { deleteAllCases, openBinaryContent } from '../cases/index.js';
import { limitsOf } from '../home/index.js';
import { dataSourcePermissions, type DataPermission } from './data-source-permissions.js';

/** `GET /api/dictionaries/{name}/metadata`. */
export interface DataSourceMetadata {
  permissions: DataPermission[];
  dictionaryKeyStructure: string;
  maxRevision: number;
}

/**
 * The metadata the data source reads when it opens a dictionary: what the account may do with it
 * (`rights`: its effective rights on this dictionary, docs/supervision.md#roles-and-rights),
 * the key structure it compares with its own dictionary's, and the newest revision of the
 * dictionary's cases (its cache is current while this does not move). DICTIONARY_NOT_FOUND when
 * the dictionary does not exist: the client then uploads it.
 */
export async function dataSourceMetadata(store: Store, dictionaryName: string, rights: ReadonlySet<Right>): Promise<DataSourceMetadata> {
  const dict = await requireDictionary(store, dictionaryName);
  return {
    permissions: dataSourcePermissions(rights),
    dictionaryKeyStructure: dictionaryKeyStructure(dict.model),
    maxRevision: await store.cases.maxRevision(dict.id),
  };
}

/** How many rows to read for one reply, and whether the server, not the client, set that bound. */
interface PageBounds {
  /** Cases this reply may hold. */
  take: number;
  /** True when the client asked for more than `take` (or set no limit): then one more row is read to know if the cap cut the result. */
  capped: boolean;
}

/** The bounds of one reply: the client's limit, at most the server's cap (docs/limits.md). Pure. */
export function pageBounds(limit: number | undefined, cap: number): PageBounds {
  const take = limit === undefined ? cap : Math.min(limit, cap);
  return { take, capped: limit === undefined || limit > cap };
}

function identifierJson(r: CaseIdentifierRow): Record<string, unknown> {
  return { key: r.caseKey, uuid: r.guid, position: r.position, revision: r.revision };
}

function summaryJson(r: CaseSummaryQueryRow): Record<string, unknown> {
  const out: Record<string, unknown> = { ...identifierJson(r), label: r.label, deleted: r.deleted, verified: r.verified };
  if (r.partialSave) out.partialSaveMode = r.partialSave.mode;
  if (r.caseNote !== null && r.caseNote.trim() !== '') out.caseNote = r.caseNote;
  return out;
}

/** A reply's JSON text: `{<content>: [items…], …rest}` from items already in JSON text. */
function replyJson(content: string, items: readonly string[], rest: Record<string, unknown> = {}): string {
  const tail = Object.entries(rest)
    .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join('');
  return `{${JSON.stringify(content)}:[${items.join(',')}]${tail}}`;
}

/**
 * A data source query (docs/sync.md#queries): the count, identifiers, summaries or whole cases
 * the options select, as the reply's JSON text. One reply holds at most `data_source_cases` cases
 * and, for whole cases, the page byte budget (docs/limits.md); a reply the server cut carries
 * `resultLimit` and the client asks again from the next offset. `count` ignores offset and limit
 * (the client sends `limit: 1` with it). Whole cases come with the parallel `metadata` array
 * (position and revision), and a case the client's cache (`cache`) already holds unchanged since
 * its revision is sent as `{}`.
 */
export async function queryDataSource(
  store: Store,
  dictionaryName: string,
  options: CasesOptions,
  cache: CasesCache | undefined,
): Promise<string> {
  // Only whole cases need the model (to write V3 JSON); the other contents read the row alone.
  const record = options.content === 'cases' ? await requireDictionary(store, dictionaryName) : undefined;
  const dict = record ?? (await requireDictionaryRow(store, dictionaryName));
  const q = options.query;
  if (options.content === 'count') return JSON.stringify({ count: await store.caseQueries.count(dict.id, q) });
  const limits = limitsOf(store);
  const { take, capped } = pageBounds(options.limit, limits.dataSourceCases);
  const peek = capped ? take + 1 : take;
  return store.readTransaction(async (tx) => {
    if (options.content === 'identifiers' || options.content === 'summaries') {
      const rows =
        options.content === 'identifiers'
          ? (await tx.caseQueries.identifiers(dict.id, q, peek, options.offset)).map(identifierJson)
          : (await tx.caseQueries.summaries(dict.id, q, peek, options.offset)).map(summaryJson);
      const cut = rows.length > take;
      return replyJson(
        options.content,
        rows.slice(0, take).map((r) => JSON.stringify(r)),
        cut ? { resultLimit: take } : {},
      );
    }
    // Whole cases: the sizes first (record headers only), then as many cases as fit the budget.
    const model = record!.model;
    const sizes = await tx.caseQueries.sizes(dict.id, q, peek, options.offset);
    const n = fitting(
      sizes.slice(0, take).map((size) => ({ size })),
      limits.pageBytes,
    );
    const cut = sizes.length > n && (n < take || capped);
    const cases = n === 0 ? [] : await tx.caseQueries.cases(dict.id, q, n, options.offset);
    const items: string[] = [];
    const metadata: { position: number; revision: number }[] = [];
    for (const c of cases) {
      const unchanged = cache !== undefined && cache.positions.has(c.position) && c.revision <= cache.serverRevision;
      items.push(unchanged ? '{}' : v3CaseJson(c, model));
      metadata.push({ position: c.position, revision: c.revision });
    }
    return replyJson('cases', items, { metadata, ...(cut ? { resultLimit: n } : {}) });
  });
}

/**
 * Soft-deletes every live case of a dictionary for the data source (`DELETE …/data`), recorded in
 * the device's sync history in the same transaction: see `deleteAllCases`.
 */
export async function clearDataSource(
  store: Store,
  dictionaryName: string,
  device: string,
  username: string,
): Promise<{ revision: number; cases: number }> {
  const dict = await requireDictionaryRow(store, dictionaryName);
  const limits = limitsOf(store);
  return store.transaction(async (tx) => {
    const r = await deleteAllCases(tx, dict.id, `clear:${device}`, limits);
    if (r.cases > 0) {
      await tx.sync.record({ dictionaryId: dict.id, device, username, direction: 'put', revision: r.revision, cases: r.cases });
    }
    return r;
  });
}

/**
 * The stored content of a binary item of a dictionary, by its signature (the md5 of the content,
 * so also its `Content-MD5`); NOT_FOUND when this server does not hold it.
 */
export async function openDataSourceBinary(
  store: Store,
  dictionaryName: string,
  signature: string,
): Promise<{ md5: string; size: number; open: () => Readable }> {
  const dict = await requireDictionaryRow(store, dictionaryName);
  const content = await openBinaryContent(store, dict.name, signature);
  if (!content) {
    throw new AppError('NOT_FOUND', `binary item ${signature} of dictionary ${dict.name} is not stored on this server`, {
      dictionary: dict.name,
      signature,
    });
  }
  return { md5: signature.toLowerCase(), ...content };
}
