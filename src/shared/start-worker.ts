import { Worker, type ResourceLimits } from 'node:worker_threads';
import { entryModule } from './entry-module.js';

/**
 * Starts the worker thread whose entry is `file` (a URL next to the caller, written without an
 * extension: `.js` is added in the compiled build, `.ts` when the caller itself runs as
 * TypeScript). tsx's loader does not reach worker threads by itself (privatenumber/tsx#354), so
 * a TypeScript worker registers it before importing its source; tests and benchmarks run so.
 * `resourceLimits` bound the thread's heap, as Worker's option.
 */
export function startWorker(callerUrl: string, file: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const { url, fromSource } = entryModule(callerUrl, file);
  if (!fromSource) return new Worker(url, { workerData, resourceLimits });
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}
