/**
 * A strict JSON (RFC 8259) reader that reports the line and column of a syntax error.
 * `JSON.parse` in Node 20 gives only a character position, and not even that for some errors
 * ("Unexpected end of JSON input"), while a dictionary author needs to know where to look.
 */

/** A JSON syntax error at a 1-based line and column of the text. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = 'JsonSyntaxError';
  }
}

/** Parses JSON text like `JSON.parse`, throwing JsonSyntaxError with a line and column. */
export function parseJsonText(text: string): unknown {
  const reader = new Reader(text);
  reader.skipSpace();
  const value = reader.value(0);
  reader.skipSpace();
  if (reader.pos < text.length) reader.fail('unexpected text after the end of the JSON value');
  return value;
}

// Deep nesting cannot occur in a dictionary; the limit keeps a hostile file from exhausting the stack.
const MAX_DEPTH = 200;

class Reader {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(reason: string, at = this.pos): never {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at && i < this.text.length; i++) {
      if (this.text.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    }
    throw new JsonSyntaxError(reason, line, at - lineStart + 1);
  }

  describe(): string {
    if (this.pos >= this.text.length) return 'the end of the file';
    return JSON.stringify(this.text[this.pos]);
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else break;
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(`expected a value, found ${this.describe()}`);
    }
  }

  literal<T>(word: string, result: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return result;
    }
    return this.fail(`expected a value, found ${this.describe()}`);
  }

  number(): number {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!match) this.fail('malformed number');
    this.pos += match[0].length;
    return Number(match[0]);
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++;
    let out = '';
    let chunk = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail('unterminated string', start);
      const c = t.charCodeAt(this.pos);
      if (c === 34) {
        out += t.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('control character inside a string (use an escape such as \\n)');
      if (c === 92) {
        out += t.slice(chunk, this.pos);
        const e = t[this.pos + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && simple[e] !== undefined) {
          out += simple[e];
          this.pos += 2;
        } else if (e === 'u') {
          const hex = t.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('malformed \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 6;
        } else {
          this.fail('unknown escape sequence in a string');
        }
        chunk = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  array(depth: number): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value(depth + 1));
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === ',') this.pos++;
      else if (c === ']') {
        this.pos++;
        return out;
      } else this.fail(`expected ',' or ']' after an array element, found ${this.describe()}`);
    }
  }

  object(depth: number): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail(`expected a property name in double quotes, found ${this.describe()}`);
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail(`expected ':' after property name "${key}", found ${this.describe()}`);
      this.pos++;
      this.skipSpace();
      // defineProperty so that a "__proto__" key stays plain data
      Object.defineProperty(out, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === ',') this.pos++;
      else if (c === '}') {
        this.pos++;
        return out;
      } else this.fail(`expected ',' or '}' after a property value, found ${this.describe()}`);
    }
  }
}
