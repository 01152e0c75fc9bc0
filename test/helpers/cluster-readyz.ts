/**
 * Polls `/readyz` of every live node of a cluster, each by its own address (as monitoring does:
 * docs/production.md#monitoring), and keeps every answer that was not 200. A node is left out
 * from the moment the caller says it is going down (`down(i)`) until it is back (`up(i)`), so the
 * answers collected are those of nodes that should have been ready throughout.
 */
import type { Cluster } from './cluster.js';

export interface ReadyzWatch {
  /** Node `i` is about to be killed or stopped: its answers no longer count. */
  down(i: number): void;
  /** Node `i` runs again (restarted): it is polled again. */
  up(i: number): void;
  /** Stops polling; the polls made and every failure (node, status or error, when). */
  stop(): Promise<{ polls: number; failures: string[] }>;
}

/** Starts polling every `everyMs`; an answer slower than `timeoutMs` is a failure. */
export function watchReadyz(cluster: Cluster, everyMs = 250, timeoutMs = 5000): ReadyzWatch {
  const downNodes = new Set<number>();
  const failures: string[] = [];
  let polls = 0;
  let stopping = false;
  const poll = async (i: number): Promise<void> => {
    const node = cluster.nodes[i]!;
    let outcome: string;
    try {
      const r = await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
      const body = await r.text();
      outcome = r.status === 200 ? '' : `${r.status} ${body.slice(0, 300)}`;
    } catch (err) {
      outcome = String(err);
    }
    // A node taken down while the poll was under way: its answer does not count.
    if (downNodes.has(i) || cluster.nodes[i] !== node) return;
    polls++;
    if (outcome !== '') failures.push(`${new Date().toISOString()} node ${i} (${node.url}): ${outcome}`);
  };
  const loop = (async () => {
    while (!stopping) {
      await Promise.all(cluster.nodes.map((_, i) => (downNodes.has(i) ? undefined : poll(i))));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    down: (i) => downNodes.add(i),
    up: (i) => downNodes.delete(i),
    async stop() {
      stopping = true;
      await loop;
      return { polls, failures: [...failures] };
    },
  };
}
