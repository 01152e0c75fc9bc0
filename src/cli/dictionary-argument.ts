/**
 * The dictionary argument of the `service:` commands: `dictionnaires=NAME` (the original
 * service's spelling, kept so its scripts run unchanged) or plain NAME.
 */
export function dictionaryArgument(arg: string): string {
  const m = /^dictionnaires?=(.+)$/.exec(arg);
  return m ? m[1]! : arg;
}
