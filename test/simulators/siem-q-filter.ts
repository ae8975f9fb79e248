/**
 * The SIEM Q console's `filter` query parameter, the subset the simulator understands
 * (protocols-qradar-leef-syslog.md §4.2): comparisons `= != <> ^= < > <= >=` on top-level fields
 * against double-quoted strings (`\"` and `\\` escapes), numbers and `true`/`false`;
 * `in (…)`, `not in (…)`, `between a and b`, `not between`, `is null`, `is not null`; `and`, `or`,
 * `not` and parentheses; and `<array> contains <predicate>` (e.g. `log_sources contains id=5`), true
 * when one element of the array matches. Keywords are case-insensitive, field names are not.
 */

/** What a field holds; decides which literals and operators it accepts. */
export type FieldKind = 'number' | 'string' | 'boolean' | 'object' | 'array';

/** One field of a resource, for filters, `fields` projection and `sort`. */
export interface FieldSpec {
  readonly kind: FieldKind;
  /** Refuses `< > <= >= between` (offense `status`: §4.2). */
  readonly noRange?: boolean;
  /** Sub-fields of an object, or of each element of an array of objects. */
  readonly fields?: FieldSchema;
  /** Scalar kind of each element of an array of scalars (`group_ids`). */
  readonly items?: Exclude<FieldKind, 'object' | 'array'>;
}

/** Fields of a resource by name. */
export type FieldSchema = Readonly<Record<string, FieldSpec>>;

/** A filter, `fields` or `sort` the console would refuse (the caller picks the error code). */
export class QueryParamError extends Error {
  override readonly name = 'QueryParamError';
}

type Literal = string | number | boolean;
type CompareOp = '=' | '!=' | '<' | '>' | '<=' | '>=';

/** A parsed filter. */
export type FilterNode =
  | { readonly op: 'and' | 'or'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly op: 'not'; readonly expr: FilterNode }
  | { readonly op: CompareOp; readonly field: string; readonly value: Literal }
  | { readonly op: 'in'; readonly field: string; readonly values: readonly Literal[] }
  | { readonly op: 'between'; readonly field: string; readonly low: Literal; readonly high: Literal }
  | { readonly op: 'null'; readonly field: string }
  | { readonly op: 'contains'; readonly field: string; readonly expr: FilterNode }
  | { readonly op: 'containsValue'; readonly field: string; readonly value: Literal };

type Token =
  | { readonly t: 'word'; readonly v: string; readonly at: number }
  | { readonly t: 'str'; readonly v: string; readonly at: number }
  | { readonly t: 'num'; readonly v: number; readonly at: number }
  | { readonly t: 'op'; readonly v: string; readonly at: number }
  | { readonly t: 'punct'; readonly v: '(' | ')' | ','; readonly at: number }
  | { readonly t: 'end'; readonly at: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'between', 'is', 'null', 'contains']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: 'punct', v: c, at });
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new QueryParamError(`unterminated string starting at position ${at}`);
        const ch = text[i]!;
        if (ch === '\\' && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else if (ch === '"') {
          i++;
          break;
        } else {
          value += ch;
          i++;
        }
      }
      tokens.push({ t: 'str', v: value, at });
    } else if (/[-0-9]/.test(c)) {
      const m = /^-?\d+(\.\d+)?/.exec(text.slice(i));
      if (!m) throw new QueryParamError(`unexpected "${c}" at position ${at}`);
      tokens.push({ t: 'num', v: Number(m[0]), at });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ t: 'word', v: m[0], at });
      i += m[0].length;
    } else {
      const m = /^(<=|>=|<>|!=|\^=|=|<|>)/.exec(text.slice(i));
      if (!m) throw new QueryParamError(`unexpected "${c}" at position ${at}`);
      tokens.push({ t: 'op', v: m[0], at });
      i += m[0].length;
    }
  }
  tokens.push({ t: 'end', at: text.length });
  return tokens;
}

function describeToken(token: Token): string {
  if (token.t === 'end') return 'end of filter';
  if (token.t === 'str') return `"${token.v}" at position ${token.at}`;
  return `"${token.v}" at position ${token.at}`;
}

