/**
 * Text as the .dta format stores it (docs/export.md#stata): UTF-8, cut to the format's limits at
 * a character boundary so no label ends in half a character. Pure.
 */

const encoder = new TextEncoder();

/** The UTF-8 bytes of `text`, at most `maxChars` characters (code points) and `maxBytes` bytes. */
export function utf8Limited(text: string, maxChars: number, maxBytes: number): Uint8Array {
  // NUL ends a fixed-width field in .dta: drop it rather than lose the rest of the label.
  let clean = text.includes('\0') ? text.replaceAll('\0', '') : text;
  if (clean.length > maxChars) clean = Array.from(clean).slice(0, maxChars).join('');
  const bytes = encoder.encode(clean);
  if (bytes.length <= maxBytes) return bytes;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** The UTF-8 bytes of a data value, uncut (its width was measured by the first pass). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
