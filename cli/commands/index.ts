// The command table: each command's name and one-line summary, and how to load it. A command's
// module (and what it imports: the engine client, SQLite, tree-sitter, Ink) is loaded only when
// that command runs or its --help is asked for, so `piper-agent --help` and `--version` start in
// about the time Node itself takes (measured by `npm run bench:startup`).
import type { CommandEntry } from '../../core/command-line/entry-point.js';

export const COMMANDS: Record<string, CommandEntry> = {
  demo: {
    summary: 'fix the bundled sample repository with the scripted model',
    load: async () => {
      const m = await import('./demo.js');
      return { run: m.demoCommand, help: m.DEMO_HELP };
    },
  },
  fix: {
    summary: 'run the agent on an issue of a Python repository',
    load: async () => {
      const m = await import('./fix.js');
      return { run: m.fixCommand, help: m.FIX_HELP };
    },
  },
  execute: {
    summary: "run a program in the project's language in a fresh sandbox and record it",
    load: async () => {
      const m = await import('./execute.js');
      return { run: m.executeCommand, help: m.EXECUTE_HELP };
    },
  },
  'run-test': {
    summary: 'run tests on a repo snapshot in a fresh sandbox',
    load: async () => {
      const m = await import('./run-test.js');
      return { run: m.runTestCommand, help: m.RUN_TEST_HELP };
    },
  },
  index: {
    summary: "list a repository's code entities (the code index)",
    load: async () => {
      const m = await import('./index-cmd.js');
      return { run: m.indexCommand, help: m.INDEX_HELP };
    },
  },
  resume: {
    summary: 'continue a run that asked a question (or was interrupted)',
    load: async () => {
      const m = await import('./resume.js');
      return { run: m.resumeCommand, help: m.RESUME_HELP };
    },
  },
  replay: {
    summary: "re-run a recorded run with its model's replies; report divergence",
    load: async () => {
      const m = await import('./replay.js');
      return { run: m.replayCommand, help: m.REPLAY_HELP };
    },
  },
  ledger: {
    summary: 'list runs, show one in full, or export it as JSON',
    load: async () => {
      const m = await import('./ledger.js');
      return { run: m.ledgerCommand, help: m.LEDGER_HELP };
    },
  },
  config: {
    summary: 'print the effective configuration and where each value came from',
    load: async () => {
      const m = await import('./config.js');
      return { run: m.configCommand, help: m.CONFIG_HELP };
    },
  },
  undo: {
    summary: 'restore every edit of a run, newest first',
    load: async () => {
      const m = await import('./undo.js');
      return { run: m.undoCommand, help: m.UNDO_HELP };
    },
  },
  tool: {
    summary: 'send one call through validation, execution and the trust gate',
    load: async () => {
      const m = await import('./tool.js');
      return { run: m.toolCommand, help: m.TOOL_HELP };
    },
  },
  tools: {
    summary: 'print the tool registry the model chooses from',
    load: async () => {
      const m = await import('./tools.js');
      return { run: m.toolsCommand, help: m.TOOLS_HELP };
    },
  },
  doctor: {
    summary: 'check engine, image, ledger and model set-up',
    load: async () => {
      const m = await import('./doctor.js');
      return { run: m.doctorCommand, help: m.DOCTOR_HELP };
    },
  },
  engine: {
    summary: 'find, or install and start, the Docker engine',
    load: async () => {
      const m = await import('./engine.js');
      return { run: m.engineCommand, help: m.ENGINE_HELP };
    },
  },
  'ci-image': {
    summary: 'build or list the image that runs piper-agent in CI',
    load: async () => {
      const m = await import('./ci-image.js');
      return { run: m.ciImageCommand, help: m.CI_IMAGE_HELP };
    },
  },
  image: {
    summary: 'build or list the sandbox image',
    load: async () => {
      const m = await import('./image.js');
      return { run: m.imageCommand, help: m.IMAGE_HELP };
    },
  },
  env: {
    summary: "the project's environment: plan, build, ls, prune, shell",
    load: async () => {
      const m = await import('./env.js');
      return { run: m.envCommand, help: m.ENV_HELP };
    },
  },
  schema: {
    summary: 'print the JSON Schema of the headless output (stream-json, json)',
    load: async () => {
      const m = await import('./schema.js');
      return { run: m.schemaCommand, help: m.SCHEMA_HELP };
    },
  },
};
