import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import {
  clearDictionaryGps,
  deleteDictionary,
  getDictionary,
  getDictionaryGps,
  setDictionaryGps,
  listDictionaries,
  uploadDictionary,
  type BreakoutRebuildNotice,
  type DictionaryDetail,
} from '../../core/dictionaries/index.js';
import { purgeCaseCount, purgeDictionary, type PurgeReply } from '../../core/dictionary-purge/index.js';
import { storeAreaNames } from '../../core/reports/index.js';
import { confirmDestructive } from '../confirm.js';
import { action, examples } from '../action.js';
import { audited, NOT_DONE } from '../audited.js';
import { fields } from '../render.js';

function readInput(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
}

/** The upload's warning that the next breakout drops and rebuilds tables (docs/breakout.md, "Destructive changes"). */
function rebuildText(head: string, name: string, n: BreakoutRebuildNotice): string {
  return [
    head,
    `warning: the next breakout drops and rebuilds the breakout tables (${n.reason}): ${n.detail}`,
    `  drops in ${n.target}, if the target still holds them: ${n.tables_dropped.join(', ')}`,
    `  creates: ${n.tables_created.join(', ')}`,
    `  every case is loaded again; see what the target holds now with: sds breakout tables ${name}`,
  ].join('\n');
}

/** `sds dict upload|list|show|delete|set-gps|area-names`. */
export function registerDictCommands(program: Command): void {
  const dict = program
    .command('dict')
    .description('CSPro dictionaries (.dcf, text or JSON form)')
    .addHelpText('after', examples('sds dict upload census.dcf --label popstan', 'sds dict list --json', 'sds dict show CEN2000 --short'));

  dict
    .command('upload <file>')
    .description('store a dictionary; its name is the one inside the file, the label prefixes its breakout tables')
    .requiredOption('--label <label>', 'short label: a letter, then letters, digits or _ (at most 30)')
    .addHelpText(
      'after',
      examples(
        'sds dict upload "Census Dictionary.dcf" --label popstan',
        'sds dict upload household.dcf --label hh --json',
        'sds dict upload households-8.1.dcf --label hh   # keeps its syncable name',
      ),
    )
    .action(
      audited(
        'dictionaries.upload',
        (file: string) => `file:${file}`,
        async (ctx, file: string, opts: { label: string }) => {
          const r = await uploadDictionary(await ctx.store(), { source: readInput(file), label: opts.label, file });
          const about = `label ${r.label}${r.sync_name === null ? '' : `, syncable name ${r.sync_name}`}`;
          const head = `${r.created ? 'uploaded' : 'replaced'} ${r.name} (${about})`;
          ctx.print(
            { message: r.message, name: r.name, sync_name: r.sync_name, label: r.label, breakout_rebuild: r.breakout_rebuild },
            () => (r.breakout_rebuild ? rebuildText(head, r.name, r.breakout_rebuild) : r.message + ` (${about})`),
          );
          return { dictionary: r.name, created: r.created };
        },
      ),
    );

  dict
    .command('list')
    .description('list dictionaries: name in URLs, dictionary name, label, version, created_at')
    .addHelpText('after', examples('sds dict list', 'sds dict list --json'))
    .action(
      action(async (ctx) => {
        const list = await listDictionaries(await ctx.store());
        ctx.print(list, () =>
          list.length
            ? ctx.table(
                ['name', 'dictionaryName', 'label', 'version', 'created_at'],
                list.map((d) => [d.name, d.dictionaryName, d.label, d.version, d.created_at]),
              )
            : 'no dictionaries',
        );
      }),
    );

  dict
    .command('show <name>')
    .description('show a dictionary (by its name or syncable name): levels, records, metadata')
    .option('--short', 'only name, label, levels and records')
    .addHelpText('after', examples('sds dict show CEN2000', 'sds dict show CEN2000 --short --json', 'sds dict show HOUSEHOLDS_2025'))
    .action(
      action(async (ctx, name: string, opts: { short?: boolean }) => {
        const store = await ctx.store();
        const detail = await getDictionary(store, name, { short: opts.short });
        // The GPS items (docs/export.md#gps-items-of-a-dictionary) are shown here, not in the HTTP detail.
        const set = opts.short ? undefined : await getDictionaryGps(store, detail.name);
        const gps = set && (set.latitude === null || set.longitude === null ? null : { latitude: set.latitude, longitude: set.longitude });
        const d = gps === undefined ? detail : { ...detail, gps };
        ctx.print(d, () => {
          const full = d as Partial<DictionaryDetail>;
          const head = fields([
            ['name', d.name],
            ['label', d.label],
            ...(opts.short
              ? []
              : ([
                  ['sync_name', full.sync_name ?? '-'],
                  ['version', full.version],
                  ['description', full.description],
                  ['created_at', full.created_at],
                  ['updated_at', full.updated_at],
                  ['gps', gps ? `latitude ${gps.latitude}, longitude ${gps.longitude}` : '-'],
                ] as [string, unknown][])),
          ]);
          return [
            head,
            ctx.table(
              ['level', 'label'],
              d.levels.map((l) => [l.name, l.label]),
            ),
            ctx.table(
              ['record', 'label'],
              d.records.map((r) => [r.name, r.label]),
            ),
          ].join('\n');
        });
      }),
    );

  dict
    .command('delete <name>')
    .description('delete a dictionary; without cases and breakout tables unless --with-cases')
    .option('--with-cases', 'purge it with its cases, tombstones, schedules, run logs, sync history and breakout state')
    .option('--drop-tables', 'with --with-cases: also drop its breakout tables in the target')
    .option('-y, --yes', 'do not ask for confirmation (needed when there is no terminal)')
    .addHelpText(
      'after',
      examples(
        'sds dict delete TEST_DICT',
        'sds dict delete CEN2000 --with-cases',
        'sds dict delete CEN2000 --with-cases --drop-tables --yes --json',
      ),
    )
    .action(
      audited(
        (_name: string, opts: { withCases?: boolean }) => (opts.withCases ? 'dictionaries.purge' : 'dictionaries.delete'),
        (name: string) => `dictionary:${name}`,
        async (ctx, name: string, opts: { withCases?: boolean; dropTables?: boolean; yes?: boolean }) => {
          if (opts.dropTables && !opts.withCases)
            throw new AppError('USAGE', '--drop-tables needs --with-cases (sds breakout drop NAME drops only the tables)', {});
          if (!opts.withCases) {
            const r = await deleteDictionary(await ctx.store(), name);
            ctx.print(r, () => r.message);
            return;
          }
          const store = await ctx.store();
          const cases = await purgeCaseCount(store, name);
          const what = `Purge dictionary ${name} with its ${cases} cases${opts.dropTables ? ' and drop its breakout tables' : ''}?`;
          if (!(await confirmDestructive(what, { yes: opts.yes, flagHint: `sds dict delete ${name} --with-cases --yes` }))) {
            ctx.note('not purged');
            process.exitCode = 1;
            return NOT_DONE;
          }
          const r = await purgeDictionary(store, name, { dropTables: opts.dropTables === true });
          ctx.print(r, () => purgeText(r));
        },
      ),
    );

  dict
    .command('set-gps <name>')
    .description('set the latitude and longitude items a GeoJSON export places its points with (sds export --format geojson)')
    .option('--lat <item>', 'the latitude item: numeric, one value (decimal degrees, WGS 84)')
    .option('--lon <item>', 'the longitude item, on the same record as the latitude')
    .option('--clear', 'forget the items set')
    .addHelpText(
      'after',
      examples(
        'sds dict set-gps HOUSEHOLD --lat HH_GPS_LATITUDE --lon HH_GPS_LONGITUDE',
        'sds dict set-gps HOUSEHOLD --clear --json',
        'sds export HOUSEHOLD --format geojson --out ./map   # uses them',
      ) +
        '\nBoth items must be numeric items of the dictionary that do not repeat, on the\n' +
        'same record (or both id items of one level). --lat and --lon of sds export\n' +
        'override them; sds dict show shows them. See docs/export.md.\n',
    )
    .action(
      audited(
        (_name: string, opts: { clear?: boolean }) => (opts.clear ? 'dictionaries.clear-gps' : 'dictionaries.set-gps'),
        (name: string) => `dictionary:${name}`,
        async (ctx, name: string, opts: { lat?: string; lon?: string; clear?: boolean }) => {
          if (opts.clear) {
            if (opts.lat !== undefined || opts.lon !== undefined)
              throw new AppError('USAGE', '--clear takes no --lat or --lon', { field: 'clear' });
            const r = await clearDictionaryGps(await ctx.store(), name);
            ctx.print(r, () => r.message);
            return { cleared: r.cleared };
          }
          if (opts.lat === undefined || opts.lon === undefined)
            throw new AppError('USAGE', 'give both --lat ITEM and --lon ITEM, or --clear', {
              field: opts.lat === undefined ? 'lat' : 'lon',
            });
          const r = await setDictionaryGps(await ctx.store(), name, opts.lat, opts.lon);
          ctx.print(r, () => r.message);
          return { latitude: r.latitude, longitude: r.longitude };
        },
      ),
    );

  dict
    .command('area-names <name> <file>')
    .description(
      'store the area names of a dictionary from a code/label CSV (codes level by level, then the name), ' +
        'replacing those it had; the geographic report (sds sync report --by ids) shows them',
    )
    .option('--header', 'the first line of the file is a header: skip it')
    .addHelpText(
      'after',
      examples('sds dict area-names CEN2000 areas.csv', 'sds dict area-names CEN2000 areas.csv --header --json') +
        '\nFile: one area a line, its codes level by level, then its name:\n' +
        '  01,,North       a province\n  01,03,Lakeside  a district of it\n',
    )
    .action(
      audited(
        'dictionaries.area-names',
        (name: string) => `dictionary:${name}`,
        async (ctx, name: string, file: string, opts: { header?: boolean }) => {
          const r = await storeAreaNames(await ctx.store(), name, readInput(file).toString('utf8'), opts.header === true);
          ctx.print(r, () => r.message);
          return { areas: r.areas };
        },
      ),
    );
}

function purgeText(r: PurgeReply): string {
  const rows = Object.entries(r.removed).map(([k, v]) => [k, v] as [string, unknown]);
  const lines = [r.message, fields(rows)];
  if (r.dropped_tables.length) lines.push(`dropped tables: ${r.dropped_tables.join(', ')}`);
  if (r.tables_left.length)
    lines.push(`tables left in the target: ${r.tables_left.join(', ')} (the store no longer knows them: drop them in the target by hand)`);
  return lines.join('\n');
}
