/** UTF-8 text as the SPSS system file stores it (docs/export.md#spss): bytes, cut on character boundaries. */

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The longest prefix of `bytes` of at most `max` bytes that ends on a UTF-8 character boundary,
 * so that a label cut to the format's limit never ends in half a character.
 */
export function cutUtf8(bytes: Uint8Array, max: number): Uint8Array {
  if (bytes.length <= max) return bytes;
  let end = max;
  // Step back over continuation bytes (10xxxxxx) to the start of the character cut in two.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** `text` in UTF-8, cut to at most `max` bytes on a character boundary. */
export function utf8Cut(text: string, max: number): Uint8Array {
  return cutUtf8(utf8(text), max);
}
