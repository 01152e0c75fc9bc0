import type { Connection } from 'mysql2/promise';
import type { Store } from '../../store/open-store.js';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { readCswebCasePages } from '../../csweb/case-reader.js';
import type { CswebLayout } from '../../csweb/layout.js';
import type { CswebCaseRow } from '../../csweb/case-rows.js';
import { toAppError } from '../../shared/errors.js';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { binaryRefsOf } from '../../cspro/case/binary-descriptor.js';
import { wallTimeToUtc } from '../../csweb/wall-time.js';
import { hasBinaryContent, replaceCases, storeBinaryContent, type CaseAsItIs } from '../cases/index.js';
import { limitsOf } from '../home/index.js';
import { decodeCswebRow } from './decode-row.js';
import { saveCursor } from './import-state.js';
import type { DictionaryImport, ReportEntries } from './import-report.js';

/** What one run passes to the import of each dictionary's cases. */
export interface CasesContext {
  source: string;
  /** Where the source's schema version keeps cases (src/csweb/layout.ts). */
  layout: CswebLayout;
  highest: number;
  zone: string;
  dryRun: boolean;
  emitEvents: boolean;
  pageSize: number;
  entries: ReportEntries;
  signal: AbortSignal | undefined;
  onCases: (n: number) => void;
  /** CSWeb's files folder, where the binary items' content is (absent: every binary item is reported missing). */
  filesDir?: string;
}

/**
 * Reads the dictionary's cases after `after` page by page, decodes each, and commits every page
 * together with the cursor (docs/migrating-from-csweb.md#how-the-import-runs). Each case keeps
 * CSWeb's revision; CSWeb's row replaces sds's as it is (`replaceCases` of the cases module),
 * because CSWeb has already reconciled the clocks and is the field server while it runs.
 */
export async function importDictionaryCases(
  store: Store,
  conn: Connection,
  dict: { name: string; table: string; id: number; model: Dictionary },
  after: { revision: number; guid: string },
  result: DictionaryImport,
  ctx: CasesContext,
): Promise<void> {
  const limits = limitsOf(store);
  for await (const page of readCswebCasePages(conn, ctx.layout, dict.table, after, ctx.highest, ctx.pageSize)) {
    const decoded: CaseAsItIs[] = [];
    for (const row of page) {
      result.read += 1;
      const d = decode(row, dict, ctx, limits);
      if (d) decoded.push(d);
      else result.failed += 1;
    }
    const last = page[page.length - 1]!;
    const cursor = { revision: last.revision, guid: last.guid };
    // Contents first, outside the transaction: a file named by its md5 is harmless before its row.
    for (const d of decoded) for (const b of d.binary) await copyBinaryItem(store, dict, d.write.guid, b.signature, ctx);
    if (!ctx.dryRun) {
      await store.transaction(async (tx) => {
        const mark = await tx.webhookQueue.lastOutboxId();
        const r = await replaceCases(tx, dict.id, decoded, 'csweb', limits);
        result.written += r.written;
        result.unchanged += r.unchanged;
        if (!ctx.emitEvents) await tx.webhookQueue.discardCapturesAfter(mark);
        await saveCursor(tx, ctx.source, dict.name, { dictionaryId: dict.id, ...cursor });
      });
    } else {
      result.written += decoded.length;
    }
    result.cursor = cursor;
    ctx.onCases(page.length);
    if (ctx.signal?.aborted) return;
  }
}

/**
 * Copies one binary item's content from CSWeb's files folder (`binary-items/<dictionary, lower
 * case>/<md5>`), checking its md5; content sds already holds is not read again. What cannot be
 * copied is one error entry; the case itself is imported all the same
 * (docs/migrating-from-csweb.md#binary-case-items).
 */
