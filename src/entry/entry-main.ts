import { parseArgs } from 'node:util';
import { reportedError } from '../core/breakout/index.js';
import { AppError, toAppError } from '../shared/errors.js';
import { resolveHome, type HomePaths } from '../shared/home.js';
import { openStore, type Store } from '../store/open-store.js';

/** What an entry point gets: its home, the store there (opened on first use), and its parsed arguments. */
export interface EntryContext {
  home: HomePaths;
  /** The home's store, opened on the first call (the same one after). */
  store(): Promise<Store>;
  positionals: string[];
  values: Record<string, string | undefined>;
}

export interface EntrySpec {
  /** The entry point's name, for its error lines. */
  name: string;
  /** Its positional arguments, in order (all required). */
  positionals: string[];
  /** Its string options besides `--home`. */
  options?: string[];
  /** Errors as `{error, message, details}` on stdout (the parent reads them) rather than a line on stderr. */
  jsonErrors?: boolean;
}

/**
 * Runs a background entry point (docs/decisions.md, "Process model"): `--home <root>` and its
 * own few arguments, checked, then `fn`; the store, opened on first use, is closed afterwards and
 * an error is reported once, with its exit code, as the CLI reports it.
 */
export async function runEntry(spec: EntrySpec, argv: string[], fn: (ctx: EntryContext) => Promise<void>): Promise<void> {
  keepGoingOnClosedOutput();
  let store: Promise<Store> | undefined;
  try {
    const options = Object.fromEntries(['home', ...(spec.options ?? [])].map((o) => [o, { type: 'string' as const }]));
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    } catch (err) {
      throw new AppError('USAGE', (err as Error).message);
    }
    const { values, positionals } = parsed as { values: Record<string, string | undefined>; positionals: string[] };
    if (values.home === undefined || positionals.length !== spec.positionals.length) {
      throw new AppError('USAGE', `expected --home <root> ${spec.positionals.map((p) => `<${p}>`).join(' ')}; got ${JSON.stringify(argv)}`);
    }
    const home = resolveHome(values.home);
    await fn({ home, store: () => (store ??= openStore(home)), positionals, values });
  } catch (err) {
    const e = reportedError(toAppError(err));
    if (spec.jsonErrors) process.stdout.write(JSON.stringify({ error: e.code, message: e.message, details: e.details }, null, 2) + '\n');
    else process.stderr.write(`sds ${spec.name}: ${e.code}: ${e.message}\n`);
    if (e.code === 'INTERNAL' && e.cause instanceof Error && e.cause.stack) process.stderr.write(e.cause.stack + '\n');
    process.exitCode = e.exit;
  } finally {
    // A store that failed to open was reported above: nothing to close.
    const opened = await store?.catch(() => undefined);
    await opened?.close();
  }
}

/**
 * A background process whose reader is gone (the `schedule run-now` that captured its output
 * exited at a second Ctrl-C) still has to record its job's end: a write to the closed pipe
 * fails with EPIPE, which would otherwise kill it before it does, and its job would be taken
 * over instead of ending cancelled (docs/breakout.md#leases). Its output is lost; nobody reads it.
 */
function keepGoingOnClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}
