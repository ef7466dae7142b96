/**
 * The files of one session, indexed so that a listing page costs what the page holds, not what
 * the session holds: lists per source in listing order, the expiry instants of each list sorted
 * (so `total` is a subtraction after a binary search), and the files by id.
 */
import { compareFiles, type FileSource, type StoredFile } from '../model/records.js';

export interface FilePage {
  files: StoredFile[];
  /** Unexpired files matching the source, before paging. */
  total: number;
}

/** Index of the first element for which `before(element)` is false, in a list ordered by it. */
function partitionPoint<T>(list: readonly T[], before: (x: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class OrderedFiles {
  /** Listing order: newest first, then id descending. */
  readonly files: StoredFile[];
  /** The same files' expires_at, ascending. */
  readonly #expiries: number[];

  constructor(files: StoredFile[]) {
    this.files = files;
    this.#expiries = files.map((f) => f.expires_at).sort((a, b) => a - b);
  }

  add(file: StoredFile): void {
    this.files.splice(partitionPoint(this.files, (f) => compareFiles(f, file) <= 0), 0, file);
    this.#expiries.splice(partitionPoint(this.#expiries, (t) => t <= file.expires_at), 0, file.expires_at);
  }

  remove(file: StoredFile): void {
    const i = partitionPoint(this.files, (f) => compareFiles(f, file) < 0);
    if (this.files[i] === file) this.files.splice(i, 1);
    const j = partitionPoint(this.#expiries, (t) => t < file.expires_at);
    if (this.#expiries[j] === file.expires_at) this.#expiries.splice(j, 1);
  }

  /** Files expired at `now` (expires_at <= now). */
  expiredAt(now: number): number {
    return partitionPoint(this.#expiries, (t) => t <= now);
  }

  page(now: number, offset: number, limit: number): FilePage {
    const expired = this.expiredAt(now);
    const total = this.files.length - expired;
    if (offset >= total) return { files: [], total };
    if (expired === 0) return { files: this.files.slice(offset, offset + limit), total };
    // Some files have expired but are still stored: walk from the start, skipping them, until
    // the page is full — offset + limit steps plus the expired files among them.
    const files: StoredFile[] = [];
    let seen = 0;
    for (const f of this.files) {
      if (f.expires_at <= now) continue;
      if (seen++ < offset) continue;
      files.push(f);
      if (files.length === limit) break;
    }
    return { files, total };
  }
}

export class SessionFileIndex {
  readonly #all: OrderedFiles;
  readonly #bySource = new Map<FileSource, OrderedFiles>();
  readonly #byId = new Map<string, StoredFile>();

  /** `files` is the session's persisted list; it is kept in listing order in place. */
  constructor(files: StoredFile[]) {
    files.sort(compareFiles);
    this.#all = new OrderedFiles(files);
    const groups = new Map<FileSource, StoredFile[]>();
    for (const f of files) {
      this.#byId.set(f.id, f);
      let g = groups.get(f.source);
      if (!g) groups.set(f.source, (g = []));
      g.push(f);
    }
    for (const [source, list] of groups) this.#bySource.set(source, new OrderedFiles(list));
  }

  get(id: string): StoredFile | undefined {
    return this.#byId.get(id);
  }

  add(file: StoredFile): void {
    this.#all.add(file);
    let list = this.#bySource.get(file.source);
    if (!list) this.#bySource.set(file.source, (list = new OrderedFiles([])));
    list.add(file);
    this.#byId.set(file.id, file);
  }

  remove(id: string): StoredFile | undefined {
    const file = this.#byId.get(id);
    if (!file) return undefined;
    this.#all.remove(file);
    this.#bySource.get(file.source)?.remove(file);
    this.#byId.delete(id);
    return file;
  }

  /** A page of the unexpired files (of one source, or all), newest first. */
  page(source: FileSource | null, now: number, offset: number, limit: number): FilePage {
    const list = source === null ? this.#all : this.#bySource.get(source);
    return list ? list.page(now, offset, limit) : { files: [], total: 0 };
  }
}
