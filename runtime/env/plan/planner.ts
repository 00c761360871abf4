// The planner's state while sources are read: the requirement set, the decisions, the project's
// extras already resolved, constraints and pip options gathered from requirements files. A
// requirement naming the project itself (`-e .[test]`, `name[test]`) adds the project's extras;
// it is never installed from an index.
import { isEnvPlanError, whereFrom } from './errors.js';
import type { SandboxPython } from './read/marker-env.js';
import { RequirementSet, type Reason } from './merge.js';
import { normalizeName } from './read/normalize.js';
import { parseRequirement, renderRequirement, type Requirement } from './read/pep508.js';
import type { ListedRequirement, Pyproject } from './deps/pyproject.js';
import { readRequirementLines, type FileRequirement, type RequirementsFiles } from './deps/requirements-file.js';
import type { RepoReader } from './read/repo-reader.js';
import type { SetupCfg } from './deps/setup-cfg.js';
import { appendAll } from '../../text/append.js';

export interface ProjectExtras {
  /** Where they are declared, for sentences: 'optional-dependencies' or 'setup.cfg extras_require'. */
  source: string;
  byName: Map<string, { name: string; list: ListedRequirement[] }>;
}

export function projectExtras(pyproject: Pyproject | null, setupCfg: SetupCfg | null): ProjectExtras {
  const fromPyproject = pyproject && pyproject.optional.size > 0;
  const declared = fromPyproject
    ? pyproject.optional
    : (setupCfg?.extras ?? new Map<string, ListedRequirement[]>());
  const byName = new Map<string, { name: string; list: ListedRequirement[] }>();
  for (const [name, list] of declared) byName.set(normalizeName(name), { name, list });
  return { source: fromPyproject ? 'optional-dependencies' : 'setup.cfg extras_require', byName };
}

export class Planner {
  readonly set: RequirementSet;
  readonly constraints: FileRequirement[] = [];
  readonly pipFiles: RequirementsFiles[] = [];
  private readonly resolvedExtras = new Set<string>();

  constructor(
    readonly decisions: string[],
    python: SandboxPython,
    private readonly projectName: string | null,
    private readonly installable: boolean,
    private readonly extras: ProjectExtras,
  ) {
    this.set = new RequirementSet(python);
  }

  addListed(listed: readonly ListedRequirement[], reason: Reason, extra = ''): void {
    for (const item of listed)
      this.addParsed(parseRequirement(item.text, whereFrom(item.from)), item.from, reason, extra);
  }

  /**
   * Like addListed, for the sources read best effort (Poetry, PDM, Hatch, tox, nox): a line that
   * is not PEP 508 is skipped, with the parser's words, instead of failing the whole plan.
   */
  addLenient(listed: readonly ListedRequirement[], reason: Reason, extra = ''): void {
    for (const item of listed) {
      try {
        this.addParsed(parseRequirement(item.text, whereFrom(item.from)), item.from, reason, extra);
      } catch (error) {
        if (!isEnvPlanError(error, 'bad_requirement')) throw error;
        this.set.skipped.push({ line: item.text, from: item.from, reason: `not read: ${error.message}` });
      }
    }
  }

  /** Requirements-file lines found in another file (tox deps, nox installs), each read best effort. */
  addPipLines(reader: RepoReader, file: string, lines: readonly ListedRequirement[], reason: Reason): void {
    for (const line of lines) {
      try {
        this.addFiles(readRequirementLines(reader, file, [line]), reason);
      } catch (error) {
        if (!isEnvPlanError(error)) throw error;
        this.set.skipped.push({ line: line.text, from: line.from, reason: `not read: ${error.message}` });
      }
    }
  }

  /**
   * Requirements of an extra or group the recipe chose by name: the user's choice, so the tooling
   * rule leaves them alone (they count as the recipe's, keeping their reason).
   */
  markChosenByRecipe(listed: readonly ListedRequirement[]): void {
    for (const item of listed) {
      try {
        this.set.mark(parseRequirement(item.text).name, 'recipe');
      } catch (error) {
        if (!isEnvPlanError(error)) throw error;
      }
    }
  }

