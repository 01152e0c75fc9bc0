// Broken dictionaries, each derived from a valid mini dictionary by one change, must be refused
// with DICT_INVALID, a message saying what is wrong, and the line (text) or path (JSON).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { MINI_JSON, MINI_TEXT } from './mini-dictionaries.js';

/** MINI_TEXT with exactly one occurrence of `from` replaced. */
function textWith(from: string, to: string): string {
  assert.equal(MINI_TEXT.split(from).length, 2, `"${from}" must occur once in MINI_TEXT`);
  return MINI_TEXT.replace(from, to);
}

/** 1-based line of the only (or the `nth`) line equal to `line`. */
function lineOf(text: string, line: string, nth = 1): number {
  const lines = text.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.replace('\uFEFF', '') === line && ++seen === nth) return i + 1;
  }
  throw new Error(`line ${line} not found`);
}

/** MINI_JSON with a change made to its parsed object. */
function jsonWith(change: (o: any) => void): string {
  const o = JSON.parse(MINI_JSON);
  change(o);
  return JSON.stringify(o, null, 2);
}

function rejects(
  source: string | Buffer,
  expected: { message: string; line?: number; path?: string; item?: string; record?: string },
): void {
  assert.throws(
    () => parseDictionary(source, { file: 'bad.dcf' }),
    (err: unknown) => {
      assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
      assert.equal(err.code, 'DICT_INVALID');
      assert.equal(err.message, expected.message);
      assert.equal(err.details.file, 'bad.dcf');
      assert.equal(err.details.line, expected.line);
      assert.equal(err.details.path, expected.path);
      if (expected.item !== undefined) assert.equal(err.details.item, expected.item);
      if (expected.record !== undefined) assert.equal(err.details.record, expected.record);
      return true;
    },
  );
}

describe('valid mini dictionaries', () => {
  it('both parse', () => {
    assert.equal(parseDictionary(MINI_TEXT).name, 'MINI_DICT');
    const json = parseDictionary(MINI_JSON);
    assert.deepEqual(
      json.levels[0]!.records[0]!.items.map((i) => [i.name, i.start, i.length]),
      [
        ['ROOF', 4, 1],
        ['WALL', 5, 4],
      ],
    );
  });
});

describe('malformed text dictionaries', () => {
  it('missing [Dictionary]', () => {
    const text = textWith('[Dictionary]\n', '');
    rejects(text, {
      line: 2,
      message: 'line 2: the file must start with [Dictionary] (optionally preceded by [NoEdit]), found "Version"',
    });
  });

  it('non-numeric Len', () => {
    const text = textWith('Name=ROOF\nStart=7\nLen=1\n', 'Name=ROOF\nStart=7\nLen=x\n');
    const line = lineOf(text, 'Len=x');
    rejects(text, { line, item: 'ROOF', record: 'HH_REC', message: `line ${line}: [Item] ROOF: Len must be a whole number ≥ 1, got "x"` });
  });

  it('unknown DataType', () => {
    const text = textWith('datatype=alpha', 'datatype=Text');
    const line = lineOf(text, 'datatype=Text');
    rejects(text, {
      line,
      item: 'NAME',
      message: `line ${line}: [Item] NAME: DataType must be Numeric, Alpha, Image, Audio, Document or Geometry, got "Text"`,
    });
  });

  it('unknown command in an item', () => {
    const text = textWith('Name=INCOME\n', 'Name=INCOME\nColour=red\n');
    const line = lineOf(text, 'Colour=red');
    rejects(text, { line, message: `line ${line}: [Item] INCOME: unknown command "Colour" in [Item]` });
  });

  it('item past the declared record length', () => {
    const text = textWith('RecordLen=25', 'RecordLen=20');
    const line = lineOf(text, 'Start=16');
    rejects(text, {
      line,
      item: 'GPS_LAT',
      record: 'HH_REC',
      message: `line ${line}: [Item] GPS_LAT: ends at column 25, past RecordLen=20 of [Record] HH_REC`,
    });
  });

  it('item overlapping the id area', () => {
    const text = textWith('Name=ROOF\nStart=7\n', 'Name=ROOF\nStart=5\n');
    const line = lineOf(text, 'Start=5');
    rejects(text, {
      line,
      item: 'ROOF',
      record: 'HH_REC',
      message: `line ${line}: [Item] ROOF: columns 5-5 overlap id item HHNUM (columns 4-6)`,
    });
  });

  it('item overlapping the record type', () => {
    const text = textWith('Name=PROV\nStart=2\n', 'Name=PROV\nStart=1\n');
    const line = lineOf(text, 'Start=1');
    rejects(text, { line, item: 'PROV', message: `line ${line}: [Item] PROV: columns 1-2 overlap the record type (columns 1-1)` });
  });

  it('duplicate item name', () => {
    const text = textWith('Name=AGE2\n', 'Name=AGE\n');
    const line = lineOf(text, 'Name=AGE', 2);
    rejects(text, { line, message: `line ${line}: [Item] AGE: the name AGE is already used by [Item] AGE` });
  });

  it('subitem outside its parent', () => {
    const text = textWith('Name=DOB_MONTH\nStart=34\n', 'Name=DOB_MONTH\nStart=37\n');
    const line = lineOf(text, 'Start=37');
    rejects(text, {
      line,
      item: 'DOB_MONTH',
      message: `line ${line}: [Item] DOB_MONTH: columns 37-38 are outside its parent item DOB (columns 30-37)`,
    });
  });

  it('Value line before any [ValueSet]', () => {
    const text = textWith('Name=INCOME\n', 'Name=INCOME\nValue=1;One\n');
    const line = lineOf(text, 'Value=1;One');
    rejects(text, { line, message: `line ${line}: [Item] INCOME: Value line before any [ValueSet]` });
  });

  it('record type value of the wrong length', () => {
    const text = textWith("RecordTypeValue='H'", "RecordTypeValue='HH'");
    const line = lineOf(text, "RecordTypeValue='HH'");
    rejects(text, {
      line,
      record: 'HH_REC',
      message: `line ${line}: [Record] HH_REC: record type value "HH" must be 1 character(s) long, the dictionary's record type length`,
    });
  });

  it('duplicate record type value', () => {
    const text = textWith("RecordTypeValue='Q'", "RecordTypeValue='P'");
    const line = lineOf(text, "RecordTypeValue='P'", 2);
    rejects(text, {
      line,
      message: `line ${line}: [Record] PERSON_REC2: record type value "P" is already used by [Record] PERSON_REC`,
    });
  });

  it('decimals that do not fit', () => {
    const text = textWith('Decimal=6\n', 'Decimal=10\n');
    const line = lineOf(text, 'Decimal=10');
    rejects(text, { line, message: `line ${line}: [Item] GPS_LAT: 10 decimals plus the decimal mark do not fit in length 10` });
  });

  it('unknown special value name', () => {
    const text = textWith('name=missing,special', 'name=UNKNOWN,Special');
    const line = lineOf(text, 'name=UNKNOWN,Special');
    rejects(text, {
      line,
      message: `line ${line}: [Item] ROOF: Name after a Value must be a special value (MISSING, NOTAPPL, DEFAULT or REFUSED), got "UNKNOWN,Special"`,
    });
  });

  it('item without a Name', () => {
    const text = textWith('Name=INCOME\n', '');
    const line = lineOf(text, 'Label=Income|Revenu') - 1;
    rejects(text, { line, message: `line ${line}: [Item] has no Name=` });
  });

  it('relation to an unknown record', () => {
    const text = textWith('Secondary=PERSON_REC\n', 'Secondary=NOBODY\n');
    const line = lineOf(text, 'Secondary=NOBODY');
    rejects(text, { line, message: `line ${line}: [Relation] HH_PERSONS: secondary "NOBODY" is not a record or item of the dictionary` });
  });
});

