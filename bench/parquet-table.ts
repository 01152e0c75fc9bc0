// The synthetic table of the Parquet writer benchmark (bench/parquet-writers.ts): 20 columns of
// every export type, cells made from the row number so both writers get the same rows.
import type { ExportCell, ExportColumn, ExportTable } from '../src/export/model.js';

const c = (name: string, type: ExportColumn['type']): ExportColumn => ({ name, source: name, label: name, type });

export const benchTable: ExportTable = {
  name: 'bench',
  label: 'Benchmark table',
  columns: [
    c('case_id', { kind: 'guid' }),
    c('verified', { kind: 'boolean' }),
    c('modified', { kind: 'timestamp' }),
    c('line', { kind: 'integer', digits: 3 }),
    c('sex', { kind: 'integer', digits: 1 }),
    c('age', { kind: 'integer', digits: 3 }),
    c('relation', { kind: 'integer', digits: 2 }),
    c('children', { kind: 'integer', digits: 2 }),
    c('district', { kind: 'integer', digits: 4 }),
    c('household', { kind: 'integer', digits: 12 }),
    c('phone', { kind: 'integer', digits: 15 }),
    c('weight', { kind: 'decimal', precision: 5, scale: 2 }),
    c('income', { kind: 'decimal', precision: 9, scale: 3 }),
    c('land', { kind: 'decimal', precision: 15, scale: 2 }),
    c('name', { kind: 'varchar', length: 30 }),
    c('first_name', { kind: 'varchar', length: 20 }),
    c('region', { kind: 'varchar', length: 2 }),
    c('occupation', { kind: 'varchar', length: 40 }),
    c('village', { kind: 'varchar', length: 25 }),
    c('notes', { kind: 'text' }),
  ],
};

const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
const FIRST = ['Ana', 'Bilal', 'Chen', 'Dina', 'Émile', 'Farah', 'Gita', 'Hugo'];
const JOBS = ['farmer', 'teacher', 'nurse', 'trader', 'driver', 'student', 'fisher', 'tailor'];

/** The cells of row `i`, blanks included (a column in ten is null on some rows). */
export function benchRow(i: number): ExportCell[] {
  const h = Math.imul(i, 2654435761) >>> 0;
  return [
    `${hex(h)}-${hex(i).slice(0, 4)}-4${hex(h).slice(1, 4)}-8${hex(i).slice(5, 8)}-${hex(h ^ i)}${hex(i).slice(0, 4)}`,
    (h & 1) === 0,
    new Date(1_700_000_000_000 + i * 1000).toISOString(),
    (i % 12) + 1,
    (h % 2) + 1,
    h % 100,
    h % 12,
    h % 10 === 0 ? null : h % 9,
    (i >> 8) % 5000,
    100_000_000_000 + Math.floor(i / 4),
    200_000_000_000_000 + h,
    (h % 100_000) / 100,
    (h % 1_000_000_000) / 1000,
    (h % 10_000_000) / 100 + 1_000_000,
    `${FIRST[h % 8]} ${JOBS[(h >>> 3) % 8]}son ${i % 1000}`,
    FIRST[(h >>> 5) % 8]!,
    ['N', 'S', 'E', 'W', 'NE'][h % 5]!,
    `${JOBS[(h >>> 7) % 8]} in the district of ${(i >> 8) % 5000}`,
    `Village ${h % 3000}`,
    h % 7 === 0 ? `A note about row ${i}, "quoted", with a comma and é 中文` : null,
  ];
}
