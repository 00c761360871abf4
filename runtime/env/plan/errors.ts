// The closed set of failures of the environment plan. Each names the file (repo-relative), and
// where it applies the line or key and what was expected there, so a person can fix the input
// without reading our code. Callers branch on `kind`, never on the message.

export type EnvPlanErrorKind =
  | 'bad_requirement' // a PEP 508 requirement (or requirements-file line) that does not parse
  | 'bad_project_file' // pyproject.toml / setup.cfg / tox.ini that cannot be read as its format
  | 'bad_recipe'; // .piper/sandbox.toml that breaks its schema

export interface EnvPlanErrorWhere {
  file?: string;
  line?: number;
  key?: string;
  expected?: string;
}

export class EnvPlanError extends Error {
  constructor(
    readonly kind: EnvPlanErrorKind,
    message: string,
    readonly where: EnvPlanErrorWhere = {},
    readonly fix?: string,
  ) {
    super(message);
    this.name = 'EnvPlanError';
  }
}

export function isEnvPlanError(error: unknown, kind?: EnvPlanErrorKind): error is EnvPlanError {
  return error instanceof EnvPlanError && (kind === undefined || error.kind === kind);
}

/** Where a plan `from` points: `file:12` → file and line; `pyproject.toml [project].dependencies` → file and key. */
export function whereFrom(from: string): EnvPlanErrorWhere {
  const numbered = /^(.*):(\d+)$/.exec(from);
  if (numbered) return { file: numbered[1], line: Number(numbered[2]) };
  const space = from.indexOf(' ');
  return space < 0 ? { file: from } : { file: from.slice(0, space), key: from.slice(space + 1) };
}
