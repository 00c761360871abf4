import { afterEach, describe, expect, it, vi } from 'vitest';
import { toolsCommand } from '../../cli/commands/tools.js';
import {
  candidateLine,
  describeTool,
  isReservedName,
  isToolName,
  nativeToolSpecs,
  RESERVED_NAMES,
  registryView,
  reservedLines,
  TOOL_NAMES,
  toolJsonSchema,
} from '../../policy/registry.js';

// The spec's "exact tool-description schema" example (section 4.1), verbatim.
const SPEC_READ_ENTITY = JSON.parse(
  `{ "name": "read_entity", "description": "read a code entity's signature and optional windowed body", "args": { "selector": "str (required)", "body": "bool (default false)", "window": "int 1..100 (default 100)" }, "returns": "envelope {ok, error, data:{entity, body}}", "keywords": ["read", "view", "inspect", "signature", "body", "entity", "function", "class", "method"], "category": "read" }`,
);

describe('registry', () => {
  it('has exactly the six executable tools in registry order and the two reserved names', () => {
    expect(TOOL_NAMES).toEqual([
      'read_entity',
      'search_symbol',
      'search_code',
      'edit_entity',
      'run_test',
      'execute',
    ]);
    expect(RESERVED_NAMES).toEqual(['ask_user', 'stop']);
    for (const name of RESERVED_NAMES) {
      expect(isToolName(name)).toBe(false);
      expect(isReservedName(name)).toBe(true);
    }
    expect(isToolName('bash')).toBe(false);
    expect(isToolName('toString')).toBe(false);
  });

  it('renders read_entity exactly as the spec example', () => {
    expect(describeTool('read_entity')).toEqual(SPEC_READ_ENTITY);
    expect(JSON.stringify(describeTool('read_entity'))).toBe(JSON.stringify(SPEC_READ_ENTITY));
  });

  it('matches the spec table for every tool (description, args, category, keywords)', () => {
    const table = {
      search_symbol: {
        description: 'signature-only AST symbol search',
        args: { query: 'str (required)', keywords: 'list[str] (optional)', k: 'int 1..10 (default 10)' },
        category: 'search',
        keywords: ['search', 'symbol', 'find', 'lookup', 'name', 'signature', 'grep', 'function'],
      },
      search_code: {
        description: 'summarized + capped embedding retrieval over entities',
        args: { query: 'str (required)', cap: 'int 1..8 (default 8)' },
        category: 'search',
        keywords: ['search', 'code', 'retrieve', 'similar', 'related', 'embedding', 'semantic'],
      },
      edit_entity: {
        description: 'exact-string replace scoped to an entity, linter-gated',
        args: { selector: 'str (required)', search: 'str ≤400 (required)', replace: 'str ≤2000 (required)' },
        category: 'edit',
        keywords: ['edit', 'change', 'fix', 'patch', 'replace', 'modify', 'update', 'write', 'correct'],
      },
      run_test: {
        description: 'execute a test; pass/fail + truncated traceback',
        args: { target: 'str (required)', timeout: 'int 1..300 (default 120)' },
        category: 'execute',
        keywords: ['test', 'run', 'verify', 'pytest', 'fail', 'pass', 'assert', 'regression'],
      },
      execute: {
        description: 'sandboxed compute (no net / no host fs / bounded time)',
        args: { code: 'str (required)', timeout: 'int 1..30 (default 10)' },
        category: 'execute',
        keywords: ['execute', 'compute', 'run', 'calculate', 'eval', 'script', 'code', 'sandbox'],
      },
    } as const;
    for (const [name, row] of Object.entries(table)) {
      const view = describeTool(name as keyof typeof table);
      expect(view).toMatchObject(row);
      expect(Object.keys(view)).toEqual(['name', 'description', 'args', 'returns', 'keywords', 'category']);
    }
  });

  it('is JSON-serializable: a round trip changes nothing', () => {
    const view = registryView();
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
    expect(view.tools).toHaveLength(6);
    expect(view.reserved.map((r) => r.name)).toEqual(['ask_user', 'stop']);
    expect(view.reserved[0]).toEqual({
      name: 'ask_user',
      description: 'ask the operator a question',
      args: { question: 'str (optional)' },
    });
  });

  it('derives the JSON Schema for native calls from the zod declaration', () => {
    expect(toolJsonSchema('read_entity')).toEqual({
      type: 'object',
      properties: {
        selector: { type: 'string' },
        body: { type: 'boolean', default: false },
        window: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
      },
      required: ['selector'],
      additionalProperties: false,
    });
    expect(toolJsonSchema('edit_entity')).toMatchObject({
      properties: {
        search: { type: 'string', maxLength: 400 },
        replace: { type: 'string', maxLength: 2000 },
      },
      required: ['selector', 'search', 'replace'],
    });
    expect(toolJsonSchema('search_symbol')).toMatchObject({
      properties: { keywords: { type: 'array', items: { type: 'string' } } },
      required: ['query'],
    });
    const specs = nativeToolSpecs(['run_test']);
    expect(specs.map((s) => s.name)).toEqual(['run_test', 'ask_user', 'stop']);
    expect(specs[2]).toEqual({
      name: 'stop',
      description: 'halt with a reason',
      parameters: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false },
    });
  });

  it('renders candidate lines as name — description — args, and the two reserved lines verbatim', () => {
    expect(candidateLine('read_entity')).toBe(
      "read_entity — read a code entity's signature and optional windowed body — selector: str (required), body: bool (default false), window: int 1..100 (default 100)",
    );
    expect(reservedLines()).toEqual(['ask_user — ask the operator a question', 'stop — halt with a reason']);
  });
});

describe('piper-agent tools', () => {
  afterEach(() => vi.restoreAllMocks());

  const capture = async (argv: string[]) => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const code = await toolsCommand(argv);
    return { code, out };
  };

  it('--json prints the registry view', async () => {
    const { code, out } = await capture(['--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(registryView());
  });

  it('prints a table naming every tool, its args and the reserved names', async () => {
    const { code, out } = await capture([]);
    expect(code).toBe(0);
    for (const name of [...TOOL_NAMES, ...RESERVED_NAMES]) expect(out).toContain(name);
    expect(out).toContain('window: int 1..100 (default 100)');
    expect(out).toContain('search: str ≤400 (required)');
  });

  it('refuses an unknown option', async () => {
    await expect(toolsCommand(['--yaml'])).rejects.toMatchObject({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  });
});
