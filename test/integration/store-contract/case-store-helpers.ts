/**
 * A helper of the store-contract tests of the case repositories (cases, case queries, binary
 * items, dictionaries): raw SQL on either store, to set up and look at rows of tables that other
 * repositories own.
 */
import { storeSql } from '../../helpers/temp-home.js';

/** Runs `query` (`?` placeholders) on the database of either store; the rows it returns. */
export const sql = storeSql;
