import type { Store } from '../../store/open-store.js';
import type { ColumnType, TableKind } from '../../breakout/plan-model.js';
import { getDialect } from '../../breakout/dialects/index.js';
import { planBreakout } from '../../breakout/plan.js';
import { prepareDictionaryTables } from '../../breakout/run-dictionary.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionary } from '../dictionaries/index.js';
import { reapDeadJobs, effectiveTarget, effectiveTargetWithoutSecrets } from '../breakout/index.js';

/** One table of a dictionary's breakout as the schema webhook shows it. */
interface SchemaTable {
  name: string;
  kind: TableKind;
  primary_key: string[];
  /** Whether the table is in the target now; null when the target could not be read. */
  exists: boolean | null;
  columns: { name: string; type: string; sql_type: string; nullable: boolean }[];
}

/** Reply of `GET /dictionary-schema-webhook.php`. */
export interface SchemaReply {
  dictionary: string;
  label: string;
  db_type: string;
  target: string;
  /** False when the target could not be reached (then every `exists` is null). */
  target_reachable: boolean;
  tables: SchemaTable[];
}

/** Reply of `POST /dictionary-schema-webhook.php`. */
export interface SchemaApplyReply extends SchemaReply {
  status: 'applied';
  message: string;
  /** Tables this call created (all of them when the structure changed and they were rebuilt). */
  tables_created: string[];
  /** True when the tables were (re)built empty: the next breakout loads every case. */
  rebuilt: boolean;
}

/** A neutral type name: `integer(5)`, `decimal(10,2)`, `varchar(30)`, `text`, `guid`, `boolean`, `timestamp`. */
function typeName(t: ColumnType): string {
  switch (t.kind) {
    case 'integer':
      return `integer(${t.digits})`;
    case 'decimal':
      return `decimal(${t.precision},${t.scale})`;
    case 'varchar':
      return `varchar(${t.length})`;
    default:
      return t.kind;
  }
}

async function describeSchema(store: Store, name: string): Promise<SchemaReply> {
  const dict = await requireDictionary(store, name);
  const shown = await effectiveTargetWithoutSecrets(store, dict);
  const dialect = getDialect(shown.config.type);
  const plan = planBreakout(dict.model, dict.label, { maxIdentifierLength: dialect.capabilities.maxIdentifierLength });
  let present: Set<string> | null = null;
  try {
    const session = await dialect.connect({ ...(await effectiveTarget(store, dict)).config, existingOnly: true });
    try {
      // One at a time: a session runs one query at a time. (listTables would count every row.)
      present = new Set<string>();
      for (const t of plan.tables) if (await session.tableExists(t.name)) present.add(t.name);
    } finally {
      await session.close();
    }
  } catch {
    present = null; // described from the plan alone
  }
  return {
    dictionary: dict.name,
    label: dict.label,
    db_type: shown.config.type,
    target: shown.identity,
    target_reachable: present !== null,
    tables: plan.tables.map((t) => ({
      name: t.name,
      kind: t.kind,
      primary_key: t.primaryKey,
      exists: present === null ? null : present.has(t.name),
      columns: t.columns.map((c) => ({ name: c.name, type: typeName(c.type), sql_type: dialect.columnType(c.type), nullable: c.nullable })),
    })),
  };
}

/**
 * The tables and columns a dictionary's breakout has or would have in its target (the plan for
 * the target's database), each marked whether it exists there now. A target that cannot be
 * reached still gets the plan, with `exists` null.
 */
export function dictionarySchema(store: Store, name: string): Promise<SchemaReply> {
  return describeSchema(store, name);
}

/**
 * Creates the breakout tables of a dictionary in its target without loading cases, as an
 * incremental run does before its first page: missing tables are created; when the dictionary's
 * structure changed since the last run, the tables are rebuilt empty and the next breakout
 * reloads every case. Refused with BREAKOUT_BUSY while a job of the dictionary is pending or
 * running (it owns the tables then); a target that is down fails with its DB-00x code.
 */
export async function applyDictionarySchema(store: Store, name: string): Promise<SchemaApplyReply> {
  const dict = await requireDictionary(store, name);
  await reapDeadJobs(store);
  const busy = (await store.jobs.unfinished()).find((j) => j.dictionaries.includes(dict.name));
  if (busy) {
    throw new AppError('BREAKOUT_BUSY', `breakout job ${busy.id} of ${dict.name} is still ${busy.status}; apply the schema after it`, {
      job_id: busy.id,
      status: busy.status,
    });
  }
  const target = await effectiveTarget(store, dict);
  const r = await prepareDictionaryTables({ store, dict, dialect: getDialect(target.config.type), target, jobId: 'schema-webhook' });
  const after = await describeSchema(store, name);
  return {
    status: 'applied',
    message: r.created.length
      ? `${r.rebuilt ? 'Built' : 'Created'} ${r.created.length} table(s) of ${dict.name}${r.rebuilt ? ' (empty: the next breakout loads every case)' : ''}`
      : `The tables of ${dict.name} are up to date`,
    tables_created: r.created,
    rebuilt: r.rebuilt && r.created.length > 0,
    ...after,
  };
}
