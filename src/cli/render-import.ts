import { warningLine, type ImportReport } from '../core/cases/index.js';

/** Warnings shown per file on `--verbose`; the log file has them all. */
const VERBOSE_WARNINGS_SHOWN = 50;

/**
 * The stderr lines about an import's warnings: on `--verbose` the first few of each file, one
 * line each (case, line or position, record, item, value), then how many more the log holds;
 * otherwise one line saying where to read them.
 */
export function describeImportDetails(report: ImportReport, opts: { verbose: boolean }): string[] {
  const lines: string[] = [];
  if (report.total.warnings === 0) return lines;
  if (!opts.verbose) {
    lines.push(`sds: ${report.total.warnings} warnings; --verbose lists them, ${report.log} has them all`);
    return lines;
  }
  for (const f of report.files) {
    for (const w of f.warningList.slice(0, VERBOSE_WARNINGS_SHOWN)) lines.push(`sds: ${warningLine(f.file, w)}`);
    const more = f.warnings - Math.min(f.warningList.length, VERBOSE_WARNINGS_SHOWN);
    if (more > 0) lines.push(`sds: ... and ${more} more warnings of ${f.file} in ${report.log}`);
  }
  return lines;
}
