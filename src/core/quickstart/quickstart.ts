import { bundledFixture } from './assets.js';
import { readFileSync } from 'node:fs';
import type { HomePaths } from '../../shared/home.js';
import { initHome, openStore } from '../home/index.js';
import { uploadDictionary } from '../dictionaries/index.js';
import { importCases, type ImportReport } from '../cases/index.js';
import {
  runBreakoutNow,
  type JobStatusReply,
  breakoutTables,
  type BreakoutTablesReply,
  effectiveTargetWithoutSecrets,
} from '../breakout/index.js';
import { AppError, isErrorCode } from '../../shared/errors.js';

const QUICKSTART_DICTIONARY_FILE = 'popstan-census.json.dcf';
const QUICKSTART_DATA_FILE = 'popstan-census.dat';
const QUICKSTART_LABEL = 'popstan';

export interface QuickstartReply {
  home: string;
  dictionary: string;
  label: string;
  cases_stored: number;
  import: ImportReport['total'];
  /** Null when a signal stopped the quickstart before its breakout began. */
  breakout: { job: JobStatusReply; tables: BreakoutTablesReply['tables']; database: string } | null;
  /** Present when a signal stopped it: the step it stopped in. Running it again finishes the job. */
  interrupted?: 'import' | 'breakout';
}

export interface QuickstartOptions {
  onProgress?: (cases: number) => void;
  /** Ctrl-C / SIGTERM: the import stops after its batch, the breakout job after its page (docs/cli.md). */
  signal?: AbortSignal;
  /** Called with the breakout job's id once it exists. */
  onJob?: (jobId: string) => void;
}

/**
 * The main job on the embedded default: a home, the bundled Popstan census dictionary, its
 * 4,872 cases, and their breakout into the dictionary's target — the embedded SQLite file
 * unless a target was configured. Safe to run again: the second run finds every case unchanged
 * and the incremental breakout has nothing to do.
 */
export async function quickstart(home: HomePaths, options: QuickstartOptions | ((cases: number) => void) = {}): Promise<QuickstartReply> {
  const opts: QuickstartOptions = typeof options === 'function' ? { onProgress: options } : options;
  await initHome(home);
  const store = await openStore(home);
  try {
    const dictFile = bundledFixture(QUICKSTART_DICTIONARY_FILE);
    const up = await uploadDictionary(store, { source: readFileSync(dictFile), label: QUICKSTART_LABEL, file: dictFile });
    const report = await importCases(store, up.name, [bundledFixture(QUICKSTART_DATA_FILE)], {
      onProgress: opts.onProgress,
      signal: opts.signal,
    });
    const dict = (await store.dictionaries.find(up.name))!;
    const base = { home: home.root, dictionary: up.name, label: up.label, import: report.total };
    if (opts.signal?.aborted)
      return { ...base, cases_stored: await store.cases.countActive(dict.id), breakout: null, interrupted: 'import' };
    const job = await runBreakoutNow(store, { dictionary: up.name, origin: 'quickstart' }, { signal: opts.signal, onJob: opts.onJob });
    if (job.status === 'failed')
      throw new AppError(isErrorCode(job.error.code) ? job.error.code : 'BRK-002', `quickstart breakout failed: ${job.error.message}`, {
        job_id: job.job_id,
      });
    // Stopped: the target may be the reason (one that never answers), so it is not asked for its tables.
    if (job.status === 'cancelled') {
      const where = (await effectiveTargetWithoutSecrets(store, dict)).identity;
      return {
        ...base,
        cases_stored: await store.cases.countActive(dict.id),
        breakout: { job, tables: [], database: where },
        interrupted: 'breakout',
      };
    }
    const tables = await breakoutTables(store, up.name);
    return {
      ...base,
      cases_stored: await store.cases.countActive(dict.id),
      breakout: { job, tables: tables.tables, database: tables.database },
    };
  } finally {
    await store.close();
  }
}
