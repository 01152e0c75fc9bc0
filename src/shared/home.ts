import { resolve, join } from 'node:path';

/** Paths inside an sds home directory (DESIGN.md §3). */
export interface HomePaths {
  root: string;
  db: string;
  media: string;
  /** Application deployment packages (`<name>.zip`) served to the data-collection client. */
  apps: string;
  breakoutLogs: string;
  /** One log file per import: every warning and unreadable case (core/cases/import/import-log.ts). */
  importLogs: string;
  locks: string;
  targets: string;
}

/**
 * The home directory: the `--home` flag, else `SDS_HOME`, else `./var` of the current directory
 * (the precedence flag > environment > default of DESIGN.md §3).
 */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): HomePaths {
  const root = resolve(flag ?? env.SDS_HOME ?? 'var');
  return {
    root,
    db: join(root, 'sds.db'),
    media: join(root, 'files', 'media'),
    apps: join(root, 'files', 'apps'),
    breakoutLogs: join(root, 'logs', 'breakout'),
    importLogs: join(root, 'logs', 'import'),
    locks: join(root, 'locks'),
    targets: join(root, 'targets'),
  };
}
