import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { SDS_BIN, runCli, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';

// bin/sds runs the compiled dist/: build first.
test('bin/sds serve --max-file-mb: the file routes refuse a larger file with 413; a bad value is exit 2', async () => {
  const home = await tempHome();
  try {
    for (const v of ['0', 'abc', '65537']) {
      const r = runCli(home.root, ['serve', '--port', '0', '--max-file-mb', v]);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, /--max-file-mb must be a whole number/, show(r));
    }
    assert.equal(runCli(home.root, ['init']).code, 0);
    const add = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'users', 'add', 'ops', '--role', 'API', '--password-stdin']);
    add.stdin.end('a-long-password-1\n');
    assert.equal((await once(add, 'exit'))[0], 0);

    const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'serve', '--port', '0', '--max-file-mb', '1'], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      const tok = await fetch(`${url}/api/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', username: 'ops', password: 'a-long-password-1' }),
      });
      const { access_token } = (await tok.json()) as { access_token: string };
      const put = (size: number) =>
        fetch(`${url}/api/files/limits/a.bin/content`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${access_token}` },
          body: Buffer.alloc(size),
        });
      assert.equal((await put(1024 * 1024)).status, 200, 'exactly 1 MB');
      const over = await put(1024 * 1024 + 1);
      assert.equal(over.status, 413);
      assert.equal(((await over.json()) as { error: string }).error, 'PAYLOAD_TOO_LARGE');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      assert.equal((await exited)[0], 0, stderr);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  } finally {
    await home.cleanup();
  }
});
