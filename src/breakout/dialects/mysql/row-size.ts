/**
 * MySQL/MariaDB row-size limits, computed so CREATE TABLE never fails with error 1118 (pure).
 * Two limits apply at CREATE time:
 *  1. the server's 65,535 bytes per row, counting every VARCHAR at its full utf8mb4 size
 *     (4 bytes a character) and TEXT as 9-12 bytes
 *     (https://dev.mysql.com/doc/refman/8.0/en/column-count-limit.html#row-size-limits);
 *  2. InnoDB strict mode (on by default): the worst-case record must fit half a 16 KiB page,
 *     under 8,126 bytes. In ROW_FORMAT=DYNAMIC a column whose maximum exceeds 255 bytes (and any
 *     TEXT) can move off-page and counts about 21 bytes; shorter VARCHARs count in full
 *     (https://mariadb.com/kb/en/troubleshooting-row-size-too-large-errors-with-innodb/).
 *     Measured on MariaDB 10.11: 380 TEXT columns fit and 400 do not; 196 VARCHAR(10) fit;
 *     190 VARCHAR(50) do not, while 240 VARCHAR(64) do. The same limit applies again to every
 *     stored row, so the estimate is the worst case over all values (see INNODB_LONG_COLUMN_BYTES).
 * A table that exceeds either limit gets its widest VARCHARs turned into TEXT until it fits. When
 * even that cannot fit (roughly more than 190 long columns, or 380 short ones), the DDL is left as
 * it is: CREATE or a full row will report error 1118, and the record must be split.
 */
import type { ColumnType, TablePlan } from '../../plan-model.js';

const MAX_ROW_BYTES = 65_535;
const INNODB_MAX_RECORD_BYTES = 8_126;
/** Record header (5) + DB_TRX_ID (6) + DB_ROLL_PTR (7). */
const INNODB_RECORD_OVERHEAD = 18;
/**
 * Worst case of a column that may live off-page (TEXT, or a VARCHAR over 255 bytes) in a stored
 * row: a value of up to 40 bytes stays inline (40 + 2 length bytes); a longer one leaves a
 * 20-byte pointer + 2. CREATE's own check counts about 21, but the limit applies again to every
 * stored row (measured: 360 TEXT columns holding 40-byte values fail to insert), so the estimate
 * uses the worst case: a table that passes it accepts any row.
 */
const INNODB_LONG_COLUMN_BYTES = 42;
/** TEXT: 2 length bytes + 8 pointer bytes in the server row. */
const TEXT_ROW_BYTES = 10;
const UTF8MB4 = 4;

const DECIMAL_LEFTOVER = [0, 1, 1, 2, 2, 3, 3, 4, 4];

function decimalBytes(digits: number): number {
  return Math.floor(digits / 9) * 4 + DECIMAL_LEFTOVER[digits % 9]!;
}

/** Bytes a fixed-size column takes (both limits); undefined for VARCHAR/TEXT. */
function fixedBytes(type: ColumnType): number | undefined {
  switch (type.kind) {
    case 'integer':
      if (type.digits <= 4) return 2;
      if (type.digits <= 9) return 4;
      if (type.digits <= 18) return 8;
      return decimalBytes(type.digits);
    case 'decimal':
      return decimalBytes(type.precision - type.scale) + decimalBytes(type.scale);
    case 'guid':
      return 36; // CHAR(36) CHARACTER SET ascii
    case 'boolean':
      return 1;
    case 'timestamp':
      return 7; // DATETIME(3): 5 + 2 bytes of fractional seconds
    default:
      return undefined;
  }
}

/** Per column: true when a VARCHAR must be declared TEXT for the table to fit both limits. */
export function varcharsAsText(table: TablePlan): boolean[] {
  const cols = table.columns;
  const asText = cols.map((c) => c.type.kind === 'varchar' && c.type.length * UTF8MB4 > MAX_ROW_BYTES - 2);
  const varBytes = (i: number): number => {
    const t = cols[i]!.type;
    return t.kind === 'varchar' ? t.length * UTF8MB4 : 0;
  };
  const nullBytes = Math.ceil(cols.filter((c) => c.nullable).length / 8);
  const sizes = (): { row: number; record: number } => {
    let row = nullBytes;
    let record = INNODB_RECORD_OVERHEAD + nullBytes + (table.primaryKey.length ? 0 : 6); // DB_ROW_ID without a key
    cols.forEach((c, i) => {
      const fixed = fixedBytes(c.type);
      if (fixed !== undefined) {
        row += fixed;
        record += fixed;
      } else if (c.type.kind === 'varchar' && !asText[i]) {
        const b = varBytes(i);
        row += b + (b > 255 ? 2 : 1);
        record += b > 255 ? INNODB_LONG_COLUMN_BYTES : b + 1;
      } else {
        row += TEXT_ROW_BYTES + 1; // MEDIUMTEXT is one byte more than TEXT; count the larger
        record += INNODB_LONG_COLUMN_BYTES;
      }
    });
    return { row, record };
  };
  const inKey = new Set(table.primaryKey);
  for (;;) {
    const { row, record } = sizes();
    const rowOver = row > MAX_ROW_BYTES;
    if (!rowOver && record < INNODB_MAX_RECORD_BYTES) return asText;
    // Over the server limit: the widest VARCHAR saves most. Over the InnoDB limit only: the widest
    // VARCHAR that counts in full and more than a TEXT would (41 to 255 bytes).
    let pick = -1;
    cols.forEach((c, i) => {
      if (c.type.kind !== 'varchar' || asText[i] || inKey.has(c.name)) return;
      const b = varBytes(i);
      if (!rowOver && (b + 1 <= INNODB_LONG_COLUMN_BYTES || b > 255)) return;
      if (pick < 0 || b > varBytes(pick)) pick = i;
    });
    if (pick < 0) return asText; // nothing left to move: CREATE TABLE will report the limit itself
    asText[pick] = true;
  }
}
