/** The SQLite dialect: prepared INSERTs in batched transactions, transactional DDL, a file target. */
import type { Dialect } from '../dialect.js';
import { tls } from './tls.js';
import { columnType, createTableSql, dropTableSql, MAX_IDENTIFIER_LENGTH, quoteIdent } from './ddl.js';

export const sqlite: Dialect = {
  name: 'sqlite',
  capabilities: {
    maxIdentifierLength: MAX_IDENTIFIER_LENGTH,
    // SQLITE_MAX_VARIABLE_NUMBER since SQLite 3.32 (https://www.sqlite.org/limits.html#max_variable_number).
    maxBindParams: 32_766,
    bulkPath: 'prepared-insert',
    transactionalDdl: true,
    tableCreatedAt: false,
    maxParallelWriters: 1,
    defaultPort: 0,
  },
  url: { schemes: ['sqlite'], databaseRequired: false, params: ['busy_timeout'] },
  tls,
  quoteIdent,
  columnType: (type) => columnType(type),
  createTableSql,
  dropTableSql,
  async connect(config) {
    const { connect } = await import('./session.js');
    return connect(sqlite, config);
  },
};
