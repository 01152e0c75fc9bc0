import { resolve, sep } from 'node:path';
import { AppError } from '../../shared/errors.js';

/**
 * One folder or file name: a letter or digit of any script (or `_`) first, then letters, digits,
 * combining marks (Arabic vowel signs, Devanagari matras), `_ - .` and spaces. No separators,
 * control or format characters (a right-to-left override could disguise a name), no leading dot
 * (hidden, and the writer's temporary files start with one).
 */
const SEGMENT = /^[\p{L}\p{N}_][\p{L}\p{M}\p{N}._ -]*$/u;

/**
 * Bytes of UTF-8 a folder or file name may take: the writer adds up to 30 to it for its temporary
 * file (part-name.ts), and file systems hold 255 bytes (docs/limits.md).
 */
export const MAX_SEGMENT_BYTES = 200;

/** Bytes of UTF-8 a whole media name may take, folders included (docs/limits.md). */
export const MAX_NAME_BYTES = 1024;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * A media file name in the form it is stored and looked up under: Unicode NFC, so `é` typed as
 * one character (Windows, Linux) and as `e` plus a combining accent (macOS) name the same file.
 * Refuses, as PATH_INVALID, anything that could escape the media area or that a file system of
 * the field could not hold: absolute names, `..` or `.` segments, backslashes and other
 * separators, control characters, hidden segments, segments ending in a dot or a space, and names
 * over MAX_SEGMENT_BYTES per segment or MAX_NAME_BYTES in all (docs/sync.md#files, "File names").
 */
export function mediaName(name: string): string {
  const nfc = name.normalize('NFC');
  const segments = nfc.split('/');
  const bad =
    nfc.length === 0 ||
    bytes(nfc) > MAX_NAME_BYTES ||
    segments.some((s) => !SEGMENT.test(s) || s.endsWith('.') || s.endsWith(' ') || bytes(s) > MAX_SEGMENT_BYTES);
  if (bad) {
    throw new AppError(
      'PATH_INVALID',
      `file name "${name}" is not allowed: use letters and digits of any script, _ - . and spaces, with / between folders, ` +
        `at most ${MAX_SEGMENT_BYTES} bytes (UTF-8) per name and ${MAX_NAME_BYTES} in all, and no "..", leading dots or absolute paths`,
      { file: name },
    );
  }
  return nfc;
}

/**
 * Resolves a media file name to a path inside the media area, refusing anything that could
 * escape it (the rules of `mediaName`; the path is built from the NFC form). Names may have
 * sub-folders separated by `/`.
 */
export function mediaPath(mediaRoot: string, name: string): string {
  const segments = mediaName(name).split('/');
  const root = resolve(mediaRoot);
  const full = resolve(root, ...segments);
  if (!full.startsWith(root + sep)) throw new AppError('PATH_INVALID', `file name "${name}" escapes the media area`, { file: name });
  return full;
}

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  pdf: 'application/pdf',
  json: 'application/json',
  csv: 'text/csv',
  txt: 'text/plain',
  html: 'text/html',
  zip: 'application/zip',
  pen: 'application/octet-stream',
  pff: 'text/plain',
  dcf: 'text/plain',
};

/** How the bytes of a type begin, where the type has a fixed signature. */
const SIGNATURES: Record<string, (head: Buffer) => boolean> = {
  'image/jpeg': (h) => h.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  'image/png': (h) => h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/gif': (h) => /^GIF8[79]a/.test(h.subarray(0, 6).toString('latin1')),
  'image/webp': (h) => h.subarray(0, 4).toString('latin1') === 'RIFF' && h.subarray(8, 12).toString('latin1') === 'WEBP',
  'audio/wav': (h) => h.subarray(0, 4).toString('latin1') === 'RIFF' && h.subarray(8, 12).toString('latin1') === 'WAVE',
  'audio/ogg': (h) => h.subarray(0, 4).toString('latin1') === 'OggS',
  'audio/mp4': (h) => h.subarray(4, 8).toString('latin1') === 'ftyp',
  'video/mp4': (h) => h.subarray(4, 8).toString('latin1') === 'ftyp',
  'application/pdf': (h) => h.subarray(0, 5).toString('latin1') === '%PDF-',
  // The zip signatures are control bytes (PK\x03\x04 and friends), on purpose.
  // eslint-disable-next-line no-control-regex
  'application/zip': (h) => /^PK(\x03\x04|\x05\x06|\x07\x08)/.test(h.subarray(0, 4).toString('latin1')),
};

/**
 * The content type a file is served with: guessed from the extension, unknown ones plain bytes.
 * With `head` (the first HEAD_BYTES bytes), a type with a fixed signature is kept only when the
 * bytes carry it, so script bytes named `.jpg` are served as `application/octet-stream`, not as
 * an image (docs/http-api.md, "Media files").
 */
export function contentTypeOf(name: string, head?: Buffer): string {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  const type = TYPES[ext] ?? 'application/octet-stream';
  const check = SIGNATURES[type];
  if (head === undefined || check === undefined) return type;
  return check(head) ? type : 'application/octet-stream';
}
