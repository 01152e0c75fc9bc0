/**
 * What a log line may not carry raw, whoever sent the text: a request's path, a user name sent to
 * the token endpoint, a case id or value uploaded by a device (docs/logs.md#control-characters).
 * A line break would start a forged line, NUL and the other C0 and C1 controls confuse terminals
 * and log tools, U+2028 and U+2029 are line breaks to some readers, and half of a UTF-16 pair
 * becomes bytes that are not UTF-8. Pure.
 */

/** C0, DEL, C1, U+2028, U+2029, and a high or low surrogate without its other half. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The same, less C0: a JSON serializer already escapes those (and the line ends with its own `\n`). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (ch: string, width: number) => ch.charCodeAt(0).toString(16).padStart(width, '0');

/**
 * `text` with every control character written visibly: `\n`, `\r`, `\t`, `\x00`…`\x1f`, `\x7f`…`\x9f`,
 * `\u2028`, `\u2029`, and `\ud800` for half a surrogate pair. Nothing else changes (a backslash
 * stays one), so the result is one line of valid UTF-8 and escaping it again changes nothing.
 */
export function escapeLogText(text: string): string {
  return text.replace(UNSAFE, (ch) => SHORT[ch] ?? (ch.charCodeAt(0) <= 0xff ? `\\x${hex(ch, 2)}` : `\\u${hex(ch, 4)}`));
}

/**
 * A serialized JSON line with DEL, C1, U+2028, U+2029 and lone surrogates written as `\uXXXX`
 * escapes. These can only stand inside its strings, so the line parses to the same values.
 */
export function escapeJsonLogLine(line: string): string {
  return line.replace(UNSAFE_IN_JSON, (ch) => `\\u${hex(ch, 4)}`);
}
