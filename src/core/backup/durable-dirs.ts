import { mkdirSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { fsyncDirectory } from '../../shared/durable-file.js';

/**
 * Creates folders (mode 0700) under one root and remembers them, so that once every file is in
 * place each can be fsynced, deepest first: a new entry is durable only once its folder is
 * (docs/durability.md).
 */
export class DurableDirs {
  private readonly made = new Set<string>();

  constructor(private readonly root: string) {
    this.made.add(root);
  }

  /** Makes the folder holding `file` (and its parents up to the root). */
  parentOf(file: string): void {
    this.ensure(dirname(file));
  }

  /** Makes `dir` and its parents up to the root. */
  ensure(dir: string): void {
    if (this.made.has(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (let d = dir; d !== this.root && !relative(this.root, d).startsWith('..') && !this.made.has(d); d = dirname(d)) this.made.add(d);
  }

  /** Fsyncs every folder made, deepest first, then the root. */
  sync(): void {
    const depth = (d: string) => d.split(sep).length;
    for (const d of [...this.made].sort((a, b) => depth(b) - depth(a))) fsyncDirectory(d);
  }
}
