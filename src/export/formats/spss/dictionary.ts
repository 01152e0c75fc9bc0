/**
 * The dictionary of an SPSS system file, everything before the data (docs/export.md#spss): file
 * header, variable records, value labels, the extension records (machine info, display
 * parameters, long names, very long strings, encoding, long string value labels) and the
 * termination record. Pure: bytes from the planned variables.
 */
import { ByteBuilder } from './byte-builder.js';
import { utf8, utf8Cut } from './text.js';
import { segmentUnits, type PrintFormat, type SpssVariable, type ValueLabel } from './variables.js';

/** The compression bias: integers from -99 to 151 take one byte in compressed data. */
export const BIAS = 100;
/** SYSMIS, the system-missing value: -DBL_MAX. */
export const SYSMIS = -Number.MAX_VALUE;
/** Longest variable label kept, in bytes (SPSS documents 255). */
const VARIABLE_LABEL_BYTES = 255;
/** Longest value label kept, in bytes (SPSS documents 120). */
const VALUE_LABEL_BYTES = 120;
const FILE_LABEL_BYTES = 64;
const PRODUCT = '@(#) SPSS DATA FILE sds (Survey Data Service)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface DictionaryInput {
  variables: SpssVariable[];
  /** The table label, the file label. */
  label: string;
  /** The table name, for the extra product info. */
  table: string;
  cases: number;
  /** The creation date and time written in the header (UTC). */
  now: Date;
}

/** Units of 8 bytes per case: the nominal case size. */
function caseUnits(variables: readonly SpssVariable[]): number {
  let n = 0;
  for (const v of variables) for (const s of v.segments) n += segmentUnits(s.width);
  return n;
}

/** Every record from the file header through the dictionary termination record. */
export function encodeDictionary(input: DictionaryInput): Uint8Array {
  const out = new ByteBuilder(4096);
  header(out, input);
  const indexes = variableRecords(out, input.variables);
  valueLabelRecords(out, input.variables, indexes);
  machineIntegerInfo(out);
  machineFloatInfo(out);
  textRecord(out, 10, utf8(`sds export of table ${input.table}`));
  displayParameters(out, input.variables);
  textRecord(out, 13, utf8(input.variables.map((v) => `${v.segments[0]!.shortName}=${v.longName}`).join('\t')));
  const veryLong = input.variables.filter((v) => v.segments.length > 1);
  if (veryLong.length > 0) {
    textRecord(out, 14, utf8(veryLong.map((v) => `${v.segments[0]!.shortName}=${String(v.width).padStart(5, '0')}\0\t`).join('')));
  }
  textRecord(out, 20, utf8('UTF-8'));
  longStringValueLabels(out, input.variables);
  out.int32(999).int32(0);
  return out.toBytes();
}

function header(out: ByteBuilder, input: DictionaryInput): void {
  const d = input.now;
  const two = (n: number) => String(n).padStart(2, '0');
  const date = `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCFullYear() % 100)}`;
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  out.bytes(utf8('$FL2'));
  out.padded(utf8(PRODUCT), 60);
  out.int32(2); // layout code: little-endian
  out.int32(caseUnits(input.variables));
  out.int32(1); // bytecode compression
  out.int32(0); // no weight variable
  out.int32(input.cases <= 0x7fffffff ? input.cases : -1); // -1: unknown, for counts an int32 cannot hold
  out.float64(BIAS);
  out.padded(utf8(date), 9);
  out.padded(utf8(time), 8);
  out.padded(utf8Cut(input.label, FILE_LABEL_BYTES), FILE_LABEL_BYTES);
  out.padded(new Uint8Array(0), 3, 0);
}

function formatCode(f: PrintFormat): number {
  return (f.type << 16) | (f.width << 8) | f.decimals;
}

