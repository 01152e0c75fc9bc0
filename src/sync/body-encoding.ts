/**
 * How an upload body is compressed, from its first bytes (pure). The client labels its body
 * `Content-Encoding: gzip` but sends a zlib (RFC 1950) stream (docs/sync.md#upload-post-cases); other
 * clients send real gzip, and some send the JSON uncompressed under the same label. The bytes
 * decide, as CSWeb's ZipUtility::isCompressed does, not the header.
 */

export type BodyEncoding = 'gzip' | 'zlib' | 'identity';

export function bodyEncodingOf(head: Uint8Array): BodyEncoding {
  const b0 = head[0];
  const b1 = head[1];
  if (b0 === undefined || b1 === undefined) return 'identity';
  if (b0 === 0x1f && b1 === 0x8b) return 'gzip';
  if ((b0 & 0x0f) === 8 && ((b0 << 8) | b1) % 31 === 0) return 'zlib';
  return 'identity';
}
