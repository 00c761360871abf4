// The final suite run, started early: each time the repro test passes in the loop, the tree as it
// is then is packed and the project's suite starts on it, in a sandbox of its own, while the model
// takes its next turn (usually `stop`). When the loop ends on that same tree, the gate takes this
// run as its final one instead of starting another; a tree that changed since stops it (the run is
// marked abandoned) and the next pass starts a fresh one. The loop itself is not touched: this
// only watches its events.
import type { SuiteRun } from '../../policy/regression/suite-compare.js';
import { keepSnapshot, type KeptSnapshot } from '../../primitives/regression/suite-snapshot.js';

export interface StartedRun {
  run: Promise<SuiteRun>;
  /** Kills the run's container (if any yet) and marks it abandoned once it has ended. */
  stop: () => Promise<void>;
}

export class FinalSpeculation {
  private current: { tarKey: string; started: StartedRun } | null = null;
  private pending: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly repo: string,
    private readonly start: (snapshot: KeptSnapshot) => StartedRun,
  ) {}

  /** The repro test passed: run the suite on the tree as it is now, unless that tree already runs. */
  passed(): void {
    this.pending = this.pending.then(() => this.speculate()).catch(() => undefined);
  }

  private async speculate(): Promise<void> {
    if (this.closed) return;
    const snapshot = await keepSnapshot(this.repo);
    if (this.closed || this.current?.tarKey === snapshot.tarKey) return;
    await this.current?.started.stop();
    const started = this.start(snapshot);
    started.run.catch(() => undefined);
    this.current = { tarKey: snapshot.tarKey, started };
  }

  /**
   * The run already going on exactly this tree (its tar's key), or null; nothing more starts, and
   * any other run is stopped. `take(null)`: the run ended without a fix to judge.
   */
  async take(tarKey: string | null): Promise<StartedRun | null> {
    await this.pending;
    this.closed = true;
    const current = this.current;
    this.current = null;
    if (current && current.tarKey === tarKey) return current.started;
    await current?.started.stop();
    return null;
  }
}
