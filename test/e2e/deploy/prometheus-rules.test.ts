/**
 * The Prometheus files of deploy/prometheus/ (docs/production.md#monitoring): the example alert
 * rules pass `promtool check rules` from Debian's prometheus package, the sds-down rule fires on
 * the series it is meant for (`promtool test rules` over a made-up scrape history), and the scrape
 * configuration passes `promtool check config` with its two files in place.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPLOY, replaceExactly, skipWithout } from '../../helpers/deploy-files.js';

const noPromtool = skipWithout('promtool', 'prometheus');
const RULES = join(DEPLOY, 'prometheus', 'sds-rules.yml');
const dir = mkdtempSync(join(tmpdir(), 'sds-rules-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('promtool check rules accepts the example rules', { skip: noPromtool }, () => {
  const r = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
  assert.equal(r.error, undefined, `promtool could not run: ${r.error?.message}`);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /SUCCESS: \d+ rules found/);
});

test('SdsDown fires after 2 minutes without a scrape, and not before', { skip: noPromtool }, () => {
  const tests = join(dir, 'sds-rules.test.yml');
  // up is 1 for 3 minutes, then 0: pending at minute 4, firing from minute 5 on ('for: 2m').
  writeFileSync(
    tests,
    `rule_files: [${JSON.stringify(RULES)}]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'up{job="sds",instance="sds.example.org:443"}'
        values: '1 1 1 0 0 0 0 0'
    alert_rule_test:
      - eval_time: 4m
        alertname: SdsDown
        exp_alerts: []
      - eval_time: 6m
        alertname: SdsDown
        exp_alerts:
          - exp_labels: { severity: critical, job: sds, instance: 'sds.example.org:443' }
            exp_annotations:
              summary: 'sds serve on sds.example.org:443 does not answer the metrics scrape'
              description: 'Check \`systemctl status sds\` and \`journalctl -u sds\` on the server.'
`,
  );
  const r = spawnSync('promtool', ['test', 'rules', tests], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('promtool check config accepts the scrape configuration, its token file and rules in place', { skip: noPromtool }, () => {
  const token = join(dir, 'sds-metrics-token');
  writeFileSync(token, 'a-metrics-token\n', { mode: 0o600 });
  let config = readFileSync(join(DEPLOY, 'prometheus', 'prometheus-sds.yml'), 'utf8');
  // The two paths of the Prometheus server, here files of this checkout.
  config = replaceExactly(config, '/etc/prometheus/sds-metrics-token', token);
  config = replaceExactly(config, '/etc/prometheus/rules/sds-rules.yml', RULES);
  const path = join(dir, 'prometheus.yml');
  writeFileSync(path, config);
  const r = spawnSync('promtool', ['check', 'config', path], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /SUCCESS/);
});
