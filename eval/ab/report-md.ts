// report.md: the A/B report as tables a person reads — the measures side by side, the decision with
// each clause and why it exists, every instance, and the ablation re-runs when there were any.
import type { AblationDelta, Clause } from './decision.js';
import type { ArmMeasures, Measure } from './metrics.js';
import type { AbReport, InstanceReport } from './report-shape.js';

const ROWS: Array<{ label: string; pick: (m: ArmMeasures) => Measure; format: (v: number) => string }> = [
  { label: 'resolve rate', pick: (m) => m.resolveRate, format: pct },
  { label: 'cost / instance (USD)', pick: (m) => m.costPerInstance, format: (v) => `$${v.toFixed(6)}` },
  { label: 'tokens / instance', pick: (m) => m.tokensPerInstance, format: (v) => v.toFixed(1) },
  { label: 'call precision', pick: (m) => m.callPrecision, format: pct },
  { label: 'tool-selection accuracy', pick: (m) => m.selectionAccuracy, format: pct },
  { label: 'correct-abstention rate', pick: (m) => m.correctAbstention, format: pct },
  { label: 'fixes with regressions', pick: (m) => m.fixesWithRegressions, format: pct },
];

export function renderMarkdown(r: AbReport): string {
  // Each section returns its own lines, its leading blank line included; the order is the report's.
  return [
    ...headerSection(r),
    ...measuresSection(r),
    ...decisionSection(r),
    ...instancesSection(r),
    ...symbolTriggerSection(r),
    ...ablationSection(r),
    ...(r.ablation_gates ? ['', ...gateSection(r.ablation_gates)] : []),
    ...invalidSection(r),
    ...failedJobsSection(r),
    '',
    '## Notes',
    '',
    ...r.notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
}

/** The title and what was run: model, bench, and which instances are missing. */
function headerSection(r: AbReport): string[] {
  return [
    `# A/B report: ${r.arms.join(' vs ')}`,
    '',
    `- model: \`${r.model}\`${r.simulated ? ' (simulated)' : ''}`,
    `- bench: \`${r.bench}\`, ${r.tasks.length} task(s), max ${r.max_turns} turns per run`,
    `- instances: ${r.instances.length} of ${r.tasks.length * r.arms.length}${r.complete ? '' : ` — missing: ${r.missing.map((m) => `${m.arm}/${m.task}`).join(', ')}`}`,
    ...goldLabelLines(r),
  ];
}

/** A SWE-bench-format set's labels: which came from its gold-label file, which were derived. */
function goldLabelLines(r: AbReport): string[] {
  const from = r.gold_labels_from;
  if (!from) return [];
  const derived = r.tasks.filter((t) => !from.tasks.includes(t));
  const fileLine =
    from.file === null
      ? '- gold labels: no gold-label file for this set'
      : `- gold labels from \`${from.file}\` (checked by hand), ${from.tasks.length} task(s): ${from.tasks.join(', ') || 'none'}`;
  return [
    fileLine,
    `- gold labels derived from the gold patch (eval/swebench/gold-labels.ts), ${derived.length} task(s)${derived.length ? `: ${derived.join(', ')}` : ''}`,
  ];
}

function measuresSection(r: AbReport): string[] {
  return [
    '',
    '## Measures',
    '',
    table(
      ['measure', ...r.arms],
      ROWS.map((row) => [row.label, ...r.arms.map((arm) => cell(r.measures[arm], row))]),
    ),
  ];
}

/** The verdict and each clause, or the note saying why there is no decision. */
function decisionSection(r: AbReport): string[] {
  const out = ['', '## Decision', ''];
  if (!r.decision) out.push(r.decision_note ?? 'no decision');
  else {
    out.push(`**${r.decision.verdict.replace('_', ' ')}** — ${r.decision.reason}`, '');
    out.push(
      table(
        ['clause', 'rule', r.decision.candidate, r.decision.current, 'bound', 'holds', 'why'],
        r.decision.clauses.map(clauseRow),
      ),
    );
  }
  return out;
}

function instancesSection(r: AbReport): string[] {
  return [
    '',
    '## Instances',
    '',
    table(
      [
        'task',
        'arm',
        'resolved',
        'outcome',
        'turns',
        'tokens',
        'cost',
        'selection',
        'F2P',
        'P2P',
        'suite regressions',
        'decisions',
      ],
      r.instances.map(instanceRow),
    ),
  ];
}

/** Per arm, how often the symbol trigger fired and found nothing, then the queries that found nothing. */
function symbolTriggerSection(r: AbReport): string[] {
  const out = [
    '',
    '## Symbol triggers',
    '',
    'search_symbol calls the symbol trigger made on dotted tokens of the issue and of observations, and those that found nothing (a file name such as `core.py` matches the regex too; docs/policy.md, "Triggers").',
    '',
    table(
      ['arm', 'instances', 'fired', 'zero matches'],
      r.arms.map((arm) => {
        const t = r.symbol_triggers[arm];
        return [arm, String(t?.instances ?? 0), String(t?.fired ?? 0), String(t?.zero_matches ?? 0)];
      }),
    ),
  ];
  const empty = r.instances.filter((i) => i.symbol_triggers.zero_match_queries.length > 0);
  if (empty.length > 0) {
    out.push('', 'Queries that found nothing:', '');
    for (const i of empty)
      out.push(
        `- ${i.arm}/${i.task}: ${i.symbol_triggers.zero_match_queries.map((q) => `\`${q}\``).join(', ')}`,
      );
  }
  return out;
}

/** The call-ablation re-runs, only when some instance has them. */
function ablationSection(r: AbReport): string[] {
  const ablated = r.instances.filter((i) => i.ablation && i.ablation.length > 0);
  if (ablated.length === 0) return [];
  return [
    '',
    '## Ablation (one executed model call suppressed per re-run)',
    '',
    `${r.ablation.reruns} re-run(s), ${r.ablation.necessary} necessary call(s), ${r.ablation.diverged} diverged.`,
    '',
    table(
      ['task', 'arm', 'call', 'tool', 'suppressed', 'resolved without it', 'necessary'],
      ablated.flatMap((i) =>
        i.ablation!.map((a) => [
          i.task,
          i.arm,
          String(a.index),
          a.tool,
          `${a.suppressed_calls}×`,
          a.diverged ? 'diverged' : yes(a.resolved),
          yes(a.necessary),
        ]),
      ),
    ),
  ];
}

function invalidSection(r: AbReport): string[] {
  if (r.invalid.length === 0) return [];
  return [
    '',
    '## Invalid instances (not run, not counted)',
    '',
    table(
      ['instance', 'why'],
      r.invalid.map((i) => [i.instance, i.reason]),
    ),
  ];
}

/** `ab --cluster`: each job that brought no result back, its reason and its last output lines. */
function failedJobsSection(r: AbReport): string[] {
  if (!r.failed_jobs?.length) return [];
  return [
    '',
    '## Failed jobs (run again to retry them)',
    ...r.failed_jobs.flatMap((f) => [
      '',
      `- ${f.arm} ${f.task}: **${f.reason}**${f.node ? ` on ${f.node}` : ''}: ${f.detail}${f.retried_after ? ` (retried after: ${f.retried_after})` : ''}`,
      ...(f.tail.length > 0 ? ['', '```text', ...f.tail, '```'] : []),
    ]),
  ];
}

/** One row per ablated gate: the deltas against the full policy arm and the rule's verdict. */
function gateSection(g: NonNullable<AbReport['ablation_gates']>): string[] {
  const delta = (deltas: AblationDelta[], measure: AblationDelta['measure']) => {
    const d = deltas.find((x) => x.measure === measure);
    if (!d) return '—';
    if (d.delta === null) return 'n/a';
    const rel =
      (measure === 'cost' || measure === 'tokens') && d.full
        ? ` (${d.delta >= 0 ? '+' : ''}${((100 * d.delta) / d.full).toFixed(1)}%)`
        : '';
    return `${d.delta >= 0 ? '+' : ''}${Number.isInteger(d.delta) ? d.delta : d.delta.toPrecision(3)}${rel}${d.withinNoise === false ? ' ✗' : ''}`;
  };
  return [
    `## Gate ablation (each gate off alone, against the full ${g.full} arm)`,
    '',
    g.rule,
    '',
    table(
      ['gate', 'arm', 'verdict', 'Δresolve', 'Δcost', 'Δtokens', 'Δcall precision', 'Δselection', 'why'],
      g.gates.map((e) => [
        e.gate,
        e.arm,
        e.verdict.replace('_', ' '),
        delta(e.deltas, 'resolve'),
        delta(e.deltas, 'cost'),
        delta(e.deltas, 'tokens'),
        delta(e.deltas, 'call_precision'),
        delta(e.deltas, 'selection_accuracy'),
        e.reason,
      ]),
    ),
  ];
}

