// A PEP 508 requirement parser, written from the PEP's grammar as a recursive descent over the
// text (one function per rule). Version specifiers are checked with PEP 440 (a specifier pip
// would refuse is refused here, with its column). Canonical text follows pypa/packaging:
// sorted extras, sorted comma-joined specifiers, `name @ url ; marker` for URL requirements.
//
//   specification = wsp* (url_req | name_req) wsp*
//   name_req      = name wsp* extras? wsp* versionspec? wsp* quoted_marker?
//   url_req       = name wsp* extras? wsp* '@' wsp* URI (wsp+ quoted_marker?)?
//   versionspec   = '(' version_many ')' | version_many
//   version_many  = version_one (wsp* ',' version_one)*
//   quoted_marker = ';' wsp* marker
//   marker        = marker_and (wsp* 'or' marker_and)*
//   marker_and    = marker_expr (wsp* 'and' marker_expr)*
//   marker_expr   = marker_var marker_op marker_var | wsp* '(' marker wsp* ')'
import { validRange } from '@renovatebot/pep440';
import { EnvPlanError, type EnvPlanErrorWhere } from '../errors.js';
import { redactUrl } from './redact.js';
import { MARKER_ALIASES, MARKER_VARIABLES, type MarkerVariable } from './marker-env.js';
import { renderMarker, type MarkerNode, type MarkerOp, type MarkerValue, type VersionOp } from './marker.js';
import { MAX_SPECIFIER_CLAUSES, MAX_VERSION_LENGTH, quoted } from './version-bounds.js';

export interface VersionSpecifier {
  op: VersionOp;
  version: string;
}

export interface Requirement {
  name: string;
  extras: string[];
  specifiers: VersionSpecifier[];
  url?: string;
  marker?: MarkerNode;
}

