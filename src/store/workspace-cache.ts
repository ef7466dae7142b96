/**
 * Which workspaces the store holds in memory (issue 14, item 5): the most recently used, up to a
 * bound; past it the least recently used is let go. One let go is still reachable through a weak
 * reference while anything holds it (a request in flight), so there is never a second copy of a
 * workspace in memory; once nothing does, the garbage collector frees it and the next use loads
 * it again. One with a write or a blob commit under way is not let go until they finish (the
 * file is then whole for the next load). A workspace that cannot be let go (written, with no file
 * to load it from: the in-memory store) is pinned instead.
 */
import type { Workspace } from './workspace.js';

/** Workspaces kept in memory beyond those in use. */
export const DEFAULT_WORKSPACES_IN_MEMORY = 64;

export class WorkspaceCache {
  /** Most recently used last (a Map keeps insertion order). */
  readonly #recent = new Map<string, Workspace>();
  readonly #pinned = new Map<string, Workspace>();
  readonly #weak = new Map<string, WeakRef<Workspace>>();
  readonly #gone = new FinalizationRegistry<string>((principal) => {
    if (this.#weak.get(principal)?.deref() === undefined) this.#weak.delete(principal);
  });

  constructor(
    readonly bound: number,
    /** Whether a workspace may leave memory (it can be had again: loaded, or made as a view). */
    readonly canLetGo: (ws: Workspace) => boolean,
  ) {}

  get(principal: string): Workspace | undefined {
    const recent = this.#recent.get(principal);
    if (recent) {
      this.#recent.delete(principal);
      this.#recent.set(principal, recent);
      return recent;
    }
    const pinned = this.#pinned.get(principal);
    if (pinned) return pinned;
    const held = this.#weak.get(principal)?.deref();
    if (held) this.set(principal, held);
    return held;
  }

  set(principal: string, ws: Workspace): void {
    this.#weak.delete(principal);
    this.#recent.delete(principal);
    this.#recent.set(principal, ws);
    if (this.#recent.size <= this.bound) return;
    // Oldest first; one with a write or blob commit under way stays until a later trim.
    for (const [oldest, old] of this.#recent) {
      if (this.#recent.size <= this.bound) break;
      if (!this.canLetGo(old)) {
        this.#recent.delete(oldest);
        this.#pinned.set(oldest, old);
      } else if (!old.busy) {
        this.#recent.delete(oldest);
        this.#weak.set(oldest, new WeakRef(old));
        this.#gone.register(old, oldest);
      }
    }
  }

  /**
   * A workspace changed (a view got a document of its own): if it was let go while in use, hold
   * it again, so it is pinned or saved before it can be freed. One no longer here (reset) stays out.
   */
  keep(principal: string, ws: Workspace): void {
    if (this.#weak.get(principal)?.deref() === ws) this.set(principal, ws);
  }

  has(principal: string): boolean {
    return this.#recent.has(principal) || this.#pinned.has(principal) || this.#weak.get(principal)?.deref() !== undefined;
  }

  clear(): void {
    this.#recent.clear();
    this.#pinned.clear();
    this.#weak.clear();
  }

  delete(principal: string): void {
    this.#recent.delete(principal);
    this.#pinned.delete(principal);
    this.#weak.delete(principal);
  }

  keys(): string[] {
    return [...this.#entries()].map(([p]) => p);
  }

  values(): Workspace[] {
    return [...this.#entries()].map(([, ws]) => ws);
  }

  *#entries(): Generator<[string, Workspace]> {
    yield* this.#recent;
    yield* this.#pinned;
    for (const [p, ref] of this.#weak) {
      const ws = ref.deref();
      if (ws) yield [p, ws];
    }
  }
}
