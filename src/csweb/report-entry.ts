/**
 * One thing a CSWeb import did not carry over exactly, or not at all: a line of its report
 * (docs/migrating-from-csweb.md#the-report). The cases, the accounts and the files of an import
 * all report in this one shape.
 */
export interface CswebReportEntry {
  level: 'warn' | 'error';
  code: string;
  dictionary?: string;
  guid?: string;
  user?: string;
  file?: string;
  message: string;
}
