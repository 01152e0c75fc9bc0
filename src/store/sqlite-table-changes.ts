import type { Database, Statement } from 'better-sqlite3';

/** Changes a connection made itself to each watched table, counted by its temporary triggers. */
const ownChanges = new WeakMap<Database, Map<string, { count: number }>>();

/**
 * The count of `table`'s changes made by `db` itself: one function and one set of triggers per
 * connection and table, whoever asks, so that a second watcher on the same connection never
 * silences the first.
 */
function ownChangesOf(db: Database, table: string): { count: number } {
  let tables = ownChanges.get(db);
  if (!tables) ownChanges.set(db, (tables = new Map()));
  const known = tables.get(table);
  if (known) return known;
  const counter = { count: 0 };
  const fn = `sds_changes_of_${table}`;
  db.function(fn, { deterministic: false }, () => {
    counter.count += 1;
    return null;
  });
  for (const op of ['insert', 'update', 'delete'])
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${fn}_${op} AFTER ${op.toUpperCase()} ON main.${table} BEGIN SELECT ${fn}(); END`);
  tables.set(table, counter);
  return counter;
}

/**
 * Tells, without reading a table of the SQLite store, whether it may have changed since an earlier
 * look: `PRAGMA data_version` moves whenever another connection (another process, the
 * checkpointer) commits or checkpoints, and temporary triggers of this connection count its own
 * inserts, updates and deletes of the table, whatever code runs them. Temporary triggers live in
 * the connection, not in the store's schema. A mark is only ever too cautious: a rolled-back change
 * or another table's commit moves it too (docs/decisions.md, "The dictionary row kept between
 * requests").
 */
export class SqliteTableChanges {
  private readonly own: { count: number };
  private readonly dataVersion: Statement<[], number>;

  constructor(
    private readonly db: Database,
    table: string,
  ) {
    this.own = ownChangesOf(db, table);
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /**
   * A mark of the table's state: equal to a later mark only if nothing can have changed the
   * table in between. Undefined inside a transaction, whose reads may still be rolled back.
   */
  mark(): string | undefined {
    if (this.db.inTransaction) return undefined;
    return `${this.dataVersion.get()}:${this.own.count}`;
  }
}
