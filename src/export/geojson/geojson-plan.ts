/**
 * Dictionary → GeoJSON plan (docs/export.md#geojson): which export table the points come from,
 * where their latitude and longitude are, and which columns become each point's properties. It
 * builds on the export plan (export-plan.ts), so properties have the export names, types and
 * value sets the other formats give the same columns. Pure.
 *
 * The points are the rows of the table holding the two GPS items: the cases table (level-1 id
 * items) or a level-1 record that occurs at most once give one point per case; a repeating
 * record, or a level below the first, one point per occurrence (per node).
 */
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { AppError } from '../../shared/errors.js';
import { planExport, type ExportPlan } from '../export-plan.js';
import { ExportNames } from '../export-names.js';
import type { ExportColumn, LabelsMode } from '../model.js';
import { valueLabelMaps } from '../formats/csv/csv-text.js';
import { findItem, gpsItems, type ItemPlace } from './gps-items.js';

/** One coordinate of the points: its column in the point table and the codes its value set marks special. */
export interface CoordinateColumn {
  column: number;
  /** The item, as the dictionary spells it. */
  item: string;
  /** Codes the item's value set maps to a CSPro special value (MISSING …): never a coordinate. */
  specials: ReadonlySet<number>;
}

/** One property of every point: its name and the cell it takes. */
export interface PropertyColumn {
  name: string;
  /** Index in `exportPlan.tables` of the table whose row gives it. */
  table: number;
  column: number;
  /** With labels: the value labels by code (as CSV reads them), when the column has any. */
  labels?: Map<string, string>;
  /** With `labels`: true for the `_label` property of `--labels both` (the label, or null), else the label or the code. */
  labelOnly?: boolean;
}

export interface GeoJsonPlan {
  exportPlan: ExportPlan;
  /** Index in `exportPlan.tables` of the table whose rows are the points. */
  pointTable: number;
  /** True when there is at most one point per case: a case without its row is counted as without coordinates. */
  perCase: boolean;
  latitude: CoordinateColumn;
  longitude: CoordinateColumn;
  properties: PropertyColumn[];
  /** The file's base name: the dictionary's table prefix (its label, lower case). */
  name: string;
}

export interface GeoJsonPlanOptions {
  latitude: string;
  longitude: string;
  /** Items whose values each point carries as properties (any case). */
  items?: readonly string[];
  /** Default true: the case's id items (and the node's) are properties. */
  ids?: boolean;
  includeDeleted?: boolean;
  /**
   * `labels`: coded properties hold their value labels, as CSV writes them; `both`: the code,
   * then a `<name>_label` property of its label (null where it has none).
   */
  labels?: LabelsMode;
}

/** The export table name (without prefix) that holds the item at `place`. */
function tableOf(place: ItemPlace): string {
  if (place.record) return place.record.name;
  return place.level === 1 ? 'cases' : `level_${place.level}`;
}

/** True for a record or the id items that occur at most once in a case. */
function oncePerCase(place: ItemPlace): boolean {
  return place.level === 1 && (place.record === undefined || place.record.maxOccurrences <= 1);
}

/**
 * Plans the GeoJSON export of `dict` (table prefix `label`). Throws GPS_ITEM_INVALID for GPS
 * items the dictionary does not have as one numeric value per point, and GEOJSON_ITEM_INVALID for
 * a property item that is not in the dictionary or not one value per point.
 */
