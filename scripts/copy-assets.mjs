// tsc compiles only .ts: copy the store's SQL migrations next to the compiled store module.
import { cpSync, mkdirSync } from 'node:fs';
mkdirSync('dist/store/migrations', { recursive: true });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true, filter: (src) => !src.endsWith('.ts') });
