/**
 * A growable little-endian byte buffer for the dictionary records of an SPSS system file
 * (docs/export.md#spss). Every number in the file is little-endian: the header's layout code 2
 * tells readers so.
 */
export class ByteBuilder {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  constructor(initial = 1024) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.len;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  int32(value: number): this {
    this.reserve(4);
    this.view.setInt32(this.len, value, true);
    this.len += 4;
    return this;
  }

  float64(value: number): this {
    this.reserve(8);
    this.view.setFloat64(this.len, value, true);
    this.len += 8;
    return this;
  }

  byte(value: number): this {
    this.reserve(1);
    this.buf[this.len++] = value;
    return this;
  }

  bytes(data: Uint8Array): this {
    this.reserve(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  /** Writes `data` then `fill` bytes up to `size` (data must not be longer). */
  padded(data: Uint8Array, size: number, fill = 0x20): this {
    this.reserve(size);
    this.buf.set(data, this.len);
    this.buf.fill(fill, this.len + data.length, this.len + size);
    this.len += size;
    return this;
  }

  /** A copy of what was written. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