describe('malformed JSON dictionaries', () => {
  it('JSON syntax error with line and column', () => {
    const text = MINI_JSON.replace('"fileType": "dictionary",', '"fileType": "dictionary"');
    assert.throws(
      () => parseDictionary(text, { file: 'bad.dcf' }),
      (err: AppError) => {
        assert.equal(err.code, 'DICT_INVALID');
        assert.equal(err.message, "JSON syntax error at line 5, column 3: expected ',' or '}' after a property value, found \"\\\"\"");
        assert.deepEqual(err.details, { file: 'bad.dcf', line: 5, column: 3 });
        return true;
      },
    );
  });

  it('truncated JSON', () => {
    assert.throws(
      () => parseDictionary('{\n  "fileType": "dictionary",\n  "levels": [\n'),
      (err: AppError) =>
        err.code === 'DICT_INVALID' &&
        err.details.line === 4 &&
        err.details.column === 1 &&
        /expected a value, found the end of the file/.test(err.message),
    );
  });

  it('missing levels', () => {
    rejects(
      jsonWith((o) => delete o.levels),
      { path: 'levels', message: 'levels: is required' },
    );
  });

  it('wrong type for length', () => {
    rejects(
      jsonWith((o) => (o.levels[0].records[0].items[0].length = '1')),
      {
        path: 'levels[0].records[0].items[0].length',
        message: 'levels[0].records[0].items[0].length: must be a whole number ≥ 1, got "1"',
      },
    );
  });

  it('fileType not "dictionary"', () => {
    rejects(
      jsonWith((o) => (o.fileType = 'application')),
      {
        path: 'fileType',
        message: 'fileType: must be "dictionary", got "application" (is this a CSPro dictionary?)',
      },
    );
  });

  it('unknown contentType', () => {
    rejects(
      jsonWith((o) => (o.levels[0].records[1].items[0].contentType = 'date')),
      {
        path: 'levels[0].records[1].items[0].contentType',
        message: 'levels[0].records[1].items[0].contentType: must be one of numeric, alpha, image, audio, document, geometry, got "date"',
      },
    );
  });

  it('duplicate record type, located by path', () => {
    rejects(
      jsonWith((o) => (o.levels[0].records[1].recordType = 'H')),
      {
        path: 'levels[0].records[1].recordType',
        record: 'PERSON_REC',
        message: 'levels[0].records[1].recordType: [Record] PERSON_REC: record type value "H" is already used by [Record] HH_REC',
      },
    );
  });

  it('a record without items place: absolute dictionary without starts', () => {
    rejects(
      jsonWith((o) => (o.relativePositions = false)),
      {
        path: 'levels[0].records[0].items[0].start',
        message: 'levels[0].records[0].items[0].start: is required when relativePositions is false',
      },
    );
  });
});

describe('not a dictionary at all', () => {
  it('empty file', () => {
    rejects('', { message: 'the file is empty: a CSPro dictionary starts with "[Dictionary]" or "{"' });
    rejects(Buffer.from('\uFEFF  \r\n\n'), { message: 'the file is empty: a CSPro dictionary starts with "[Dictionary]" or "{"' });
  });

  it('a binary buffer', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    rejects(png, { message: 'the file is binary, not a CSPro dictionary (a .dcf file is UTF-8 text)' });
  });

  it('text that is neither form', () => {
    rejects('\n\nhello world\n', {
      line: 3,
      message: 'line 3: not a CSPro dictionary: the first character must be "[" (text form) or "{" (JSON form), found "h"',
    });
  });
});
