import type { Command } from 'commander';
import { effectiveConfig, sourceOf, type EffectiveConfig, type EffectiveSetting } from '../../core/config/index.js';
import { resolveHome } from '../../shared/home.js';
import { unknownKeyWarning } from '../../shared/home-config.js';
import { HTTP_TIMEOUT_ENV, httpTimeouts } from '../../http/timeouts.js';
import { examples } from '../action.js';
import { contextOf } from '../context.js';

/** The slow-client timeouts of `sds serve` (docs/http-api.md, "Limits and timeouts"): environment or default here; `sds serve` flags win over both. */
function httpTimeoutSettings(env: NodeJS.ProcessEnv): EffectiveSetting[] {
  const t = httpTimeouts(env);
  const names = {
    headersTimeoutMs: 'http.headers_timeout_ms',
    bodyTimeoutMs: 'http.body_timeout_ms',
    requestTimeoutMs: 'http.request_timeout_ms',
  } as const;
  return (Object.keys(HTTP_TIMEOUT_ENV) as (keyof typeof HTTP_TIMEOUT_ENV)[]).map((k) => ({
    name: names[k],
    value: t[k],
    ...sourceOf(env, HTTP_TIMEOUT_ENV[k], undefined, '', ''),
  }));
}

const show = (v: EffectiveSetting['value']): string =>
  Array.isArray(v) ? (v.length === 0 ? '(none)' : v.join(',')) : v === null ? '-' : String(v);

function render(c: EffectiveConfig): string {
  const from = (s: { source: string; from?: string }) => (s.from ? `${s.source} (${s.from})` : s.source);
  const lines = [
    `home: ${c.home.path} (${from(c.home)}${c.home.exists ? '' : '; no sds home here: `sds init` makes one'})`,
    `config file: ${c.configFile.path}${c.configFile.exists ? '' : ' (absent)'}`,
  ];
  if (c.unknownKeys.length > 0) lines.push(`unknown keys (ignored): ${c.unknownKeys.join(', ')}`);
  lines.push('');
  const width = Math.max(...c.settings.map((s) => s.name.length));
  const valueWidth = Math.min(40, Math.max(...c.settings.map((s) => show(s.value).length)));
  for (const s of c.settings) lines.push(`${s.name.padEnd(width)}  ${show(s.value).padEnd(valueWidth)}  ${from(s)}`);
  return lines.join('\n');
}

/** `sds config`: the effective settings of the home and where each came from. */
export function registerConfigCommand(program: Command): void {
  program
    .command('config')
    .description('show the effective settings and where each came from (flag, environment, config.json, default); creates nothing')
    .addHelpText(
      'after',
      examples('sds config', 'sds --home /srv/sds config --json', 'SDS_TIMEZONE=Europe/Paris sds config') +
        '\nPrecedence: flag > environment > $SDS_HOME/config.json > default. Secrets\n' +
        '(SDS_JWT_SECRET, webhook tokens) are shown as set or not set, never their value.\n' +
        'Keys of config.json that no setting reads are listed, and warned about on stderr\n' +
        'by every command that reads the file.\n',
    )
    .action((_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const flag = cmd.optsWithGlobals<{ home?: string }>().home;
      const home = resolveHome(flag);
      const c = effectiveConfig(home, { flag });
      c.settings.push(...httpTimeoutSettings(process.env));
      ctx.print(
        {
          home: c.home,
          config_file: c.configFile,
          unknown_keys: c.unknownKeys.map((key) => ({
            key,
            file: c.configFile.path,
            message: unknownKeyWarning(key, c.configFile.path).replace(/^sds: warning: /, ''),
          })),
          settings: c.settings,
        },
        () => render(c),
      );
    });
}
