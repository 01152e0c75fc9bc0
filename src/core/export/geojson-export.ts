/**
 * The GeoJSON export (docs/export.md#geojson): the points of a dictionary's cases as one
 * FeatureCollection, `<label>.geojson`, written as the export pass reads the store (one pass, no
 * temporary folder): into a folder (under a hidden temporary name, fsynced, renamed into place)
 * or as a stream (standard output, an HTTP response). The latitude and longitude items are the
 * ones given, else those set for the dictionary (core/dictionaries, gps.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { FileSink } from './file-sink.js';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { AppError } from '../../shared/errors.js';
import { fsyncDirectory } from '../../shared/durable-file.js';
import type { ByteSink, ExportCell } from '../../export/model.js';
import { planGeoJson, type GeoJsonPlan } from '../../export/geojson/geojson-plan.js';
import { caseFeatures } from '../../export/geojson/features.js';
import { GEOJSON_MEDIA_TYPE, GeoJsonWriter, type GeoJsonSummary } from '../../export/geojson/writer.js';
import type { DictionaryRecord } from '../../store/dictionaries-repo.js';
import { requireDictionary } from '../dictionaries/index.js';
import type { Store } from '../home/index.js';
import { exportPass } from './export-pass.js';
import type { ExportDownload, ExportFolderOptions, ExportResult } from './export-results.js';
import { openSnapshot, type ExportInput, type ExportSnapshot } from './prepare.js';

/** The format name of the GeoJSON export. */
export const GEOJSON = 'geojson';

/** What a GeoJSON export did: an export result, plus its points and the candidates left out. */
export interface GeoJsonResult extends ExportResult {
  /** Points written. */
  features: number;
  /** Cases (or occurrences of a repeating record) left out for want of a valid latitude and longitude. */
  without_coordinates: number;
}

interface PreparedGeoJson {
  dict: DictionaryRecord;
  plan: GeoJsonPlan;
  input: ExportInput;
  latitude: string;
  longitude: string;
}

/**
 * Checks the input and plans the points; reads no case. The GPS items are those of the input,
 * else the dictionary's (EXPORT_GPS_UNSET when it has none); both are checked against the
 * dictionary as it is now.
 */
async function prepareGeoJson(store: Store, input: ExportInput): Promise<PreparedGeoJson> {
  if ((input.records ?? []).length > 0) {
    throw new AppError('USAGE', 'a GeoJSON export writes one file of points: it takes items as properties, not record tables', {
      field: 'record',
    });
  }
  if ((input.latitude === undefined) !== (input.longitude === undefined)) {
    throw new AppError('USAGE', 'a GeoJSON export takes both a latitude and a longitude item, or neither (those set for the dictionary)', {
      field: input.latitude === undefined ? 'lat' : 'lon',
      settings: [input.latitude === undefined ? 'lat' : 'lon'],
    });
  }
  if (input.sinceRevision !== undefined && (!Number.isSafeInteger(input.sinceRevision) || input.sinceRevision < 0)) {
    throw new AppError('USAGE', `the revision to export changes after must be a whole number ≥ 0, not ${input.sinceRevision}`, {
      field: 'since_revision',
    });
  }
  const dict = await requireDictionary(store, input.dictionary);
  let latitude = input.latitude;
  let longitude = input.longitude;
  if (latitude === undefined || longitude === undefined) {
    const set = await store.dictionaries.gps(dict.id);
    if (!set) {
      throw new AppError(
        'EXPORT_GPS_UNSET',
        `no latitude and longitude items are set for the dictionary ${dict.name}, and none were given`,
        {
          dictionary: dict.name,
        },
      );
    }
    ({ latitude, longitude } = set);
  }
  const plan = planGeoJson(dict.model, dict.label, {
    latitude,
    longitude,
    items: input.items,
    ids: input.ids !== false,
    includeDeleted: input.includeDeleted === true,
    labels: input.labels,
  });
  return { dict, plan, input, latitude: plan.latitude.item, longitude: plan.longitude.item };
}

/** The file name of the export: the dictionary's table prefix (its label) and `.geojson`. */
function fileName(prepared: PreparedGeoJson): string {
  return `${prepared.plan.name}.geojson`;
}

/**
 * The one pass: every case's rows gathered (rows of a case come together, its cases-table row
 * first: export-pass.ts), then its points written. Returns the summary the file ends with.
 */
