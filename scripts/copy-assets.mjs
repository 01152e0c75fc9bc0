// tsc compiles only .ts: copy the store's SQL migrations next to the compiled store module. The
// folder is made anew, so a migration renamed or removed in src/ leaves no stale copy in dist/.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
rmSync('dist/store/migrations', { recursive: true, force: true });
mkdirSync('dist/store/migrations', { recursive: true });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true, filter: (src) => !src.endsWith('.ts') });
