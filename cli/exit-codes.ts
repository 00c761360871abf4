// The CLI's exit codes, documented in `piper-agent --help` and the README.
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  noEngine: 5,
  interrupted: 130,
} as const;

/** Bad command-line input: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Bad configuration (a config file, the environment, no model set): exit 2, like a bad flag. */
export class ConfigError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