async function writePoints(
  snapshot: ExportSnapshot,
  prepared: PreparedGeoJson,
  writer: GeoJsonWriter,
  opts: Pick<ExportFolderOptions, 'onProgress' | 'signal' | 'now'>,
): Promise<GeoJsonSummary> {
  const { plan, dict } = prepared;
  const exportPlan = plan.exportPlan;
  const mainTable = exportPlan.tables.findIndex((t) => t.kind === 'main');
  try {
    const exportTime = (opts.now?.() ?? new Date()).toISOString();
    let rows = new Map<number, ExportCell[][]>();
    let without = 0;
    const endCase = async () => {
      if (rows.size === 0) return;
      const points = caseFeatures(plan, rows);
      without += points.withoutCoordinates;
      rows = new Map();
      for (const f of points.features) await writer.write(f);
    };
    opts.onProgress?.({ phase: 'write', done: 0, total: snapshot.total });
    const pass = await exportPass(
      snapshot.store,
      dict.model,
      exportPlan,
      snapshot.selection,
      exportTime,
      async (t, row) => {
        if (t === mainTable) await endCase();
        const list = rows.get(t);
        if (list) list.push(row);
        else rows.set(t, [row]);
      },
      { signal: opts.signal, onCases: (done) => opts.onProgress?.({ phase: 'write', done, total: snapshot.total }) },
    );
    await endCase();
    return {
      dictionary: dict.name,
      latitude: prepared.latitude,
      longitude: prepared.longitude,
      cases: pass.cases,
      features: writer.features,
      without_coordinates: without,
      skipped_cases: pass.skipped,
      warnings: pass.warnings,
    };
  } finally {
    await snapshot.close();
  }
}

function result(prepared: PreparedGeoJson, folder: string, summary: GeoJsonSummary, bytes: number): GeoJsonResult {
  return {
    dictionary: prepared.dict.name,
    format: GEOJSON,
    folder,
    cases: summary.cases,
    skipped_cases: summary.skipped_cases,
    warnings: summary.warnings,
    features: summary.features,
    without_coordinates: summary.without_coordinates,
    files: [
      {
        file: fileName(prepared),
        table: prepared.plan.exportPlan.tables[prepared.plan.pointTable]!.table.name,
        rows: summary.features,
        bytes,
      },
    ],
  };
}

/**
 * `sds export --format geojson --out DIR`: `<label>.geojson` in DIR (made if missing), written
 * under a hidden temporary name, fsynced and renamed into place; an existing file of that name is
 * refused (EXPORT_FILE_EXISTS) unless `force`. On any failure the temporary file is removed.
 */
export async function exportGeoJsonToFolder(
  store: Store,
  input: ExportInput & { out: string },
  opts: ExportFolderOptions = {},
): Promise<GeoJsonResult> {
  const prepared = await prepareGeoJson(store, input);
  const folder = resolve(input.out);
  const name = fileName(prepared);
  const target = join(folder, name);
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    throw new AppError('EXPORT_OUT_INVALID', `cannot make the folder ${folder}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, {
      path: folder,
    });
  }
  if (opts.force !== true && existsSync(target)) {
    throw new AppError('EXPORT_FILE_EXISTS', `${folder} already holds ${name}`, { path: folder, files: name, replaceable: true });
  }
  const tmp = join(folder, `.${name}.${randomBytes(6).toString('hex')}.part`);
  const sink = new FileSink(await open(tmp, 'wx', 0o644));
  let closed = false;
  const writer = new GeoJsonWriter(sink, prepared.plan.name);
  try {
    const summary = await writePoints(await openSnapshot(store, prepared), prepared, writer, opts);
    await writer.close(summary);
    await sink.fh.sync();
    await sink.fh.close();
    closed = true;
    await rename(tmp, target);
    fsyncDirectory(folder);
    return result(prepared, folder, summary, sink.bytes);
  } catch (err) {
    writer.abort();
    if (!closed) await sink.fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    if (err instanceof AppError || opts.signal?.aborted) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      throw new AppError('IO_ERROR', `could not write the export into ${folder}: ${code}`, { path: folder }, { cause: err });
    }
    throw err;
  }
}

/** A GeoJSON download: the file as a stream, and the export's result once it has been written whole. */
export interface GeoJsonDownload extends ExportDownload {
  /** Resolves when the body has been written whole; rejects with the error that ended it early. */
  result: Promise<GeoJsonResult>;
}

/**
 * The GeoJSON file as a stream, written as the store is read (standard output, an HTTP
 * response). Errors of the input are thrown here, before any byte; a failure while streaming
 * ends the body with that error (the reader sees a truncated file).
 */
export async function geoJsonDownload(
  store: Store,
  input: ExportInput,
  opts: Pick<ExportFolderOptions, 'onProgress' | 'signal'> = {},
): Promise<GeoJsonDownload> {
  const prepared = await prepareGeoJson(store, input);
  // Opened before the first byte: a store that cannot be read is an error of the request.
  const snapshot = await openSnapshot(store, prepared);
  const out = new PassThrough();
  let bytes = 0;
  const sink: ByteSink = {
    // Waits when the reader is slower than the export; a reader gone stops it.
    async write(chunk) {
      if (out.destroyed)
        throw new AppError('REQUEST_ABORTED', 'the reader closed the stream before the export was sent; the export stopped');
      bytes += chunk.length;
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
    },
  };
  const writer = new GeoJsonWriter(sink, prepared.plan.name);
  const done = (async () => {
    try {
      const summary = await writePoints(snapshot, prepared, writer, opts);
      await writer.close(summary);
      out.end();
      return result(prepared, '-', summary, bytes);
    } catch (err) {
      writer.abort();
      out.destroy(err as Error);
      throw err;
    }
  })();
  // The body reports the failure to its reader; the result is for the caller that waits for it.
  done.catch(() => undefined);
  return { fileName: fileName(prepared), mediaType: GEOJSON_MEDIA_TYPE, body: out as Readable, result: done };
}
