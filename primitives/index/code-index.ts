// The code index of a repository (docs/architecture.md), in its language's grammars (Python unless
// the opener says otherwise): every entity of every indexed file,
// looked up by selector. Rows are cached in the ledger by file sha256, so opening an unchanged repo
// parses nothing, and refresh() after an edit parses only the files it names.
import {
  dropCodeFiles,
  listCodeFiles,
  loadCodeNodes,
  saveCodeFiles,
  type CodeFileRow,
} from '../../runtime/ledger/code-nodes.js';
import type { CodeNodeRow } from '../../runtime/ledger/code-entity.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { LanguageId } from '../../runtime/language/language.js';
import { LexicalIndex } from '../search/lexical-index.js';
import type { Entity, EntityLookup } from '../types.js';
import { indexerVersion, sourceParsers, type SourceParsers } from './grammars.js';
import { isIndexable, listSourceFiles, repoRelative, resolveRepoRoot } from './repo-files.js';
import { PARALLEL_MIN_FILES, defaultParseThreads, parseFiles, startParseWorkers } from './parse-pool.js';
import { compareStrings, entityOf, readChanged, type Reading } from './scan-files.js';
import { SelectorTable, type IndexRecord } from './selector-table.js';
import { walkEveryNode } from './walk.js';

export interface IndexedFile {
  path: string;
  sha256: string;
  /** True when tree-sitter found a syntax error: the file is indexed as far as it parses. */
  syntaxError: boolean;
  entities: number;
}

export interface IndexStats {
  /** How the file list was made: git ls-files, a tree walk, or the paths given to refresh(). */
  mode: 'git' | 'walk' | 'refresh';
  files: number;
  entities: number;
  /** Files parsed by this update; the others came from the cache unchanged. */
  parsed: number;
  cached: number;
  removed: number;
  ms: number;
}

export interface DuplicateSelector {
  selector: string;
  /** Every definition in source order; the last is the one `get` returns, as Python binds it. */
  definitions: Entity[];
}

interface FileState {
  path: string;
  sha256: string;
  syntaxError: boolean;
  records: IndexRecord[];
}

export interface IndexOptions {
  /** The repository's language profile: which files are indexed, with which grammars. Default 'python'. */
  language?: LanguageId;
  /** Threads that parse (this one included); default: the cores, at most 4. 1 parses here only. */
  threads?: number;
  /** Below this many files to parse, all are parsed on this thread (default 64: a worker's start-up costs more). */
  parallelMinFiles?: number;
  /**
   * The older path — one thread, a cursor over every node, every selector rebuilt after
   * each change — kept so bench/index.ts measures the current one against it in one process.
   */
  baseline?: boolean;
}

const NO_UPDATE: IndexStats = {
  mode: 'walk',
  files: 0,
  entities: 0,
  parsed: 0,
  cached: 0,
  removed: 0,
  ms: 0,
};

export class CodeIndex implements EntityLookup {
  private readonly fileStates = new Map<string, FileState>();
  /** Per selector, every definition in source order (the last one wins), and the import forms. */
  private readonly selectors = new SelectorTable();
  private lexicalIndex: LexicalIndex | undefined;
  /** Derived lists, rebuilt on first use after a change. */
  private views: { all?: Entity[]; visible?: Entity[] } = {};
  private parses = 0;
  private stats: IndexStats = NO_UPDATE;
  /** Updates run one at a time: each reads the state the previous one left. */
  private updating: Promise<void> = Promise.resolve();

  private constructor(
    /** The repo root, absolute and with symbolic links resolved. */
    readonly root: string,
    private readonly ledger: Ledger,
    private readonly parsers: SourceParsers,
    private readonly options: IndexOptions,
  ) {}

  /**
   * Indexes the repo: unchanged files come from the ledger's cache, the rest are parsed. Throws
   * IndexError when the root or the grammar is unusable, RuntimeError when the ledger refuses.
   */
  static async open(repoRoot: string, ledger: Ledger, options: IndexOptions = {}): Promise<CodeIndex> {
    const parsers = await sourceParsers(options.language ?? 'python');
    const index = new CodeIndex(resolveRepoRoot(repoRoot), ledger, parsers, options);
    await index.serially(() => index.loadAll());
    return index;
  }

  /** The outcome of the last open/refresh/reindex. */
  get lastUpdate(): IndexStats {
    return { ...this.stats };
  }

  /** How many files this instance has parsed since it was opened (cache hits parse nothing). */
  get parseCount(): number {
    return this.parses;
  }

