/**
 * A hyparquet-writer `Writer` whose bytes go to an export `ByteSink`: the encoder fills the buffer
 * with one row group at a time, and `flush` (called by the encoder after each row group) hands a
 * copy to the sink and empties the buffer, so memory holds at most one encoded row group.
 */
import { ByteWriter } from 'hyparquet-writer';
import type { ByteSink } from '../../model.js';

export class SinkWriter extends ByteWriter {
  constructor(private readonly sink: ByteSink) {
    super(64 * 1024);
  }

  /** Sends what is buffered; the encoder awaits it before the next row group. */
  flush(): Promise<void> {
    if (this.index === 0) return Promise.resolve();
    // A copy: the buffer is reused for the next row group while the sink may still hold the chunk.
    const chunk = new Uint8Array(this.buffer, 0, this.index).slice();
    this.index = 0;
    return this.sink.write(chunk);
  }

  // The `Writer` interface that ParquetWriter takes allows a promise here, and
  // `ParquetWriter.finish()` returns it to us; only ByteWriter's own declaration says void.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  override finish(): Promise<void> {
    return this.flush();
  }
}
