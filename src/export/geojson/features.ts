/**
 * The points of one case (docs/export.md#geojson), pure: from the rows the export pass made of
 * the case, each row of the point table with a valid latitude and longitude becomes a feature
 * with its properties; the others are counted as without coordinates.
 */
import type { ExportCell } from '../model.js';
import type { CoordinateColumn, GeoJsonPlan, PropertyColumn } from './geojson-plan.js';

/** RFC 7946 positions are WGS 84 longitude, latitude in decimal degrees. */
const LIMIT = { latitude: 90, longitude: 180 } as const;

/**
 * A coordinate from its cell, or undefined when it is none: blank (NULL), a code the value set
 * marks special, not a finite number, or beyond ±90 (latitude) or ±180 (longitude). 0 is a
 * coordinate like any other (docs/export.md#geojson says why 0/0 is kept).
 */
export function coordinate(cell: ExportCell | undefined, column: CoordinateColumn, axis: keyof typeof LIMIT): number | undefined {
  if (cell === null || cell === undefined || typeof cell === 'boolean') return undefined;
  const n = typeof cell === 'number' ? cell : /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(cell) ? Number(cell) : Number.NaN;
  if (!Number.isFinite(n) || column.specials.has(n) || Math.abs(n) > LIMIT[axis]) return undefined;
  return n;
}

/** One point: its position (longitude, latitude) and its properties in plan order. */
export interface PointFeature {
  coordinates: [number, number];
  properties: [string, ExportCell][];
}

/** The rows of one case by table index of the export plan (absent: the case has none). */
export type CaseRows = ReadonlyMap<number, readonly ExportCell[][]>;

/** The value of a property for the point row `row`. */
function propertyValue(plan: GeoJsonPlan, p: PropertyColumn, rows: CaseRows, row: readonly ExportCell[]): ExportCell {
  const source = p.table === plan.pointTable ? row : rows.get(p.table)?.[0];
  const cell = source?.[p.column] ?? null;
  if (p.labels === undefined || cell === null || typeof cell === 'boolean') return p.labelOnly === true ? null : cell;
  const label = p.labels.get(typeof cell === 'number' ? String(cell) : cell.trimEnd());
  return label ?? (p.labelOnly === true ? null : cell);
}

/**
 * The points of one case and how many of its candidates had no valid coordinates: every row of
 * the point table, and with `perCase` a case without that row counts as one.
 */
export function caseFeatures(plan: GeoJsonPlan, rows: CaseRows): { features: PointFeature[]; withoutCoordinates: number } {
  const candidates = rows.get(plan.pointTable) ?? [];
  const features: PointFeature[] = [];
  let without = plan.perCase && candidates.length === 0 ? 1 : 0;
  for (const row of candidates) {
    const lat = coordinate(row[plan.latitude.column], plan.latitude, 'latitude');
    const lon = coordinate(row[plan.longitude.column], plan.longitude, 'longitude');
    if (lat === undefined || lon === undefined) {
      without += 1;
      continue;
    }
    features.push({
      coordinates: [lon, lat],
      properties: plan.properties.map((p) => [p.name, propertyValue(plan, p, rows, row)]),
    });
  }
  return { features, withoutCoordinates: without };
}
