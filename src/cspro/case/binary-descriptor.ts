/**
 * Binary case items (image, audio, document, geometry) in the case model: the item's value is
 * the descriptor the client sends, `{"metadata":{…},"caseid":uuid,"signature":md5,"length":n}`
 * (CSPro 8.1 writes `uuid` for `caseid`), kept as it came; the content itself is stored apart,
 * by its md5 (docs/cspro-formats.md#binary-items). Pure.
 */

/** A binary item's descriptor: an object whose `signature` is the md5 (hex) of the content. */
export type BinaryDescriptor = { signature: string; length?: number; [key: string]: unknown };

/** A binary item's value in a record object: one descriptor, or one per occurrence ("" for a blank one). */
export type BinaryValue = BinaryDescriptor | (BinaryDescriptor | '')[];

const MD5 = /^[0-9a-fA-F]{32}$/;

/** Whether `v` is a descriptor: an object with an md5 `signature` (and a whole `length` if any). */
function isBinaryDescriptor(v: unknown): v is BinaryDescriptor {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (typeof o.signature !== 'string' || !MD5.test(o.signature)) return false;
  return o.length === undefined || (typeof o.length === 'number' && Number.isSafeInteger(o.length) && o.length >= 0);
}

/**
 * A binary item's value as the case keeps it (an absent or blank value is `undefined`), or the
 * reason it is not one. A descriptor may come as its JSON text, as some writers store it.
 */
export function normalizeBinaryValue(
  raw: unknown,
  occurrences: number,
): { ok: true; value: BinaryValue | undefined } | { ok: false; reason: string } {
  const one = (v: unknown): BinaryDescriptor | '' | string => {
    if (v === undefined || v === null || v === '') return '';
    let parsed = v;
    if (typeof v === 'string') {
      try {
        parsed = JSON.parse(v);
      } catch {
        return 'is not a binary item descriptor (an object with an md5 signature)';
      }
    }
    return isBinaryDescriptor(parsed) ? parsed : 'is not a binary item descriptor (an object with an md5 signature)';
  };
  if (Array.isArray(raw)) {
    if (occurrences <= 1) return { ok: false, reason: 'expects a single value, got an array' };
    const values: (BinaryDescriptor | '')[] = [];
    for (const v of raw.slice(0, occurrences)) {
      const d = one(v);
      if (typeof d === 'string' && d !== '') return { ok: false, reason: d };
      values.push(d as BinaryDescriptor | '');
    }
    while (values.length > 0 && values[values.length - 1] === '') values.pop();
    return { ok: true, value: values.length === 0 ? undefined : values };
  }
  const d = one(raw);
  if (d === '') return { ok: true, value: undefined };
  if (typeof d === 'string') return { ok: false, reason: d };
  return { ok: true, value: occurrences > 1 ? [d] : d };
}

/** A binary item a case refers to: the md5 of its content (lower case) and the length it claims. */
export interface BinaryRef {
  signature: string;
  length: number | undefined;
}

/**
 * The binary items a stored case refers to (its `level-1` JSON text), each signature once, in
 * the order they appear. Only descriptors hold an object with a `signature` in a case tree:
 * records hold item names, which CSPro writes in upper case.
 */
export function binaryRefsOf(levelJson: string): BinaryRef[] {
  // Most cases have no binary item: skip the parse when no signature key can be there.
  if (!levelJson.includes('"signature"')) return [];
  const out = new Map<string, BinaryRef>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
    } else if (typeof v === 'object' && v !== null) {
      if (isBinaryDescriptor(v)) {
        const signature = v.signature.toLowerCase();
        if (!out.has(signature)) out.set(signature, { signature, length: v.length });
        return;
      }
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(JSON.parse(levelJson));
  return [...out.values()];
}
