// `import.meta.url` held by a name bound once (README "Workspaces"): `const here = import.meta.url`
// or `const { url } = import.meta`, then `new URL('./logo.svg', here)`. The name is the module's
// own address wherever it is read, so each `new URL` of a literal and that name is the literal
// form, and its literal can be made the declared asset's address as the literal form's is
// (`placeAssetUrls`). Told by scope analysis of the code esbuild printed, never by a scan of the
// text: a parameter or an inner binding of the same name is another value. A name also read
// otherwise (handed to `fetch`, a `new URL` of a computed address) is left as written and warned.
import { parse } from 'acorn';
import { analyze, type Reference, type Variable } from 'eslint-scope';

interface SyntaxNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/** One use `new URL(<literal>, name)`: where the literal is (quotes included) and what it says. */
export interface HeldUse {
  start: number;
  end: number;
  reference: string;
}

/** A name holding `import.meta.url`, bound once. */
export interface HeldBase {
  name: string;
  /** Where its initialiser (`import.meta.url`, or `import.meta` destructured) is in the code. */
  init: { start: number; end: number };
  /** Its reads as the base of a `new URL` of a literal. */
  uses: HeldUse[];
  /** Whether it is read otherwise too. */
  otherUses: boolean;
}

// What the code must hold for a held name to be worth parsing: esbuild's spellings, minified or not.
const MAY_HOLD = /(?:[\w$]\s*=\s*import\.meta\.url\b|\}\s*=\s*import\.meta\b(?!\s*\.))/;

const isMeta = (node: unknown): boolean => {
  const meta = node as SyntaxNode | null;
  return meta?.type === 'MetaProperty' && (meta.meta as { name: string }).name === 'import' && (meta.property as { name: string }).name === 'meta';
};

const isMetaUrl = (node: SyntaxNode | null): boolean =>
  node?.type === 'MemberExpression' && !node.computed && isMeta(node.object) && (node.property as { name?: string }).name === 'url';

/** The one name a declarator binds to `import.meta.url`, or null: `x = import.meta.url`, `{ url } = import.meta`, `{ url: x } = import.meta`. */
function heldName(declarator: SyntaxNode): SyntaxNode | null {
  const id = declarator.id as SyntaxNode;
  const init = declarator.init as SyntaxNode | null;
  if (id.type === 'Identifier') return isMetaUrl(init) ? id : null;
  if (id.type !== 'ObjectPattern' || !isMeta(init)) return null;
  const properties = id.properties as SyntaxNode[];
  if (properties.length !== 1) return null;
  const [property] = properties as [SyntaxNode];
  const key = property.key as SyntaxNode;
  const value = property.value as SyntaxNode;
  const named = key.type === 'Identifier' ? key.name : key.type === 'Literal' ? key.value : null;
  return property.type === 'Property' && !property.computed && named === 'url' && value.type === 'Identifier' ? value : null;
}

/** Every `new URL(a, b)` with an identifier as `b`, by where that identifier starts. */
function urlConstructions(tree: SyntaxNode): Map<number, SyntaxNode> {
  const found = new Map<number, SyntaxNode>();
  const visit = (node: SyntaxNode) => {
    const args = node.arguments as SyntaxNode[] | undefined;
    if (node.type === 'NewExpression' && (node.callee as SyntaxNode).type === 'Identifier' && (node.callee as { name: string }).name === 'URL' && args?.length === 2 && args[1]!.type === 'Identifier') {
      found.set(args[1]!.start, node);
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) if (item && typeof item.type === 'string') visit(item);
      if (value && typeof value === 'object' && typeof (value as SyntaxNode).type === 'string') visit(value as SyntaxNode);
    }
  };
  visit(tree);
  return found;
}

/** A literal address: a string, or a template without substitutions. */
function literalOf(node: SyntaxNode): string | null {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type !== 'TemplateLiteral' || (node.expressions as unknown[]).length > 0) return null;
  return ((node.quasis as Array<{ value: { cooked: string | null } }>)[0]!.value.cooked ?? null);
}

/** The names of `code` bound once to `import.meta.url`, and what reads them; none when the code holds no such name or does not parse. */
export function heldMetaUrlBases(code: string): HeldBase[] {
  if (!MAY_HOLD.test(code)) return [];
  let tree: SyntaxNode;
  try {
    tree = parse(code, { ecmaVersion: 'latest', sourceType: 'module', ranges: true }) as unknown as SyntaxNode;
  } catch {
    return [];
  }
  const scopes = analyze(tree as unknown as Parameters<typeof analyze>[0], { ecmaVersion: 2022, sourceType: 'module' });
  const constructions = urlConstructions(tree);
  // `URL` must be the browser's: a reference to it that no binding of the code resolves.
  const globalUrl = (construction: SyntaxNode): boolean =>
    scopes.scopes.some((scope) => scope.references.some((reference: Reference) => reference.identifier === construction.callee && reference.resolved === null));
  const bases: HeldBase[] = [];
  for (const scope of scopes.scopes) {
    for (const variable of scope.variables as Variable[]) {
      const [definition] = variable.defs;
      if (variable.defs.length !== 1 || definition!.type !== 'Variable') continue;
      const name = heldName(definition!.node as unknown as SyntaxNode);
      if (name === null || name !== (definition!.name as unknown)) continue;
      const base = heldBase(variable, definition!.node as unknown as SyntaxNode, constructions, globalUrl);
      if (base) bases.push(base);
    }
  }
  return bases;
}

/** The base a variable bound once to `import.meta.url` is, or null when it is written again. */
function heldBase(variable: Variable, declarator: SyntaxNode, constructions: Map<number, SyntaxNode>, globalUrl: (construction: SyntaxNode) => boolean): HeldBase | null {
  const init = declarator.init as SyntaxNode;
  const base: HeldBase = { name: variable.name, init: { start: init.start, end: init.end }, uses: [], otherUses: false };
  for (const reference of variable.references) {
    if (reference.init) continue;
    if (reference.isWrite()) return null;
    const construction = constructions.get((reference.identifier as unknown as SyntaxNode).start);
    const first = construction && (construction.arguments as SyntaxNode[])[0]!;
    const literal = first && globalUrl(construction) ? literalOf(first) : null;
    if (literal === null) base.otherUses = true;
    else base.uses.push({ start: first!.start, end: first!.end, reference: literal });
  }
  return base;
}
