/**
 * Reading CSWeb 8.1's cspro_messages (docs/migrating-from-csweb.md#csweb-81): the messages CSPro
 * 8.1 logic sent with `syncmessage`, in id order after a cursor, a page at a time.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';

/** A row of cspro_messages; `value` is the JSON text CSWeb stored (null when none), `receivedAt` ISO 8601 UTC. */
export interface CswebMessage {
  id: number;
  username: string;
  device: string;
  name: string;
  value: string | null;
  receivedAt: string;
}

/** The messages with an id above `afterId`, at most `limit`, oldest first. */
export async function readCswebMessages(conn: Connection, afterId: number, limit: number): Promise<CswebMessage[]> {
  // created_time is a TIMESTAMP (stored in UTC): its epoch seconds do not depend on any zone.
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT id, username, device, name, value, UNIX_TIMESTAMP(created_time) AS t
       FROM cspro_messages WHERE id > ? ORDER BY id LIMIT ?`,
    [afterId, limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    username: String(r.username ?? ''),
    device: String(r.device ?? ''),
    name: String(r.name ?? ''),
    value: r.value === null || r.value === undefined ? null : String(r.value),
    receivedAt: new Date(Number(r.t) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  }));
}