class Parser {
  readonly #tokens: Token[];
  #pos = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  peek(): Token {
    return this.#tokens[this.#pos]!;
  }

  next(): Token {
    const token = this.#tokens[this.#pos]!;
    if (token.t !== 'end') this.#pos++;
    return token;
  }

  isKeyword(word: string, token = this.peek()): boolean {
    return token.t === 'word' && token.v.toLowerCase() === word;
  }

  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.#pos++;
    return true;
  }

  expectKeyword(word: string): void {
    if (!this.acceptKeyword(word))
      throw new QueryParamError(`expected "${word}" but found ${describeToken(this.peek())}`);
  }

  expectPunct(p: '(' | ')' | ','): void {
    const token = this.next();
    if (token.t !== 'punct' || token.v !== p) {
      throw new QueryParamError(`expected "${p}" but found ${describeToken(token)}`);
    }
  }

  lookingAt(offset: number): Token {
    return this.#tokens[Math.min(this.#pos + offset, this.#tokens.length - 1)]!;
  }
}

/** Parses and checks a filter against the resource's fields; throws {@link QueryParamError}. */
export function parseFilter(text: string, schema: FieldSchema): FilterNode {
  const p = new Parser(tokenize(text));
  if (p.peek().t === 'end') throw new QueryParamError('the filter is empty');
  const node = orExpr(p, schema);
  const rest = p.peek();
  if (rest.t !== 'end') throw new QueryParamError(`unexpected ${describeToken(rest)}`);
  return node;
}

function orExpr(p: Parser, schema: FieldSchema): FilterNode {
  let left = andExpr(p, schema);
  while (p.acceptKeyword('or')) left = { op: 'or', left, right: andExpr(p, schema) };
  return left;
}

function andExpr(p: Parser, schema: FieldSchema): FilterNode {
  let left = notExpr(p, schema);
  while (p.acceptKeyword('and')) left = { op: 'and', left, right: notExpr(p, schema) };
  return left;
}

function notExpr(p: Parser, schema: FieldSchema): FilterNode {
  if (p.acceptKeyword('not')) return { op: 'not', expr: notExpr(p, schema) };
  return primary(p, schema);
}

function primary(p: Parser, schema: FieldSchema): FilterNode {
  const token = p.peek();
  if (token.t === 'punct' && token.v === '(') {
    p.next();
    const inner = orExpr(p, schema);
    p.expectPunct(')');
    return inner;
  }
  return predicate(p, schema);
}

function predicate(p: Parser, schema: FieldSchema): FilterNode {
  const token = p.next();
  if (token.t !== 'word' || KEYWORDS.has(token.v.toLowerCase())) {
    throw new QueryParamError(`expected a field name but found ${describeToken(token)}`);
  }
  const field = token.v;
  const spec = schema[field];
  if (!spec) throw new QueryParamError(`unknown field "${field}"`);

  if (p.acceptKeyword('is')) {
    const negated = p.acceptKeyword('not');
    p.expectKeyword('null');
    const node: FilterNode = { op: 'null', field };
    return negated ? { op: 'not', expr: node } : node;
  }
  if (p.acceptKeyword('contains')) {
    if (spec.kind !== 'array')
      throw new QueryParamError(`"contains" needs an array field, "${field}" is not one`);
    if (spec.fields) return { op: 'contains', field, expr: containsTarget(p, spec.fields) };
    const value = literal(p);
    checkLiteral(field, spec.items ?? 'string', value);
    return { op: 'containsValue', field, value };
  }
  const negated =
    p.isKeyword('not') && (p.isKeyword('in', p.lookingAt(1)) || p.isKeyword('between', p.lookingAt(1)));
  if (negated) p.next();
  let node: FilterNode;
  if (p.acceptKeyword('in')) {
    requireScalar(field, spec);
    p.expectPunct('(');
    const values: Literal[] = [literal(p)];
    for (;;) {
      const t = p.peek();
      if (t.t === 'punct' && t.v === ',') {
        p.next();
        values.push(literal(p));
        continue;
      }
      break;
    }
    p.expectPunct(')');
    for (const v of values) checkLiteral(field, spec.kind, v);
    node = { op: 'in', field, values };
  } else if (p.acceptKeyword('between')) {
    requireScalar(field, spec);
    if (spec.noRange) throw new QueryParamError(`"${field}" cannot be filtered with between`);
    const low = literal(p);
    p.expectKeyword('and');
    const high = literal(p);
    checkLiteral(field, spec.kind, low);
    checkLiteral(field, spec.kind, high);
    node = { op: 'between', field, low, high };
  } else {
    const opToken = p.next();
    if (opToken.t !== 'op')
      throw new QueryParamError(`expected an operator after "${field}" but found ${describeToken(opToken)}`);
    requireScalar(field, spec);
    const op: CompareOp = opToken.v === '<>' || opToken.v === '^=' ? '!=' : (opToken.v as CompareOp);
    if (spec.noRange && op !== '=' && op !== '!=') {
      throw new QueryParamError(`"${field}" cannot be filtered with ${opToken.v}`);
    }
    const value = literal(p);
    checkLiteral(field, spec.kind, value);
    if (spec.kind === 'boolean' && op !== '=' && op !== '!=') {
      throw new QueryParamError(`"${field}" is a boolean: only = and != apply`);
    }
    node = { op, field, value };
  }
  return negated ? { op: 'not', expr: node } : node;
}

