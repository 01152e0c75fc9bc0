/**
 * The `questionnaire` column of a CSWeb case (docs/migrating-from-csweb.md#case-content): CSPro
 * 7.5 and later send `level-1` as JSON text, which CSWeb stores behind the 4-byte marker
 * 1F 8B 08 00 as a zlib stream; older clients send record lines, stored as text joined by \n.
 */
import { inflateSync } from 'node:zlib';

const MARKER = Buffer.from([0x1f, 0x8b, 0x08, 0x00]);

/** The decoded content: the `level-1` JSON text as the client sent it, or its record lines. */
export type Questionnaire = { form: 'json'; text: string } | { form: 'lines'; lines: string[] };

/** Decodes one `questionnaire` value; throws an Error saying why when it cannot (pure). */
export function decodeQuestionnaire(blob: Buffer, maxBytes: number): Questionnaire {
  if (blob.length >= 4 && blob.subarray(0, 4).equals(MARKER)) {
    let raw: Buffer;
    try {
      raw = inflateSync(blob.subarray(4), { maxOutputLength: maxBytes });
    } catch (err) {
      throw new Error(`the compressed content does not inflate: ${(err as Error).message}`, { cause: err });
    }
    return { form: 'json', text: utf8(raw) };
  }
  const text = utf8(blob);
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  return { form: 'lines', lines };
}

function utf8(b: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch (err) {
    throw new Error('the content is not UTF-8 text', { cause: err });
  }
}

/** The text form of a binary(16) GUID: lower-case hex, 8-4-4-4-12, as CSWeb prints it (pure). */
export function guidText(raw: Buffer): string {
  const h = raw.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