export function planGeoJson(dict: Dictionary, label: string, opts: GeoJsonPlanOptions): GeoJsonPlan {
  const gps = gpsItems(dict, opts.latitude, opts.longitude);
  const point = gps.latitude;
  const perCase = oncePerCase(point);
  const chosen = (opts.items ?? []).map((name) => propertyItem(dict, name, point));
  const records = new Set<string>([tableOf(point), ...chosen.filter((c) => !c.inPointTable).map((c) => tableOf(c.place))]);
  const exportPlan = planExport(dict, label, { records: [...records], includeDeleted: opts.includeDeleted, alwaysCases: true, ids: true });
  const tableIndex = (place: ItemPlace): number => {
    const kind = place.record ? 'record' : place.level === 1 ? 'main' : 'level';
    const i = exportPlan.tables.findIndex(
      (t) =>
        t.kind === kind &&
        (place.record ? t.record === place.record.name : kind === 'main' || t.table.name.endsWith(`_level_${place.level}`)),
    );
    if (i < 0) throw new AppError('INTERNAL', `GeoJSON plan: no export table holds ${place.item.name}`);
    return i;
  };
  const pointTable = tableIndex(point);
  const mainTable = exportPlan.tables.findIndex((t) => t.kind === 'main');
  const columnsOf = (t: number) => exportPlan.tables[t]!.table.columns;
  const coordinate = (place: ItemPlace): CoordinateColumn => {
    const column = columnsOf(pointTable).findIndex((c) => c.item === place.item.name && c.occurrence === undefined);
    if (column < 0) throw new AppError('INTERNAL', `GeoJSON plan: no column holds ${place.item.name}`);
    const specials = new Set<number>();
    for (const v of columnsOf(pointTable)[column]!.valueSet?.values ?? []) {
      if (v.special !== undefined && typeof v.value === 'number') specials.add(v.value);
    }
    return { column, item: place.item.name, specials };
  };

  const names = new ExportNames();
  const properties: PropertyColumn[] = [];
  const taken = new Set<string>();
  const add = (table: number, column: number) => {
    const col = columnsOf(table)[column]!;
    // The same item twice (an id item chosen again) is one property.
    const key = col.item === undefined ? `#${col.source}` : `${col.item}/${col.occurrence ?? 0}`;
    if (taken.has(key)) return;
    taken.add(key);
    const p: PropertyColumn = { name: names.claim(col.name), table, column };
    const labels = opts.labels === 'labels' || opts.labels === 'both' ? valueLabelMaps([col])[0] : undefined;
    if (labels && opts.labels === 'labels') p.labels = labels;
    properties.push(p);
    if (labels && opts.labels === 'both') labelled.push({ code: p, labels });
  };
  // `_label` properties take their names last, as the label columns of CSV do (export-plan.ts).
  const labelled: { code: PropertyColumn; labels: Map<string, string> }[] = [];
  const where = (t: number, test: (c: ExportColumn) => boolean) => {
    columnsOf(t).forEach((c, j) => {
      if (test(c)) add(t, j);
    });
  };

  add(mainTable, 0);
  if (opts.ids !== false) {
    const idItems = new Set(dict.levels.slice(0, point.level).flatMap((l) => l.ids.map((i) => i.name)));
    // The point table holds the ids of its levels (export-plan.ts, ids: true) unless it is the cases table.
    where(pointTable === mainTable ? mainTable : pointTable, (c) => c.item !== undefined && idItems.has(c.item));
  }
  if (!perCase) where(pointTable, (c) => c.item === undefined && (c.source === 'occ' || /^level_\d+_occ$/.test(c.source)));
  if (opts.includeDeleted === true) where(mainTable, (c) => c.item === undefined && c.source === 'deleted');
  for (const { place, inPointTable } of chosen) where(inPointTable ? pointTable : tableIndex(place), (c) => c.item === place.item.name);
  for (const { code, labels } of labelled) {
    const label: PropertyColumn = {
      name: names.claim(`${code.name}_label`),
      table: code.table,
      column: code.column,
      labels,
      labelOnly: true,
    };
    properties.splice(properties.indexOf(code) + 1, 0, label);
  }

  return {
    exportPlan,
    pointTable,
    perCase,
    latitude: coordinate(gps.latitude),
    longitude: coordinate(gps.longitude),
    properties,
    name: exportPlan.breakout.prefix,
  };
}

/**
 * The item named `name` as a property of points taken from the table of `point`: an item of
 * that same table (its record's, or an id item of its level or a level above, which the table
 * holds: export-plan.ts), or one that occurs once per case (a level-1 id item, a level-1 record
 * that does not repeat), so each point has one value of it.
 */
function propertyItem(dict: Dictionary, name: string, point: ItemPlace): { place: ItemPlace; inPointTable: boolean } {
  const place = findItem(dict, name);
  const fail = (why: string): never => {
    throw new AppError('GEOJSON_ITEM_INVALID', `the item ${name} ${why}`, { dictionary: dict.name, item: name });
  };
  if (!place) return fail(`is not an item of the dictionary ${dict.name}`);
  const inPointTable =
    (place.record !== undefined && place.record === point.record) || (place.record === undefined && place.level <= point.level);
  if (inPointTable || oncePerCase(place)) return { place, inPointTable };
  const holder = place.record ? `record ${place.record.name}` : `the level ${place.level} ids`;
  const points = point.record ? `record ${point.record.name}` : `the level ${point.level} ids`;
  return fail(
    `(${holder}) may take several values in a case, and the points come from ${points}: ` +
      'a property is an item of the points’ own record or of one that occurs once per case',
  );
}