  /** The requirements an extra of the project lists ([] when it declares none such). */
  extraList(extra: string): readonly ListedRequirement[] {
    return this.extras.byName.get(normalizeName(extra))?.list ?? [];
  }

  /** A distribution the tests need that no declaration names (reason `inferred`). */
  addInferred(text: string, from: string, optional: boolean): boolean {
    try {
      const requirement = parseRequirement(text, whereFrom(from));
      if (this.set.applies(requirement, from)) this.set.add(requirement, from, 'inferred', optional);
      return true;
    } catch (error) {
      if (!isEnvPlanError(error, 'bad_requirement')) throw error;
      this.set.skipped.push({ line: text, from, reason: `not read: ${error.message}` });
      return false;
    }
  }

  private addParsed(requirement: Requirement, from: string, reason: Reason, extra = ''): void {
    if (!this.set.applies(requirement, from, extra)) return;
    if (this.projectName !== null && normalizeName(requirement.name) === this.projectName) {
      this.selfReference(requirement.extras, from, reason, renderRequirement(requirement));
    } else this.set.add(requirement, from, reason);
  }

  private selfReference(extras: string[], from: string, reason: Reason, text: string): void {
    if (!this.installable) {
      this.set.skipped.push({
        line: text,
        from,
        reason: 'names the project itself, which declares no metadata',
      });
      return;
    }
    if (this.extras.byName.size === 0 && extras.length) {
      this.decisions.push(
        `${from}: \`${text}\` names the project itself: its extras ${extras.map((e) => `"${e}"`).join(', ')} are declared where the plan cannot read them (setup.py is not run): not resolved`,
      );
      return;
    }
    const what = extras.length
      ? `its extras ${extras.map((e) => `"${e}"`).join(', ')} resolved`
      : 'nothing more to add';
    this.decisions.push(
      `${from}: \`${text}\` names the project itself: ${what}, not installed from an index`,
    );
    for (const extra of extras) this.addExtra(extra, reason, from);
  }

  /** The project's extra, its requirements evaluated with `extra` set; false when it has none such. */
  addExtra(extra: string, reason: Reason, from: string): boolean {
    const key = normalizeName(extra);
    if (this.resolvedExtras.has(key)) return true;
    const found = this.extras.byName.get(key);
    if (!found) {
      this.decisions.push(`${from}: extra "${extra}" is not declared by the project: nothing added`);
      return false;
    }
    this.resolvedExtras.add(key);
    this.addListed(found.list, reason, found.name);
    return true;
  }

  addFiles(files: RequirementsFiles, reason: Reason): void {
    for (const item of files.requirements) this.addParsed(item.requirement, item.from, reason);
    for (const self of files.selfReferences) {
      const extras = self.extras.length ? `[${self.extras.join(',')}]` : '';
      this.selfReference(self.extras, self.from, reason, `-e .${extras}`);
    }
    appendAll(this.constraints, files.constraints);
    for (const [file, count] of files.transitive) {
      const sentence = `${file}: ${count} pin(s) pip-compile marked \`# via\` another package read as constraints (they narrow, never add)`;
      if (!this.decisions.includes(sentence)) this.decisions.push(sentence);
    }
    appendAll(this.set.skipped, files.problems);
    this.pipFiles.push(files);
  }

  applyConstraints(): void {
    // A constraints file included from two requirements files is read twice: count it once.
    const unique = [...new Map(this.constraints.map((item) => [item.from, item])).values()];
    let applied = 0;
    for (const item of unique) {
      if (this.set.applies(item.requirement, item.from) && this.set.constrain(item.requirement, item.from))
        applied++;
    }
    if (unique.length) {
      this.decisions.push(
        `constraints: ${applied} of ${unique.length} narrow a required distribution; the rest add nothing`,
      );
    }
  }
}
