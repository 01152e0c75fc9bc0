/**
 * The files repository on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * FilesRepo's methods and results over a PgRunner.
 */
import { nowIso } from '../clock.js';
import { FILE_UPSERT, toFile, type FileRow, type FilesRepo, type RawFile } from '../files-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

/** Metadata of the media files on PostgreSQL. */
export class PgFilesRepo implements RepoContract<FilesRepo> {
  constructor(private readonly db: PgRunner) {}

  /** The file named `name`, undefined when there is none. */
  async find(name: string): Promise<FileRow | undefined> {
    const r = await this.db.row<RawFile>('SELECT * FROM files WHERE name = $1', [name]);
    return r && toFile(r);
  }

  /** Every file, by name (byte-wise, as SQLite orders them). */
  async list(): Promise<FileRow[]> {
    return (await this.db.rows<RawFile>('SELECT * FROM files ORDER BY name')).map(toFile);
  }

  /**
   * Records (or replaces) a file's metadata and returns the row as stored. One statement: the
   * row it returns is the one it wrote, whatever another writer does meanwhile.
   */
  async save(f: Omit<FileRow, 'createdAt' | 'updatedAt'>): Promise<FileRow> {
    const now = nowIso();
    const r = await this.db.row<RawFile>(
      `INSERT INTO files (name, size, sha256, content_type, created_at, updated_at, written_by, office) VALUES ($1, $2, $3, $4, $5, $5, $6, $7)
       ${FILE_UPSERT} RETURNING *`,
      [f.name, f.size, f.sha256, f.contentType, now, f.writtenBy, f.office ? 1 : 0],
    );
    return toFile(r!);
  }

  /** Forgets a file's metadata; true when there was a row. */
  async remove(name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM files WHERE name = $1', [name])) > 0;
  }
}
