/**
 * Recognises stored JSON text that is already byte for byte what `JSON.stringify` makes of its
 * own parse, for the three JSON columns of a case (clock, notes, partial save), so a download page
 * can send that text as it is (docs/sync.md#how-a-page-is-built). Each test is one anchored regular
 * expression over the exact shape the case writers store (src/store/cases-repo.ts caseWriteValues):
 * no whitespace, keys in that order and only those, strings escaped as `JSON.stringify` escapes
 * them, whole numbers below 10^15 written plainly. Text in any other form (older rows, an import
 * that stored it otherwise) does not match, and the caller re-encodes it. Pure; no I/O.
 */

/**
 * A JSON string as `JSON.stringify` writes it: `"` and `\` escaped, the control characters as
 * \b \t \n \f \r or \u00xx in lower case, everything else (surrogate pairs included) as is. A
 * lone surrogate (escaped by `JSON.stringify`, never in text read back from UTF-8) is left to the
 * re-encode.
 */
const STRING = String.raw`"(?:[^"\\\x00-\x1f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff]|\\["\\bfnrt]|\\u00(?:0[0-7bef]|1[\da-f]))*"`;

/** A whole number ≥ 0 as `JSON.stringify` writes it, short enough to be exact (< 10^15): no sign, no leading zero, no exponent. */
const WHOLE = String.raw`(?:0|[1-9]\d{0,14})`;

/** A field reference (model.ts FieldRef) in the order the upload check builds it (sync-json.ts fieldRef). */
const FIELD = String.raw`\{"name":${STRING},"levelKey":${STRING},"recordOccurrence":${WHOLE},"itemOccurrence":${WHOLE},"subitemOccurrence":${WHOLE}\}`;

const CLOCK_ENTRY = String.raw`\{"deviceId":${STRING},"revision":${WHOLE}\}`;

const NOTE = String.raw`\{"content":${STRING},"field":${FIELD},"operatorId":${STRING},"modifiedTime":${STRING}\}`;

const listOf = (element: string) => new RegExp(String.raw`^\[(?:${element}(?:,${element})*)?\]$`);

const CLOCK = listOf(CLOCK_ENTRY);
const NOTES = listOf(NOTE);
const PARTIAL_SAVE = new RegExp(String.raw`^\{"mode":${STRING}(?:,"field":${FIELD})?\}$`);

/**
 * Whether a stored clock is a list of `{deviceId, revision}` with a string device id, written
 * as `JSON.stringify` writes it: then it is its own wire form.
 */
export function isCanonicalClock(text: string): boolean {
  return CLOCK.test(text);
}

/** Whether stored notes are a list of notes of the model's shape, written as `JSON.stringify` writes them. */
export function isCanonicalNotes(text: string): boolean {
  return text === '[]' || NOTES.test(text);
}

/** Whether a stored partial save is `{mode, field?}` of the model's shape, written as `JSON.stringify` writes it. */
export function isCanonicalPartialSave(text: string): boolean {
  return PARTIAL_SAVE.test(text);
}
