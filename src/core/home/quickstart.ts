import { bundledFixture } from './assets.js';
import { readFileSync } from 'node:fs';
import type { HomePaths } from '../../shared/home.js';
import { initHome } from './init.js';
import { openStore } from '../../store/open-store.js';
import { uploadDictionary } from '../dictionaries/index.js';
import { importCases, type ImportReport } from '../cases/index.js';
import { runBreakoutNow, type JobStatusReply, breakoutTables, type BreakoutTablesReply } from '../breakout/index.js';
import { AppError, isErrorCode } from '../../shared/errors.js';

export const QUICKSTART_DICTIONARY_FILE = 'popstan-census.json.dcf';
export const QUICKSTART_DATA_FILE = 'popstan-census.dat';
export const QUICKSTART_LABEL = 'popstan';

export interface QuickstartReply {
  home: string;
  dictionary: string;
  label: string;
  cases_stored: number;
  import: ImportReport['total'];
  breakout: { job: JobStatusReply; tables: BreakoutTablesReply['tables']; database: string };
}

/**
 * The main job on the embedded default: a home, the bundled Popstan census dictionary, its
 * 4,872 cases, and their breakout into the dictionary's target — the embedded SQLite file
 * unless a target was configured. Safe to run again: the second run finds every case unchanged
 * and the incremental breakout has nothing to do.
 */
export async function quickstart(home: HomePaths, onProgress?: (n: number) => void): Promise<QuickstartReply> {
  initHome(home);
  const store = openStore(home);
  try {
    const dictFile = bundledFixture(QUICKSTART_DICTIONARY_FILE);
    const up = uploadDictionary(store, { source: readFileSync(dictFile), label: QUICKSTART_LABEL, file: dictFile });
    const report = await importCases(store, up.name, [bundledFixture(QUICKSTART_DATA_FILE)], onProgress);
    const dict = store.dictionaries.find(up.name)!;
    const job = await runBreakoutNow(store, { dictionary: up.name, origin: 'quickstart' });
    if (job.status === 'failed') throw new AppError(isErrorCode(job.error.code) ? job.error.code : 'BRK-002', `quickstart breakout failed: ${job.error.message}`, { job_id: job.job_id });
    const tables = await breakoutTables(store, up.name);
    return {
      home: home.root,
      dictionary: up.name,
      label: up.label,
      cases_stored: store.cases.countActive(dict.id),
      import: report.total,
      breakout: { job, tables: tables.tables, database: tables.database },
    };
  } finally {
    store.close();
  }
}
