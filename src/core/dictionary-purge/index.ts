/**
 * The purge of a dictionary: its cases, history, jobs, logs and breakout state with it, and its
 * breakout tables on request. A module of its own because it reaches into breakout and logs,
 * which themselves look dictionaries up (docs/architecture.md#core-modules).
 */
export { purgeCaseCount, purgeDictionary } from './purge.js';
export type { PurgeReply } from './purge.js';
