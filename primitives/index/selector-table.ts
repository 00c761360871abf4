// Selector → definitions, and import form → selectors, kept in step with the index file by file.
// Rebuilding both over every file after each edit cost 30-50 ms on 1,000 files (17k entities),
// ~80% of a re-index (measured with --cpu-prof); an edit now touches only its own file's
// selectors. A change to which directories are packages (an `__init__.py` added or removed)
// changes the import form of every selector below it, so that one rebuilds the aliases.
import type { Entity } from '../types.js';
import { compareStrings } from './scan-files.js';
import { importForm, packageDirectories } from './selector-alias.js';

export interface IndexRecord {
  key: string;
  entity: Entity;
  terms: string;
}

export interface FileRecords {
  path: string;
  records: IndexRecord[];
}

export class SelectorTable {
  /** Per selector, every definition by path then position; the last one wins, as Python binds it. */
  readonly definitions = new Map<string, IndexRecord[]>();
  /** Import form → the selectors that have it (selector-alias.ts). */
  private readonly aliases = new Map<string, string[]>();
  /** Selector → the import form it is listed under, so a change can take it out again. */
  private readonly aliasOf = new Map<string, string>();
  private packages: Set<string> = new Set();

  /** Every file's records, in path order. */
  rebuild(files: FileRecords[]): void {
    this.definitions.clear();
    for (const file of files) for (const r of file.records) this.append(r);
    this.packages = packageDirectories(files.map((f) => f.path));
    this.rebuildAliases();
  }

  /**
   * Takes `removed` (the records of files dropped or about to be replaced) out and puts `added`
   * (the new records of changed files) in, each at its path's place. `paths` is every indexed
   * path after the change.
   */
  replace(removed: IndexRecord[], added: FileRecords[], paths: Iterable<string>): void {
    const affected = new Set<string>();
    for (const r of removed) {
      const selector = r.entity.selector;
      const left = (this.definitions.get(selector) ?? []).filter((d) => d !== r);
      if (left.length > 0) this.definitions.set(selector, left);
      else this.definitions.delete(selector);
      affected.add(selector);
    }
    for (const file of added) {
      for (const r of file.records) {
        this.insert(r);
        affected.add(r.entity.selector);
      }
    }
    const packages = packageDirectories(paths);
    if (!sameSet(packages, this.packages)) {
      this.packages = packages;
      this.rebuildAliases();
      return;
    }
    for (const selector of affected) this.realias(selector);
  }

  /** The selectors whose import form is `alias`. */
  aliased(alias: string): readonly string[] | undefined {
    return this.aliases.get(alias);
  }

  private append(r: IndexRecord): void {
    const list = this.definitions.get(r.entity.selector);
    if (list) list.push(r);
    else this.definitions.set(r.entity.selector, [r]);
  }

  /** After every definition of a path that sorts at or before this one (records of one file arrive in order). */
  private insert(r: IndexRecord): void {
    const list = this.definitions.get(r.entity.selector);
    if (!list) {
      this.definitions.set(r.entity.selector, [r]);
      return;
    }
    let at = list.length;
    while (at > 0 && compareStrings(list[at - 1]!.entity.path, r.entity.path) > 0) at--;
    list.splice(at, 0, r);
  }

  private rebuildAliases(): void {
    this.aliases.clear();
    this.aliasOf.clear();
    for (const selector of this.definitions.keys()) this.realias(selector);
  }

  /** Lists the selector under its import form as its last definition's path gives it, or nowhere. */
  private realias(selector: string): void {
    const old = this.aliasOf.get(selector);
    if (old !== undefined) {
      const left = (this.aliases.get(old) ?? []).filter((s) => s !== selector);
      if (left.length > 0) this.aliases.set(old, left);
      else this.aliases.delete(old);
      this.aliasOf.delete(selector);
    }
    const defs = this.definitions.get(selector);
    if (!defs) return;
    const alias = importForm(selector, defs[defs.length - 1]!.entity.path, this.packages);
    if (alias === undefined) return;
    const known = this.aliases.get(alias);
    if (!known) this.aliases.set(alias, [selector]);
    else known.push(selector);
    this.aliasOf.set(selector, alias);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
