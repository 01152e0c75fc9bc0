import { Readable, finished } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context } from 'hono';
import { AppError } from '../shared/errors.js';
import type { AppEnv } from './app-env.js';

/** One uploaded file, held in memory (the size limit bounds it). */
interface UploadedFile {
  filename: string;
  data: Buffer;
}

export interface UploadForm {
  file?: UploadedFile;
  fields: Record<string, string>;
}

/** Multipart overhead allowed above the file limit before a declared Content-Length is refused unread. */
const ENVELOPE_BYTES = 64 * 1024;

function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `the uploaded file is larger than the limit of ${maxBytes} bytes`, { limit: maxBytes });
}

/** What busboy's complaint means for the sender, under one stable code. */
function malformed(err: Error, contentType: string): AppError {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  const why = /^Unexpected end of (form|file)$/.test(err.message)
    ? `it ends before its closing boundary${boundary ? ` "--${boundary}--"` : ''}: the upload was cut short or never closed`
    : err.message === 'Malformed part header'
      ? 'a part has malformed headers (each part needs a Content-Disposition line, then an empty line)'
      : /boundary not found/i.test(err.message)
        ? 'the Content-Type names no boundary'
        : err.message;
  return new AppError('MULTIPART_INVALID', `the multipart/form-data body is malformed: ${why}; nothing was stored`);
}

/** The request body stopped before its end: the client left, or the body timeout dropped it. */
function interrupted(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError(
    'REQUEST_ABORTED',
    'the client closed the connection before the upload was complete; nothing was stored',
    {},
    { cause: err },
  );
}

/**
 * Reads a `multipart/form-data` body with busboy, streaming from the raw Node request when served
 * by @hono/node-server (the web Request otherwise, as under `app.request()`). Exactly one file
 * part named `fileField` is kept, up to `maxBytes`; a larger file is 413 as soon as the limit is
 * crossed, without buffering the rest (the Node adapter drains or closes the connection). A body
 * busboy cannot read to its closing boundary is 400 MULTIPART_INVALID; a body cut by the client
 * is REQUEST_ABORTED. Every stream here has an error listener: none can throw outside the
 * returned promise and stop the server.
 */
export function readUpload(c: Context<AppEnv>, opts: { fileField: string; maxBytes: number }): Promise<UploadForm> {
  const headers = Object.fromEntries(c.req.raw.headers);
  const contentType = headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    return Promise.reject(new AppError('USAGE', `send multipart/form-data with a "${opts.fileField}" file part and a "label" field`));
  }
  const declared = Number(headers['content-length'] ?? NaN);
  if (declared > opts.maxBytes + ENVELOPE_BYTES) return Promise.reject(tooLarge(opts.maxBytes));

  const source: Readable | undefined =
    c.env?.incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as unknown as NodeWebStream<Uint8Array>) : undefined);
  if (!source) return Promise.reject(new AppError('USAGE', 'the request has no body'));

  return new Promise<UploadForm>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers, limits: { fileSize: opts.maxBytes, files: 1, fields: 10, fieldSize: 4096, parts: 11 } });
    } catch (err) {
      reject(malformed(err as Error, contentType));
      return;
    }
    let settled = false;
    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      // No more bytes reach busboy. It is not destroyed: fail() runs inside busboy's own events
      // ('limit' among them), and busboy still uses its file stream after they return.
      source.unpipe(bb);
      reject(err);
    };
    const form: UploadForm = { fields: {} };
    bb.on('file', (name, stream, info) => {
      // busboy ends a file part cut short with an error on its stream: kept or skipped, it is handled.
      stream.on('error', (err: Error) => fail(malformed(err, contentType)));
      if (name !== opts.fileField) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        stream.resume();
        fail(tooLarge(opts.maxBytes));
      });
      stream.on('end', () => {
        if (!stream.truncated) form.file = { filename: info.filename ?? '', data: Buffer.concat(chunks) };
      });
    });
    bb.on('field', (name, value) => {
      form.fields[name] = value;
    });
    bb.on('filesLimit', () => fail(new AppError('USAGE', `send exactly one file part ("${opts.fileField}")`)));
    bb.on('fieldsLimit', () => fail(new AppError('USAGE', 'too many form fields')));
    bb.on('partsLimit', () => fail(new AppError('USAGE', 'too many form parts')));
    bb.on('error', (err: Error) => fail(malformed(err, contentType)));
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      resolve(form);
    });
    // An error, or a close before the end (the client left), of the request stream itself.
    finished(source, (err) => {
      if (err) fail(interrupted(err));
    });
    source.pipe(bb);
  });
}
