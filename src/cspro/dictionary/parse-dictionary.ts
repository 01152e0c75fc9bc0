/**
 * Entry point for reading a CSPro dictionary in either `.dcf` form. Like CSPro, the form is told
 * by the first character after an optional UTF-8 BOM: `[` is the ≤ 7.7 text form, `{` the CSPro 8
 * JSON form. The result is laid out and validated; a file that fails anywhere gives an AppError
 * DICT_INVALID and never a partial model.
 */

import { AppError } from '../../shared/errors.js';
import { dictInvalid, type Locate } from './dict-error.js';
import { adjustStartPositions, setRecordLengths } from './layout.js';
import { resolveLinkedValueSets } from './linked-value-sets.js';
import type { Dictionary } from './model.js';
import { parseJsonDictionary } from './parse-json-dictionary.js';
import { parseTextDictionary } from './parse-text-dictionary.js';
import { validateDictionary } from './validate-dictionary.js';

/** Options of parseDictionary. */
export interface ParseDictionaryOptions {
  /** File name to report in error details. */
  file?: string;
}

/** Parses a `.dcf` file (text or JSON form) into the dictionary model, or throws DICT_INVALID. */
export function parseDictionary(source: string | Buffer, opts: ParseDictionaryOptions = {}): Dictionary {
  try {
    return parse(toText(source));
  } catch (err) {
    if (err instanceof AppError && err.code === 'DICT_INVALID' && opts.file !== undefined) {
      throw new AppError('DICT_INVALID', err.message, { file: opts.file, ...err.details }, { cause: err.cause });
    }
    throw err;
  }
}

function toText(source: string | Buffer): string {
  const text = typeof source === 'string' ? source : source.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function parse(text: string): Dictionary {
  const first = /\S/.exec(text);
  if (first === null) throw dictInvalid({}, 'the file is empty: a CSPro dictionary starts with "[Dictionary]" or "{"');
  if (text.includes('\u0000')) {
    throw dictInvalid({}, 'the file is binary, not a CSPro dictionary (a .dcf file is UTF-8 text)');
  }
  let parsed: { dict: Dictionary; locate: Locate };
  if (first[0] === '[') {
    parsed = parseTextDictionary(text);
  } else if (first[0] === '{') {
    parsed = parseJsonDictionary(text);
    // Text-form starts are absolute and authoritative; JSON relative dictionaries are re-packed
    // across levels the way CSPro does when it loads them.
    if (parsed.dict.relativePositions && parsed.dict.levels.length > 1) adjustStartPositions(parsed.dict);
  } else {
    const line = text.slice(0, first.index).split('\n').length;
    throw dictInvalid(
      { line },
      `not a CSPro dictionary: the first character must be "[" (text form) or "{" (JSON form), found ${JSON.stringify(first[0])}`,
    );
  }
  setRecordLengths(parsed.dict);
  resolveLinkedValueSets(parsed.dict);
  validateDictionary(parsed.dict, parsed.locate);
  return parsed.dict;
}
