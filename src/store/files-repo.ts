import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

export interface FileRow {
  name: string;
  size: number;
  sha256: string;
  contentType: string;
  createdAt: string;
  updatedAt: string;
  /** The account that last wrote the file; null for the operator's CLI (and rows older than migration 0014). */
  writtenBy: string | null;
  /** True when the last writer held files.write (docs/sync.md, "Who may replace a file"). */
  office: boolean;
}

/** A files row as the database returns it (also read by the PostgreSQL files repo). */
export interface RawFile {
  name: string;
  size: number;
  sha256: string;
  content_type: string;
  created_at: string;
  updated_at: string;
  written_by: string | null;
  office: number;
}

/** A file's metadata from its database row. */
export function toFile(r: RawFile): FileRow {
  return {
    name: r.name,
    size: r.size,
    sha256: r.sha256,
    contentType: r.content_type,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    writtenBy: r.written_by,
    office: r.office === 1,
  };
}

/** What saving a file does to an existing row: everything but its creation time is replaced. */
export const FILE_UPSERT = `ON CONFLICT (name) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256,
           content_type = excluded.content_type, updated_at = excluded.updated_at,
           written_by = excluded.written_by, office = excluded.office`;

/** Metadata of the media files; the bytes live under `files/media/` of the home. */
export class FilesRepo {
  constructor(private readonly db: Database) {}

  async find(name: string): Promise<FileRow | undefined> {
    return this.findSync(name);
  }

  private findSync(name: string): FileRow | undefined {
    const r = this.db.prepare('SELECT * FROM files WHERE name = ?').get(name) as RawFile | undefined;
    return r && toFile(r);
  }

  async list(): Promise<FileRow[]> {
    return (this.db.prepare('SELECT * FROM files ORDER BY name').all() as RawFile[]).map(toFile);
  }

  async save(f: Omit<FileRow, 'createdAt' | 'updatedAt'>): Promise<FileRow> {
    const now = nowIso();
    this.db
      .prepare(
        `INSERT INTO files (name, size, sha256, content_type, created_at, updated_at, written_by, office) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ${FILE_UPSERT}`,
      )
      .run(f.name, f.size, f.sha256, f.contentType, now, now, f.writtenBy, f.office ? 1 : 0);
    return this.findSync(f.name)!;
  }

  async remove(name: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM files WHERE name = ?').run(name).changes > 0;
  }
}
