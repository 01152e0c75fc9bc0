import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loosePermissions } from '../../../src/core/home/permissions.js';

test('loosePermissions: private modes pass; any group or other bit is named with the chmod that fixes it', () => {
  assert.deepEqual(
    loosePermissions([
      { path: '/srv/sds', kind: 'directory', mode: 0o700 },
      { path: '/srv/sds/sds.db', kind: 'file', mode: 0o600 },
      { path: '/srv/sds/config.json', kind: 'file', mode: 0o400 },
    ]),
    [],
  );
  const found = loosePermissions([
    { path: '/srv/sds', kind: 'directory', mode: 0o755 },
    { path: '/srv/sds/sds.db', kind: 'file', mode: 0o640 },
    { path: '/srv/sds/config.json', kind: 'file', mode: 0o604 },
    { path: '/srv/my home/sds.db-wal', kind: 'file', mode: 0o2666 },
  ]);
  assert.deepEqual(
    found.map((f) => [f.path, f.mode, f.expected, f.open_to, f.fix]),
    [
      ['/srv/sds', '0755', '0700', ['group', 'others'], 'chmod 700 /srv/sds'],
      ['/srv/sds/sds.db', '0640', '0600', ['group'], 'chmod 600 /srv/sds/sds.db'],
      ['/srv/sds/config.json', '0604', '0600', ['others'], 'chmod 600 /srv/sds/config.json'],
      ['/srv/my home/sds.db-wal', '0666', '0600', ['group', 'others'], "chmod 600 '/srv/my home/sds.db-wal'"],
    ],
  );
  assert.equal(found[1]!.message, 'the file /srv/sds/sds.db has mode 0640: group can read or write it; fix: chmod 600 /srv/sds/sds.db');
  assert.match(found[0]!.message, /^the home folder \/srv\/sds has mode 0755: group and others can enter it; fix: chmod 700 \/srv\/sds$/);
  // Only execute (enter) for others is still loose for a folder: a known file name opens.
  assert.deepEqual(
    loosePermissions([{ path: '/h', kind: 'directory', mode: 0o701 }]).map((f) => f.open_to),
    [['others']],
  );
});
