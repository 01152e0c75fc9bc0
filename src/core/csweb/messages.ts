import type { Connection } from 'mysql2/promise';
import type { Store } from '../../store/open-store.js';
import { readCswebMessages } from '../../csweb/messages-reader.js';
import type { CswebReportEntry } from '../../csweb/report-entry.js';

/** Messages read per page (one store transaction each). */
const PAGE = 1000;

const cursorKey = (source: string) => `csweb_messages_cursor:${source}`;

/** What a messages import did. */
export interface CswebMessagesResult {
  imported: number;
  report: CswebReportEntry[];
}

/**
 * Imports CSWeb 8.1's messages (cspro_messages) into sds's sync messages (docs/sync.md#messages),
 * each with its device, account and the time CSWeb received it. Each page is written with the
 * last id taken, in one transaction, so a rerun takes only newer messages and an interrupted one
 * resumes without duplicates (docs/migrating-from-csweb.md#csweb-81). A value that is not JSON
 * is kept as a JSON text and reported; `dryRun` counts and writes nothing.
 */
export async function importCswebMessages(
  store: Store,
  conn: Connection,
  source: string,
  opts: { dryRun?: boolean; signal?: AbortSignal | undefined } = {},
): Promise<CswebMessagesResult> {
  const raw = await store.settings.get(cursorKey(source));
  let after = raw === undefined ? 0 : Number(raw);
  const result: CswebMessagesResult = { imported: 0, report: [] };
  for (;;) {
    const page = await readCswebMessages(conn, after, PAGE);
    if (page.length === 0) break;
    const rows = page.map((m) => {
      let value = m.value;
      if (value !== null) {
        try {
          JSON.parse(value);
        } catch {
          result.report.push({
            level: 'warn',
            code: 'CSWEB_MESSAGE_VALUE',
            message: `CSWeb message ${m.id} (${m.name}) has a value that is not JSON; it is kept as a text`,
          });
          value = JSON.stringify(value);
        }
      }
      return { ...m, value };
    });
    const last = page[page.length - 1]!.id;
    if (!opts.dryRun) {
      await store.transaction(async (tx) => {
        for (const m of rows) {
          await tx.sync.recordMessage({ device: m.device, username: m.username, name: m.name, value: m.value, sentAt: '' }, m.receivedAt);
        }
        await tx.settings.set(cursorKey(source), String(last));
      });
    }
    result.imported += page.length;
    after = last;
    if (page.length < PAGE || opts.signal?.aborted) break;
  }
  return result;
}
