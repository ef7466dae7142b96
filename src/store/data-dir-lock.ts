/**
 * One process per data directory. The lock is a file created exclusively, holding who made it
 * (pid, host, boot id, pid namespace, the process's start time) and kept fresh by touching its
 * mtime every HEARTBEAT_MS. A holder is judged alive or dead:
 *  - in our own pid namespace on our own boot (the usual case, and a restart after a kill), at
 *    once: the pid is alive and started when the lock says, or it is not the holder;
 *  - anywhere else (another container on a shared volume, where every holder is PID 1, or after
 *    `docker kill` + a new container), by the heartbeat: a lock whose mtime moves is held, one
 *    untouched for STALE_MS is dead. A pid alone cannot tell those apart; the heartbeat can.
 */
import { closeSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { StartupError } from './store-errors.js';

export const HEARTBEAT_MS = 2000;
export const STALE_MS = 10000;

interface Holder {
  tool: 'cloud-browser-mock';
  pid: number;
  host: string;
  boot_id: string | null;
  pid_ns: string | null;
  start_time: string | null;
  since: string;
}

const readOr = (path: string, fallback: string | null) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
};

const bootId = () => readOr('/proc/sys/kernel/random/boot_id', null)?.trim() ?? null;
function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}
/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function startTime(pid: number): string | null {
  const stat = readOr(`/proc/${pid}/stat`, null);
  if (!stat) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

function me(): Holder {
  return { tool: 'cloud-browser-mock', pid: process.pid, host: hostname(), boot_id: bootId(), pid_ns: pidNamespace(), start_time: startTime(process.pid), since: new Date().toISOString() };
}

function describe(h: Holder): string {
  return `process ${h.pid} on host ${h.host} (since ${h.since})`;
}

/** Alive, dead, or unknown (not visible from here: ask the heartbeat). */
function judge(h: Holder, self: Holder): 'alive' | 'dead' | 'unknown' {
  if (h.host !== self.host) return 'unknown';
  if (h.boot_id && self.boot_id && h.pid_ns && self.pid_ns) {
    if (h.boot_id !== self.boot_id || h.pid_ns !== self.pid_ns) return 'unknown';
    return startTime(h.pid) === h.start_time ? 'alive' : 'dead';
  }
  if (h.boot_id || self.boot_id) return 'unknown';
  // No /proc (macOS): no pid namespaces either, so the pid speaks for itself.
  try {
    process.kill(h.pid, 0);
    return 'alive';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'dead';
  }
}

export class DataDirLock {
  readonly #path: string;
  readonly #timer: NodeJS.Timeout;
  #released = false;

  private constructor(path: string) {
    this.#path = path;
    this.#timer = setInterval(() => {
      const now = new Date();
      try {
        utimesSync(this.#path, now, now);
      } catch {
        // The lock was removed under us; nothing to keep fresh.
      }
    }, HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Takes the lock on `dir`, waiting out a holder whose liveness only the heartbeat can tell. */
  static async acquire(dir: string, lockPath: string, onWait: (line: string) => void = () => undefined): Promise<DataDirLock> {
    const self = me();
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(lockPath, 'wx', 0o600);
        writeSync(fd, JSON.stringify(self));
        closeSync(fd);
        return new DataDirLock(lockPath);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = readHolder(lockPath);
      if (holder === 'gone') continue;
      if (holder === null) {
        throw new StartupError(`data directory ${dir} holds a file named ${lockPath.slice(dir.length + 1)} that cloud-browser-mock did not write; choose an empty or cloud-browser-mock data directory with --data-dir`);
      }
      let verdict = judge(holder, self);
      if (verdict === 'unknown') {
        onWait(`data directory ${dir} is locked by ${describe(holder)}; waiting up to ${STALE_MS / 1000} s for its heartbeat`);
        verdict = (await heartbeatStopped(lockPath)) ? 'dead' : 'alive';
      }
      if (verdict === 'alive') {
        throw new StartupError(`data directory ${dir} is in use by ${describe(holder)}; stop it first, or use another --data-dir`);
      }
      // The holder is dead: its lock goes, and we try again (a racing starter may win instead).
      if (JSON.stringify(readHolder(lockPath)) === JSON.stringify(holder)) {
        try {
          unlinkSync(lockPath);
        } catch {
          // already gone
        }
      }
    }
    throw new StartupError(`data directory ${dir}: could not take its lock (another process keeps taking it); stop the other process, or use another --data-dir`);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    const h = readHolder(this.#path);
    if (h && h !== 'gone' && h.pid === process.pid && h.host === hostname()) {
      try {
        unlinkSync(this.#path);
      } catch {
        // already gone
      }
    }
  }
}

function readHolder(path: string): Holder | null | 'gone' {
  const text = readOr(path, null);
  if (text === null) return 'gone';
  try {
    const h = JSON.parse(text);
    if (h && h.tool === 'cloud-browser-mock' && Number.isInteger(h.pid) && typeof h.host === 'string') return h as Holder;
  } catch {
    // A lock being written this instant reads empty; give its writer a moment.
    if (text === '') return readAfterAMoment(path);
  }
  return null;
}

function readAfterAMoment(path: string): Holder | null | 'gone' {
  const until = Date.now() + 50;
  while (Date.now() < until) {
    // a busy wait of at most 50 ms, once, at start-up only
  }
  const text = readOr(path, null);
  if (text === null) return 'gone';
  try {
    const h = JSON.parse(text);
    return h && h.tool === 'cloud-browser-mock' ? (h as Holder) : null;
  } catch {
    return null;
  }
}

/** True when the lock's mtime stays untouched for STALE_MS; false as soon as it moves. */
async function heartbeatStopped(path: string): Promise<boolean> {
  let last: number;
  try {
    last = statSync(path).mtimeMs;
  } catch {
    return true;
  }
  for (;;) {
    if (Date.now() - last > STALE_MS) return true;
    await new Promise((r) => setTimeout(r, 250));
    let now: number;
    try {
      now = statSync(path).mtimeMs;
    } catch {
      return true;
    }
    if (now !== last) return false;
  }
}
