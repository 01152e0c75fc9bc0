// Renders docs/errors.md from the error registry: `node --import tsx scripts/error-docs.ts > docs/errors.md`.
// test/unit/errors-doc.test.ts fails when the page and the registry drift apart.
import { ERROR_CODES } from '../src/shared/errors.js';

/** The Markdown page listing every error code with its HTTP status and CLI exit code. */
export function renderErrorDocs(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, s]) => `| \`${code}\` | ${s.http} | ${s.exit} | ${s.title} |`);
  return [
    '# Error codes',
    '',
    'Every failure of `sds`, on the command line and over HTTP, carries one stable code from this',
    'table. The CLI prints `sds: CODE: message [where]` on stderr (with `--json`, the object',
    '`{"error": CODE, "message": ..., "details": {...}}` on stdout) and exits with the exit code below;',
    'the HTTP API answers with the status below and the body `{"error": ..., "message": ...}` of the spec.',
    '`details` says where the problem is: `file`, `line`, `path` (JSON path), `record`, `item`, `case`.',
    'Messages say what is wrong in the same words for both; where a setting fixes it, `details.settings`',
    'names it, and the CLI alone adds the flag or the command that fixes it (" (option --port)",',
    '"; add one with: sds schedule add D"; docs/decisions.md, "Core speaks domain words").',
    '',
    'Exit codes: 0 ok, 1 the operation failed, 2 bad usage or invalid input, 3 not found, 4 conflict,',
    '5 an external system failed (target database, webhook receiver).',
    '',
    '## One code per failure',
    '',
    'A target database that cannot be used is reported as `DB_CONNECTION_ERROR` everywhere: a failed',
    "job's `error.code` (the spec's code), `sds target test` and every other command, HTTP replies and",
    '`check-database-drivers`. The catalogue code below (`DB-001` refused, `DB-002` authentication,',
    '`DB-003` no database, `DB-004` driver, `DB-005` too many connections) is its `diagnostic`: in a',
    "job's `error.details`, in `details.diagnostic` with `--json`, in the text as",
    '`sds: DB_CONNECTION_ERROR (DB-001): ...`, and as `diagnostic` in an HTTP error body.',
    '',
    'A target that answers a statement with an error is never `INTERNAL` (which means a defect of',
    'sds): a missing right is `INSUFFICIENT_PERMISSIONS` (with what to grant, where the database says',
    'which), any other error of the database `TARGET_DATABASE_ERROR`, its own code in `details`',
    '([breakout.md](breakout.md#targets)).',
    '',
    '| code | HTTP | exit | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    'This page is generated from `src/shared/errors.ts` by `node --import tsx scripts/error-docs.ts`.',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) process.stdout.write(renderErrorDocs());
