/** The pure encoders of the Stata writer against the byte layouts of Stata's .dta 118 description. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ExportColumn } from '../../../src/export/model.js';
import { encodeGso, encodeRowInto, writeStrlRef } from '../../../src/export/formats/stata/data-row.js';
import { encodeHead, releaseFor } from '../../../src/export/formats/stata/header.js';
import { utf8Limited } from '../../../src/export/formats/stata/text.js';
import { encodeValueLabelTable, planValueLabels } from '../../../src/export/formats/stata/value-labels.js';
import { planVariables } from '../../../src/export/formats/stata/variables.js';

const int = (name: string, digits: number, extra: Partial<ExportColumn> = {}): ExportColumn => ({
  name,
  source: name,
  label: name,
  type: { kind: 'integer', digits },
  ...extra,
});

describe('Stata text limits', () => {
  it('cuts at a character, never inside one', () => {
    assert.equal(Buffer.from(utf8Limited('aé', 80, 2)).toString('utf8'), 'a');
    assert.equal(Buffer.from(utf8Limited('中中', 80, 5)).toString('utf8'), '中');
    assert.equal(Buffer.from(utf8Limited('é'.repeat(90), 80, 320)).toString('utf8'), 'é'.repeat(80));
    assert.equal(Buffer.from(utf8Limited('a\0b', 80, 320)).toString('utf8'), 'ab');
  });
});

describe('Stata storage types', () => {
  it('picks byte, int, long and double by item length (sign included)', () => {
    const vars = planVariables([int('a', 2), int('b', 3), int('c', 4), int('d', 5), int('e', 9), int('f', 10)], {
      rows: 0,
      maxBytes: [0, 0, 0, 0, 0, 0],
    });
    assert.deepEqual(
      vars.map((v) => [v.storage, v.typeCode, v.bytes]),
      [
        ['byte', 65530, 1],
        ['int', 65529, 2],
        ['int', 65529, 2],
        ['long', 65528, 4],
        ['long', 65528, 4],
        ['double', 65526, 8],
      ],
    );
  });

  it('makes str# up to 2045 bytes and strL beyond', () => {
    const text = (name: string): ExportColumn => ({ name, source: name, label: '', type: { kind: 'text' } });
    const vars = planVariables([text('a'), text('b'), text('c')], { rows: 1, maxBytes: [0, 2045, 2046] });
    assert.deepEqual(
      vars.map((v) => v.typeCode),
      [1, 2045, 32768],
    );
  });
});

describe('Stata missing values in a row', () => {
  const valueSet = {
    name: 'VS',
    label: '',
    numeric: true,
    values: [
      { value: 9, label: 'm', special: 'MISSING' as const },
      { value: 8, label: 'r', special: 'REFUSED' as const },
    ],
    ranges: [],
  };
  const columns = [int('b', 1, { valueSet }), int('i', 4, { valueSet }), int('l', 9, { valueSet }), int('d', 12, { valueSet })];
  const vars = planVariables(columns, { rows: 1, maxBytes: [0, 0, 0, 0] });
  const encode = (cells: (number | null)[]): Buffer => {
    const out = Buffer.alloc(1 + 2 + 4 + 8);
    encodeRowInto(out, 0, vars, cells, 118, { table: 't', row: 1 });
    return out;
  };

  it('writes . as 101, 32741, 2147483621 and 0x7fe0000000000000', () => {
    const out = encode([null, null, null, null]);
    assert.equal(out.readInt8(0), 101);
    assert.equal(out.readInt16LE(1), 32741);
    assert.equal(out.readInt32LE(3), 2147483621);
    assert.equal(out.subarray(7).toString('hex'), '000000000000e07f');
  });

  it('writes MISSING as .a and REFUSED as .b in every type', () => {
    const a = encode([9, 9, 9, 9]);
    assert.deepEqual([a.readInt8(0), a.readInt16LE(1), a.readInt32LE(3)], [102, 32742, 2147483622]);
    assert.equal(a.subarray(7).toString('hex'), '000000000001e07f');
    const b = encode([8, 8, 8, 8]);
    assert.deepEqual([b.readInt8(0), b.readInt16LE(1), b.readInt32LE(3)], [103, 32743, 2147483623]);
    assert.equal(b.subarray(7).toString('hex'), '000000000002e07f');
  });
});

describe('Stata strLs', () => {
  it('packs (v,o) as 2+6 bytes in 118 and 3+5 in 119', () => {
    const out = Buffer.alloc(8);
    writeStrlRef(out, 0, 118, 5, 1);
    assert.equal(out.toString('hex'), '0500010000000000');
    writeStrlRef(out, 0, 119, 0x012345, 2);
    assert.equal(out.toString('hex'), '4523010200000000');
  });

  it('writes a GSO of type 130 with its NUL counted in len', () => {
    const gso = encodeGso(5, 1, Buffer.from('third'));
    assert.equal(
      gso.toString('hex'),
      Buffer.from('GSO').toString('hex') + '05000000' + '0100000000000000' + '82' + '06000000' + Buffer.from('third\0').toString('hex'),
    );
  });
});

describe('Stata value label table', () => {
  it('lays out n, txtlen, off[], val[] and txt[] after a 129-byte name and 3 bytes of padding', () => {
    const lbl = encodeValueLabelTable({
      name: 'yesno',
      entries: [
        { value: 1, text: Buffer.from('yes') },
        { value: 2, text: Buffer.from('no') },
      ],
    });
    assert.equal(lbl.subarray(0, 5).toString(), '<lbl>');
    assert.equal(lbl.readInt32LE(5), 8 + 16 + 7);
    assert.equal(lbl.subarray(9, 14).toString(), 'yesno');
    const t = 5 + 4 + 129 + 3;
    assert.deepEqual([lbl.readInt32LE(t), lbl.readInt32LE(t + 4)], [2, 7]);
    assert.deepEqual([lbl.readInt32LE(t + 8), lbl.readInt32LE(t + 12)], [0, 4]);
    assert.deepEqual([lbl.readInt32LE(t + 16), lbl.readInt32LE(t + 20)], [1, 2]);
    assert.equal(lbl.subarray(t + 24, t + 31).toString('latin1'), 'yes\0no\0');
    assert.equal(lbl.subarray(t + 31).toString(), '</lbl>');
  });
});

describe('Stata value labels of a value set', () => {
  it('leaves blank labels out, so Stata shows the code (a special code keeps its letter)', () => {
    const vars = planVariables(
      [
        int('age', 2, {
          valueSet: { name: 'AGE', label: '', numeric: true, values: [], ranges: [{ from: 0, to: 98, label: '' }] },
        }),
        int('rel', 1, {
          valueSet: {
            name: 'REL',
            label: '',
            numeric: true,
            values: [
              { value: 1, label: 'Head' },
              { value: 2, label: '' },
              { value: 9, label: ' ', special: 'MISSING' },
              { value: 8, label: 'Refused', special: 'REFUSED' },
            ],
            ranges: [{ from: 5, to: 5, label: '' }],
          },
        }),
      ],
      { rows: 1, maxBytes: [0, 0] },
    );
    assert.equal(vars[1]!.specials.get(9), 1, '9 is still written as .a');
    const plan = planValueLabels(vars);
    assert.deepEqual(plan.names, ['', 'rel']);
    // `.` is 2,147,483,621 in a value label, .a the next one, .b the one after (Stata's long missing values).
    assert.deepEqual(
      plan.tables[0]!.entries.map((e) => [e.value, Buffer.from(e.text).toString('utf8')]),
      [
        [1, 'Head'],
        [2_147_483_623, 'Refused'],
      ],
    );
  });
});

describe('Stata header and map', () => {
  it('points every map entry at its tag', () => {
    const vars = planVariables([int('a', 1)], { rows: 2, maxBytes: [0] });
    const head = encodeHead({
      release: 118,
      rows: 2,
      label: 'L',
      variables: vars,
      valueLabelNames: [''],
      dataBytes: 2,
      strlsBytes: 0,
      valueLabelsBytes: 0,
    });
    const rest = Buffer.from('\x01\x02</data><strls></strls><value_labels></value_labels></stata_dta>', 'latin1');
    const file = Buffer.concat([head, rest]);
    const mapAt = file.indexOf('<map>') + 5;
    const offsets = Array.from({ length: 14 }, (_, i) => Number(file.readBigUInt64LE(mapAt + 8 * i)));
    const tags = [
      '<stata_dta>',
      '<map>',
      '<variable_types>',
      '<varnames>',
      '<sortlist>',
      '<formats>',
      '<value_label_names>',
      '<variable_labels>',
      '<characteristics>',
      '<data>',
      '<strls>',
      '<value_labels>',
      '</stata_dta>',
    ];
    tags.forEach((tag, i) => assert.equal(file.subarray(offsets[i], offsets[i]! + tag.length).toString('latin1'), tag, tag));
    assert.equal(offsets[13], file.length);
  });

  it('uses 119 only above 32,767 variables', () => {
    assert.equal(releaseFor(32_767), 118);
    assert.equal(releaseFor(32_768), 119);
  });
});
