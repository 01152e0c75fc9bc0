/** Current time as the ISO 8601 UTC string every stored timestamp uses. */
export function nowIso(): string {
  return new Date().toISOString();
}
