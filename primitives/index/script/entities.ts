// Which nodes of a TypeScript/JavaScript tree are entities, and what each is called: declarations
// (classes, functions, interfaces, type aliases, enums), consts bound to a function, a class or an
// object, and the members of a class or of such an object (methods, getters and setters, fields
// holding a function, object-literal methods: `export const api = { get() {} }` → `api.get`).
// A member counts only directly inside its container (a class body, an entity's object literal):
// an object passed to a call inside a function is no entity.
import type { Node } from 'web-tree-sitter';
import type { EntityKind } from '../../../runtime/ledger/code-entity.js';
import { assignedAt } from './assigned.js';

/** The node types the extractor visits: entity candidates, then the names lexical search keeps. */
export const ENTITY_TYPES = [
  'class_declaration',
  'abstract_class_declaration',
  'function_declaration',
  'generator_function_declaration',
  'function_signature',
  'interface_declaration',
  'type_alias_declaration',
  'enum_declaration',
  'internal_module',
  'variable_declarator',
  'export_statement',
  'method_definition',
  'method_signature',
  'abstract_method_signature',
  'pair',
  'public_field_definition',
  'field_definition',
  'assignment_expression',
];
export const NAME_TYPES = [
  'identifier',
  'property_identifier',
  'type_identifier',
  'shorthand_property_identifier',
];

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const CLASS_VALUES = new Set(['class']);
const DECLARATIONS = new Set(['lexical_declaration', 'variable_declaration']);
const MEMBERS = new Set(['method_definition', 'method_signature', 'abstract_method_signature']);
const FIELDS = new Set(['public_field_definition', 'field_definition', 'pair']);

/** From the first node's start to the last one's end. */
interface Span {
  first: Node;
  last: Node;
}

/**
 * What an entity is. The ledger stores Python's four kinds, so a const holding an object or a
 * value (`variable`) and an interface, type alias or enum (`type`) are stored as `class`
 * (storedKind): declarations that hold members or values, their signature saying which.
 */
export type ScriptKind = EntityKind | 'variable' | 'type';

export function storedKind(kind: ScriptKind): EntityKind {
  return kind === 'variable' || kind === 'type' ? 'class' : kind;
}

export interface Candidate {
  name: string;
  kind: ScriptKind;
  /** What the entity spans: decorators, `export`, overload signatures and its declaration included. */
  span: Span;
  /** The node whose header is the signature: the declaration, or the function a const holds. */
  head: Node;
  /** The header ends where this starts; null: the span's first line. */
  body: Node | null;
  /** The container whose direct children are this entity's members (a class body, an object literal). */
  members: Node | null;
  async: boolean;
}

/** Where a node is visited: its scope's member container, and the names a file has overloads of. */
export interface Place {
  members: number | null;
  /** The function whose body is the scope's (null at the module's top). */
  owner: number | null;
  /** Names of the file's overload signatures: only these look for signatures above them. */
  overloaded: ReadonlySet<string>;
}

/** The candidate a visited node makes in its place, or null. */
export function candidateOf(node: Node, place: Place): Candidate | null {
  const type = node.type;
  if (type === 'export_statement') return defaultExport(node);
  if (type === 'assignment_expression') return assignmentCandidate(node);
  if (MEMBERS.has(type) || FIELDS.has(type)) {
    if (node.parent?.id !== place.members) return null;
    return MEMBERS.has(type) ? memberCandidate(node, place) : fieldCandidate(node);
  }
  if (!inOwnScope(node, place)) return null;
  if (type === 'variable_declarator') return declaratorCandidate(node);
  if (type === 'function_signature' && implementedBelow(node)) return null;
  const name =
    type === 'internal_module'
      ? dottedName(node.childForFieldName('name'))
      : nameOf(node.childForFieldName('name'));
  if (name === null) return null;
  const body = node.childForFieldName('body');
  const isClass = type === 'class_declaration' || type === 'abstract_class_declaration';
  const isType = TYPES.has(type);
  const kind: ScriptKind = isClass ? 'class' : isType ? 'type' : 'function';
  return {
    name,
    kind,
    span: withOverloads(outer(node), name, place),
    head: node,
    // A type alias's "body" is its type: the signature is the alias's first line.
    body: type === 'type_alias_declaration' ? null : body,
    members: isClass ? body : null,
    async: kind === 'function' && hasAsync(node),
  };
}

/** Declarations of types, and namespaces: their members are reached through them (`Schema.Types`). */
const TYPES = new Set([
  'interface_declaration',
  'type_alias_declaration',
  'enum_declaration',
  'internal_module',
]);

const FUNCTIONS = new Set([
  ...FUNCTION_VALUES,
  'function_declaration',
  'generator_function_declaration',
  'method_definition',
]);

/**
 * Whether the nearest function around a declaration is its scope's own. One inside an anonymous
 * callback (`test('…', () => { const fetch = … })`, sixteen times in one test file) belongs to no
 * entity: it is none, rather than sixteen definitions of one module-level selector.
 */
function inOwnScope(node: Node, place: Place): boolean {
  for (let at = node.parent; at; at = at.parent) {
    if (FUNCTIONS.has(at.type) && !calledAtOnce(at)) return at.id === place.owner;
  }
  return place.owner === null;
}

/** `(function () { … })()` and `(() => { … })()`: a wrapper (UMD, older modules) its contents see through. */
function calledAtOnce(fn: Node): boolean {
  const wrapped = fn.parent?.type === 'parenthesized_expression' ? fn.parent : fn;
  const call = wrapped.parent;
  return call?.type === 'call_expression' && call.childForFieldName('function')?.id === wrapped.id;
}

