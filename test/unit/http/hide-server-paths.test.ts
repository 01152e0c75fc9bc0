import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hideServerPaths, hideServerPathsIn } from '../../../src/http/hide-server-paths.js';

const onServer = (p: string): boolean => /^\/(tmp|srv|home)\//.test(p) || /^[A-Za-z]:\\/.test(p);

test('absolute server paths become their file name; URLs, host:port/db and route paths stay', () => {
  assert.equal(
    hideServerPaths('dictionary X has breakout tables in sqlite /srv/sds/var/breakout.sqlite; drop them first', onServer),
    'dictionary X has breakout tables in sqlite breakout.sqlite; drop them first',
  );
  assert.equal(hideServerPaths("cannot open '/tmp/a b/x.sqlite'.", onServer), "cannot open 'x.sqlite'.");
  assert.equal(hideServerPaths("cannot open '/tmp/ab/x.sqlite'.", onServer), "cannot open 'x.sqlite'.");
  assert.equal(hideServerPaths('in /home/me/t.sqlite: locked', onServer), 'in t.sqlite: locked');
  assert.equal(hideServerPaths('postgresql census@db:5432/census', onServer), 'postgresql census@db:5432/census');
  assert.equal(hideServerPaths('see postgresql://u@h/tmp/x', onServer), 'see postgresql://u@h/tmp/x');
  assert.equal(hideServerPaths('run POST /api/breakout/start', onServer), 'run POST /api/breakout/start');
  assert.equal(hideServerPaths('file C:\\data\\x.sqlite gone', onServer), 'file x.sqlite gone');
});

test('every string inside a reply is cleaned, other values kept', () => {
  assert.deepEqual(hideServerPathsIn({ a: ['at /srv/x/y.db', 3], b: { c: null, d: 'ok' } }), {
    a: ['at y.db', 3],
    b: { c: null, d: 'ok' },
  });
});
