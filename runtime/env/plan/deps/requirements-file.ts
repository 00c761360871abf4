// pip's requirements-file format, as pip reads it: a trailing backslash joins the next line;
// `#` starts a comment at the start of a line or after whitespace; a line is either options
// (`-r`/`-c` includes, followed relative to the including file, cycles guarded; `-e`; index and
// find-links options, recorded, not requirements) or a requirement with per-requirement options
// after it (`--hash=...`, ignored). `-e .` / `.[test]` name the project itself. Local paths are
// repo-relative; nothing outside the repository is read.
import { dirname } from 'node:path/posix';
import { EnvPlanError, whereFrom } from '../errors.js';
import { parseRequirement, type Requirement } from '../read/pep508.js';
import { transitivePins } from './pip-compile.js';
import { redactUrl } from '../read/redact.js';
import { cleanRelative, type RepoReader } from '../read/repo-reader.js';

export interface FileRequirement {
  requirement: Requirement;
  /** Where it was read: `file:line`. */
  from: string;
}

interface FileOption {
  value: string;
  from: string;
}

interface FileProblem {
  line: string;
  from: string;
  reason: string;
}

export interface RequirementsFiles {
  requirements: FileRequirement[];
  constraints: FileRequirement[];
  /** `-e .[x]` / `.[x]`: the project itself, with these extras. */
  selfReferences: Array<{ extras: string[]; from: string }>;
  indexUrl: FileOption[];
  extraIndexUrls: FileOption[];
  findLinks: FileOption[];
  problems: FileProblem[];
  /** Every file read, in reading order (includes too). */
  files: string[];
  /** pip-compile'd pins only other packages asked for (`# via pytest`), read as constraints, per file. */
  transitive: Map<string, number>;
}

function emptyRequirementsFiles(): RequirementsFiles {
  return {
    requirements: [],
    constraints: [],
    selfReferences: [],
    indexUrl: [],
    extraIndexUrls: [],
    findLinks: [],
    problems: [],
    files: [],
    transitive: new Map(),
  };
}

const URL_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
const IGNORED_FLAGS = new Set(['--no-index', '--pre', '--prefer-binary', '--require-hashes']);
const IGNORED_WITH_VALUE = new Set(['--trusted-host', '--only-binary', '--no-binary', '--use-feature']);
const PER_REQUIREMENT = /^--(hash|config-settings|global-option|install-option)(=|$)/;