/** `const f = () => …`, `const A = class {}`, `const api = {…}` anywhere; other values when exported at the top. */
function declaratorCandidate(node: Node): Candidate | null {
  const name = nameOf(node.childForFieldName('name'));
  const value = node.childForFieldName('value');
  const declaration = node.parent;
  if (name === null || !value || !declaration || !DECLARATIONS.has(declaration.type)) return null;
  const statement = outer(declaration);
  const atTop = statement.parent?.type === 'program';
  const span = declaration.namedChildCount === 1 ? statement : node;
  const kind = valueKind(value, atTop, statement.type === 'export_statement');
  return kind ? valueCandidate(name, kind, span, value) : null;
}

function valueKind(value: Node, atTop: boolean, exported: boolean): ScriptKind | null {
  if (FUNCTION_VALUES.has(value.type)) return 'function';
  if (CLASS_VALUES.has(value.type)) return 'class';
  if (value.type === 'object' && atTop) return 'variable';
  return exported && atTop ? 'variable' : null;
}

function valueCandidate(name: string, kind: ScriptKind, span: Node, value: Node): Candidate {
  const object = value.type === 'object';
  const body = object ? value : kind === 'variable' ? null : value.childForFieldName('body');
  return {
    name,
    kind,
    span: { first: span, last: span },
    head: span,
    body,
    members: kind === 'class' ? body : object ? value : null,
    async: FUNCTION_VALUES.has(value.type) && hasAsync(value),
  };
}

/** What a value defines when bound to a name: a function, a class or an object; else nothing. */
function definedKind(value: Node): ScriptKind | null {
  if (FUNCTION_VALUES.has(value.type)) return 'function';
  if (CLASS_VALUES.has(value.type)) return 'class';
  return value.type === 'object' ? 'variable' : null;
}

/** `export default function () {}`, `export default class {}`, `export default {…}`: named `default`. */
function defaultExport(node: Node): Candidate | null {
  const value = node.childForFieldName('value');
  if (!value) return null;
  const kind = definedKind(value);
  return kind ? valueCandidate('default', kind, node, value) : null;
}

/** `exports.f = function () {}`, `module.exports = {…}`, `A.prototype.m = () => {}` (assigned.ts). */
function assignmentCandidate(node: Node): Candidate | null {
  const assigned = assignedAt(node);
  if (!assigned) return null;
  const { name, value, statement } = assigned;
  const kind = definedKind(value);
  return kind ? valueCandidate(name, kind, statement, value) : null;
}

function memberCandidate(node: Node, place: Place): Candidate | null {
  if (node.type === 'method_signature' && implementedBelow(node)) return null;
  const name = nameOf(node.childForFieldName('name'));
  if (name === null) return null;
  const body = node.childForFieldName('body');
  return {
    name,
    kind: 'method',
    span: withOverloads(node, name, place),
    head: node,
    body,
    members: null,
    async: hasAsync(node),
  };
}

/** A class field or an object's property: an entity when it holds a function, or (in an object) an object. */
function fieldCandidate(node: Node): Candidate | null {
  const name = nameOf(node.childForFieldName(node.type === 'pair' ? 'key' : 'name'));
  const value = node.childForFieldName('value');
  if (name === null || !value) return null;
  if (FUNCTION_VALUES.has(value.type)) return { ...valueCandidate(name, 'method', node, value), head: node };
  if (node.type === 'pair' && value.type === 'object') return valueCandidate(name, 'variable', node, value);
  return null;
}

/** A name usable in a selector: identifiers, `#private`, and string keys that read as identifiers. */
function nameOf(node: Node | null): string | null {
  if (!node || node.isMissing || node.startIndex === node.endIndex) return null;
  let text = node.text;
  if (node.type === 'string') text = text.slice(1, -1);
  return /^#?[A-Za-z_$][\w$]*$/.test(text) ? text : null;
}

/** The statement a declaration stands in: `export …` with its decorators, or `declare …`. */
function outer(node: Node): Node {
  const parent = node.parent;
  return parent?.type === 'export_statement' || parent?.type === 'ambient_declaration' ? parent : node;
}

/** A namespace's name, nested ones too (`namespace A.B`). */
function dottedName(node: Node | null): string | null {
  if (!node) return null;
  const parts = node.text.split('.');
  return parts.every((part) => /^[A-Za-z_$][\w$]*$/.test(part)) ? node.text : null;
}

function signatureName(node: Node): string | null {
  const inner = node.type === 'export_statement' ? node.childForFieldName('declaration') : node;
  return inner ? nameOf(inner.childForFieldName('name')) : null;
}

/** Overload signatures right above an implementation of the same name belong to its span. */
function withOverloads(last: Node, name: string, place: Place): Span {
  let first = last;
  if (!place.overloaded.has(name)) return { first, last };
  for (let before = last.previousNamedSibling; before; before = before.previousNamedSibling) {
    if (before.type === 'comment') continue;
    if (!isSignature(before) || signatureName(before) !== name) break;
    first = before;
  }
  return { first, last };
}

/** Whether an overload signature is followed (past more signatures) by its implementation. */
function implementedBelow(node: Node): boolean {
  const start = outer(node);
  const name = signatureName(start);
  for (let next = start.nextNamedSibling; next && name !== null; next = next.nextNamedSibling) {
    if (next.type === 'comment') continue;
    if (signatureName(next) !== name) return false;
    if (!isSignature(next)) return true;
  }
  return false;
}

function isSignature(node: Node): boolean {
  const inner = node.type === 'export_statement' ? node.childForFieldName('declaration') : node;
  return inner?.type === 'function_signature' || inner?.type === 'method_signature';
}

function hasAsync(node: Node): boolean {
  return node.children.some((c) => c?.type === 'async');
}
