import { bundledFixture } from './assets.js';
import { readFileSync } from 'node:fs';
import type { HomePaths } from './home.js';
import { initHome } from './init.js';
import { openStore } from '../store/open-store.js';
import { uploadDictionary } from './dictionaries.js';
import { importCases, type ImportReport } from './import-cases.js';

export const QUICKSTART_DICTIONARY_FILE = 'popstan-census.json.dcf';
export const QUICKSTART_DATA_FILE = 'popstan-census.dat';
export const QUICKSTART_LABEL = 'popstan';

export interface QuickstartReply {
  home: string;
  dictionary: string;
  label: string;
  cases_stored: number;
  import: ImportReport['total'];
}

/**
 * The main job on the embedded default: a home, the bundled Popstan census dictionary and its
 * 4,872 cases. Safe to run again: the second run finds every case unchanged.
 */
export async function quickstart(home: HomePaths, onProgress?: (n: number) => void): Promise<QuickstartReply> {
  initHome(home);
  const store = openStore(home);
  try {
    const dictFile = bundledFixture(QUICKSTART_DICTIONARY_FILE);
    const up = uploadDictionary(store, { source: readFileSync(dictFile), label: QUICKSTART_LABEL, file: dictFile });
    const report = await importCases(store, up.name, [bundledFixture(QUICKSTART_DATA_FILE)], onProgress);
    const dict = store.dictionaries.find(up.name)!;
    return { home: home.root, dictionary: up.name, label: up.label, cases_stored: store.cases.countActive(dict.id), import: report.total };
  } finally {
    store.close();
  }
}
