import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome, writeHomeConfig } from '../../helpers/temp-home.js';
import { popstanCases } from '../../helpers/sync-client.js';

test('cases import: a case over a limit is reported CASE_TOO_LARGE (case, field, limit) and not stored; the others are; limits come from config.json and SDS_LIMIT_*', async () => {
  const home = await tempHome();
  try {
    const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.text.dcf'), '--label', 'popstan', '--json']);
    assert.equal(up.code, 0, show(up));

    // A .json case array whose second case has a label over the default limit (4096).
    const cases = popstanCases(3, 'tablet').map((c, i) => (i === 1 ? { ...c, label: 'L'.repeat(5000) } : c));
    const file = join(home.root, 'upload.json');
    writeFileSync(file, JSON.stringify(cases));
    const r = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
    assert.equal(r.code, 2, show(r));
    const rep = r.json();
    assert.equal(rep.total.inserted, 2);
    assert.equal(rep.total.failed, 1);
    const e = rep.files[0].errors[0];
    assert.equal(e.code, 'CASE_TOO_LARGE');
    assert.deepEqual(
      [e.details.field, e.details.limit, e.details.index, e.details.case, e.details.id],
      ['label', 4096, 1, cases[1]!.caseids, cases[1]!.id],
    );
    assert.match(e.message, /label has 5000 characters, more than the limit of 4096/);

    // The same file with the limit raised in the environment: the case is stored.
    const env = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json'], {
      env: { ...process.env, SDS_LIMIT_LABEL_CHARS: '5000' },
    });
    assert.equal(env.code, 0, show(env));
    assert.equal(env.json().total.inserted, 1);

    // A .dat under a case data limit from config.json: the larger cases are refused with their line.
    writeHomeConfig(home, { limits: { case_data_chars: 2000 } });
    const dat = await sds(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '--json']);
    assert.equal(dat.code, 2, show(dat));
    const d = dat.json();
    assert.ok(d.total.failed > 0 && d.total.inserted + d.total.unchanged > 0, JSON.stringify(d.total));
    const first = d.files[0].errors[0];
    assert.equal(first.code, 'CASE_TOO_LARGE');
    assert.equal(first.details.field, 'level-1');
    assert.equal(first.details.limit, 2000);
    assert.equal(typeof first.details.line, 'number');

    // A bad value is a configuration error naming where it came from.
    writeHomeConfig(home, { limits: { case_data_chars: 'lots' } });
    const bad = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
    assert.equal(bad.code, 2, show(bad));
    assert.match(bad.stdout + bad.stderr, /CONFIG_INVALID.*limits\.case_data_chars/s);
  } finally {
    await home.cleanup();
  }
});
