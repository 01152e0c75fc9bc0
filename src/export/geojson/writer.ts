/**
 * The GeoJSON file (RFC 7946; docs/export.md#geojson), written as it streams: one
 * FeatureCollection whose features are written as they come, gathered into chunks of about
 * CHUNK_CHARS before they go to the sink, so memory does not grow with the number of points.
 * The summary (points, cases without coordinates) is only known at the end, so it is a foreign
 * member after `features` (RFC 7946 section 6.1), which readers that do not know it ignore.
 */
import { AppError } from '../../shared/errors.js';
import type { ByteSink } from '../model.js';
import type { PointFeature } from './features.js';

/** Text gathered before it is written (characters; bytes are at most 3× that). */
const CHUNK_CHARS = 64 * 1024;

/** The media type of a GeoJSON file (RFC 7946 section 12). */
export const GEOJSON_MEDIA_TYPE = 'application/geo+json';

/** What the file says about itself after its features (the `sds` member). */
export interface GeoJsonSummary {
  dictionary: string;
  latitude: string;
  longitude: string;
  cases: number;
  features: number;
  without_coordinates: number;
  skipped_cases: number;
  /** Values written as NULL or truncated, as the breakout warns about them, plus the skipped cases. */
  warnings: number;
}

/** One feature as JSON text: a Point at (longitude, latitude) with its properties in order. */
function featureJson(f: PointFeature): string {
  const props = f.properties.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',');
  return `{"type":"Feature","geometry":{"type":"Point","coordinates":[${f.coordinates[0]},${f.coordinates[1]}]},"properties":{${props}}}`;
}

/** Writes one FeatureCollection to a sink. */
export class GeoJsonWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  private count = 0;
  private done = false;

  /** `name` is the collection's name, which GDAL and QGIS show as the layer's. */
  constructor(
    private readonly sink: ByteSink,
    name: string,
  ) {
    this.push(`{"type":"FeatureCollection","name":${JSON.stringify(name)},"features":[`);
  }

  /** Features written so far. */
  get features(): number {
    return this.count;
  }

  async write(f: PointFeature): Promise<void> {
    if (this.done) throw new AppError('INTERNAL', 'GeoJSON: a feature after close or abort');
    this.push((this.count === 0 ? '\n' : ',\n') + featureJson(f));
    this.count += 1;
    if (this.pendingChars >= CHUNK_CHARS) await this.flush();
  }

  /** Ends the collection with its summary; nothing may follow. */
  async close(summary: GeoJsonSummary): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.push(`\n],"sds":${JSON.stringify(summary)}}\n`);
    await this.flush();
  }

  /** Gives the file up after a failure: drops what is gathered, writes nothing more. */
  abort(): void {
    this.done = true;
    this.pending = [];
    this.pendingChars = 0;
  }

  private push(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    await this.sink.write(chunk);
  }
}
