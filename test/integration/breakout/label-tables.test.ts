/**
 * Value sets and item labels in PostgreSQL, MariaDB and SQLite targets
 * (docs/breakout.md#value-sets-and-item-labels): the Popstan census broken out, both label
 * tables read back and compared with the dictionary file read by JSON.parse, the docs' join
 * query run on each database against the raw .dat values, a run without change that leaves the
 * tables alone, a relabelled dictionary whose new labels reach the target without a rebuild, and
 * label tables dropped by hand refilled without loading cases again.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { TargetConfig } from '../../../src/breakout/dialects/dialect.js';
import { createMysqlDatabase, createPostgresDatabase, createSqliteFile, type TestDatabase } from '../../helpers/test-databases.js';
import {
  datLines,
  groupPopstan,
  openQuery,
  popstanModel,
  popstanStore,
  POPSTAN,
  rawNumeric,
  type Query,
} from '../../helpers/breakout-helpers.js';
import { rawItems, rawValueRows, type ExpectedValue } from '../../helpers/raw-value-sets.js';
import { fixture } from '../../helpers/temp-home.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { breakoutTables, dropBreakoutTables } from '../../../src/core/breakout/index.js';

const databases: TestDatabase[] = [];
after(async () => {
  for (const d of databases) await d.drop();
});

const DCF = fixture('popstan-census.json.dcf');
const cases = groupPopstan(datLines());
const byCase = new Map(cases.map((c) => [c.guid, c]));

/** The join query of docs/breakout.md#value-sets-and-item-labels, for the item P18_BORN. */
const JOIN_QUERY = `SELECT p.case_id, p.occ, p.p18_born, v.label AS p18_born_label, v.special
FROM popstan_person p
LEFT JOIN popstan_value_sets v
  ON v.item_name = 'P18_BORN' AND v.value_set_order = 1
 AND (p.p18_born BETWEEN v.value_from_num AND v.value_to_num
      OR (p.p18_born IS NULL AND v.special = 'NOTAPPL'))`;

/** Runs one statement that changes the target, on a connection of its own. */
async function exec(config: TargetConfig, sql: string): Promise<void> {
  if (config.type === 'postgresql') {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: config.url });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  } else if (config.type === 'mysql') {
    const mysql = (await import('mysql2/promise')).default;
    const conn = await mysql.createConnection(config.url!);
    await conn.query(sql).finally(() => conn.end());
  } else {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(config.file!);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  }
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const keyOf = (r: { item: unknown; valueSetOrder: unknown; valueOrder: unknown; pairOrder: unknown }) =>
  `${String(r.item)}/${String(r.valueSetOrder)}/${String(r.valueOrder)}/${String(r.pairOrder)}`;

async function readValueSets(q: Query): Promise<ExpectedValue[]> {
  const rows = await q.all('SELECT * FROM popstan_value_sets');
  return rows
    .map((r) => ({
      item: String(r.item_name),
      valueSetOrder: Number(r.value_set_order),
      valueOrder: Number(r.value_order),
      pairOrder: Number(r.pair_order),
      valueSetName: String(r.value_set_name),
      valueSetLabel: String(r.value_set_label),
      from: String(r.value_from),
      to: r.value_to === null ? null : String(r.value_to),
      fromNum: num(r.value_from_num),
      toNum: num(r.value_to_num),
      label: String(r.label),
      special: r.special === null ? null : String(r.special),
    }))
    .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
}

function expectedValueSets(path = DCF): ExpectedValue[] {
  return rawValueRows(path).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
}

/** The first-value-set label of a code, by CSPro's rules, from the raw dictionary. */
function labelOfCode(values: ExpectedValue[], item: string, code: number | null): string | null {
  const first = values.filter((v) => v.item === item && v.valueSetOrder === 1);
  const hit =
    code === null
      ? first.find((v) => v.special === 'NOTAPPL')
      : first.find((v) => v.fromNum !== null && v.toNum !== null && code >= v.fromNum && code <= v.toNum);
  return hit?.label ?? null;
}

