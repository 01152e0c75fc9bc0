/** The PostgreSQL dialect: COPY bulk path, transactional DDL, 63-character identifiers. */
import type { Dialect } from '../dialect.js';
import { tls } from './tls.js';
import { columnType, createTableSql, dropTableSql, MAX_IDENTIFIER_LENGTH, quoteIdent } from './ddl.js';

export const postgresql: Dialect = {
  name: 'postgresql',
  capabilities: {
    maxIdentifierLength: MAX_IDENTIFIER_LENGTH,
    // The Bind message counts parameters in an int16 (https://www.postgresql.org/docs/current/protocol-message-formats.html).
    maxBindParams: 65_535,
    bulkPath: 'copy',
    transactionalDdl: true,
    tableCreatedAt: false,
    maxParallelWriters: 10,
    defaultPort: 5432,
  },
  url: { schemes: ['postgresql', 'postgres'], databaseRequired: true, params: [] },
  tls,
  quoteIdent,
  columnType: (type) => columnType(type),
  createTableSql,
  dropTableSql,
  async connect(config) {
    const { connect } = await import('./session.js');
    return connect(postgresql, config);
  },
};
