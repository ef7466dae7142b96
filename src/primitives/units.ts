/** Durations and sizes as people write them in flags and control-plane bodies (`7d`, `100MiB`). */

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Seconds from `3600`, `90s`, `15m`, `24h`, `7d`, `1w` or ISO-8601 `P7D`, `PT1H30M`. */
export function parseDuration(text: string): number | null {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const simple = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(t);
  if (simple) return Number(simple[1]) * UNITS[simple[2].toLowerCase()];
  const iso = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(t);
  if (iso && t.length > 1 && !/T$/i.test(t)) {
    const [, w, d, h, m, s] = iso.map((x) => Number(x ?? 0));
    return w * 604800 + d * 86400 + h * 3600 + m * 60 + s;
  }
  return null;
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes from `1048576`, `100MiB`, `10MB`, `512KiB`. */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!m) return null;
  const unit = m[2].toLowerCase() || 'b';
  if (!(unit in SIZE_UNITS)) return null;
  return Math.floor(Number(m[1]) * SIZE_UNITS[unit]);
}
