// Seeded fuzzing of every route of the real `sds serve` (a child process, so a crash is a dead
// server, not a dead test runner). Replay a failure with SDS_FUZZ_SEED=<seed printed>; more
// requests with SDS_FUZZ_REQUESTS. Fails on a crash, a server that stops answering, a 5xx the
// OpenAPI document does not list for the route, a 4xx that is not the documented error shape (or
// whose status the route does not list), a 5xx in the request log for a request whose client
// left, and a failed PRAGMA integrity_check of the store at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tempHome } from '../../helpers/temp-home.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { FUZZ_ENV, integrityCheck, seedFuzzHome, tokenOf } from '../../helpers/fuzz-home.js';
import { Rng, generateRequest, operationsOf, type FuzzWorld } from '../../helpers/fuzz-requests.js';
import { answers, send } from '../../helpers/fuzz-wire.js';
import { formatFailures, judge, logged5xx, operationOfPath, recordOf, type FuzzFailure } from '../../helpers/fuzz-judge.js';
import type { OpenApiDoc } from '../../helpers/openapi-validate.js';

const built = fileURLToPath(new URL('../../../dist/cli/commands/serve.js', import.meta.url));
const SEED = Number(process.env.SDS_FUZZ_SEED ?? 16_016);
const REQUESTS = Number(process.env.SDS_FUZZ_REQUESTS ?? 800);

/** A request as the request log names it (the log may show the path decoded). */
function logKey(method: string, path: string): string {
  const p = path.split('?')[0]!;
  try {
    return `${method} ${decodeURIComponent(p)}`;
  } catch {
    return `${method} ${p}`;
  }
}

test(`fuzz: ${REQUESTS} seeded requests over every route (seed ${SEED}) leave the server answering, with documented statuses and error shapes, and the store intact`, async () => {
  assert.ok(existsSync(built), 'dist/ has no serve command: run `npm run build` first');
  assert.ok(
    Number.isSafeInteger(SEED) && Number.isSafeInteger(REQUESTS) && REQUESTS > 0,
    'SDS_FUZZ_SEED and SDS_FUZZ_REQUESTS are whole numbers',
  );
  const home = await tempHome();
  const failures: FuzzFailure[] = [];
  const servers: ServeProcess[] = [];
  let server: ServeProcess | undefined;
  try {
    const seeded = await seedFuzzHome(home.root);
    server = await startServe(home.root, FUZZ_ENV);
    servers.push(server);
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as OpenApiDoc;
    const ops = operationsOf(doc);
    assert.ok(ops.length >= 40, `the document lists ${ops.length} operations`);
    const tokens = {
      admin: await tokenOf(server.url, 'admin'),
      api: await tokenOf(server.url, 'api'),
      standard: await tokenOf(server.url, 'standard'),
    };
    const list = (await (
      await fetch(`${server.url}/api/dictionaries/${seeded.dictionaries[0]}/cases?limit=20`, {
        headers: { authorization: `Bearer ${tokens.admin}` },
      })
    ).json()) as { data: { guid: string }[] };
    const world: FuzzWorld = { ...seeded, tokens, caseIds: list.data.map((c) => c.guid) };
    assert.ok(world.caseIds.length > 0, 'seeded cases are listed');

    const rng = new Rng(SEED);
    // Every operation once per round (those with a body three times: they parse the most), in a
    // seeded order, until the budget is spent.
    const round = ops.flatMap((o) => (o.spec.requestBody ? [o, o, o] : [o]));
    const plan: typeof ops = [];
    while (plan.length < REQUESTS) plan.push(...rng.shuffle([...round]));
    plan.length = REQUESTS;
    const seen5xx = new Map<string, number>();
    const started = performance.now();
    for (const [i, op] of plan.entries()) {
      const req = generateRequest(rng, op, world);
      // A filled-in path can belong to a more specific route than the one it was generated
      // for (`{path}` = `media/photo.jpg` is the media route's): judge it by the route that answers
      // (the generated one first, so it wins a tie).
      if (req.op) req.op = operationOfPath([req.op, ...ops], req.method, req.path.split('?')[0]!) ?? req.op;
      const res = await send(server.url, req);
      if (res.status !== undefined && res.status >= 500)
        seen5xx.set(logKey(req.method, req.path), (seen5xx.get(logKey(req.method, req.path)) ?? 0) + 1);
      const found = judge(doc, req, res);
      // After a request with a body, anything but a plain answer, and every 10 requests, make
      // sure the server is still there, so a crash is pinned on the request that caused it.
      if (req.body.length > 0 || req.framing !== 'exact' || found.length || res.status === undefined || i % 10 === 0) {
        let exit = server.exit();
        let alive = !exit && (await answers(server.url));
        if (!alive && !exit) {
          // A dying process stops listening before its exit is seen: give it a moment.
          await Promise.race([server.ended, new Promise((r) => setTimeout(r, 3000))]);
          exit = server.exit();
          alive = !exit && (await answers(server.url));
        }
        if (!alive) {
          found.splice(
            0,
            found.length,
            recordOf(
              req,
              exit ? 'crash' : 'unanswered',
              `${exit ? `server exited ${JSON.stringify(exit)}` : 'server alive but not answering'}; its stderr:\n${server.errors(20)}`,
              res.status,
            ),
          );
          await server.kill9();
          // Start again over the same home, so the rest of the run still finds what it can.
          server = await startServe(home.root, FUZZ_ENV);
          servers.push(server);
        }
      }
      failures.push(...found);
    }
    const seconds = (performance.now() - started) / 1000;
    const current = server;
    await current.stop();
    // A 5xx the client never saw (it had gone away) shows only in the request log.
    for (const s of servers) {
      for (const l of logged5xx(s.stderr())) {
        const key = logKey(l.method, l.path);
        const seen = seen5xx.get(key) ?? 0;
        if (seen > 0) {
          seen5xx.set(key, seen - 1);
          continue;
        }
        const op = operationOfPath(ops, l.method, l.path);
        if (op && op.spec.responses[String(l.status)]) continue;
        failures.push({
          kind: 'logged-5xx',
          method: l.method,
          path: l.path,
          template: op?.template,
          status: l.status,
          detail: 'the request log has a 5xx that no client received (an aborted or unfinished request)',
        });
      }
    }
    const integrity = await integrityCheck(home.root);
    if (integrity !== 'ok') failures.push({ kind: 'integrity', method: '-', path: 'store', detail: `integrity check: ${integrity}` });
    process.stdout.write(
      `# fuzz: ${REQUESTS} requests in ${seconds.toFixed(1)} s, seed ${SEED}, ${servers.length - 1} restarts, ${failures.length} failures\n`,
    );
    assert.equal(failures.length, 0, formatFailures(failures, SEED));
  } finally {
    for (const s of servers) await s.kill9();
    await home.cleanup();
  }
});
