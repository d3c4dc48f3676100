// What a manifest's JSON Schema refuses, as problems of its members: the validators compiled
// from schemas/ at build time (scripts/compile-schemas.js, README "Workspaces") judge, and each
// manifest's parser words the problem of a member for its users, by the table of its messages.

/** An error of an ajv validator: the members read here. */
export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  /** The key judged, for the errors of `propertyNames`'s own schema. */
  propertyName?: string;
}

/** A validator compiled by ajv: true when `data` is valid, else its errors in `errors`. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

/** A member the schema refuses: its path in the manifest (a missing member's included) and the keyword that failed. */
export interface SchemaProblem {
  path: string[];
  keyword: string;
}

/**
 * A message of a member: `at` its path, `*` standing for any one key (the keys matched are
 * `names`); with `keyword`, for that keyword only.
 */
export interface MemberMessage {
  at: string;
  keyword?: string;
  /** null: the problem is told by a rule of the parser's own (a rule the schema states only in part). */
  message: (value: unknown, names: string[]) => string | null;
}

export interface WordedProblem {
  /** The path of the member the message is about. */
  path: string[];
  message: string;
}

/** The problems `validate` finds in `data`: none when it is valid. */
export function schemaProblems(validate: SchemaValidator, data: unknown): SchemaProblem[] {
  if (validate(data)) return [];
  return chosenBranches(validate.errors ?? []).map((error) => {
    const path = decodePointer(error.instancePath);
    // A missing member and a refused key are problems of that member, not of its object.
    if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') path.push(error.params.missingProperty);
    else if (typeof error.params.propertyName === 'string') path.push(error.params.propertyName);
    else if (typeof error.propertyName === 'string') path.push(error.propertyName);
    return { path, keyword: error.keyword };
  });
}

/**
 * Each problem worded by the message of the nearest member that has one (the longest `at`
 * leading to it), once per message: a member refused for several reasons is told once.
 */
export function wordProblems(data: unknown, problems: SchemaProblem[], messages: MemberMessage[]): WordedProblem[] {
  const worded: WordedProblem[] = [];
  for (const problem of problems) {
    let best: { message: MemberMessage; length: number; names: string[] } | null = null;
    for (const message of messages) {
      if (message.keyword !== undefined && message.keyword !== problem.keyword) continue;
      const pattern = message.at === '' ? [] : message.at.split('/');
      const names = matchedNames(pattern, problem.path);
      const better = best === null || pattern.length > best.length || (pattern.length === best.length && message.keyword !== undefined);
      if (names !== null && better) best = { message, length: pattern.length, names };
    }
    const path = problem.path.slice(0, best?.length ?? problem.path.length);
    // A member no message names still is told, as the schema's keyword.
    const text = best ? best.message.message(valueAt(data, path), best.names) : `${path.join('.')} breaks the schema's "${problem.keyword}"`;
    if (text !== null && !worded.some((known) => known.message === text)) worded.push({ path, message: text });
  }
  return worded;
}

/** Whether a worded problem is about the member at `path` or one within it. */
export const isRefused = (problems: WordedProblem[], ...path: string[]): boolean =>
  problems.some((problem) => path.every((key, index) => problem.path[index] === undefined || problem.path[index] === key));

/**
 * Whether a worded problem is about the member at `path` itself (or a member holding it): for an
 * object of independent members (`core`), where a member refused within leaves the others.
 */
export const isRefusedItself = (problems: WordedProblem[], ...path: string[]): boolean =>
  problems.some((problem) => problem.path.length <= path.length && isRefused([problem], ...path));

// An `anyOf` refused reports every branch's errors: those of the one branch the value is of
// the type of (a string for a string form) say what is wrong; when no branch or several are,
// the `anyOf` itself does.
function chosenBranches(errors: SchemaError[]): SchemaError[] {
  const chosen: SchemaError[] = [];
  const within = (error: SchemaError, parent: SchemaError) =>
    error.schemaPath.startsWith(`${parent.schemaPath}/`) && (error.instancePath === parent.instancePath || error.instancePath.startsWith(`${parent.instancePath}/`));
  const anyOfs = errors.filter((error) => error.keyword === 'anyOf');
  for (const error of errors) {
    if (anyOfs.some((parent) => parent !== error && within(error, parent))) continue;
    if (error.keyword !== 'anyOf') {
      chosen.push(error);
      continue;
    }
    const branches = new Map<string, SchemaError[]>();
    for (const sub of errors.filter((candidate) => within(candidate, error))) {
      const branch = sub.schemaPath.slice(error.schemaPath.length + 1).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), sub]);
    }
    const fitting = [...branches.values()].filter((branch) => !branch.some((sub) => sub.keyword === 'type' && sub.instancePath === error.instancePath));
    chosen.push(...(fitting.length === 1 ? chosenBranches(fitting[0]!) : [error]));
  }
  return chosen;
}

const decodePointer = (pointer: string): string[] => (pointer === '' ? [] : pointer.slice(1).split('/').map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~')));

function valueAt(data: unknown, path: string[]): unknown {
  let value = data;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

// The manifest's own message (an empty pattern) is of the manifest itself, not of its members.
function matchedNames(pattern: string[], path: string[]): string[] | null {
  if (pattern.length > path.length || (pattern.length === 0 && path.length > 0)) return null;
  const names: string[] = [];
  for (const [index, key] of pattern.entries()) {
    if (key === '*') names.push(path[index]!);
    else if (key !== path[index]) return null;
  }
  return names;
}
