import { lazyRequire } from '../shared/lazy-require.js';

const cronParser = lazyRequire<typeof import('cron-parser')>('cron-parser');
import { AppError } from '../shared/errors.js';

/** Longest accepted cron expression (docs/scheduler.md#cron-expressions). */
const MAX_CRON_LENGTH = 100;
/** The default schedule: every day at 02:00 (docs/scheduler.md#commands). */
export const DEFAULT_CRON = '0 2 * * *';

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** The five fields of the classic (Vixie) crontab, in order. Weekday 7 is Sunday, as in cron. */
const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: DAYS },
];

function invalid(message: string, expression: string, field?: string): AppError {
  return new AppError('CRON_INVALID', message, { field: 'cron_expression', cron_field: field, cron_expression: expression });
}

/** A value of a field: a number, or a month or weekday name (three letters, any case). */
function value(text: string, f: FieldSpec, expression: string): number {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < f.min || n > f.max) throw invalid(`${f.name}: ${text} is out of range ${f.min}-${f.max}`, expression, f.name);
    return n;
  }
  const i = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i < 0) {
    const hint = f.names ? ` or a name (${f.names[0]}-${f.names.at(-1)})` : '';
    throw invalid(`${f.name}: "${text}" is not a number from ${f.min} to ${f.max}${hint}`, expression, f.name);
  }
  return f.names === MONTHS ? i + 1 : i;
}

/** One comma-separated element: `*`, `V`, `V-V`, each optionally `/STEP`. */
function checkElement(text: string, f: FieldSpec, expression: string): void {
  const m = /^(\*|[^-/]+(?:-[^-/]+)?)(?:\/(.*))?$/.exec(text);
  if (!m) throw invalid(`${f.name}: "${text}" is not a value, a range (a-b), a step (*/n) or a list (a,b)`, expression, f.name);
  const [, base, step] = m;
  if (base !== '*') {
    const [a, b] = base!.split('-');
    const lo = value(a!, f, expression);
    if (b !== undefined && value(b, f, expression) < lo) throw invalid(`${f.name}: range ${base} goes backwards`, expression, f.name);
  }
  if (step !== undefined) {
    const width = f.max - f.min + 1;
    if (!/^\d+$/.test(step) || Number(step) < 1 || Number(step) > width) {
      throw invalid(`${f.name}: step "${step}" must be a whole number from 1 to ${width}`, expression, f.name);
    }
  }
}

/**
 * Checks a cron expression and returns it with its whitespace normalised. Only the classic
 * five-field form is accepted (docs/scheduler.md#cron-expressions): minute hour day-of-month month day-of-week, with
 * lists, ranges, steps and three-letter month and weekday names. Aliases (`@daily`), a seconds
 * or year field, and the extensions some libraries add (`L`, `W`, `#`, `?`, `H`) are refused,
 * each with a message naming the field at fault.
 */
export function checkCron(input: unknown): string {
  if (typeof input !== 'string' || input.trim() === '')
    throw invalid('cron_expression must be a non-empty string of 5 fields, e.g. "0 2 * * *"', String(input));
  const expression = input.trim();
  if (input.length > MAX_CRON_LENGTH)
    throw invalid(`cron_expression is ${input.length} characters long; at most ${MAX_CRON_LENGTH} are allowed`, expression);
  if (expression.startsWith('@')) {
    throw invalid(
      `"${expression}": aliases such as @daily and @hourly are not supported; write the 5 fields (e.g. "0 0 * * *" for @daily)`,
      expression,
    );
  }
  const parts = expression.split(/\s+/);
  if (parts.length !== FIELDS.length) {
    throw invalid(
      `"${expression}" has ${parts.length} field${parts.length === 1 ? '' : 's'}; exactly 5 are needed: minute hour day-of-month month day-of-week`,
      expression,
    );
  }
  parts.forEach((part, i) => {
    for (const element of part.split(',')) checkElement(element, FIELDS[i]!, expression);
  });
  const normalised = parts.join(' ');
  // Dates that never occur (30 February) pass the field checks; finding one occurrence proves the
  // expression can fire at all, so a schedule can never silently wait forever.
  try {
    cronParser()
      .CronExpressionParser.parse(normalised, { currentDate: new Date(Date.UTC(2000, 0, 1)), tz: 'UTC' })
      .next();
  } catch (err) {
    throw invalid(
      `"${expression}" never matches a date (day of month: ${parts[2]} does not occur in month: ${parts[3]})`,
      expression,
      'day of month',
    );
  }
  return normalised;
}

/**
 * The first occurrence of `expression` strictly after `after`, evaluated on the wall clock of
 * the IANA zone `zone`. Across a spring-forward change a time that does not exist (02:30 when
 * clocks jump from 02:00 to 03:00) fires at the first minute after the gap; across a fall-back
 * change a time that occurs twice fires once, at its first occurrence (cron-parser's rules,
 * pinned by test/unit/scheduler/cron.test.ts).
 */
export function nextOccurrence(expression: string, after: Date, zone: string): Date {
  const it = cronParser().CronExpressionParser.parse(checkCron(expression), { currentDate: after, tz: zone });
  return it.next().toDate();
}
