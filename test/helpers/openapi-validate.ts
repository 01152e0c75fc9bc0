/**
 * Checks a reply against the schema the served OpenAPI document gives for its route and status,
 * so a test proves the document tells clients the truth (not only that our zod schemas parse).
 * Covers the JSON Schema keywords zod-to-openapi emits: $ref, oneOf, anyOf, allOf, type (one or
 * a list), enum, const, properties, required, additionalProperties, items, minItems, pattern,
 * minimum, maximum, minLength, format date-time.
 */
export type OpenApiDoc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
};

type Schema = Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function problems(doc: OpenApiDoc, schema: Schema, v: unknown, at: string): string[] {
  if (typeof schema.$ref === 'string') {
    const id = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[id];
    if (!target) return [`${at}: dangling ${schema.$ref}`];
    return problems(doc, target, v, at);
  }
  const out: string[] = [];
  if (Array.isArray(schema.oneOf)) {
    const ok = (schema.oneOf as Schema[]).filter((s) => problems(doc, s, v, at).length === 0).length;
    if (ok !== 1) out.push(`${at}: matches ${ok} of oneOf`);
  }
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as Schema[]).some((s) => problems(doc, s, v, at).length === 0))
    out.push(`${at}: matches none of anyOf`);
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf as Schema[]) out.push(...problems(doc, s, v, at));
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    const t = typeOf(v);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) return [...out, `${at}: ${t} is not ${types.join('|')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(v)) out.push(`${at}: ${JSON.stringify(v)} not in enum`);
  if ('const' in schema && schema.const !== v) out.push(`${at}: ${JSON.stringify(v)} is not ${JSON.stringify(schema.const)}`);
  if (typeof v === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(v))
      out.push(`${at}: "${v}" does not match ${schema.pattern}`);
    if (typeof schema.minLength === 'number' && v.length < schema.minLength) out.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.format === 'date-time' && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v))
      out.push(`${at}: "${v}" is not a date-time`);
  }
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) out.push(`${at}: ${v} < ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && v > schema.maximum) out.push(`${at}: ${v} > ${schema.maximum}`);
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === 'number' && v.length < schema.minItems) out.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.items) v.forEach((x, i) => out.push(...problems(doc, schema.items as Schema, x, `${at}[${i}]`)));
  }
  if (typeOf(v) === 'object') {
    const obj = v as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) if (!(r in obj)) out.push(`${at}: missing ${r}`);
    for (const [k, x] of Object.entries(obj)) {
      if (props[k]) out.push(...problems(doc, props[k], x, `${at}.${k}`));
      else if (schema.additionalProperties === false) out.push(`${at}: unexpected ${k}`);
      else if (typeof schema.additionalProperties === 'object')
        out.push(...problems(doc, schema.additionalProperties as Schema, x, `${at}.${k}`));
    }
  }
  return out;
}

/** Problems of `body` against the documented JSON reply of `method path` with `status` (empty when it conforms). */
export function checkReply(doc: OpenApiDoc, method: string, path: string, status: number, body: unknown): string[] {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) return [`${method} ${path} is not documented`];
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) return [`${method} ${path} documents no JSON reply for ${status}`];
  return problems(doc, schema, body, `${method} ${path} ${status}`);
}