function cell(m: ArmMeasures | undefined, row: (typeof ROWS)[number]): string {
  if (!m) return 'n/a';
  const measure = row.pick(m);
  if (measure.value === null) return `n/a (${measure.note ?? 'not measured'})`;
  const of = measure.of ? ` (${measure.of.numerator}/${measure.of.denominator})` : '';
  return `${row.format(measure.value)}${of}`;
}

function clauseRow(c: Clause): string[] {
  const f = (v: number | null) => (v === null ? 'n/a' : Number.isInteger(v) ? String(v) : v.toPrecision(4));
  return [
    c.name,
    c.rule,
    f(c.candidate),
    f(c.current),
    f(c.bound),
    c.holds === null ? 'not evaluable' : yes(c.holds),
    c.why,
  ];
}

function instanceRow(i: InstanceReport): string[] {
  return [
    i.task + (i.underspecified ? ' (underspecified)' : ''),
    i.arm,
    yes(i.resolved),
    i.outcome,
    String(i.turns),
    String(i.tokens),
    i.cost_usd === null ? 'n/a' : `$${i.cost_usd.toFixed(6)}`,
    `${i.selection.correct}/${i.selection.attempted}`,
    `${i.fail_to_pass.passed}/${i.fail_to_pass.total}`,
    `${i.pass_to_pass.passed}/${i.pass_to_pass.total}`,
    i.suite_regressions === null
      ? 'n/a'
      : i.suite_regressions.length
        ? i.suite_regressions.join(', ')
        : 'none',
    i.decisions.join(' → '),
  ];
}

function table(head: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    `| ${head.map(esc).join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

function pct(v: number): string {
  return `${(100 * v).toFixed(1)}%`;
}

function yes(b: boolean): string {
  return b ? 'yes' : 'no';
}
