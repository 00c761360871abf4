// The model a resumed run continues with: --model when given, else the model the run recorded. A
// script model stands in for one conversation, so continuing the run's own script means going on
// after the replies the run already used — starting the script again would replay turn one.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseScript, readScriptText, ScriptModel } from '../../runtime/model/script-model.js';
import type { ChatModel } from '../../runtime/model/types.js';
import type { Config } from '../../core/config.js';
import { modelFor } from '../../core/fix/run-fix.js';
import { CommandError } from './command-error.js';

export function resumeModel(opts: {
  flag?: string;
  recorded: string | null;
  config: Config;
  repo: string;
  repliesUsed: number;
}): ChatModel {
  if (opts.flag) return modelFor({ ...opts.config, model: opts.flag }, opts.repo);
  const spec = opts.recorded ?? opts.config.model;
  if (!spec)
    throw new CommandError(
      'the run recorded no model and none is configured',
      'pass --model openai:NAME or --model script:FILE.jsonl',
    );
  if (!spec.startsWith('script:')) return modelFor({ ...opts.config, model: spec }, opts.repo);

  const rest = spec.slice('script:'.length).trim();
  const file = isAbsolute(rest) ? rest : resolve(process.cwd(), rest);
  if (!existsSync(file)) {
    throw new CommandError(
      `the run's script model ${file} is not there (the run recorded ${spec})`,
      'run resume from the directory the run started in, or pass --model script:FILE with the replies still to come',
    );
  }
  const entries = parseScript(readScriptText(file), file);
  if (entries.length <= opts.repliesUsed) {
    throw new CommandError(
      `the run's script ${rest} has ${entries.length} replies and the run has used ${opts.repliesUsed}: none is left to continue with`,
      'pass --model with a model (or a script of the replies to come)',
    );
  }
  // The protocol of the whole script, as the run had it, not of what remains.
  const protocol = entries.some((e) => e.toolCalls.length > 0) ? 'tools' : 'json';
  return new ScriptModel(entries.slice(opts.repliesUsed), { id: spec, protocol });
}
