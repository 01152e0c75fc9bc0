import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, csvField, csvLine, labelledCell, valueLabelMaps } from '../../../src/export/formats/csv/csv-text.js';
import type { ExportColumn } from '../../../src/export/model.js';

describe('CSV text (RFC 4180)', () => {
  it('quotes fields with a quote, comma, CR or LF and doubles the quotes', () => {
    assert.equal(csvField('plain text'), 'plain text');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\rhere'), '"cr\rhere"');
    assert.equal(csvField('Ünïcødé ✓'), 'Ünïcødé ✓');
  });

  it('writes NULL as an empty field and an empty string as ""', () => {
    assert.equal(csvCell(null), '');
    assert.equal(csvCell(''), '""');
    assert.equal(csvLine([csvCell(null), csvCell('x'), csvCell(null)]), ',x,\r\n');
  });

  it('writes numbers in their shortest form and booleans as 1/0', () => {
    assert.equal(csvCell(12), '12');
    assert.equal(csvCell(-0.25), '-0.25');
    assert.equal(csvCell(true), '1');
    assert.equal(csvCell(false), '0');
  });

  it('ends every line with CRLF', () => {
    assert.equal(csvLine(['a', 'b']), 'a,b\r\n');
  });

  it('--labels labels: the value label of a code, codes without one as they are, ranges not used', () => {
    const col: ExportColumn = {
      name: 'sex',
      source: 'sex',
      label: 'Sex',
      type: { kind: 'integer', digits: 1 },
      valueSet: {
        name: 'SEX_VS1',
        label: 'Sex',
        numeric: true,
        values: [
          { value: 1, label: 'Male' },
          { value: 2, label: 'Female, "F"' },
        ],
        ranges: [{ from: 3, to: 8, label: 'Other' }],
      },
    };
    const [m] = valueLabelMaps([col]);
    assert.equal(labelledCell(1, m), 'Male');
    assert.equal(labelledCell(2, m), '"Female, ""F"""');
    assert.equal(labelledCell(5, m), '5');
    assert.equal(labelledCell(null, m), '');
  });

  it('--labels labels: a blank label names nothing, so its code stays', () => {
    const col: ExportColumn = {
      name: 'line',
      source: 'line',
      label: 'Line number',
      type: { kind: 'integer', digits: 2 },
      valueSet: {
        name: 'LINE_VS1',
        label: 'Line number',
        numeric: true,
        values: [
          { value: 1, label: '' },
          { value: 2, label: '   ' },
          { value: 2, label: 'Second' },
        ],
        ranges: [{ from: 1, to: 30, label: '' }],
      },
    };
    const [m] = valueLabelMaps([col]);
    assert.equal(labelledCell(1, m), '1');
    assert.equal(labelledCell(2, m), 'Second', 'a later label of the same code is used');
    assert.equal(labelledCell(39, m), '39');
    const [none] = valueLabelMaps([{ ...col, valueSet: { ...col.valueSet!, values: [{ value: 1, label: '' }] } }]);
    assert.equal(none, undefined, 'no label at all: the column holds codes');
  });
});