async function labelTables(db: TestDatabase): Promise<void> {
  const t = await popstanStore([fixture('popstan-census.dat')], db.config);
  try {
    const first = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(first.status, 'completed', JSON.stringify(first));
    if (first.status !== 'completed') return;
    assert.ok(first.result.tables_created.includes('popstan_value_sets'));
    assert.ok(first.result.tables_created.includes('popstan_items'));

    const q = await openQuery(db.config);
    try {
      // Every value, range and special of the dictionary file.
      const expected = expectedValueSets();
      assert.ok(expected.length > 300);
      assert.deepEqual(await readValueSets(q), expected);

      // One items row per item column, as the dictionary file gives the item.
      const items = rawItems(DCF);
      const itemRows = await q.all('SELECT * FROM popstan_items');
      const person = (await popstanModel(t.store)).levels[0]!.records.find((r) => r.name === 'PERSON')!;
      assert.equal(itemRows.filter((r) => r.table_name === 'popstan_person').length, person.items.length);
      assert.equal(itemRows.length, items.size);
      for (const r of itemRows) {
        const e = items.get(String(r.item_name))!;
        assert.ok(e, String(r.item_name));
        assert.equal(r.column_name, e.name.toLowerCase());
        assert.deepEqual(
          [r.item_label, r.record_name, r.content_type, Number(r.length), Number(r.decimals), r.occurrence, r.value_set_name],
          [e.label, e.record, e.contentType, e.length, e.decimals, null, e.valueSet],
        );
        assert.equal(r.table_name, e.record === null ? 'popstan_cases' : `popstan_${e.record.toLowerCase()}`);
      }

      // The docs' join query: every person row gets the label of its code (NOTAPPL for blanks).
      const born = person.items.find((i) => i.name === 'P18_BORN')!;
      const joined = await q.all(JOIN_QUERY);
      assert.equal(
        joined.length,
        cases.reduce((n, c) => n + c.persons.length, 0),
      );
      let labelled = 0;
      let notAppl = 0;
      for (const r of joined) {
        const line = byCase.get(String(r.case_id))!.persons[Number(r.occ) - 1]!;
        const code = rawNumeric(line, born);
        assert.equal(num(r.p18_born), code);
        assert.equal(r.p18_born_label, labelOfCode(expected, 'P18_BORN', code), `${String(r.case_id)} ${String(r.occ)}`);
        if (r.p18_born_label !== null) labelled += 1;
        if (r.special === 'NOTAPPL') notAppl += 1;
      }
      assert.ok(labelled > 1000 && notAppl > 1000, `${labelled} labelled, ${notAppl} NOTAPPL`);
    } finally {
      await q.close();
    }

    // A second run with no change leaves the label tables alone: a label changed by hand stays.
    await exec(db.config, "UPDATE popstan_value_sets SET label = 'by hand' WHERE item_name = 'P03_SEX' AND value_order = 1");
    const again = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(again.status, 'completed');
    let q2 = await openQuery(db.config);
    try {
      assert.equal(
        (await q2.all("SELECT label FROM popstan_value_sets WHERE item_name = 'P03_SEX' AND value_order = 1"))[0]!.label,
        'by hand',
      );
    } finally {
      await q2.close();
    }

    // New labels through the dictionary update path reach the target on the next incremental
    // run, in place: no table is dropped or created and no case is loaded again.
    const source = readFileSync(DCF, 'utf8')
      .replace('"labels": [ { "text": "Male" } ]', '"labels": [ { "text": "Man" } ]')
      .replace(
        '"labels": [ { "text": "Sex" } ], \r\n              "contentType"',
        '"labels": [ { "text": "Sex of the person" } ], \r\n              "contentType"',
      )
      .replace(
        '"labels": [ { "text": "Sex" } ], \n              "contentType"',
        '"labels": [ { "text": "Sex of the person" } ], \n              "contentType"',
      );
    assert.notEqual(source, readFileSync(DCF, 'utf8'));
    const upload = await uploadDictionary(t.store, { source: Buffer.from(source), label: 'popstan' });
    assert.equal(upload.breakout_rebuild ?? null, null);
    const relabelled = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(relabelled.status, 'completed');
    if (relabelled.status !== 'completed') return;
    assert.deepEqual(relabelled.result.tables_created, []);
    assert.equal(relabelled.result.total_cases, 0);
    q2 = await openQuery(db.config);
    try {
      const sex = await q2.all("SELECT value_order, label FROM popstan_value_sets WHERE item_name = 'P03_SEX' ORDER BY value_order");
      assert.deepEqual(
        sex.map((r) => [Number(r.value_order), r.label]),
        [
          [1, 'Man'],
          [2, 'Female'],
        ],
      );
      assert.equal((await q2.all("SELECT item_label FROM popstan_items WHERE item_name = 'P03_SEX'"))[0]!.item_label, 'Sex of the person');
      assert.equal(await q2.num('SELECT COUNT(*) FROM popstan_cases'), 4872);
    } finally {
      await q2.close();
    }

    // Label tables dropped by hand (as in a target broken out before they existed) come back
    // filled, and the cases are not loaded again.
    await exec(db.config, 'DROP TABLE popstan_value_sets');
    await exec(db.config, 'DROP TABLE popstan_items');
    const refill = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(refill.status, 'completed');
    if (refill.status !== 'completed') return;
    assert.deepEqual([...refill.result.tables_created].sort(), ['popstan_items', 'popstan_value_sets']);
    assert.equal(refill.result.total_cases, 0);
    q2 = await openQuery(db.config);
    try {
      assert.equal(await q2.num('SELECT COUNT(*) FROM popstan_value_sets'), expectedValueSets().length);
      assert.equal(await q2.num('SELECT COUNT(*) FROM popstan_items'), rawItems(DCF).size);
    } finally {
      await q2.close();
    }

    // The tables listing and the drop treat them like the other breakout tables.
    const listed = await breakoutTables(t.store, POPSTAN);
    const vs = listed.tables.find((x) => x.name === 'popstan_value_sets')!;
    assert.deepEqual([vs.type, vs.row_count, vs.stale], ['record', expectedValueSets().length, false]);
    assert.ok(listed.tables.some((x) => x.name === 'popstan_items'));
    const dropped = await dropBreakoutTables(t.store, POPSTAN);
    assert.ok(dropped.deleted_tables.includes('popstan_value_sets') && dropped.deleted_tables.includes('popstan_items'));
  } finally {
    await t.cleanup();
  }
}