const NAME = /[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?/y;
const VERSION_OP = /~=|===|==|!=|<=|>=|<|>/y;
const VERSION = /[A-Za-z0-9._*+!-]+/y;
const URL = /[^ \t]+/y;
const VARIABLE = /[A-Za-z_.]+/y;
const KEYWORD = (word: string): RegExp => new RegExp(`${word}(?![A-Za-z0-9_.])`, 'y');
const AND = KEYWORD('and');
const OR = KEYWORD('or');
const IN = KEYWORD('in');
const NOT_IN = /not[ \t]+in(?![A-Za-z0-9_.])/y;

// A marker's tree is walked recursively (evaluated, rendered): its size is bounded where it is parsed.
const MAX_MARKER_DEPTH = 32;
const MAX_MARKER_TERMS = 256;

class Scanner {
  pos = 0;
  /** Open parentheses of the marker being parsed, and its comparisons so far. */
  depth = 0;
  terms = 0;
  constructor(
    readonly text: string,
    readonly where: EnvPlanErrorWhere,
  ) {}

  skipWs(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  peek(char: string): boolean {
    return this.text[this.pos] === char;
  }

  eat(char: string): boolean {
    if (!this.peek(char)) return false;
    this.pos++;
    return true;
  }

  match(pattern: RegExp): string | null {
    pattern.lastIndex = this.pos;
    const found = pattern.exec(this.text);
    if (!found) return null;
    this.pos += found[0].length;
    return found[0];
  }

  fail(problem: string, expected: string): never {
    const { file, line, key } = this.where;
    const place = file ? `${file}${line ? `:${line}` : ''}${key ? ` ${key}` : ''}: ` : '';
    // Redacted whole, then shortened: a cut URL could no longer be recognized as one.
    throw new EnvPlanError(
      'bad_requirement',
      `${place}invalid requirement "${quoted(redactUrl(this.text), 200)}": ${problem} at column ${this.pos + 1} (expected ${expected})`,
      { ...this.where, expected },
    );
  }
}

function parseExtras(s: Scanner): string[] {
  const extras: string[] = [];
  s.skipWs();
  if (s.eat(']')) return extras;
  for (;;) {
    s.skipWs();
    const extra = s.match(NAME) ?? s.fail('bad extra name', 'an extra name');
    extras.push(extra);
    s.skipWs();
    if (s.eat(']')) return extras;
    if (!s.eat(',')) s.fail('unclosed extras', "',' or ']'");
  }
}

function parseVersionMany(s: Scanner): VersionSpecifier[] {
  const specifiers: VersionSpecifier[] = [];
  for (;;) {
    s.skipWs();
    if (specifiers.length === MAX_SPECIFIER_CLAUSES)
      s.fail(`a version specifier of more than ${MAX_SPECIFIER_CLAUSES} clauses`, 'a shorter specifier');
    const op = (s.match(VERSION_OP) ??
      s.fail('missing comparison operator', 'one of ~= == != <= >= < > ===')) as VersionOp;
    s.skipWs();
    const start = s.pos;
    const version = s.match(VERSION) ?? s.fail(`no version after '${op}'`, 'a version');
    if (version.length > MAX_VERSION_LENGTH) {
      s.pos = start;
      s.fail(`a version of more than ${MAX_VERSION_LENGTH} characters`, 'a shorter version');
    }
    if (op !== '===' && !validRange(`${op}${version}`)) {
      s.pos = start;
      s.fail(`'${op}${version}' is not a valid PEP 440 specifier`, 'a PEP 440 version specifier');
    }
    specifiers.push({ op, version });
    s.skipWs();
    if (!s.eat(',')) return specifiers;
  }
}

function parseMarkerValue(s: Scanner): MarkerValue {
  s.skipWs();
  const quote = s.text[s.pos];
  if (quote === '"' || quote === "'") {
    const end = s.text.indexOf(quote, s.pos + 1);
    if (end < 0) s.fail('unterminated string', `a closing ${quote}`);
    const value = s.text.slice(s.pos + 1, end);
    s.pos = end + 1;
    return { kind: 'string', value };
  }
  const start = s.pos;
  const word = s.match(VARIABLE) ?? s.fail('missing marker value', 'a marker variable or a quoted string');
  const name = (MARKER_VARIABLES as readonly string[]).includes(word)
    ? (word as MarkerVariable)
    : MARKER_ALIASES[word];
  if (!name) {
    s.pos = start;
    s.fail(`unknown marker variable '${word}'`, `one of ${MARKER_VARIABLES.join(', ')}`);
  }
  return { kind: 'variable', name };
}

function parseMarkerOp(s: Scanner): MarkerOp {
  s.skipWs();
  const op = s.match(VERSION_OP) ?? s.match(IN) ?? s.match(NOT_IN);
  if (!op) s.fail('missing marker operator', "a comparison, 'in' or 'not in'");
  return (op.startsWith('not') ? 'not in' : op) as MarkerOp;
}

function parseMarkerExpr(s: Scanner): MarkerNode {
  s.skipWs();
  if (s.eat('(')) {
    if (++s.depth > MAX_MARKER_DEPTH)
      s.fail(`a marker nested deeper than ${MAX_MARKER_DEPTH} parentheses`, 'a shallower marker');
    const inner = parseMarkerOr(s);
    s.skipWs();
    if (!s.eat(')')) s.fail('unclosed parenthesis', "')'");
    s.depth--;
    return inner;
  }
  if (++s.terms > MAX_MARKER_TERMS)
    s.fail(`a marker of more than ${MAX_MARKER_TERMS} comparisons`, 'a shorter marker');
  const left = parseMarkerValue(s);
  const op = parseMarkerOp(s);
  const right = parseMarkerValue(s);
  return { kind: 'compare', left, op, right };
}

function parseMarkerAnd(s: Scanner): MarkerNode {
  let node = parseMarkerExpr(s);
  for (;;) {
    s.skipWs();
    if (!s.match(AND)) return node;
    node = { kind: 'and', left: node, right: parseMarkerExpr(s) };
  }
}

function parseMarkerOr(s: Scanner): MarkerNode {
  let node = parseMarkerAnd(s);
  for (;;) {
    s.skipWs();
    if (!s.match(OR)) return node;
    node = { kind: 'or', left: node, right: parseMarkerAnd(s) };
  }
}

function expectEnd(s: Scanner): void {
  s.skipWs();
  if (!s.atEnd()) s.fail(`unexpected '${s.text.slice(s.pos)}'`, 'the end of the requirement');
}

/** A marker on its own (e.g. from a recipe or a test). */
export function parseMarker(text: string, where: EnvPlanErrorWhere = {}): MarkerNode {
  const s = new Scanner(text, where);
  const marker = parseMarkerOr(s);
  expectEnd(s);
  return marker;
}

export function parseRequirement(text: string, where: EnvPlanErrorWhere = {}): Requirement {
  const s = new Scanner(text, where);
  s.skipWs();
  const name = s.match(NAME) ?? s.fail('missing distribution name', 'a distribution name');
  s.skipWs();
  const extras = s.eat('[') ? parseExtras(s) : [];
  s.skipWs();
  const requirement: Requirement = { name, extras, specifiers: [] };
  if (s.eat('@')) {
    s.skipWs();
    requirement.url = s.match(URL) ?? s.fail("no URL after '@'", 'a URL');
    if (s.atEnd()) return requirement;
    s.skipWs(); // the URL ended at whitespace: what follows can only be a marker
  } else if (s.eat('(')) {
    requirement.specifiers = parseVersionMany(s);
    s.skipWs();
    if (!s.eat(')')) s.fail('unclosed version parenthesis', "')'");
  } else {
    VERSION_OP.lastIndex = s.pos;
    if (VERSION_OP.test(s.text)) requirement.specifiers = parseVersionMany(s);
  }
  s.skipWs();
  if (s.eat(';')) requirement.marker = parseMarkerOr(s);
  expectEnd(s);
  return requirement;
}

/** Specifiers as packaging writes a SpecifierSet: each `op+version`, sorted, comma-joined. */
export function renderSpecifiers(specifiers: readonly VersionSpecifier[]): string {
  return [...new Set(specifiers.map((spec) => `${spec.op}${spec.version}`))].sort().join(',');
}

export function renderRequirement(requirement: Requirement): string {
  const extras = requirement.extras.length ? `[${[...new Set(requirement.extras)].sort().join(',')}]` : '';
  let text = requirement.name + extras;
  if (requirement.url) text += ` @ ${requirement.url}`;
  else text += renderSpecifiers(requirement.specifiers);
  if (requirement.marker) text += `${requirement.url ? ' ' : ''}; ${renderMarker(requirement.marker)}`;
  return text;
}
