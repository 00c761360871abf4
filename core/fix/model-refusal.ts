// A model server that refuses the API key (HTTP 401/403) is the operator's configuration to fix,
// like a missing key: the run ends as the loop ends any failed model call (outcome `error`, the
// server's reason in the ledger and the stream), but the command exits 2, not 1 ("internal
// error"). The loop sees only a ChatModel, so this wrapper notes the refusal on its way through.
import type { RunResult } from '../../policy/events.js';
import {
  isModelError,
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  type ModelError,
} from '../../runtime/model/types.js';
import { EXIT } from '../exit-codes.js';

export class RefusalWatch implements ChatModel {
  readonly id: string;
  readonly protocol: ChatModel['protocol'];
  /** The refusal that ended the run, if one did. */
  refused: ModelError | null = null;

  constructor(private readonly inner: ChatModel) {
    this.id = inner.id;
    this.protocol = inner.protocol;
  }

  async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    try {
      return await this.inner.complete(req, signal);
    } catch (error) {
      if (isModelError(error, 'auth')) this.refused = error;
      throw error;
    }
  }

  /** The result (or the stream's result event) with the configuration-error exit code when refused. */
  settle<T extends Pick<RunResult, 'outcome' | 'exit_code'>>(result: T): T {
    return this.refused && result.outcome === 'error' ? { ...result, exit_code: EXIT.usage } : result;
  }
}
