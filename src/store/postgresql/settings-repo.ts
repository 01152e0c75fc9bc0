/**
 * The settings repository on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * SettingsRepo's methods, results and errors over a PgRunner.
 */
import { randomBytes } from 'node:crypto';
import type { RepoContract } from '../store-contract.js';
import type { SettingsRepo } from '../settings-repo.js';
import type { PgRunner } from './pg-runner.js';

/** Named values of the store (the server device id, generated keys) on PostgreSQL. */
export class PgSettingsRepo implements RepoContract<SettingsRepo> {
  constructor(private readonly db: PgRunner) {}

  /** The value of `name`, undefined when it was never set. */
  async get(name: string): Promise<string | undefined> {
    return (await this.db.row<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]))?.value;
  }

  /** Sets `name` to `value`, replacing any value it had. */
  async set(name: string, value: string): Promise<void> {
    await this.db.run('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [
      name,
      value,
    ]);
  }

  /**
   * Returns the value, creating it once with `make` when absent. First writer wins among
   * concurrent transactions: the insert does nothing when another one has (or is about to have)
   * committed the row, waiting for it, and the value read after it is the winner's
   * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
   */
  async getOrCreate(name: string, make: () => string): Promise<string> {
    const existing = await this.get(name);
    if (existing !== undefined) return existing;
    const created = await this.db.row<{ value: string }>(
      'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value',
      [name, make()],
    );
    if (created) return created.value;
    // READ COMMITTED: this statement's snapshot sees the row of the writer that won.
    return (await this.get(name))!;
  }

  /** This store's device id in vector clocks (32 hex characters, like CSWeb's). */
  async serverDeviceId(): Promise<string> {
    return this.getOrCreate('server_device_id', () => randomBytes(16).toString('hex'));
  }
}
