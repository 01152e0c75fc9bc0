import type { Database, Statement } from 'better-sqlite3';
import type { Dictionary } from '../cspro/dictionary/model.js';
import { nowIso } from './clock.js';

export interface DictionaryRow {
  id: number;
  name: string;
  label: string;
  version: string;
  description: string;
  sourceFormat: 'text' | 'json';
  createdAt: string;
  updatedAt: string;
}

export interface DictionaryRecord extends DictionaryRow {
  model: Dictionary;
}

export interface NewDictionary {
  name: string;
  label: string;
  version: string;
  description: string;
  source: Buffer;
  sourceFormat: 'text' | 'json';
  model: Dictionary;
}

interface RawRow {
  id: number;
  name: string;
  label: string;
  version: string;
  description: string;
  source_format: 'text' | 'json';
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, name, label, version, description, source_format, created_at, updated_at';

function toRow(r: RawRow): DictionaryRow {
  return {
    id: r.id,
    name: r.name,
    label: r.label,
    version: r.version,
    description: r.description,
    sourceFormat: r.source_format,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Stored dictionaries: original bytes, parsed model and metadata. */
export class DictionariesRepo {
  private readonly byName: Statement<[string], RawRow>;
  private readonly modelByName: Statement<[string], RawRow & { model: string }>;
  private readonly all: Statement<[], RawRow>;

  constructor(private readonly db: Database) {
    this.byName = db.prepare(`SELECT ${COLUMNS} FROM dictionaries WHERE name = ?`);
    this.modelByName = db.prepare(`SELECT ${COLUMNS}, model FROM dictionaries WHERE name = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM dictionaries ORDER BY name`);
  }

  find(name: string): DictionaryRow | undefined {
    const r = this.byName.get(name);
    return r && toRow(r);
  }

  findWithModel(name: string): DictionaryRecord | undefined {
    const r = this.modelByName.get(name);
    return r && { ...toRow(r), model: JSON.parse(r.model) as Dictionary };
  }

  list(): DictionaryRow[] {
    return this.all.all().map(toRow);
  }

  source(name: string): Buffer | undefined {
    const r = this.db.prepare('SELECT source FROM dictionaries WHERE name = ?').get(name) as { source: Buffer } | undefined;
    return r?.source;
  }

  /** Inserts a new dictionary or replaces the file, model and label of an existing one. */
  save(d: NewDictionary): { row: DictionaryRow; created: boolean } {
    const now = nowIso();
    const existing = this.find(d.name);
    if (existing) {
      this.db
        .prepare(
          `UPDATE dictionaries SET label = ?, version = ?, description = ?, source = ?, source_format = ?, model = ?, updated_at = ?
           WHERE id = ?`,
        )
        .run(d.label, d.version, d.description, d.source, d.sourceFormat, JSON.stringify(d.model), now, existing.id);
    } else {
      this.db
        .prepare(
          `INSERT INTO dictionaries (name, label, version, description, source, source_format, model, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(d.name, d.label, d.version, d.description, d.source, d.sourceFormat, JSON.stringify(d.model), now, now);
    }
    return { row: this.find(d.name)!, created: !existing };
  }

  delete(id: number): void {
    const tx = this.db.transaction(() => {
      this.db.prepare('DELETE FROM revisions WHERE dictionary_id = ?').run(id);
      this.db.prepare('DELETE FROM dictionaries WHERE id = ?').run(id);
    });
    tx.immediate();
  }
}
