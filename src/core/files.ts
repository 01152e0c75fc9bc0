import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync, statSync, type ReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Store } from '../store/open-store.js';
import { AppError } from '../shared/errors.js';
import { contentTypeOf, mediaPath } from './media-path.js';

/** File metadata (spec 2.4: at least name and size). */
export interface FileInfo {
  name: string;
  size: number;
  content_type: string;
  sha256: string;
  created_at: string;
  updated_at: string;
}

function info(store: Store, name: string): FileInfo {
  const f = store.files.find(name);
  if (!f) throw new AppError('NOT_FOUND', `file ${name} not found in the media area`, { file: name });
  return { name: f.name, size: f.size, content_type: f.contentType, sha256: f.sha256, created_at: f.createdAt, updated_at: f.updatedAt };
}

/**
 * Stores a stream as a media file. Written to a temporary name and renamed, so a reader never
 * sees half a file and a failed upload leaves the previous version in place.
 */
export async function putFile(store: Store, name: string, content: Readable): Promise<FileInfo> {
  const target = mediaPath(store.home.media, name);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${randomBytes(6).toString('hex')}.part`;
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  try {
    await pipeline(content, meter, createWriteStream(tmp));
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new AppError('IO_ERROR', `could not store ${name}: ${(err as Error).message}`, { file: name }, { cause: err });
  }
  store.files.save({ name, size, sha256: hash.digest('hex'), contentType: contentTypeOf(name) });
  return info(store, name);
}

/** Metadata of one media file. */
export function fileInfo(store: Store, name: string): FileInfo {
  mediaPath(store.home.media, name);
  return info(store, name);
}

/** Metadata of every media file, by name. */
export function listFiles(store: Store): FileInfo[] {
  return store.files.list().map((f) => info(store, f.name));
}

/** Opens a media file for reading, with its metadata. */
export function openFile(store: Store, name: string): { info: FileInfo; stream: ReadStream } {
  const path = mediaPath(store.home.media, name);
  const meta = info(store, name);
  try {
    statSync(path);
  } catch {
    throw new AppError('NOT_FOUND', `file ${name} is registered but missing from the media area (${path})`, { file: name });
  }
  return { info: meta, stream: createReadStream(path) };
}

/** Deletes a media file and its metadata. */
export function removeFile(store: Store, name: string): { message: string; name: string } {
  const path = mediaPath(store.home.media, name);
  info(store, name);
  rmSync(path, { force: true });
  store.files.remove(name);
  return { message: `File ${name} removed`, name };
}
