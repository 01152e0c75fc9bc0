// Preloaded with `node --import` into a process under test: records the URL of every module the
// process loads, one per line, in the file named by SDS_TEST_MODULE_LOG (the loader hooks run in
// their own thread, so they append to the file as they resolve).
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url, { data: { file: process.env.SDS_TEST_MODULE_LOG } });
