/** The MySQL/MariaDB dialect: LOAD DATA LOCAL bulk path, non-transactional DDL, 64-character identifiers. */
import type { Dialect } from '../dialect.js';
import { tls } from './tls.js';
import { columnType, createTableSql, dropTableSql, MAX_IDENTIFIER_LENGTH, quoteIdent } from './ddl.js';

export const mysql: Dialect = {
  name: 'mysql',
  capabilities: {
    maxIdentifierLength: MAX_IDENTIFIER_LENGTH,
    // Placeholders of a prepared statement are counted in 16 bits; text INSERTs are bounded by
    // max_allowed_packet instead (16 MiB on MariaDB 10.11), which this batch size stays under
    // for rows of ordinary width.
    maxBindParams: 65_535,
    bulkPath: 'load-data-local',
    // CREATE/DROP TABLE commit implicitly (https://dev.mysql.com/doc/refman/8.0/en/implicit-commit.html).
    transactionalDdl: false,
    tableCreatedAt: true,
    maxParallelWriters: 10,
    defaultPort: 3306,
  },
  url: { schemes: ['mysql', 'mariadb'], databaseRequired: true, params: ['local_infile'] },
  tls,
  quoteIdent,
  columnType: (type) => columnType(type),
  createTableSql,
  dropTableSql,
  async connect(config) {
    const { connect } = await import('./session.js');
    return connect(mysql, config);
  },
};
