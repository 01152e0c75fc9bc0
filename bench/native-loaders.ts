import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Time of the database's own bulk loader for the rows our breakout wrote: each table is exported
 * to a local TSV file, emptied, and loaded again with `psql \copy` / `LOAD DATA LOCAL INFILE`
 * (the practical ceiling on this machine, research/anchors.md C.6).
 */
export function postgresLoaderSeconds(database: string, tables: string[], dir: string): number {
  const psql = (cmd: string) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', database, '-q', '-c', cmd]);
  for (const t of tables) psql(`\\copy ${t} TO '${join(dir, t)}.tsv'`);
  for (const t of tables) psql(`TRUNCATE ${t}`);
  const t0 = performance.now();
  for (const t of tables) psql(`\\copy ${t} FROM '${join(dir, t)}.tsv'`);
  return (performance.now() - t0) / 1000;
}

export function mariadbLoaderSeconds(database: string, tables: string[], dir: string): number {
  const sql = (q: string, extra: string[] = []) =>
    execFileSync('mariadb', ['-uroot', '-h127.0.0.1', '--local-infile=1', ...extra, database, '-e', q], { maxBuffer: 1 << 30 });
  for (const t of tables) {
    execFileSync('sh', [
      '-c',
      `mariadb -uroot -h127.0.0.1 --batch --skip-column-names --raw ${database} -e 'SELECT * FROM \`${t}\`' > '${join(dir, t)}.tsv'`,
    ]);
  }
  for (const t of tables) sql(`TRUNCATE TABLE \`${t}\``);
  const t0 = performance.now();
  for (const t of tables) sql(`LOAD DATA LOCAL INFILE '${join(dir, t)}.tsv' INTO TABLE \`${t}\``);
  return (performance.now() - t0) / 1000;
}
