// The ledger's schema, as ordered migrations (PRAGMA user_version = how many have run).
// Tables follow docs/ledger.md. A call's status only moves forward; a trigger enforces it so
// no code path, present or future, can move a finished call back.

export const MIGRATIONS: string[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,                -- fix | execute | run_test | tool (migration 6)
    issue TEXT,
    repo TEXT,
    head TEXT,
    model TEXT,
    policy TEXT,
    config TEXT,                       -- JSON
    owner TEXT NOT NULL,               -- host:pid:start of the process that ran it
    outcome TEXT,                      -- null while running
    outcome_reason TEXT,
    tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    started_at TEXT NOT NULL,
    ended_at TEXT
  );

  CREATE TABLE turns (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    idx INTEGER NOT NULL,
    toolset TEXT,                      -- JSON: retrieved tool names
    prompt_digest TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    raw_output TEXT,
    action TEXT,                       -- JSON: parsed action, null for a no-op turn
    created_at TEXT NOT NULL,
    UNIQUE (run_id, idx)
  );

  CREATE TABLE calls (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    turn_id INTEGER REFERENCES turns(id),
    origin TEXT NOT NULL CHECK (origin IN ('model', 'trigger', 'user')),
    tool TEXT NOT NULL,
    args TEXT NOT NULL,                -- JSON
    verdict TEXT NOT NULL CHECK (verdict IN ('valid', 'rejected')),
    reason TEXT,                       -- rejection reason
    status TEXT NOT NULL CHECK (status IN ('validated', 'dispatched', 'completed', 'failed', 'not_executed')),
    status_reason TEXT,
    owner TEXT NOT NULL,
    container_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX calls_by_run ON calls(run_id);
  CREATE INDEX calls_by_status ON calls(status);

  CREATE TRIGGER calls_status_moves_forward BEFORE UPDATE OF status ON calls
  WHEN NOT (
    (OLD.status = 'validated' AND NEW.status IN ('dispatched', 'completed', 'failed', 'not_executed')) OR
    (OLD.status = 'dispatched' AND NEW.status IN ('completed', 'failed', 'not_executed'))
  )
  BEGIN
    SELECT RAISE(ABORT, 'call status only moves forward');
  END;

  CREATE TABLE executions (
    call_id TEXT PRIMARY KEY REFERENCES calls(id),
    image TEXT NOT NULL,
    image_digest TEXT NOT NULL,
    container_id TEXT NOT NULL,
    warm INTEGER NOT NULL,
    limits TEXT NOT NULL,              -- JSON
    create_ms REAL, start_ms REAL, run_ms REAL, total_ms REAL,
    exit_code INTEGER NOT NULL,
    timed_out INTEGER NOT NULL,
    oom_killed INTEGER NOT NULL,
    stdout TEXT NOT NULL,
    stderr TEXT NOT NULL,
    stdout_bytes INTEGER NOT NULL,
    stderr_bytes INTEGER NOT NULL,
    stdout_sha256 TEXT NOT NULL,
    stderr_sha256 TEXT NOT NULL,
    stdout_truncated INTEGER NOT NULL,
    stderr_truncated INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE observations (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    turn_id INTEGER REFERENCES turns(id),
    call_id TEXT REFERENCES calls(id),
    kind TEXT NOT NULL,                -- tool | rejection | user | trigger | noop
    target TEXT,
    result TEXT NOT NULL,              -- JSON
    trust TEXT NOT NULL CHECK (trust IN ('trusted', 'unverified')),
    caveat TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX observations_by_run ON observations(run_id);

  CREATE TABLE evidence (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    call_id TEXT REFERENCES calls(id),
    selector TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX evidence_by_run ON evidence(run_id, selector);

  CREATE TABLE edits (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    call_id TEXT REFERENCES calls(id),
    path TEXT NOT NULL,
    selector TEXT,
    before_sha256 TEXT NOT NULL,
    after_sha256 TEXT NOT NULL,
    diff TEXT NOT NULL,
    created_at TEXT NOT NULL,
    undone_at TEXT
  );
  CREATE INDEX edits_by_run ON edits(run_id);
  `,
  // 2: the code index (primitives/index). One ledger may serve several repositories (--ledger,
  // PIPER_LEDGER), so rows are keyed by repo root + path. `indexer` names the extractor version: a
  // cached file whose sha256 matches but whose indexer differs is parsed again.
  `
  CREATE TABLE code_files (
    repo TEXT NOT NULL,                -- absolute repo root
    path TEXT NOT NULL,                -- relative to the repo root, '/' separators
    sha256 TEXT NOT NULL,
    syntax_error INTEGER NOT NULL,
    indexer TEXT NOT NULL,
    indexed_at TEXT NOT NULL,
    PRIMARY KEY (repo, path)
  );

  CREATE TABLE code_nodes (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    seq INTEGER NOT NULL,              -- definition order in the file; 0 is the module
    selector TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('module', 'class', 'function', 'method')),
    name TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    signature TEXT NOT NULL,
    doc TEXT,
    async INTEGER NOT NULL,
    terms TEXT NOT NULL,               -- full docstring + names used in the body, for lexical search
    PRIMARY KEY (repo, path, seq),
    FOREIGN KEY (repo, path) REFERENCES code_files(repo, path) ON DELETE CASCADE
  );
  CREATE INDEX code_nodes_by_selector ON code_nodes(selector);
  `,
  // 3: the A/B runner (eval/ab). One row per finished instance — one arm of one task with one model —
  // holding the runner's judgement, so an interrupted `piper-agent ab` reads finished instances back
  // instead of running them again. `task_digest` is over the task's files: a changed task is re-run.
  // `ablation` fills in one suppressed call at a time, so an ablation is resumable too.
  `
  CREATE TABLE ab_instances (
    model TEXT NOT NULL,               -- the model spec, e.g. sim:1 or openai:deepseek-chat
    arm TEXT NOT NULL,                 -- policy | current
    task_id TEXT NOT NULL,
    task_digest TEXT NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs(id),
    resolved INTEGER NOT NULL,         -- the runner's judgement: FAIL_TO_PASS and PASS_TO_PASS all pass
    details TEXT NOT NULL,             -- JSON: the judged tests and the measures read from the run
    ablation TEXT,                     -- JSON: one entry per suppressed model call; null until --ablation
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (model, arm, task_id)
  );
  `,
  // 4: every HTTP attempt of a turn's model call (status, error, time, the back-off before the
  // next), so retries on 429 / 5xx / network errors are on the record, not only in memory.
  `
  ALTER TABLE turns ADD COLUMN attempts TEXT;  -- JSON: [{n, status, error, ms, retryInMs}]
  `,
  // 5: per-project environments: how each was built or reused, from what, with which
  // network, and what it resolved to; every execution names the environment it ran in.
  `
  CREATE TABLE environments (
    id INTEGER PRIMARY KEY,
    key TEXT,                          -- null for the bare sandbox image or a user-provided image
    repo TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('built', 'hit', 'base', 'user', 'failed')),
    image TEXT NOT NULL,               -- the reference runs use
    image_id TEXT,
    base_image_id TEXT,
    size_bytes INTEGER,
    seconds REAL NOT NULL,
    inputs TEXT NOT NULL,              -- JSON: [{path, sha256, role}]
    decisions TEXT NOT NULL,           -- JSON: the detection's decisions, in order
    plan TEXT NOT NULL,                -- JSON: the plan (no credentials)
    steps TEXT NOT NULL,               -- JSON: [{name, command, network, exit_code, seconds, output_tail}]
    resolved TEXT NOT NULL,            -- JSON: [{name, version, source}]
    sources TEXT NOT NULL,             -- JSON: the sources tried, in order, and what each gave
    error TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX environments_by_key ON environments(key);
  ALTER TABLE executions ADD COLUMN env_key TEXT;
  `,
  // 6: \`piper-agent tool\` calls are runs of their own kind, ended when the call ends. Before, each
  // was a \`fix\` run that nothing ended: listed as running, then swept as \`interrupted\`, and
  // offered to \`resume\`. Those are reclassified by the issue text the tool command wrote, and
  // the sweep's ending, which was never true of them, is replaced by what is known.
  `
  UPDATE runs SET kind = 'tool' WHERE kind = 'fix' AND model IS NULL AND issue LIKE 'piper-agent tool %';
  UPDATE runs SET outcome = 'ended',
    outcome_reason = 'a tool call recorded before tool runs had their own kind; its calls say how it went',
    ended_at = COALESCE(ended_at, started_at)
  WHERE kind = 'tool' AND (outcome IS NULL OR outcome = 'interrupted');
  `,
  // 7: provenance. A run's prompt boundary (the random fence marker its prompts carry; kept so a
  // resumed or replayed run builds the same prompts), and the prompts themselves: each turn lists
  // the parts its messages are made of, each part stored once, gzipped, under its sha256.
  `
  ALTER TABLE runs ADD COLUMN prompt_boundary TEXT;
  ALTER TABLE turns ADD COLUMN prompt TEXT;    -- JSON: {messages: [{role, parts: [sha256]}], tools: sha256|null}
  CREATE TABLE prompt_parts (
    sha256 TEXT PRIMARY KEY,                   -- of the part's UTF-8 text
    bytes INTEGER NOT NULL,                    -- the text's length in bytes
    body BLOB NOT NULL                         -- the text, gzipped
  );
  `,
  // 8: the authorization stage (docs/approval.md). A call the approval policy or the user refused
  // ends with a terminal status of its own, `denied` (the calls table is rebuilt: SQLite cannot
  // change a CHECK in place; Ledger.migrate turns foreign keys off around it and checks them), and
  // every decision on an edit, approved or not, is an approvals row: subject (the run), operation,
  // target (file and entity), scope, who decided, linked to the call it decided.
  `
  CREATE TABLE calls_v6 (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    turn_id INTEGER REFERENCES turns(id),
    origin TEXT NOT NULL CHECK (origin IN ('model', 'trigger', 'user')),
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('valid', 'rejected')),
    reason TEXT,
    status TEXT NOT NULL CHECK (status IN ('validated', 'dispatched', 'completed', 'failed', 'not_executed', 'denied')),
    status_reason TEXT,
    owner TEXT NOT NULL,
    container_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  INSERT INTO calls_v6 SELECT id, run_id, turn_id, origin, tool, args, verdict, reason, status,
    status_reason, owner, container_id, created_at, updated_at FROM calls;
  DROP TABLE calls;
  ALTER TABLE calls_v6 RENAME TO calls;
  CREATE INDEX calls_by_run ON calls(run_id);
  CREATE INDEX calls_by_status ON calls(status);
  CREATE TRIGGER calls_status_moves_forward BEFORE UPDATE OF status ON calls
  WHEN NOT (
    (OLD.status = 'validated' AND NEW.status IN ('dispatched', 'completed', 'failed', 'not_executed', 'denied')) OR
    (OLD.status = 'dispatched' AND NEW.status IN ('completed', 'failed', 'not_executed', 'denied'))
  )
  BEGIN
    SELECT RAISE(ABORT, 'call status only moves forward');
  END;

  CREATE TABLE approvals (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),       -- the subject: approvals never outlive their run
    call_id TEXT NOT NULL REFERENCES calls(id),     -- the call this decision let through or stopped
    operation TEXT NOT NULL,                        -- edit_entity
    path TEXT NOT NULL,                             -- the target file, repository-relative
    selector TEXT NOT NULL,                         -- the target entity
    decision TEXT NOT NULL CHECK (decision IN ('approved', 'denied')),
    scope TEXT NOT NULL CHECK (scope IN ('once', 'file')),  -- file: every later edit of path in this run
    decided_by TEXT NOT NULL,                       -- user | policy:auto | policy:read-only
    basis INTEGER REFERENCES approvals(id),         -- the earlier file-scoped approval this one reuses
    reason TEXT,
    diff_sha256 TEXT NOT NULL,                      -- the exact change that was decided on
    created_at TEXT NOT NULL
  );
  CREATE INDEX approvals_by_run ON approvals(run_id);
  `,
  // Why a program was killed when the engine cannot say (Podman before 5 reports no OOM kill).
  `
  ALTER TABLE executions ADD COLUMN kill_reason TEXT;
  `,
  // What an environment build's best effort relaxed or left out (JSON list; runtime/env/build/shortfall.ts).
  `
  ALTER TABLE environments ADD COLUMN shortfalls TEXT;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
