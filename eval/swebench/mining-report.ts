// The mining record: one summary line per project (tried, kept, rejected by reason) and one row
// per candidate, printed and written as MINING.md so the set's provenance is in the repository.
import type { Tried } from './mine-project.js';

export function summaryLine(repo: string, tried: Tried[]): string {
  const kept = tried.filter((t) => t.instance).length;
  const reasons = new Map<string, number>();
  for (const t of tried) {
    if (!t.rejected) continue;
    const reason = t.rejected.replace(/ \(.*$/, '').replace(/: .*$/, '');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const why = [...reasons].map(([reason, n]) => `${n} ${reason}`).join('; ');
  return `${repo}: ${tried.length} candidates tried, ${kept} kept, ${tried.length - kept} rejected${why ? ` (${why})` : ''}`;
}

export function miningMarkdown(
  projects: { repo: string; tried: Tried[] }[],
  command: string,
  minutes: number,
): string {
  const lines = [
    '# How the real task set was mined',
    '',
    `Command: \`${command}\` (${minutes.toFixed(1)} min on this machine).`,
    '',
    ...projects.map((p) => `- ${summaryLine(p.repo, p.tried)}`),
    '',
    '| project | commit | result | subject |',
    '| --- | --- | --- | --- |',
  ];
  for (const { repo, tried } of projects) {
    for (const t of tried) {
      const result = t.instance
        ? `kept: F2P ${JSON.parse(t.instance.FAIL_TO_PASS).length}, P2P ${JSON.parse(t.instance.PASS_TO_PASS).length}`
        : `rejected: ${t.rejected}`;
      lines.push(`| ${repo} | ${t.commit.slice(0, 7)} | ${cell(result)} | ${cell(t.subject)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/`/g, "'").slice(0, 110);
}
