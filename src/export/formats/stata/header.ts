/**
 * Everything of a .dta file before the first observation (docs/export.md#stata): the header, the
 * map of section offsets, the variable descriptors and the `<data>` tag. The map needs the size of
 * every later section, so the caller passes the sizes of the data, the strLs and the value labels
 * (the sink cannot seek back to fill the map in afterwards). Pure.
 */
import { utf8Limited } from './text.js';
import type { StataVariable } from './variables.js';

export type Release = 118 | 119;

/** Format 118 counts variables in 2 bytes; wider tables need 119. */
const MAX_VARIABLES_118 = 32_767;

/** Characters of a data set label and a variable label (each at most 4 bytes in UTF-8). */
const MAX_LABEL_CHARS = 80;
const MAX_LABEL_BYTES = 320;

export interface HeadInput {
  release: Release;
  /** Number of observations (N). */
  rows: number;
  /** The data set label. */
  label: string;
  variables: readonly StataVariable[];
  /** Per variable, the name of its value label or ''. */
  valueLabelNames: readonly string[];
  /** Bytes between `<data>` and `</data>`, `<strls>` and `</strls>`, `<value_labels>` and its end. */
  dataBytes: number;
  strlsBytes: number;
  valueLabelsBytes: number;
}

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

/** K fixed-width NUL-padded fields, one per variable. */
function fields(values: readonly Uint8Array[], width: number): Buffer {
  const out = Buffer.alloc(values.length * width);
  values.forEach((v, i) => out.set(v.subarray(0, width - 1), i * width));
  return out;
}

/** The release a table needs: 118 unless it has more variables than 118 can count. */
export function releaseFor(variableCount: number): Release {
  return variableCount > MAX_VARIABLES_118 ? 119 : 118;
}

/** The file up to and including `<data>`: header, map, descriptors (pure; sizes from the caller). */
export function encodeHead(input: HeadInput): Buffer {
  const { release, variables } = input;
  const k = variables.length;
  const label = utf8Limited(input.label, MAX_LABEL_CHARS, MAX_LABEL_BYTES);
  const header = Buffer.concat([
    ascii(`<stata_dta><header><release>${release}</release><byteorder>LSF</byteorder><K>`),
    release === 118 ? u16(k) : u32(k),
    ascii('</K><N>'),
    u64(input.rows),
    ascii('</N><label>'),
    u16(label.length),
    label,
    // No timestamp (length 0, allowed by the format): the same data always give the same file.
    ascii('</label><timestamp>'),
    Buffer.from([0]),
    ascii('</timestamp></header>'),
  ]);
  const encoder = new TextEncoder();
  const sections: [string, Buffer][] = [
    ['variable_types', Buffer.concat(variables.map((v) => u16(v.typeCode)))],
    [
      'varnames',
      fields(
        variables.map((v) => encoder.encode(v.column.name)),
        129,
      ),
    ],
    // Unsorted: a zero first element, then K more zeros (2-byte elements in 118, 4-byte in 119).
    ['sortlist', Buffer.alloc((k + 1) * (release === 118 ? 2 : 4))],
    [
      'formats',
      fields(
        variables.map((v) => encoder.encode(v.format)),
        57,
      ),
    ],
    [
      'value_label_names',
      fields(
        input.valueLabelNames.map((n) => encoder.encode(n)),
        129,
      ),
    ],
    [
      'variable_labels',
      fields(
        variables.map((v) => utf8Limited(v.column.label, MAX_LABEL_CHARS, MAX_LABEL_BYTES)),
        321,
      ),
    ],
    ['characteristics', Buffer.alloc(0)],
  ];
  const mapBytes = '<map>'.length + 14 * 8 + '</map>'.length;
  const offsets: number[] = [0, header.length];
  let at = header.length + mapBytes;
  const encoded: Buffer[] = [];
  for (const [tag, body] of sections) {
    offsets.push(at);
    const section = Buffer.concat([ascii(`<${tag}>`), body, ascii(`</${tag}>`)]);
    encoded.push(section);
    at += section.length;
  }
  const tail: [string, number][] = [
    ['data', input.dataBytes],
    ['strls', input.strlsBytes],
    ['value_labels', input.valueLabelsBytes],
  ];
  for (const [tag, bytes] of tail) {
    offsets.push(at);
    at += `<${tag}></${tag}>`.length + bytes;
  }
  offsets.push(at); // </stata_dta>
  offsets.push(at + '</stata_dta>'.length); // end of file
  const map = Buffer.concat([ascii('<map>'), ...offsets.map(u64), ascii('</map>')]);
  return Buffer.concat([header, map, ...encoded, ascii('<data>')]);
}

/** What follows the last observation when the table has no strLs. */
export function encodeTail(valueLabels: Buffer): Buffer {
  return Buffer.concat([ascii('</data><strls></strls><value_labels>'), valueLabels, ascii('</value_labels></stata_dta>')]);
}
