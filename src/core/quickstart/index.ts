/**
 * The quickstart module: `sds quickstart`, the main job on the embedded default data (a home, the
 * bundled Popstan census, its import and its breakout). A module of its own because it uses
 * dictionaries, cases and breakout, which the home module must not load (docs/architecture.md#core-modules).
 */
export { quickstart } from './quickstart.js';
export type { QuickstartReply } from './quickstart.js';
