/**
 * What both file stores compute of an upload as it streams (docs/architecture.md#the-file-store-contract):
 * its size (refused at the part that crosses the limit), md5, sha256 and first bytes, and at the
 * end the check of the md5 the sender announced. One home, so that a local folder and the
 * database refuse the same bodies with the same codes and messages.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import { HEAD_BYTES } from '../file-store-contract.js';

/** What an upload was, once it ended. */
export interface UploadFacts {
  size: number;
  md5: string;
  sha256: string;
  head: Buffer;
}

/** Counts and hashes the parts of one upload; PAYLOAD_TOO_LARGE and CHECKSUM_MISMATCH as they arise. */
export class UploadDigest {
  private readonly md5 = createHash('md5');
  private readonly sha = createHash('sha256');
  private size = 0;
  private head = Buffer.alloc(0);

  constructor(private readonly opts: { file: string; maxBytes?: number; expectedMd5?: string }) {}

  /** Takes the next part: counted against the limit, hashed; the part as bytes. */
  add(part: Buffer | string): Buffer {
    const chunk = typeof part === 'string' ? Buffer.from(part) : part;
    this.size += chunk.length;
    const { file, maxBytes } = this.opts;
    if (maxBytes !== undefined && this.size > maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${file} is larger than the file limit of ${maxBytes} bytes; the file was not stored`, {
        file,
        limit: maxBytes,
      });
    }
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    this.md5.update(chunk);
    this.sha.update(chunk);
    return chunk;
  }

  /** The upload's facts, once every part is in; CHECKSUM_MISMATCH when its md5 is not the one announced. */
  finish(): UploadFacts {
    const got = this.md5.digest('hex');
    const { file, expectedMd5 } = this.opts;
    if (expectedMd5 !== undefined && got !== expectedMd5.trim().toLowerCase()) {
      throw new AppError(
        'CHECKSUM_MISMATCH',
        `the body of ${file} has md5 ${got}, not the ${expectedMd5} of its Content-MD5; the file was not stored`,
        { file },
      );
    }
    return { size: this.size, md5: got, sha256: this.sha.digest('hex'), head: this.head };
  }
}