  get(selector: string): Entity | undefined {
    const defs = this.selectors.definitions.get(selector);
    return defs?.[defs.length - 1]?.entity;
  }

  /**
   * The selector an entity is indexed under for `selector` as given: the selector itself, or the
   * one entity whose import form it is (`click.core.Context.invoke` → `src.click.core.Context.invoke`
   * in a src layout). Every tool that takes a selector looks it up through here, so both forms
   * work everywhere; undefined when neither names an entity (or the import form names two).
   */
  resolve(selector: string): string | undefined {
    if (this.selectors.definitions.has(selector)) return selector;
    const canonical = this.selectors.aliased(selector);
    return canonical?.length === 1 ? canonical[0] : undefined;
  }

  /** Every definition, duplicates included, by path then position. */
  all(): Entity[] {
    this.views.all ??= this.sortedFiles().flatMap((f) => f.records.map((r) => r.entity));
    return [...this.views.all];
  }

  /** The definitions Python would see: for a duplicated selector, only the last one. */
  visible(): Entity[] {
    this.views.visible ??= this.all().filter((e) => this.get(e.selector) === e);
    return [...this.views.visible];
  }

  files(): IndexedFile[] {
    return this.sortedFiles().map((f) => ({
      path: f.path,
      sha256: f.sha256,
      syntaxError: f.syntaxError,
      entities: f.records.length,
    }));
  }

  duplicates(): DuplicateSelector[] {
    const out: DuplicateSelector[] = [];
    for (const [selector, defs] of this.selectors.definitions) {
      if (defs.length > 1) out.push({ selector, definitions: defs.map((d) => d.entity) });
    }
    return out.sort((a, b) => compareStrings(a.selector, b.selector));
  }

  /** How many times a selector is defined (0 when unknown). */
  definitionCount(selector: string): number {
    return this.selectors.definitions.get(selector)?.length ?? 0;
  }

  /** The file's sha256 as indexed, or undefined when the index does not hold it. */
  fileSha256(path: string): string | undefined {
    return this.fileStates.get(path)?.sha256;
  }

  /**
   * Brings the given files (repo-relative or absolute) up to date: changed ones are parsed again,
   * deleted ones dropped, new ones added when the index would list them. Unchanged files cost a
   * read and a hash.
   */
  async refresh(paths: string[]): Promise<void> {
    const started = performance.now();
    const wanted = [
      ...new Set(paths.map((p) => repoRelative(this.root, p)).filter((p): p is string => p !== null)),
    ];
    // A known file is read again (update() drops it if it is gone); a new one must be indexable.
    await this.serially(() =>
      this.update(
        wanted.filter((p) => this.fileStates.has(p) || isIndexable(this.root, p, this.parsers.language)),
        [],
        'refresh',
        started,
      ),
    );
  }

  /** Lists the repo again and brings every file up to date (new, changed and removed files). */
  async reindex(): Promise<void> {
    await this.serially(() => this.loadAll());
  }

  /** BM25 scores of visible entities for a query, best first, ties by selector. */
  lexicalSearch(query: string): Array<{ entity: Entity; score: number }> {
    return this.lexical()
      .score(query)
      .filter((s) => this.get(s.entity.selector) === s.entity)
      .sort((a, b) => b.score - a.score || compareStrings(a.entity.selector, b.entity.selector));
  }

  /** The text dense retrieval embeds for an entity: selector, signature, docstring and body names. */
  searchText(entity: Entity): string {
    const record = this.fileStates.get(entity.path)?.records.find((r) => r.entity === entity);
    return `${entity.selector}\n${entity.signature}\n${record?.terms ?? ''}`.slice(0, 2000);
  }

  private serially(body: () => Promise<void>): Promise<void> {
    const run = this.updating.then(body);
    this.updating = run.catch(() => {});
    return run;
  }

  private async loadAll(): Promise<void> {
    const started = performance.now();
    const listing = listSourceFiles(this.root, this.parsers.language);
    const listed = new Set(listing.paths);
    const stale = this.fileStates.size === 0 ? this.loadCache(listed) : 0;
    const gone = [...this.fileStates.keys()].filter((p) => !listed.has(p));
    await this.update(listing.paths, gone, listing.mode, started);
    this.stats.removed += stale;
  }

