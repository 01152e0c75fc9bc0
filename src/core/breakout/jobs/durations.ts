/** Seconds as `HH:MM:SS` (hours may exceed 24), the spec's duration format. */
export function hms(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return [h, m, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
}

/** A rough human duration for estimates: "about 3 seconds", "about 2 minutes". */
export function humanDuration(seconds: number): string {
  if (seconds < 1) return 'less than a second';
  if (seconds < 90) return `about ${Math.round(seconds)} seconds`;
  if (seconds < 5400) return `about ${Math.round(seconds / 60)} minutes`;
  return `about ${Math.round(seconds / 3600)} hours`;
}

/** Bytes in binary units with one decimal: "0 B", "12.5 KB", "3.1 MB". */
export function humanSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}
