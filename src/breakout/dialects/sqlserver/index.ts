/** The SQL Server dialect: TDS bulk load, transactional DDL, 128-character identifiers, 2,100 parameters. */
import type { Dialect } from '../dialect.js';
import { tls } from './tls.js';
import { columnType, createTableSql, dropTableSql, MAX_IDENTIFIER_LENGTH, quoteIdent } from './ddl.js';

export const sqlserver: Dialect = {
  name: 'sqlserver',
  capabilities: {
    maxIdentifierLength: MAX_IDENTIFIER_LENGTH,
    // https://learn.microsoft.com/en-us/sql/sql-server/maximum-capacity-specifications-for-sql-server
    maxBindParams: 2_100,
    bulkPath: 'tds-bulk',
    transactionalDdl: true,
    tableCreatedAt: true,
    maxParallelWriters: 10,
    defaultPort: 1433,
  },
  url: { schemes: ['mssql', 'sqlserver'], databaseRequired: true, params: [] },
  tls,
  quoteIdent,
  columnType: (type) => columnType(type),
  createTableSql,
  dropTableSql,
  async connect(config) {
    const { connect } = await import('./session.js');
    return connect(sqlserver, config);
  },
};