  /**
   * Seeds the in-memory state from the ledger (update() checks every hash again) and forgets the
   * stored files that are no longer listed. Returns how many it forgot.
   */
  private loadCache(listed: Set<string>): number {
    const rows = listCodeFiles(this.ledger, this.root);
    const stale = rows.filter((f) => !listed.has(f.path)).map((f) => f.path);
    // Rows of another extractor version are not used: those files are parsed again and replaced.
    const usable = rows.filter(
      (f) => listed.has(f.path) && f.indexer === indexerVersion(this.parsers.language),
    );
    const nodes =
      usable.length > 0 ? loadCodeNodes(this.ledger, this.root) : new Map<string, CodeNodeRow[]>();
    for (const file of usable)
      this.fileStates.set(file.path, this.fileState(file, nodes.get(file.path) ?? []));
    dropCodeFiles(this.ledger, this.root, stale);
    this.selectors.rebuild(this.sortedFiles());
    return stale.length;
  }

  /**
   * Reads and hashes the files, then parses those whose bytes changed. When enough files are not
   * indexed yet (a first build) the parse workers start before the reading, to overlap with it.
   */
  private async readAndParse(paths: string[]) {
    const { baseline, threads = defaultParseThreads() } = this.options;
    const minFiles = this.options.parallelMinFiles ?? PARALLEL_MIN_FILES;
    const unindexed = baseline ? 0 : paths.filter((p) => !this.fileStates.has(p)).length;
    const early = unindexed >= minFiles ? startParseWorkers(threads, this.parsers) : [];
    let reading: Reading;
    try {
      reading = readChanged(this.root, paths, (path) => this.fileStates.get(path)?.sha256);
    } catch (error) {
      await Promise.all(early.map((w) => w.terminate()));
      throw error;
    }
    const changed = await (baseline
      ? parseFiles(reading.pending, this.parsers, 1, walkEveryNode)
      : parseFiles(reading.pending, this.parsers, threads, undefined, minFiles, early));
    return { ...reading, changed };
  }

  private async update(
    paths: string[],
    gone: string[],
    mode: IndexStats['mode'],
    started: number,
  ): Promise<void> {
    const { changed, unchanged, unreadable } = await this.readAndParse(paths);
    this.parses += changed.length;
    // A listed file that cannot be read now is gone, as far as the index knows.
    const removed = new Set([...gone, ...unreadable.filter((p) => this.fileStates.has(p))]);
    // The ledger first: if it refuses, memory still matches what is stored.
    saveCodeFiles(this.ledger, this.root, changed);
    dropCodeFiles(this.ledger, this.root, [...removed]);

    const touched = new Set([...removed, ...changed.map((c) => c.path)]);
    const dropped: IndexRecord[] = [];
    for (const path of touched) {
      for (const r of this.fileStates.get(path)?.records ?? []) {
        this.lexicalIndex?.remove(r.key);
        dropped.push(r);
      }
      this.fileStates.delete(path);
    }
    const added: FileState[] = [];
    for (const file of changed) {
      const state = this.fileState(file, file.nodes);
      this.fileStates.set(file.path, state);
      added.push(state);
      for (const r of state.records) this.lexicalIndex?.add({ key: r.key, entity: r.entity, terms: r.terms });
    }
    if (touched.size > 0) {
      // Files in path order, so one selector's definitions from several files land in order.
      added.sort((a, b) => compareStrings(a.path, b.path));
      if (this.options.baseline) this.selectors.rebuild(this.sortedFiles());
      else this.selectors.replace(dropped, added, this.fileStates.keys());
      this.views = {};
    }
    let entities = 0;
    for (const f of this.fileStates.values()) entities += f.records.length;
    this.stats = {
      mode,
      files: this.fileStates.size,
      entities,
      parsed: changed.length,
      cached: unchanged,
      removed: removed.size,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
  }

  private fileState(file: CodeFileRow, nodes: CodeNodeRow[]): FileState {
    return {
      path: file.path,
      sha256: file.sha256,
      syntaxError: file.syntaxError,
      records: nodes.map((n) => ({ key: `${n.path}#${n.seq}`, entity: entityOf(n), terms: n.terms })),
    };
  }

  private lexical(): LexicalIndex {
    if (!this.lexicalIndex) {
      const lexical = new LexicalIndex();
      for (const f of this.sortedFiles())
        for (const r of f.records) lexical.add({ key: r.key, entity: r.entity, terms: r.terms });
      this.lexicalIndex = lexical;
    }
    return this.lexicalIndex;
  }

  private sortedFiles(): FileState[] {
    return [...this.fileStates.values()].sort((a, b) => compareStrings(a.path, b.path));
  }
}