/** Logical lines: continuations joined, comments removed, each with its first physical line number. */
function logicalLines(text: string): Array<{ text: string; number: number }> {
  const out: Array<{ text: string; number: number }> = [];
  let pending: { text: string; number: number } | null = null;
  text.split(/\r?\n/).forEach((physical, index) => {
    const joined: { text: string; number: number } = pending
      ? { text: pending.text + physical, number: pending.number }
      : { text: physical, number: index + 1 };
    if (joined.text.endsWith('\\') && !/^\s*#/.test(physical)) {
      pending = { text: joined.text.slice(0, -1), number: joined.number };
      return;
    }
    pending = null;
    const clean = joined.text.replace(/(^|\s+)#.*$/, '').trim();
    if (clean) out.push({ text: clean, number: joined.number });
  });
  const last = pending as { text: string; number: number } | null;
  if (last) {
    const clean = last.text.replace(/(^|\s+)#.*$/, '').trim();
    if (clean) out.push({ text: clean, number: last.number });
  }
  return out;
}

/** Split `--opt=value`, `--opt value`, `-ovalue`, `-o value` into name and value. */
function splitOption(tokens: string[]): { name: string; value: string | null; rest: string[] } {
  const first = tokens[0] as string;
  if (first.startsWith('--')) {
    const eq = first.indexOf('=');
    if (eq > 0) return { name: first.slice(0, eq), value: first.slice(eq + 1), rest: tokens.slice(1) };
    if (IGNORED_FLAGS.has(first)) return { name: first, value: null, rest: tokens.slice(1) };
    return { name: first, value: tokens[1] ?? null, rest: tokens.slice(2) };
  }
  if (first.length > 2) return { name: first.slice(0, 2), value: first.slice(2), rest: tokens.slice(1) };
  return { name: first, value: tokens[1] ?? null, rest: tokens.slice(2) };
}

const LONG: Record<string, string> = {
  '-r': '--requirement',
  '-c': '--constraint',
  '-e': '--editable',
  '-i': '--index-url',
  '-f': '--find-links',
};

/** `path[extra1,extra2]` → path and extras. */
function splitPathExtras(spec: string): { path: string; extras: string[] } {
  const found = /^(.*?)(?:\[([^\]]*)\])?$/.exec(spec);
  const path = found?.[1] ?? spec;
  const extras = (found?.[2] ?? '')
    .split(',')
    .map((extra) => extra.trim())
    .filter((extra) => extra !== '');
  return { path, extras };
}

function looksLikePath(spec: string): boolean {
  return /^(\.|\/|~)/.test(spec) || (/[\\/]/.test(spec.split('@')[0] ?? '') && !URL_SCHEME.test(spec));
}

class FileReader {
  readonly result = emptyRequirementsFiles();
  private readonly visiting = new Set<string>();
  /** Files read already (and how): each once, so includes that fan out cannot multiply the work. */
  private readonly readOnce = new Set<string>();

  constructor(private readonly reader: RepoReader) {}

  /** `line` is the including line (`-r x.txt`), shown when the file cannot be read. */
  readFile(rel: string, asConstraint: boolean, from: string | null, line = rel): void {
    const clean = cleanRelative(rel);
    if (clean === null || this.reader.escapes(clean)) {
      this.problem(line, from ?? rel, 'outside the repository: not read');
      return;
    }
    if (this.visiting.has(clean)) {
      this.problem(line, from ?? clean, `include cycle: ${clean} is already being read`);
      return;
    }
    const once = `${clean}\0${asConstraint}`;
    if (this.readOnce.has(once)) {
      this.problem(line, from ?? clean, `${clean} is included again: read once`);
      return;
    }
    this.readOnce.add(once);
    const text = this.reader.readText(clean, 'dependencies');
    if (text === null) {
      this.problem(line, from ?? clean, `${clean}: file not found`);
      return;
    }
    if (!this.result.files.includes(clean)) this.result.files.push(clean);
    this.visiting.add(clean);
    const transitive = transitivePins(text);
    for (const line of logicalLines(text)) {
      const pin = transitive.has(line.number);
      if (pin) this.result.transitive.set(clean, (this.result.transitive.get(clean) ?? 0) + 1);
      this.readLine(clean, line.text, `${clean}:${line.number}`, asConstraint || pin);
    }
    this.visiting.delete(clean);
  }

  private problem(line: string, from: string, reason: string): void {
    this.result.problems.push({ line: redactUrl(line), from, reason });
  }

  readLine(file: string, text: string, from: string, asConstraint: boolean): void {
    if (text.startsWith('-')) {
      this.readOption(file, text, from, asConstraint);
      return;
    }
    // pip: the requirement is everything up to the first token that starts with '-'.
    const tokens = text.split(/\s+/);
    const cut = tokens.findIndex((token) => token.startsWith('-'));
    const spec = (cut < 0 ? tokens : tokens.slice(0, cut)).join(' ');
    const options = cut < 0 ? [] : tokens.slice(cut);
    const unknown = options.filter((option) => option.startsWith('-') && !PER_REQUIREMENT.test(option));
    if (unknown.length)
      this.problem(text, from, `unknown per-requirement option ${unknown.join(' ')}: ignored`);
    this.readSpec(spec, from, asConstraint, false);
  }

  private readSpec(spec: string, from: string, asConstraint: boolean, editable: boolean): void {
    if (looksLikePath(spec)) {
      const { path, extras } = splitPathExtras(spec);
      const clean = cleanRelative(path.replace(/^file:/, ''));
      if (clean === '' && !asConstraint) this.result.selfReferences.push({ extras, from });
      else this.problem(spec, from, 'a local path other than the project itself: not installed by the plan');
      return;
    }
    if (URL_SCHEME.test(spec)) {
      const egg = /#(?:.*&)?egg=([A-Za-z0-9._-]+)/.exec(spec)?.[1];
      const name = egg ?? nameInUrlPath(spec);
      if (!name) {
        this.problem(spec, from, 'a URL without #egg=<name> whose path names no distribution');
        return;
      }
      spec = `${name} @ ${spec}`;
    }
    const requirement = parseRequirement(spec, whereFrom(from));
    if (editable && !requirement.url) {
      this.problem(spec, from, '-e needs a path or a VCS URL: treated as a plain requirement');
    }
    (asConstraint ? this.result.constraints : this.result.requirements).push({ requirement, from });
  }

  private readOption(file: string, text: string, from: string, asConstraint: boolean): void {
    const tokens = text.split(/\s+/);
    const { name: short, value } = splitOption(tokens);
    const name = LONG[short] ?? short;
    if (IGNORED_FLAGS.has(name)) return;
    if (value === null || value === '') {
      this.problem(text, from, `${name} without a value`);
      return;
    }
    const here = dirname(file);
    const relativeToFile = (target: string): string => (here === '.' ? target : `${here}/${target}`);
    switch (name) {
      case '--requirement':
      case '--constraint':
        if (URL_SCHEME.test(value)) this.problem(text, from, 'a remote requirements file: not fetched');
        else this.readFile(relativeToFile(value), asConstraint || name === '--constraint', from, text);
        return;
      case '--editable':
        this.readSpec(value, from, asConstraint, true);
        return;
      case '--index-url':
        this.result.indexUrl.push({ value, from });
        return;
      case '--extra-index-url':
        this.result.extraIndexUrls.push({ value, from });
        return;
      case '--find-links': {
        if (URL_SCHEME.test(value)) {
          this.result.findLinks.push({ value, from });
          return;
        }
        // pip tries the path relative to the requirements file first.
        const local = cleanRelative(relativeToFile(value));
        const target = local !== null && this.reader.isDir(local) ? local : cleanRelative(value);
        if (target === null || this.reader.escapes(target))
          this.problem(text, from, 'find-links outside the repository');
        else this.result.findLinks.push({ value: target, from });
        return;
      }
      default:
        if (IGNORED_WITH_VALUE.has(name)) return;
        throw new EnvPlanError('bad_requirement', `${from}: unknown pip option ${name}`, {
          ...whereFrom(from),
          expected: 'a requirement or a pip option (-r, -c, -e, -i, --extra-index-url, -f)',
        });
    }
  }
}

/**
 * The distribution a URL's path names: a wheel's or a source archive's file name (`pkg-1.0.tar.gz`),
 * or a VCS repository's last path segment (`git+https://host/o/pkg.git@v1` → pkg), as pip's
 * `#egg=` would have said it. null when the path names none.
 */
export function nameInUrlPath(url: string): string | null {
  const path = url.replace(/[?#].*$/, '');
  const last = path.split('/').filter(Boolean).pop() ?? '';
  const wheel = /^([A-Za-z0-9_.]+)-[^-]+(?:-[^-]+){2,3}\.whl$/.exec(last)?.[1];
  if (wheel) return wheel;
  const archive = /^([A-Za-z0-9][A-Za-z0-9_.-]*?)-\d[^/]*\.(?:tar\.gz|tgz|tar\.bz2|tar\.xz|zip)$/.exec(
    last,
  )?.[1];
  if (archive) return archive;
  if (!/^(?:git|hg|svn|bzr)\+/.test(url)) return null;
  const repo = last.split('@')[0]!.replace(/\.git$/, '');
  return /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(repo) ? repo : null;
}

/** Read `rel` (repo-relative) and everything it includes. */
export function readRequirementsFiles(reader: RepoReader, rel: string): RequirementsFiles {
  const files = new FileReader(reader);
  files.readFile(rel, false, null);
  return files.result;
}

/** Requirement-file lines found elsewhere (tox.ini deps), read as if they were in `file`. */
export function readRequirementLines(
  reader: RepoReader,
  file: string,
  lines: ReadonlyArray<{ text: string; from: string }>,
): RequirementsFiles {
  const files = new FileReader(reader);
  for (const line of lines) files.readLine(file, line.text, line.from, false);
  return files.result;
}
