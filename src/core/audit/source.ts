import { hostname, userInfo } from 'node:os';

/**
 * Who runs a command and where, as the audit trail records the CLI: `os:<user>` of the
 * operating system (its uid when the system has no name for it, as in a container) and the
 * host name. Under sudo the user who ran sudo goes into the details.
 */
export function cliAuditSource(env: NodeJS.ProcessEnv = process.env): {
  actor: string;
  origin: string;
  channel: 'cli';
  sudo_user?: string;
} {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = `uid-${process.getuid?.() ?? 'unknown'}`;
  }
  return { actor: `os:${name}`, origin: hostname(), channel: 'cli', ...(env.SUDO_USER ? { sudo_user: env.SUDO_USER } : {}) };
}