function containsTarget(p: Parser, schema: FieldSchema): FilterNode {
  const token = p.peek();
  if (token.t === 'punct' && token.v === '(') {
    p.next();
    const inner = orExpr(p, schema);
    p.expectPunct(')');
    return inner;
  }
  return predicate(p, schema);
}

function literal(p: Parser): Literal {
  const token = p.next();
  if (token.t === 'str' || token.t === 'num') return token.v;
  if (p.isKeyword('true', token)) return true;
  if (p.isKeyword('false', token)) return false;
  throw new QueryParamError(`expected a value but found ${describeToken(token)}`);
}

function requireScalar(field: string, spec: FieldSpec): void {
  if (spec.kind === 'object' || spec.kind === 'array') {
    throw new QueryParamError(
      `"${field}" is ${spec.kind === 'array' ? 'a list' : 'an object'} and cannot be compared`,
    );
  }
}

function checkLiteral(field: string, kind: FieldKind, value: Literal): void {
  const actual = typeof value;
  if (actual !== kind)
    throw new QueryParamError(`"${field}" is a ${kind}: cannot compare it with ${JSON.stringify(value)}`);
}

/** Whether `item` matches the parsed filter. */
export function matchesFilter(node: FilterNode, item: Readonly<Record<string, unknown>>): boolean {
  switch (node.op) {
    case 'and':
      return matchesFilter(node.left, item) && matchesFilter(node.right, item);
    case 'or':
      return matchesFilter(node.left, item) || matchesFilter(node.right, item);
    case 'not':
      return !matchesFilter(node.expr, item);
    case 'null':
      return item[node.field] === null || item[node.field] === undefined;
    case 'in':
      return node.values.some((v) => item[node.field] === v);
    case 'between': {
      const value = item[node.field];
      return isScalar(value) && compare(value, node.low) >= 0 && compare(value, node.high) <= 0;
    }
    case 'contains': {
      const list = item[node.field];
      return (
        Array.isArray(list) &&
        list.some(
          (el) =>
            el !== null && typeof el === 'object' && matchesFilter(node.expr, el as Record<string, unknown>),
        )
      );
    }
    case 'containsValue': {
      const list = item[node.field];
      return Array.isArray(list) && list.includes(node.value);
    }
    default: {
      const value = item[node.field];
      if (node.op === '=') return value === node.value;
      if (node.op === '!=') return value !== node.value;
      if (!isScalar(value) || typeof value !== typeof node.value) return false;
      const c = compare(value, node.value);
      if (node.op === '<') return c < 0;
      if (node.op === '>') return c > 0;
      if (node.op === '<=') return c <= 0;
      return c >= 0;
    }
  }
}

/** Parses `text` once and returns a predicate; throws {@link QueryParamError}. */
export function compileFilter(
  text: string,
  schema: FieldSchema,
): (item: Readonly<Record<string, unknown>>) => boolean {
  const node = parseFilter(text, schema);
  return (item) => matchesFilter(node, item);
}

function isScalar(value: unknown): value is Literal {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Orders two scalars of the same kind (strings by code unit, false before true). */
export function compare(a: Literal, b: Literal): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
