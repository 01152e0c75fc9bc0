/**
 * A deployed package's `package.json` into the metadata sds keeps (docs/sync.md#apps): the fields
 * CSPro writes, missing or mistyped fields, a BOM, and text that is not a JSON object.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parseAppPackageSpec } from '../../../src/core/sync/app-package-spec.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

describe('parseAppPackageSpec', () => {
  it('reads description, version, build time and files; the signature is the md5 of the exact bytes', () => {
    const bytes = Buffer.from(
      JSON.stringify({
        name: 'Census',
        description: 'Census 2025 — questionnaire',
        buildTime: '2024-03-18T10:20:30+02:00',
        version: '1.2',
        deployment: { type: 'CSWeb' },
        files: [
          { path: 'census.pen', signature: 'abc' },
          { path: 'lookup.csdb', onlyOnFirstInstall: true },
        ],
      }),
    );
    assert.deepEqual(parseAppPackageSpec(bytes), {
      spec: {
        description: 'Census 2025 — questionnaire',
        version: '1.2',
        buildTimeMs: Date.UTC(2024, 2, 18, 8, 20, 30),
        files: '[{"path":"census.pen","signature":"abc"},{"path":"lookup.csdb","onlyOnFirstInstall":true}]',
        signature: md5(bytes),
      },
    });
  });

  it('treats missing and mistyped fields as absent', () => {
    const bytes = Buffer.from('{"name":"X","description":42,"buildTime":"yesterday","files":{"path":"a"}}');
    assert.deepEqual(parseAppPackageSpec(bytes), { spec: { description: null, version: null, files: null, signature: md5(bytes) } });
    const empty = Buffer.from('{}');
    assert.deepEqual(parseAppPackageSpec(empty), { spec: { description: null, version: null, files: null, signature: md5(empty) } });
  });

  it('takes a numeric version as its text', () => {
    const r = parseAppPackageSpec(Buffer.from('{"version":2}'));
    assert.ok('spec' in r);
    assert.equal(r.spec.version, '2');
  });

  it('reads past a BOM, whose bytes stay in the signature', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"description":"with BOM"}')]);
    const r = parseAppPackageSpec(bytes);
    assert.ok('spec' in r);
    assert.equal(r.spec.description, 'with BOM');
    assert.equal(r.spec.signature, md5(bytes));
    assert.notEqual(r.spec.signature, md5(bytes.subarray(3)));
  });

  it('answers a problem for malformed JSON and for JSON that is not an object', () => {
    for (const text of ['{"description": "cut', 'not json at all', '', '[1,2]', '"text"', 'null', '42']) {
      const r = parseAppPackageSpec(Buffer.from(text));
      assert.ok('problem' in r, `${JSON.stringify(text)} gives a problem`);
      assert.match(r.problem, /not JSON|not a JSON object/);
    }
  });
});
