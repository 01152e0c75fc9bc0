/**
 * Commander parser of `--threads <n>`: digits become a number; anything else is passed on as
 * given, so the core refuses it with INVALID_THREADS and the value the user typed.
 */
export function threadsOption(value: string): number | string {
  return /^\s*\d+\s*$/.test(value) ? Number(value) : value;
}
