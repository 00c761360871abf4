// PEP 508 environment markers: the tree the parser builds, how it is written back as text, and how
// it is evaluated for one Python. Evaluation follows the reference implementation (pypa/packaging):
// a comparison is a PEP 440 specifier test when `op + right` is a valid specifier and the left side a
// valid version, and a plain string comparison otherwise; `extra` values compare PEP 503-normalized.
// As packaging's Specifier, the right side is one clause: a comma makes it a string. A side longer
// than a version may be (version-bounds.ts) is a string too, rather than minutes of comparison.
import { satisfies, valid, validRange } from '@renovatebot/pep440';
import { EnvPlanError } from '../errors.js';
import { boundedVersion, quoted } from './version-bounds.js';
import type { MarkerEnvironment, MarkerVariable } from './marker-env.js';
import { normalizeName } from './normalize.js';

export type VersionOp = '<=' | '<' | '!=' | '===' | '==' | '>=' | '>' | '~=';
export type MarkerOp = VersionOp | 'in' | 'not in';

export type MarkerValue = { kind: 'variable'; name: MarkerVariable } | { kind: 'string'; value: string };

export type MarkerNode =
  | { kind: 'compare'; left: MarkerValue; op: MarkerOp; right: MarkerValue }
  | { kind: 'and' | 'or'; left: MarkerNode; right: MarkerNode };

function renderValue(value: MarkerValue): string {
  if (value.kind === 'variable') return value.name;
  return value.value.includes('"') ? `'${value.value}'` : `"${value.value}"`;
}

/** Canonical text: double-quoted strings, single spaces, parentheses only where `or` sits under `and`. */
export function renderMarker(node: MarkerNode): string {
  if (node.kind === 'compare') return `${renderValue(node.left)} ${node.op} ${renderValue(node.right)}`;
  const side = (child: MarkerNode): string =>
    node.kind === 'and' && child.kind === 'or' ? `(${renderMarker(child)})` : renderMarker(child);
  return `${side(node.left)} ${node.kind} ${side(node.right)}`;
}

function valueOf(value: MarkerValue, env: MarkerEnvironment): string {
  return value.kind === 'string' ? value.value : env[value.name];
}

function isExtra(value: MarkerValue): boolean {
  return value.kind === 'variable' && value.name === 'extra';
}

function compareStrings(left: string, op: MarkerOp, right: string, text: string): boolean {
  switch (op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case 'in':
      return right.includes(left);
    case 'not in':
      return !right.includes(left);
    default:
      throw new EnvPlanError(
        'bad_requirement',
        `marker ${quoted(text)}: '${op}' compares versions, but "${quoted(left)}" and "${quoted(right)}" are not both versions`,
        { expected: 'a PEP 440 version on both sides of ~= and ===' },
      );
  }
}

function evaluateCompare(node: Extract<MarkerNode, { kind: 'compare' }>, env: MarkerEnvironment): boolean {
  let left = valueOf(node.left, env);
  let right = valueOf(node.right, env);
  if (isExtra(node.left) || isExtra(node.right)) {
    left = normalizeName(left);
    right = normalizeName(right);
  }
  const versions = boundedVersion(left) && boundedVersion(right) && !right.includes(',');
  if (versions && node.op !== 'in' && node.op !== 'not in') {
    const specifier = `${node.op}${right}`;
    if (validRange(specifier) && valid(left) !== null) {
      return satisfies(left, specifier, { prereleases: true });
    }
  }
  return compareStrings(left, node.op, right, renderMarker(node));
}

/** Whether the marker holds in `env` (its `extra` is the extra being installed, '' for none). */
export function evaluateMarker(node: MarkerNode, env: MarkerEnvironment): boolean {
  switch (node.kind) {
    case 'compare':
      return evaluateCompare(node, env);
    case 'and':
      return evaluateMarker(node.left, env) && evaluateMarker(node.right, env);
    case 'or':
      return evaluateMarker(node.left, env) || evaluateMarker(node.right, env);
  }
}
