import { resolve, sep } from 'node:path';
import { AppError } from '../shared/errors.js';

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
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', svg: 'image/svg+xml',
  mp3: 'audio/mpeg', wav: 'audio/wav', m4a: 'audio/mp4', ogg: 'audio/ogg', mp4: 'video/mp4',
  pdf: 'application/pdf', json: 'application/json', csv: 'text/csv', txt: 'text/plain', html: 'text/html',
  zip: 'application/zip', pen: 'application/octet-stream', pff: 'text/plain', dcf: 'text/plain',
};

/** A content type guessed from the extension; unknown ones are plain bytes. */
export function contentTypeOf(name: string): string {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return TYPES[ext] ?? 'application/octet-stream';
}
