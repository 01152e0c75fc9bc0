/** The Stata export format: one .dta file (format 118/119) per table (docs/export.md#stata). */
import type { ExportFormat } from '../../model.js';
import { openStataWriter } from './writer.js';

export const stataFormat: ExportFormat = {
  name: 'stata',
  extension: '.dta',
  mediaType: 'application/x-stata-dta',
  // N and the str# widths are in the header, before the first row.
  needsStats: true,
  open(table, sink, _options, stats) {
    return openStataWriter(table, sink, stats);
  },
};
