// The containers this process asked the engine to create and has not removed yet, and the creations
// still in flight. An interrupted command must leave no container behind, and containers come from
// parts the signal handler does not hold (the sandbox and its warm pools, the lint gate's compile
// server, the hardening probe, an environment build): DockerEngine records each creation and removal
// here, so one call removes them all. A creation in flight when that removal begins is awaited and
// its container removed too (the engine finishes a create whose request was sent, even if this
// process exits first: that is how a `Created` container outlived an interrupt); from then on no
// new creation is sent.
import { RuntimeError } from '../errors.js';

type Remove = (id: string) => Promise<void>;

class CreatedContainers {
  /** Each live container with the removal of the engine that made it. */
  private readonly live = new Map<string, Remove>();
  private readonly inFlight = new Set<Promise<string>>();
  private removingAll: Promise<void> | null = null;

  /** Sends one creation (`create` resolves with the id) and records its container until `removed`. */
  create(create: () => Promise<string>, remove: Remove): Promise<string> {
    if (this.removingAll) return Promise.reject(shuttingDown('no new container is created'));
    // Recorded in the same reaction that yields the id, so removeAll's wait sees it as soon as it is known.
    const creation = create().then((id) => {
      this.live.set(id, remove);
      // Created while everything is being removed: removeAll takes it; the caller stops here.
      if (this.removingAll) throw shuttingDown(`container ${id.slice(0, 12)}, created meanwhile, is removed`);
      return id;
    });
    this.inFlight.add(creation);
    const settled = () => void this.inFlight.delete(creation);
    creation.then(settled, settled);
    return creation;
  }

  /** The container is gone (removed, or the engine said it no longer exists). */
  removed(id: string): void {
    this.live.delete(id);
  }

  /**
   * Refuses new creations, waits for those in flight, and removes every container still recorded.
   * A removal that fails goes to `onFailure` (the container keeps its owner labels: the next
   * start-up sweep removes it). Every caller shares one removal, so none returns before it is done.
   */
  removeAll(onFailure: (id: string, error: unknown) => void): Promise<void> {
    this.removingAll ??= (async () => {
      await Promise.allSettled([...this.inFlight]);
      const all = [...this.live];
      this.live.clear();
      await Promise.all(
        all.map(([id, remove]) => remove(id).catch((error: unknown) => onFailure(id, error))),
      );
    })();
    return this.removingAll;
  }
}

function shuttingDown(what: string): RuntimeError {
  return new RuntimeError('interrupted', `the process is shutting down: ${what}`);
}

/** The process's one record: containers belong to the process (their owner label names its pid). */
export const createdContainers = new CreatedContainers();
