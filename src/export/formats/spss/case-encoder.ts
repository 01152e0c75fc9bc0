/**
 * One row of cells as the values of a case (docs/export.md#spss), fed to the compressor:
 * numbers as doubles, strings as 8-byte units across their segments. A very long string's
 * bytes are packed 255 to a segment; every segment is padded with spaces to its 8-byte units.
 */
import type { ExportCell } from '../../model.js';
import { numericValue, stringValue } from './cells.js';
import type { BytecodeCompressor } from './compressor.js';
import { segmentUnits, type SpssVariable } from './variables.js';

/** Data bytes each segment of a very long string holds. */
const SEGMENT_DATA = 255;

export class CaseEncoder {
  private readonly unit = new Uint8Array(8);

  constructor(
    private readonly variables: readonly SpssVariable[],
    private readonly compressor: BytecodeCompressor,
  ) {}

  /** Encodes one row; `row` is its 0-based number, for error messages. */
  encode(cells: readonly ExportCell[], row: number): void {
    for (const v of this.variables) {
      const cell = cells[v.column] ?? null;
      if (v.width === 0) {
        this.compressor.number(numericValue(v, cell, row));
        continue;
      }
      const bytes = stringValue(v, cell, row);
      const single = v.segments.length === 1;
      v.segments.forEach((segment, s) => {
        const start = single ? 0 : s * SEGMENT_DATA;
        const end = single ? bytes.length : Math.min(bytes.length, start + SEGMENT_DATA);
        const units = segmentUnits(segment.width);
        for (let u = 0; u < units; u++) {
          const from = start + u * 8;
          // Past the data (the unused tail of a segment included) the unit stays spaces.
          const to = Math.min(from + 8, end);
          this.unit.fill(0x20);
          if (to > from) this.unit.set(bytes.subarray(from, to));
          this.compressor.stringUnit(this.unit);
        }
      });
    }
  }
}
