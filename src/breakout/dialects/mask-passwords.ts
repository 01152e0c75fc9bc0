/**
 * Hides passwords in a driver's message where a password is written, and only there: the
 * password part of a URL (`postgresql://ana:secret@db/census`) and the value of a connection
 * option (`password=secret`, `PWD={secret};`, `"password":"secret"`). The password is never looked
 * for as text: starring each occurrence of a short or common password inside other words shows
 * which letters it is (docs/breakout.md#targets).
 */

const MASK = '***';

/**
 * `scheme://user:password@`: the password runs to the last `@` before the host, so an unencoded
 * `@` inside it is hidden too. A URL without a password (`mysql://root@h`, `h:3306/db`) does not match.
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#]*@/gi;

/**
 * A connection option whose name ends in password, passwd or pwd, then `=` (libpq and ODBC
 * strings, URL query parameters) or, after a quoted name, `:` (JSON). Its value: quoted, in
 * braces (ODBC), or up to the next separator. "using password: YES" (MySQL) is no option.
 */
const OPTION_PASSWORD = /\b(\w*(?:password|passwd|pwd))(\s*=\s*|["']\s*:\s*)("[^"]*"|'[^']*'|\{[^}]*\}|[^\s;,&)"']*)/gi;

function maskedValue(value: string): string {
  const open = value[0];
  if (open === '"' || open === "'") return `${open}${MASK}${open}`;
  if (open === '{') return `{${MASK}}`;
  return MASK;
}

/** `text` with the password of every URL and connection option in it replaced by `***`. */
export function maskPasswords(text: string): string {
  return text
    .replace(URL_PASSWORD, (_all, head: string) => `${head}${MASK}@`)
    .replace(OPTION_PASSWORD, (_all, name: string, sep: string, value: string) => `${name}${sep}${maskedValue(value)}`);
}
