/**
 * The cssync container as CSPro clients write and read it (docs/sync.md#binary-items): "cssync",
 * int32 version 1, int32 length + the case JSON array, then per binary item int32 length + a JSON
 * header and int32 length + the content; integers little-endian. Written from the layout for the
 * test clients, independently of sds's own reader and writer.
 */

/** One binary item of a container: its JSON header and its content. */
export interface CssyncItem {
  header: Record<string, unknown>;
  content: Buffer;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
}

/** A container holding `cases` (serialized as one JSON array) and `items`. */
export function writeCssync(cases: unknown[], items: CssyncItem[]): Buffer {
  const json = Buffer.from(JSON.stringify(cases));
  const parts = [Buffer.from('cssync', 'latin1'), int32(1), int32(json.length), json];
  for (const it of items) {
    const h = Buffer.from(JSON.stringify(it.header));
    parts.push(int32(h.length), h, int32(it.content.length), it.content);
  }
  return Buffer.concat(parts);
}

/** A download body: the container's cases and items, or a plain JSON array with no items. */
export function readCssync<T>(body: Buffer): { cases: T[]; items: CssyncItem[] } {
  if (body.subarray(0, 6).toString('latin1') !== 'cssync') return { cases: JSON.parse(body.toString('utf8')) as T[], items: [] };
  if (body.readInt32LE(6) !== 1) throw new Error('cssync version is not 1');
  let at = 10;
  const take = () => {
    const n = body.readInt32LE(at);
    const out = body.subarray(at + 4, at + 4 + n);
    if (out.length !== n) throw new Error(`cssync: ${n} bytes announced at ${at}, ${out.length} there`);
    at += 4 + n;
    return Buffer.from(out);
  };
  const cases = JSON.parse(take().toString('utf8')) as T[];
  const items: CssyncItem[] = [];
  while (at < body.length) items.push({ header: JSON.parse(take().toString('utf8')) as Record<string, unknown>, content: take() });
  return { cases, items };
}
