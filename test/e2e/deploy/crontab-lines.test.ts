/**
 * The crontab lines of the docs work as cron runs them (docs/scheduler.md#the-crontab): with cron's
 * own environment (PATH=/usr/bin:/bin, HOME, LOGNAME, SHELL) plus the crontab's variable lines,
 * through /bin/sh. They carry no password, and each crontab names the folder of sds and node in
 * PATH (the runbook installs both in /usr/local/bin, which cron's PATH lacks).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../helpers/run-cli.js';
import { tempDir } from '../../helpers/temp-home.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CRON_FIELD = String.raw`[\d*/,-]+`;
const JOB = new RegExp(String.raw`^(?:# )?((?:${CRON_FIELD} ){5})(.+)$`);
const VARIABLE = /^(?:# )?([A-Z_]+)=(.*)$/;

interface Crontab {
  file: string;
  variables: Map<string, string>;
  jobs: string[];
}

/** Every fenced block of the docs with at least one crontab job line; README's may be commented out. */
function crontabs(): Crontab[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
  const found: Crontab[] = [];
  for (const file of files) {
    const blocks = readFileSync(join(ROOT, file), 'utf8')
      .split(/^```/m)
      .filter((_, i) => i % 2 === 1);
    for (const block of blocks) {
      const lines = block.split('\n').slice(1);
      const jobs = lines.map((l) => JOB.exec(l)?.[2]).filter((j): j is string => j !== undefined);
      if (jobs.length === 0) continue;
      const variables = new Map<string, string>();
      for (const line of lines) {
        const m = VARIABLE.exec(line);
        if (m) variables.set(m[1]!, m[2]!);
      }
      found.push({ file, variables, jobs });
    }
  }
  return found;
}

const CRONTABS = crontabs();

test('the docs hold crontab lines for the scheduler, backups and the CSWeb import', () => {
  const all = CRONTABS.flatMap((c) => c.jobs).join('\n');
  for (const command of ['scheduler-run', ' backup ', 'csweb import']) assert.ok(all.includes(command), `a crontab line with ${command}`);
});

test('every crontab puts the folder of sds and node on PATH and holds no password', () => {
  for (const c of CRONTABS) {
    const path = c.variables.get('PATH');
    assert.ok(path?.split(':').includes('/usr/local/bin'), `${c.file}: the crontab sets PATH with /usr/local/bin (${c.jobs[0]})`);
    for (const [name, value] of c.variables) assert.doesNotMatch(name, /PW|PASS|SECRET|TOKEN/, `${c.file}: ${name}=${value} in a crontab`);
    for (const job of c.jobs) assert.doesNotMatch(job, /\b[A-Z_]*(PW|PASS|SECRET|TOKEN)[A-Z_]*=/, `${c.file}: a password in ${job}`);
  }
});

/** Runs one job line as cron would: /bin/sh -c with cron's environment plus the crontab's variables. */
function runAsCron(job: string, variables: Map<string, string>, home: string): { status: number | null; stderr: string } {
  const env: Record<string, string> = { HOME: home, LOGNAME: 'sds', SHELL: '/bin/sh', PATH: '/usr/bin:/bin' };
  for (const [name, value] of variables) env[name] = value;
  const r = spawnSync('/bin/sh', ['-c', job], { env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stderr: r.stderr };
}

test('the scheduler and backup lines run under cron’s environment, sourcing the password file', () => {
  const tmp = tempDir();
  try {
    // /usr/local/bin of the runbook: a folder holding sds and node, which cron's PATH does not hold.
    const bin = join(tmp.root, 'usr-local-bin');
    mkdirSync(bin);
    symlinkSync(join(ROOT, 'bin', 'sds'), join(bin, 'sds'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const sdsHome = join(tmp.root, 'srv-sds');
    const backups = join(tmp.root, 'backups');
    mkdirSync(backups);
    assert.equal(runCli(null, ['--home', sdsHome, 'init']).code, 0);
    mkdirSync(join(sdsHome, 'logs'), { recursive: true });
    // The password file of docs/scheduler.md, as its two commands make it.
    writeFileSync(join(tmp.root, '.sds-cron.env'), "export CENSUS_PW='the target password'\n", { mode: 0o600 });

    const localise = (line: string) =>
      line
        .replaceAll('/usr/local/bin', bin)
        .replaceAll('/srv/sds', sdsHome)
        .replaceAll('/var/lib/sds', sdsHome)
        .replaceAll('/var/backups/sds', backups);
    let ran = 0;
    for (const c of CRONTABS) {
      const variables = new Map([...c.variables].map(([k, v]) => [k, localise(v)]));
      for (const job of c.jobs.filter((j) => j.includes('scheduler-run') || j.includes(' backup '))) {
        const r = runAsCron(localise(job), variables, tmp.root);
        assert.equal(r.status, 0, `${c.file}: ${job}\n${r.stderr}`);
        // Without the crontab's PATH line, cron finds no sds: the line above needs it.
        const bare = runAsCron(localise(job), new Map(), tmp.root);
        assert.notEqual(bare.status, 0, `${c.file}: ${job} ran without the PATH line`);
        ran++;
      }
    }
    assert.ok(ran >= 4, `ran ${ran} crontab lines`);
    assert.match(readFileSync(join(sdsHome, 'logs', 'scheduler.log'), 'utf8'), /no schedules due/);
    assert.ok(
      readdirSync(backups).some((d) => d.startsWith('sds-backup-') && existsSync(join(backups, d, 'manifest.json'))),
      'a backup was written',
    );
  } finally {
    tmp.cleanup();
  }
});
