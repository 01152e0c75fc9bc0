import { resolve, join } from 'node:path';

/** Paths inside an sds home directory (docs/architecture.md#home-and-configuration). */
export interface HomePaths {
  root: string;
  db: string;
  media: string;
  /** Binary case items' content, `<dictionary, lower case>/<md5>` (docs/sync.md#binary-items). */
  binaryItems: string;
  /** Application deployment packages (`<name>.zip`) served to the data-collection client. */
  apps: string;
  breakoutLogs: string;
  /** One log file per import: every warning and unreadable case (core/cases/import/import-log.ts). */
  importLogs: string;
  locks: string;
  targets: string;
  /** How the root was chosen, for messages that name it (HOME_NOT_FOUND); absent when built by hand. */
  source?: HomeSource;
  /** The store URL given by `--store`, over SDS_STORE_URL and config.json (store/store-setting.ts). */
  storeUrl?: string;
}

/**
 * How a home was chosen, in the vocabulary of `sds config`: `flag` (`--home`), `environment`
 * (`SDS_HOME`) or `default` (`./var` of the current directory).
 */
export type HomeSource = 'flag' | 'environment' | 'default';

/** Which of `--home`, `SDS_HOME` and the default chooses the home (flag > environment > default). */
export function homeSource(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): HomeSource {
  return flag !== undefined ? 'flag' : env.SDS_HOME !== undefined ? 'environment' : 'default';
}

/**
 * The home directory: the `--home` flag, else `SDS_HOME`, else `./var` of the current directory
 * (the precedence flag > environment > default of docs/architecture.md#home-and-configuration).
 */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): HomePaths {
  const root = resolve(flag ?? env.SDS_HOME ?? 'var');
  return {
    root,
    source: homeSource(flag, env),
    db: join(root, 'sds.db'),
    media: join(root, 'files', 'media'),
    apps: join(root, 'files', 'apps'),
    binaryItems: join(root, 'files', 'binary-items'),
    breakoutLogs: join(root, 'logs', 'breakout'),
    importLogs: join(root, 'logs', 'import'),
    locks: join(root, 'locks'),
    targets: join(root, 'targets'),
  };
}
