import type { z } from 'zod';
import { AppError } from '../shared/errors.js';

/** Checks input against a zod schema; the first problem becomes a 400 USAGE naming the field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  throw new AppError('USAGE', `${what}: ${field ? `${field}: ` : ''}${issue.message}`, field ? { field } : {});
}
