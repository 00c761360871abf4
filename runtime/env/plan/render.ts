// The plan for a person (`piper-agent env plan`): what would be installed, from which file, why,
// and what was left out; and the plan as shown or recorded, with every URL's credentials removed.
// The text holds repository text (names, paths): the CLI makes it inert before a terminal sees it.
import { redactUrl } from './read/redact.js';
import { EnvPlanSchema, type EnvPlan } from './types.js';

/** The plan with the credentials of every URL in it replaced by `***` (hosts and paths kept). */
export function redactPlan(plan: EnvPlan): EnvPlan {
  return EnvPlanSchema.parse({
    ...plan,
    requirements: plan.requirements.map((requirement) =>
      requirement.url === undefined ? requirement : { ...requirement, url: redactUrl(requirement.url) },
    ),
    pip: {
      ...plan.pip,
      indexUrl: plan.pip.indexUrl === null ? null : redactUrl(plan.pip.indexUrl),
      extraIndexUrls: plan.pip.extraIndexUrls.map(redactUrl),
      findLinks: plan.pip.findLinks.map(redactUrl),
    },
  });
}

/** `env plan --json`: the redacted plan, keys in the schema's order. */
export function renderPlanJson(plan: EnvPlan): string {
  return JSON.stringify(redactPlan(plan), null, 2);
}

function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows.map((row) =>
    (
      indent +
      row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join('  ')
    ).trimEnd(),
  );
}

/** Appends `more` one by one: `push(...more)` passes every line as an argument, and a plan with
 * 130,000 requirements would overflow the call stack. */
function append(lines: string[], more: readonly string[]): void {
  for (const line of more) lines.push(line);
}

function list(title: string, items: string[]): string[] {
  return items.length ? [`${title}:`, ...items.map((item) => `  ${item}`)] : [];
}

export function renderPlanText(input: EnvPlan): string {
  const plan = redactPlan(input);
  const { project } = plan;
  const lines: string[] = [];
  lines.push(`Environment plan: Python ${plan.python} on Debian ${plan.debian}`);
  const build = project.buildBackend
    ? `; build backend ${project.buildBackend}${project.buildRequires.length ? ` (${project.buildRequires.join(', ')})` : ''}`
    : '';
  lines.push(
    `Project: ${project.name ?? '(no name)'}, ${project.installable ? 'installed editable from /work' : 'not installable'}${build}`,
  );
  lines.push(`Layout: ${project.layout}, ${project.importRoot} importable`);
  lines.push('');
  if (plan.requirements.length) {
    lines.push(`Would install (${plan.requirements.length}):`);
    append(
      lines,
      table([
        ['why', 'requirement', 'Debian package', 'from'],
        ...plan.requirements.map((r) => [
          r.optional ? `${r.reason} (optional)` : r.reason,
          r.line,
          r.debian ?? '-',
          r.from,
        ]),
      ]),
    );
  } else lines.push('Would install nothing beyond the sandbox image.');
  if (plan.skipped.length) {
    lines.push('', `Skipped (${plan.skipped.length}):`);
    append(
      lines,
      plan.skipped.map((s) => `  ${s.line}  skipped: ${s.reason}  (${s.from})`),
    );
  }
  const pip: string[] = [];
  if (plan.pip.indexUrl) pip.push(`index URL ${plan.pip.indexUrl}`);
  for (const url of plan.pip.extraIndexUrls) pip.push(`extra index URL ${url}`);
  for (const dir of plan.pip.findLinks) pip.push(`find-links ${dir}`);
  if (pip.length) pip.push(`(from ${plan.pip.fromFiles.join(', ')})`);
  const extra = [
    ...list('pip', pip),
    ...list('apt', plan.apt),
    ...list('setup commands', plan.setup),
    ...(plan.testCommand ? [`test command: ${plan.testCommand}`] : []),
    ...(plan.testCommand && plan.testCommandFrom ? [`  from ${plan.testCommandFrom}`] : []),
    ...Object.entries(plan.testEnv).map(([name, value]) => `  env ${name}=${value}`),
  ];
  if (extra.length) append(lines, ['', ...extra]);
  append(lines, [
    '',
    ...list(
      'Decisions',
      plan.decisions.map((d) => `- ${d}`),
    ),
  ]);
  lines.push('', `Inputs (${plan.inputs.length}, they make the environment's cache key):`);
  append(lines, table(plan.inputs.map((i) => [i.role, i.sha256.slice(0, 12), i.path])));
  return `${lines.join('\n')}\n`;
}
