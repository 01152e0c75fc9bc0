/**
 * The messages the processes of `sds serve --workers N` exchange over the cluster's IPC channel
 * carry their kind in `sds`, so that other IPC traffic (Node's own, a library's) is left alone.
 */

/** True when `m` is one of sds's IPC messages of kind `what`. */
export function isSdsMessage<M extends { sds: string }, K extends M['sds'] = M['sds']>(m: unknown, what: K): m is Extract<M, { sds: K }> {
  return typeof m === 'object' && m !== null && (m as { sds?: unknown }).sds === what;
}
