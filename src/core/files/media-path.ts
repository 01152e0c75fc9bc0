import { resolve, sep } from 'node:path';
import { AppError } from '../../shared/errors.js';

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._ -]{0,199}$/;

/**
 * Resolves a media file name to a path inside the media area, refusing anything that could
 * escape it: absolute names, `..` or `.` segments, backslashes, control characters, hidden
 * segments. Names may have sub-folders separated by `/`.
 */
export function mediaPath(mediaRoot: string, name: string): string {
  const segments = name.split('/');
  const bad = name.length === 0 || name.length > 1024 || segments.some((s) => !SEGMENT.test(s) || s.endsWith('.') || s.endsWith(' '));
  if (bad) {
    throw new AppError(
      'PATH_INVALID',
      `file name "${name}" is not allowed: use letters, digits, _ - . and spaces, with / between folders, and no "..", leading dots or absolute paths`,
      { file: name },
    );
  }
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

/** Bytes a content-type check needs from the start of a file. */
export const HEAD_BYTES = 12;

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