test('PostgreSQL: value sets and item labels', { timeout: 120_000 }, async () => {
  const db = await createPostgresDatabase();
  databases.push(db);
  await labelTables(db);
});

test('MariaDB: value sets and item labels', { timeout: 120_000 }, async () => {
  const db = await createMysqlDatabase();
  databases.push(db);
  await labelTables(db);
});

test('SQLite: value sets and item labels', { timeout: 120_000 }, async () => {
  const db = createSqliteFile();
  databases.push(db);
  await labelTables(db);
});

test('SQLite: a record named ITEMS keeps its table; the labels go to popstan_sds_items', { timeout: 120_000 }, async () => {
  const db = createSqliteFile();
  databases.push(db);
  const t = await popstanStore([], db.config);
  try {
    const source = readFileSync(DCF, 'utf8').replace('"name": "HOUSING"', '"name": "ITEMS"');
    await uploadDictionary(t.store, { source: Buffer.from(source), label: 'popstan' });
    const { importCases } = await import('../../../src/core/cases/import/import-cases.js');
    const imported = await importCases(t.store, POPSTAN, [fixture('popstan-census.dat')]);
    assert.equal(imported.total.failed, 0);
    const r = await runBreakoutNow(t.store, { dictionary: POPSTAN });
    assert.equal(r.status, 'completed', JSON.stringify(r));
    const q = await openQuery(db.config);
    try {
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_items'), 4872);
      assert.equal(await q.num("SELECT COUNT(*) FROM popstan_sds_items WHERE table_name = 'popstan_items' AND record_name = 'ITEMS'"), 13);
      assert.equal(await q.num('SELECT COUNT(*) FROM popstan_value_sets'), expectedValueSets().length);
    } finally {
      await q.close();
    }
  } finally {
    await t.cleanup();
  }
});
