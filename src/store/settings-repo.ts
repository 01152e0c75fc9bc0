import { randomBytes } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';

/** Named values of the store: the server device id, generated keys, and similar singletons. */
export class SettingsRepo {
  private readonly getStmt: Statement<[string], { value: string }>;
  private readonly setStmt: Statement<[string, string]>;

  constructor(db: Database) {
    this.getStmt = db.prepare('SELECT value FROM settings WHERE name = ?');
    this.setStmt = db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
  }

  async get(name: string): Promise<string | undefined> {
    return this.getStmt.get(name)?.value;
  }

  async set(name: string, value: string): Promise<void> {
    this.setStmt.run(name, value);
  }

  /** Returns the value, creating it once with `make` when absent (first writer wins). */
  async getOrCreate(name: string, make: () => string): Promise<string> {
    return this.getOrCreateSync(name, make);
  }

  private getOrCreateSync(name: string, make: () => string): string {
    const existing = this.getStmt.get(name)?.value;
    if (existing !== undefined) return existing;
    this.setStmt.run(name, make());
    return this.getStmt.get(name)!.value;
  }

  /** This store's device id in vector clocks (32 hex characters, like CSWeb's). */
  async serverDeviceId(): Promise<string> {
    return this.getOrCreateSync('server_device_id', () => randomBytes(16).toString('hex'));
  }
}
