import type { Command } from 'commander';
import { resolveHome, type HomePaths } from '../shared/home.js';
import { openStore, type Store } from '../core/home/index.js';
import { plainTables, table, type Cell } from './render.js';
import { messageStream } from './stdout-data.js';

/** What every command handler gets: resolved global options, the home, and a lazily opened store. */
export interface CliContext {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  /** True when progress may be drawn: stderr is a terminal and the output is for a human. */
  interactive: boolean;
  /** Tables as tab-separated lines: --plain, or stdout is not a terminal. */
  plain: boolean;
  home: HomePaths;
  /** The home's store, opened on the first call (the same one after). */
  store(): Promise<Store>;
  /** A table in the form this output wants (boxed on a terminal, else tab-separated). */
  table(head: string[], rows: Cell[][]): string;
  /** Prints `data` as JSON with --json, else the human rendering (nothing with --quiet). */
  print(data: unknown, human: () => string): void;
  /** A line on stderr for humans (suppressed by --quiet and --json). */
  note(line: string): void;
  /** Closes the store if it was opened. */
  close(): Promise<void>;
}

interface GlobalOptions {
  home?: string;
  store?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  plain?: boolean;
}

/** Builds the context of a command from its options merged with the global ones. */
export function contextOf(cmd: Command): CliContext {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  const json = o.json === true;
  const quiet = o.quiet === true;
  const color = o.color !== false && !process.env.NO_COLOR && process.stdout.isTTY === true;
  const plain = plainTables(o.plain, process.stdout.isTTY);
  let store: Promise<Store> | undefined;
  // The processes a command starts (breakout jobs, scheduled runs) must open the same store: the
  // flag reaches them as the variable it overrides (docs/production.md#choosing-a-store).
  if (o.store !== undefined) process.env.SDS_STORE_URL = o.store;
  return {
    json,
    quiet,
    verbose: o.verbose === true,
    color,
    interactive: process.stderr.isTTY === true && !json && !quiet && !process.env.CI,
    plain,
    home: o.store === undefined ? resolveHome(o.home) : { ...resolveHome(o.home), storeUrl: o.store },
    store() {
      return (store ??= openStore(this.home));
    },
    table(head, rows) {
      return table(head, rows, plain);
    },
    print(data, human) {
      if (json) messageStream().write(JSON.stringify(data, null, 2) + '\n');
      else if (!quiet) {
        const text = human();
        if (text) messageStream().write(text.endsWith('\n') ? text : text + '\n');
      }
    },
    note(line) {
      if (!json && !quiet) process.stderr.write(line + '\n');
    },
    async close() {
      // A store that failed to open was reported by the command already: nothing to close.
      const opened = await store?.catch(() => undefined);
      await opened?.close();
    },
  };
}