/** Writes the type 2 records; returns each variable's 1-based dictionary index. */
function variableRecords(out: ByteBuilder, variables: readonly SpssVariable[]): number[] {
  const indexes: number[] = [];
  let index = 1;
  for (const v of variables) {
    indexes.push(index);
    v.segments.forEach((segment, s) => {
      const first = s === 0;
      const label = first && v.label !== '' ? utf8Cut(v.label, VARIABLE_LABEL_BYTES) : undefined;
      const missing = first ? missingFields(v) : [];
      const format = v.width === 0 ? v.format : { type: v.format.type, width: segment.width, decimals: 0 };
      out
        .int32(2)
        .int32(segment.width)
        .int32(label ? 1 : 0);
      out.int32(missing.length === 0 ? 0 : v.missing.kind === 'range' ? -missing.length : missing.length);
      out.int32(formatCode(format)).int32(formatCode(format));
      out.padded(utf8(segment.shortName), 8);
      if (label) out.int32(label.length).padded(label, Math.ceil(label.length / 4) * 4);
      for (const m of missing) out.float64(m);
      index++;
      for (let u = 1; u < segmentUnits(segment.width); u++) {
        // Continuation records of a string wider than 8 bytes.
        out.int32(2).int32(-1).int32(0).int32(0).int32(0).int32(0).padded(new Uint8Array(0), 8);
        index++;
      }
    });
  }
  return indexes;
}

function missingFields(v: SpssVariable): number[] {
  const m = v.missing;
  if (m.kind === 'discrete') return m.values;
  if (m.kind === 'range') return m.value === undefined ? [m.low, m.high] : [m.low, m.high, m.value];
  return [];
}

/** Type 3 and 4 records for numeric and short string variables; identical lists are written once. */
function valueLabelRecords(out: ByteBuilder, variables: readonly SpssVariable[], indexes: readonly number[]): void {
  const groups = new Map<string, { variable: SpssVariable; indexes: number[] }>();
  variables.forEach((v, i) => {
    if (v.valueLabels.length === 0 || v.width > 8) return;
    const key = JSON.stringify([v.width === 0 ? 'n' : 's', v.valueLabels]);
    const group = groups.get(key);
    if (group) group.indexes.push(indexes[i]!);
    else groups.set(key, { variable: v, indexes: [indexes[i]!] });
  });
  for (const { variable, indexes: vars } of groups.values()) {
    out.int32(3).int32(variable.valueLabels.length);
    for (const l of variable.valueLabels) {
      if (typeof l.value === 'number') out.float64(l.value);
      else out.padded(utf8(l.value), 8);
      const label = utf8Cut(l.label, VALUE_LABEL_BYTES);
      out.byte(label.length).padded(label, Math.ceil((label.length + 1) / 8) * 8 - 1);
    }
    out.int32(4).int32(vars.length);
    for (const i of vars) out.int32(i);
  }
}

function extension(out: ByteBuilder, subtype: number, size: number, count: number): void {
  out.int32(7).int32(subtype).int32(size).int32(count);
}

function textRecord(out: ByteBuilder, subtype: number, data: Uint8Array): void {
  extension(out, subtype, 1, data.length);
  out.bytes(data);
}

function machineIntegerInfo(out: ByteBuilder): void {
  extension(out, 3, 4, 8);
  // version 1.0.0, machine code -1, IEEE 754, compression code 1, little-endian, UTF-8 (65001)
  for (const n of [1, 0, 0, -1, 1, 1, 2, 65001]) out.int32(n);
}

function machineFloatInfo(out: ByteBuilder): void {
  extension(out, 4, 8, 3);
  out.float64(SYSMIS).float64(Number.MAX_VALUE).float64(-Number.MAX_VALUE);
}

/** Measure, display width and alignment for every variable record but continuations (each segment). */
function displayParameters(out: ByteBuilder, variables: readonly SpssVariable[]): void {
  const segments = variables.reduce((n, v) => n + v.segments.length, 0);
  extension(out, 11, 4, segments * 3);
  for (const v of variables) {
    for (const s of v.segments) {
      const width = v.width === 0 ? v.format.width : Math.min(Math.max(s.width, 8), 50);
      out
        .int32(v.measure)
        .int32(width)
        .int32(v.width === 0 ? 1 : 0);
    }
  }
}

/** The 7.21 record: value labels of strings wider than 8 bytes, by long name. */
function longStringValueLabels(out: ByteBuilder, variables: readonly SpssVariable[]): void {
  const body = new ByteBuilder();
  for (const v of variables) {
    if (v.width <= 8 || v.valueLabels.length === 0) continue;
    const name = utf8(v.longName);
    body.int32(name.length).bytes(name).int32(v.width).int32(v.valueLabels.length);
    for (const l of v.valueLabels as ValueLabel[]) {
      body.int32(v.width).padded(utf8(String(l.value)), v.width);
      const label = utf8Cut(l.label, VALUE_LABEL_BYTES);
      body.int32(label.length).bytes(label);
    }
  }
  if (body.length > 0) textRecord(out, 21, body.toBytes());
}
