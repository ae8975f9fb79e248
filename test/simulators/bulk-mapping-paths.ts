/** The mapped type of a field, as the simulator's index keeps it. */
export type FieldKind = 'object' | 'text' | 'long' | 'float' | 'boolean' | 'date';

/** What path lookups need of an index (bulk-index-store.ts MappedIndex): its mapping. */
interface MappedIndex {
  readonly mapping: Map<string, FieldKind>;
}

/**
 * A field path as the mapping names it, with the paths below it. Documents of one index repeat the
 * same fields, so each path string is built (and hashed) once instead of once per document, and a
 * scanner reading bytes finds a child by comparing key bytes, without decoding the key.
 */
export interface PathNode {
  readonly path: string;
  readonly children: Map<string, PathNode>;
  /** Children by the UTF-8 bytes of their key (at most MAX_BYTE_KEYS of them). */
  readonly byBytes: Array<{ readonly key: Uint8Array; readonly node: PathNode }>;
  /** The path's mapped kind once the mapping has one: a kind never changes once set. */
  kind: FieldKind | undefined;
}

/** Keys remembered as bytes per object; an object with more distinct keys is a map, not a record. */
const MAX_BYTE_KEYS = 64;

const roots = new WeakMap<MappedIndex, PathNode>();

/** The root (path `''`) of an index's paths. */
export function pathRoot(index: MappedIndex): PathNode {
  let root = roots.get(index);
  if (root === undefined) {
    root = newNode('');
    roots.set(index, root);
  }
  return root;
}

/** The path of `key` below `node` (`a` below the root, `a.b` below `a`, as the mapping writes it). */
export function childPath(node: PathNode, key: string): PathNode {
  let next = node.children.get(key);
  if (next === undefined) {
    next = newNode(node.path === '' ? key : `${node.path}.${key}`);
    node.children.set(key, next);
  }
  return next;
}

/**
 * childPath for the key whose UTF-8 bytes are `bytes[from, to)` (its JSON string without quotes);
 * undefined when the key is written with escapes (the caller then reads the document the slow way).
 */
export function childPathOfBytes(
  node: PathNode,
  bytes: Uint8Array,
  from: number,
  to: number,
): PathNode | undefined {
  const length = to - from;
  const kids = node.byBytes;
  for (let k = 0; k < kids.length; k++) {
    const key = kids[k]!.key;
    if (key.length !== length) continue;
    let j = 0;
    while (j < length && key[j] === bytes[from + j]) j++;
    if (j === length) return kids[k]!.node;
  }
  for (let j = from; j < to; j++) if (bytes[j] === 0x5c) return undefined;
  const next = childPath(node, Buffer.from(bytes.buffer, bytes.byteOffset + from, length).toString('utf8'));
  if (kids.length < MAX_BYTE_KEYS) kids.push({ key: bytes.slice(from, to), node: next });
  return next;
}

/** The kind `index` maps at `node`'s path, or undefined while it maps none. */
export function mappedKind(index: MappedIndex, node: PathNode): FieldKind | undefined {
  if (node.kind === undefined) node.kind = index.mapping.get(node.path);
  return node.kind;
}

function newNode(path: string): PathNode {
  return { path, children: new Map(), byBytes: [], kind: undefined };
}
