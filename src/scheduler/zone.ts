import { AppError } from '../shared/errors.js';

/** The zone cron expressions are evaluated in when none is configured. */
export const DEFAULT_ZONE = 'UTC';

/**
 * Checks an IANA time zone name (Europe/Paris, America/New_York, UTC) and returns its canonical
 * spelling. `where` names the setting in the message (SDS_TIMEZONE, config.json timezone).
 */
export function checkTimeZone(name: string, where: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name.trim() }).resolvedOptions().timeZone;
  } catch {
    throw new AppError(
      'CONFIG_INVALID',
      `${where}: "${name}" is not a time zone name of the IANA database (e.g. UTC, Europe/Paris, America/New_York)`,
      {
        field: where,
      },
    );
  }
}
