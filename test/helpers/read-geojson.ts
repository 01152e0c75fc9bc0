/**
 * A GeoJSON file as GDAL reads it (`ogrinfo`, Debian `gdal-bin`): the layer's name, geometry type
 * and feature count, the file's own members GDAL keeps (`NATIVE_DATA`: our `sds` summary), the
 * fields with their types, and every feature's values and point. The tests check what we write
 * with someone else's reader, never with our own.
 */
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';

export interface OgrFeature {
  /** Field name → value as ogrinfo prints it; null for `(null)`. */
  values: Record<string, string | null>;
  /** Field name → its OGR type (String, Integer, Real …). */
  types: Record<string, string>;
  /** The point's x (longitude) and y (latitude), as printed. */
  point: [number, number] | null;
}

export interface OgrLayer {
  name: string;
  geometry: string;
  featureCount: number;
  /** The file's top-level members other than `features`, as GDAL keeps them (NATIVE_DATA). */
  native: Record<string, unknown>;
  features: OgrFeature[];
}

/** Reads `file` with `ogrinfo -al` (one layer); fails with its output when it cannot. */
export function readGeoJsonWithOgr(file: string): OgrLayer {
  const r = spawnSync('ogrinfo', ['-ro', '-al', '-oo', 'NATIVE_DATA=YES', '-mdd', 'NATIVE_DATA', file], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `ogrinfo ${file}: ${r.stderr}${r.stdout}`);
  const out = r.stdout;
  const one = (re: RegExp, what: string): string => {
    const m = re.exec(out);
    assert.ok(m, `ogrinfo printed no ${what}:\n${out}`);
    return m[1]!;
  };
  const nativeText = /^\s*NATIVE_DATA=(.*)$/m.exec(out)?.[1];
  const features: OgrFeature[] = [];
  let current: OgrFeature | undefined;
  for (const line of out.split('\n')) {
    if (/^OGRFeature\(/.test(line)) {
      current = { values: {}, types: {}, point: null };
      features.push(current);
      continue;
    }
    if (!current) continue;
    const field = /^ {2}(\S+) \((\w+)\) = (.*)$/.exec(line);
    if (field) {
      current.values[field[1]!] = field[3] === '(null)' ? null : field[3]!;
      current.types[field[1]!] = field[2]!;
      continue;
    }
    const point = /^ {2}POINT \((\S+) (\S+)\)$/.exec(line);
    if (point) current.point = [Number(point[1]), Number(point[2])];
  }
  return {
    name: one(/^Layer name: (.*)$/m, 'layer name'),
    geometry: one(/^Geometry: (.*)$/m, 'geometry type'),
    featureCount: Number(one(/^Feature Count: (\d+)$/m, 'feature count')),
    native: nativeText === undefined ? {} : (JSON.parse(nativeText) as Record<string, unknown>),
    features,
  };
}
