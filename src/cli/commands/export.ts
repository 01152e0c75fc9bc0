import { pipeline } from 'node:stream/promises';
import { Option, type Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import {
  exportFormatNames,
  exportToFolder,
  exportZip,
  geoJsonDownload,
  type ExportInput,
  type ExportProgress,
  type ExportResult,
} from '../../core/export/index.js';
import { action, examples } from '../action.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { progressBar, type Progress } from '../progress.js';
import { claimStdoutForData } from '../stdout-data.js';

/** `--out -`: a zip of the export on standard output instead of files in a folder. */
const STDOUT = '-';

interface ExportOpts {
  format: string;
  out: string;
  record?: string[];
  labels: 'codes' | 'labels' | 'both';
  sinceRevision?: string;
  includeDeleted?: boolean;
  force?: boolean;
  bom?: boolean;
  /** False with --no-ids. */
  ids: boolean;
  lat?: string;
  lon?: string;
  item?: string[];
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

/** `sds export` (docs/export.md): the cases of a dictionary as files for analysts. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'write the cases of a dictionary as CSV, Stata, SPSS or Parquet files (one per table) and a codebook, as one Excel workbook, or their GPS points as GeoJSON',
    )
    .argument('<dictionary>', 'dictionary name')
    .addOption(new Option('--format <format>', 'file format').choices(exportFormatNames()).makeOptionMandatory())
    .requiredOption('--out <dir>', 'folder to write the files into (made if missing); - for a zip of them on stdout')
    .option('--record <name>', 'export only this record table (repeatable, or comma-separated); the cases table always comes', collect)
    .addOption(
      new Option('--labels <mode>', 'CSV, Parquet, Excel, GeoJSON: codes, their value labels, or both (a <name>_label column after each)')
        .choices(['codes', 'labels', 'both'])
        .default('codes'),
    )
    .option('--since-revision <n>', 'only the cases changed after store revision N')
    .option('--include-deleted', 'deleted cases too, with a deleted column in the cases table')
    .option('--force', 'replace files of the same names in the folder')
    .option('--bom', 'CSV: start each file with a UTF-8 byte order mark (for Excel)')
    .option('--no-ids', 'leave the id items out of the record tables (they stay in the cases table)')
    .option('--lat <item>', 'GeoJSON: the latitude item (default: the one set with sds dict set-gps)')
    .option('--lon <item>', 'GeoJSON: the longitude item (default: the one set with sds dict set-gps)')
    .option('--item <item>', 'GeoJSON: an item each point carries as a property (repeatable, or comma-separated)', collect)
    .addHelpText(
      'after',
      examples(
        'sds export CEN2000 --format csv --out ./cen2000-csv',
        'sds export CEN2000 --format stata --out ./stata --record PERSON',
        'sds export CEN2000 --format parquet --out ./pq --since-revision 1200 --json',
        'sds export CEN2000 --format csv --out ./csv --labels labels --bom --force',
        'sds export CEN2000 --format parquet --out ./pq-labelled --labels both',
        'sds export CEN2000 --format csv --out - > cen2000-csv.zip',
        'sds export CEN2000 --format stata --out ./stata-bare --no-ids',
        'sds export CEN2000 --format xlsx --out ./excel --labels labels',
        'sds export HOUSEHOLD --format geojson --out ./map --lat HH_GPS_LATITUDE \\\n' +
          '    --lon HH_GPS_LONGITUDE --item HH_TENURE,HH_ROOF --labels labels',
        'sds export HOUSEHOLD --format geojson --out - > household.geojson',
      ) +
        '\nOne file per table (<label>_cases, <label>_<record>, level and notes tables),\n' +
        'keyed by case_id (and occ) so they join, rows in case-key order then occ;\n' +
        'record tables also hold the id items of their case after case_id (--no-ids:\n' +
        'not), plus codebook.csv: every column with\n' +
        'its item, label, type and value set. Names are made valid for every format\n' +
        '(at most 32 characters); the codebook maps them to the breakout columns.\n' +
        'Existing files of the same names are refused unless --force. --out - writes\n' +
        'a zip of the files to stdout (the summary, --json too, goes to stderr).\n' +
        'xlsx writes one workbook, <label>.xlsx: a sheet per table and a codebook\n' +
        'sheet; a table over 1,048,575 rows is refused (Excel holds no more).\n' +
        'GeoJSON: one file <label>.geojson of points (longitude, latitude in WGS 84)\n' +
        'with case_id, the id items and the --item items as properties; cases\n' +
        'without valid coordinates are counted and left out. --out - writes the\n' +
        'file itself to stdout.\n' +
        'See docs/export.md.\n',
    )
    .action(
      action(async (ctx, dictionary: string, o: ExportOpts) => {
        const toStdout = o.out === STDOUT;
        // Before anything is printed: the summary, --json and errors then go to stderr.
        if (toStdout) claimStdoutForData();
        let since: number | undefined;
        if (o.sinceRevision !== undefined) {
          if (!/^\d{1,15}$/.test(o.sinceRevision)) {
            throw new AppError('USAGE', `--since-revision must be a whole number ≥ 0, not "${o.sinceRevision}"`, {
              field: 'since-revision',
            });
          }
          since = Number(o.sinceRevision);
        }
        let bar: Progress | undefined;
        let phase = '';
        const onProgress = (p: ExportProgress) => {
          if (p.phase !== phase) {
            bar?.stop();
            phase = p.phase;
            bar = progressBar(ctx, '{phase} |{bar}| {percentage}% {value}/{total} cases | {eta_formatted}', p.total, {
              phase: p.phase === 'count' ? 'measuring' : 'writing',
            });
          }
          bar!.update(p.done);
        };
        const geojson = o.format === 'geojson';
        // GeoJSON is text: it may go to a terminal; a zip may not.
        if (toStdout && !geojson && process.stdout.isTTY === true) {
          throw new AppError('USAGE', 'standard output is a terminal: redirect --out - to a file (> export.zip) or pipe it', {
            field: 'out',
          });
        }
        const input: ExportInput = {
          dictionary,
          format: o.format,
          records: o.record,
          labels: o.labels,
          sinceRevision: since,
          includeDeleted: o.includeDeleted === true,
          bom: o.bom === true,
          ids: o.ids,
        };
        if (o.lat !== undefined) input.latitude = o.lat;
        if (o.lon !== undefined) input.longitude = o.lon;
        if (o.item !== undefined) input.items = o.item;
        const interrupt = interruptOnSignals({
          onFirst: (sig) =>
            process.stderr.write(`sds: ${sig}: stopping the export and removing its temporary files (again to exit at once)\n`),
          again: () => (toStdout ? 'the zip on standard output is incomplete' : `temporary .part files may remain in ${o.out}`),
        });
        let r: ExportResult;
        try {
          if (toStdout && geojson) {
            const file = await geoJsonDownload(await ctx.store(), input, { onProgress, signal: interrupt.signal });
            await pipeline(file.body, process.stdout, { signal: interrupt.signal });
            r = await file.result;
          } else if (toStdout) {
            const zip = await exportZip(await ctx.store(), input, { onProgress, signal: interrupt.signal });
            bar?.stop();
            // A reader that goes away (`| head`) ends the process at once (closed-pipe.ts).
            process.once('exit', zip.discard);
            try {
              await pipeline(zip.body, process.stdout, { signal: interrupt.signal });
            } finally {
              process.off('exit', zip.discard);
            }
            r = { ...zip.result, folder: STDOUT };
          } else {
            r = await exportToFolder(
              await ctx.store(),
              { ...input, out: o.out },
              { force: o.force === true, onProgress, signal: interrupt.signal },
            );
          }
        } catch (err) {
          const sig = interrupt.received();
          if (sig === undefined) throw err;
          return reportInterrupted(
            sig,
            toStdout
              ? 'the zip on standard output is incomplete; its temporary files were removed'
              : 'no export file was written; its temporary files were removed',
          );
        } finally {
          bar?.stop();
          interrupt.dispose();
        }
        const where = toStdout ? (geojson ? 'standard output' : 'a zip on standard output') : r.folder;
        const points = geoJsonCounts(r);
        ctx.print(r, () =>
          [
            `exported ${r.cases} cases of ${r.dictionary} as ${r.format} into ${where}` +
              (r.skipped_cases > 0 ? ` (${r.skipped_cases} unreadable cases left out)` : ''),
            ...(points
              ? [`${points.features} points; ${points.without_coordinates} left out without valid coordinates (docs/export.md#geojson)`]
              : []),
            ctx.table(
              ['file', 'rows', 'bytes'],
              r.files.flatMap((f) => [[f.file, f.rows, f.bytes], ...(f.sheets ?? []).map((s) => [`  sheet ${s.sheet}`, s.rows, ''])]),
            ),
            ...(r.warnings > 0 ? [`${r.warnings} values were written as NULL or truncated, as the breakout does (docs/breakout.md)`] : []),
          ].join('\n'),
        );
      }),
    );
}

/** The points and the candidates without coordinates of a GeoJSON export's result, else undefined. */
function geoJsonCounts(r: ExportResult): { features: number; without_coordinates: number } | undefined {
  const g = r as Partial<{ features: number; without_coordinates: number }>;
  return typeof g.features === 'number' && typeof g.without_coordinates === 'number'
    ? { features: g.features, without_coordinates: g.without_coordinates }
    : undefined;
}
