/**
 * Bytecode compression of SPSS case data (docs/export.md#spss): blocks of 8 command bytes, each
 * followed by the 8-byte values that did not compress. Small integers take one byte, blanks and
 * SYSMIS none beyond their command. Output collects in a buffer the caller drains between rows,
 * so memory stays at one buffer whatever the number of cases.
 */
import { BIAS, SYSMIS } from './dictionary.js';

const RAW = 253;
const SPACES = 254;
const MISSING = 255;
const END = 252;

export class BytecodeCompressor {
  private readonly commands = new Uint8Array(8);
  private readonly data = new Uint8Array(64);
  private readonly dataView = new DataView(this.data.buffer);
  private nCommands = 0;
  private nData = 0;
  private out: Uint8Array;
  private outLen = 0;

  constructor(initial = 1 << 16) {
    this.out = new Uint8Array(initial);
  }

  /** Bytes waiting to be taken. */
  get pending(): number {
    return this.outLen;
  }

  number(value: number): void {
    if (value === SYSMIS) this.command(MISSING);
    else if (Number.isInteger(value) && value >= 1 - BIAS && value <= 251 - BIAS) this.command(value + BIAS);
    else {
      this.dataView.setFloat64(this.nData, value, true);
      this.nData += 8;
      this.command(RAW);
    }
  }

  /** One 8-byte unit of a string (`unit.length` is 8). */
  stringUnit(unit: Uint8Array): void {
    if (unit.every((b) => b === 0x20)) this.command(SPACES);
    else {
      this.data.set(unit, this.nData);
      this.nData += 8;
      this.command(RAW);
    }
  }

  /** Ends the data: the end-of-file command, zero padding of the last block. */
  finish(): void {
    this.command(END);
    if (this.nCommands > 0) {
      this.commands.fill(0, this.nCommands);
      this.flushBlock();
    }
  }

  /** Takes the bytes written so far. */
  take(): Uint8Array {
    const chunk = this.out.slice(0, this.outLen);
    this.outLen = 0;
    return chunk;
  }

  private command(code: number): void {
    this.commands[this.nCommands++] = code;
    if (this.nCommands === 8) this.flushBlock();
  }

  private flushBlock(): void {
    const need = this.outLen + 8 + this.nData;
    if (need > this.out.length) {
      const next = new Uint8Array(Math.max(need, this.out.length * 2));
      next.set(this.out.subarray(0, this.outLen));
      this.out = next;
    }
    this.out.set(this.commands, this.outLen);
    this.out.set(this.data.subarray(0, this.nData), this.outLen + 8);
    this.outLen = need;
    this.nCommands = 0;
    this.nData = 0;
  }
}
