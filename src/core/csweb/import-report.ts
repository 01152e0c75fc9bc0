/** What a CSWeb import tells its caller (docs/migrating-from-csweb.md#the-report). */
import type { CswebReportEntry as ReportEntry } from '../../csweb/report-entry.js';

export type { ReportEntry };
import type { CswebCopyCounts } from './files.js';
import type { Csweb81Rights } from '../../csweb/rights-81.js';

/** Per dictionary: what happened to it and its cases. */
export interface DictionaryImport {
  name: string;
  /** The sds label (CSWeb's label, or the label it was mapped to). */
  label: string;
  /** What the run did to the dictionary itself. */
  dictionary: 'created' | 'replaced' | 'unchanged' | 'skipped';
  /** Cases read from CSWeb after the cursor. */
  read: number;
  /** Cases written to sds (new or changed). */
  written: number;
  unchanged: number;
  failed: number;
  /** Cases stored by CSWeb as pre-7.5 record lines (converted to sds's JSON form). */
  textForm: number;
  /** The highest CSWeb revision of the dictionary imported so far (the resume point). */
  cursor: { revision: number; guid: string };
  /** The breakout rebuild a replaced dictionary causes, as `sds dict upload` says it. */
  breakoutRebuild?: string;
}

export interface CswebImportReport {
  source: { database: string; serverDeviceId: string; highestRevision: number };
  dryRun: boolean;
  dictionaries: DictionaryImport[];
  total: { read: number; written: number; unchanged: number; failed: number };
  /** The accounts (absent when not asked for). */
  users?: { added: number; updated: number; unchanged: number; skipped: number };
  /** CSWeb 8.1's messages taken this run (present for an 8.1 database). */
  messages?: { imported: number };
  /** CSWeb 8.1's roles and rights by its own names (present for an 8.1 database when accounts are imported). */
  rights81?: Csweb81Rights;
  /** The CSWeb schema version read: 7 (CSWeb 8.0) or 8 (CSWeb 8.1). */
  schemaVersion?: number;
  /** The synced files and app packages (present when CSWeb's files folder was given). */
  files?: { files: CswebCopyCounts; apps: CswebCopyCounts; binaryItems: number; appUpdates: number };
  /** Entries of level `error`, listed or not: any makes the import partial (CSWEB_IMPORT_PARTIAL). */
  errors: number;
  /** The first entries (up to the detail limit); `entriesNotListed` counts the others. */
  entries: ReportEntry[];
  entriesNotListed: number;
  /** Present when the signal stopped the run: the pages committed before it stay. */
  stopped?: true;
}

/** Collects report entries, keeping the first `limit` so memory stays bounded. */
export class ReportEntries {
  readonly list: ReportEntry[] = [];
  notListed = 0;
  errors = 0;

  constructor(private readonly limit: number) {}

  add(entry: ReportEntry): void {
    if (entry.level === 'error') this.errors += 1;
    if (this.list.length < this.limit) this.list.push(entry);
    else this.notListed += 1;
  }
}