async function copyBinaryItem(
  store: Store,
  dict: { name: string; table: string },
  guid: string,
  signature: string,
  ctx: CasesContext,
): Promise<void> {
  const dictionary = dict.name;
  if (await hasBinaryContent(store, dictionary, signature)) return;
  // CSWeb's folder is named after the name in its URLs: 8.1's syncable name, the table's name.
  const folder = dict.table.toLowerCase();
  const rel = `binary-items/${folder}/${signature}`;
  const at = { dictionary, guid, file: rel };
  const fail = (code: string, message: string) => ctx.entries.add({ level: 'error', code, ...at, message });
  if (ctx.filesDir === undefined) {
    fail('CSWEB_BINARY_CONTENT_MISSING', `binary item ${signature} of case ${guid} not copied: CSWeb's files folder was not given`);
    return;
  }
  const source = join(ctx.filesDir, 'binary-items', folder, signature);
  const st = await stat(source).catch(() => undefined);
  if (!st?.isFile()) {
    fail('CSWEB_BINARY_CONTENT_MISSING', `binary item ${signature} of case ${guid} not copied: ${rel} is not in CSWeb's files folder`);
    return;
  }
  if (ctx.dryRun) return;
  try {
    await storeBinaryContent(store, dictionary, signature, createReadStream(source));
  } catch (err) {
    const e = toAppError(err);
    if (e.code === 'BINARY_ITEM_SIGNATURE_MISMATCH') {
      fail('CSWEB_BINARY_CONTENT_CORRUPT', `binary item ${signature} of case ${guid} not copied: the md5 of ${rel} is not its name`);
    } else if (e.code === 'PAYLOAD_TOO_LARGE') {
      fail('CSWEB_BINARY_CONTENT_TOO_LARGE', `binary item ${signature} of case ${guid} not copied: ${e.message}`);
    } else {
      fail('CSWEB_BINARY_CONTENT_UNREADABLE', `binary item ${signature} of case ${guid} not copied: ${e.message}`);
    }
  }
}

function decode(
  row: CswebCaseRow,
  dict: { name: string; model: Dictionary },
  ctx: CasesContext,
  limits: ReturnType<typeof limitsOf>,
): CaseAsItIs | undefined {
  const at = { dictionary: dict.name, guid: row.guid };
  try {
    const { write, converted, warnings } = decodeCswebRow(row, dict.model, ctx.zone, limits);
    if (converted.form === 'lines') ctx.entries.add({ level: 'warn', code: 'CSWEB_TEXT_FORM', ...at, message: textFormMessage });
    for (const t of converted.timeIssues) {
      ctx.entries.add({
        level: 'warn',
        code: 'CSWEB_NOTE_TIME_SHIFTED',
        ...at,
        message:
          t.fit === 'ambiguous'
            ? `note ${t.note + 1}: ${t.modifiedTime} happens twice in ${ctx.zone} (clocks went back); the earlier was taken`
            : `note ${t.note + 1}: ${t.modifiedTime} does not exist in ${ctx.zone} (clocks went forward); read with the offset before the change`,
      });
    }
    for (const w of warnings) {
      ctx.entries.add({
        level: 'warn',
        code: 'CSWEB_CASE_CONTENT',
        ...at,
        message: `the content does not match the dictionary: ${w.message}`,
      });
    }
    const sizes = new Map(binaryRefsOf(write.data).map((r) => [r.signature, r.length ?? null]));
    const importedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const binary = row.binaryItems.map((b) => ({
      signature: b.signature,
      size: sizes.get(b.signature) ?? null,
      modifiedTime: b.modifiedTime === null ? importedAt : wallTimeToUtc(b.modifiedTime, ctx.zone).iso,
    }));
    return { write, revision: row.revision, binary };
  } catch (err) {
    const e = err instanceof Error && !('code' in err) ? err : toAppError(err);
    ctx.entries.add({
      level: 'error',
      code: 'CSWEB_CASE_UNREADABLE',
      ...at,
      message: `case ${row.guid} (${row.caseids}) cannot be decoded: ${e.message}`,
    });
    return undefined;
  }
}

const textFormMessage = 'stored by CSWeb as pre-7.5 record lines; converted to the JSON form with the dictionary';
