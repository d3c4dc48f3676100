// Property-based tests of the `/m/` addresses (README "Error codes", README "Addresses", SECURITY.md) with fast-check: thousands
// of generated request-targets (percent-encodings, `.`/`..` in every spelling, encoded
// separators, double encoding, NUL, broken escapes, unicode raw and encoded, empty and very
// long segments, queries with valid, invalid, duplicate and unknown parameters) sent verbatim
// to a real service. For every one:
//   - the status is below 500;
//   - every answer but 200/304 is `application/json` with a `code` of the ERROR_CODES table whose
//     status it carries;
//   - a 200 comes only from an address whose segments, each decoded once, name a declared
//     output, and its body is exactly that output (the canonical answer fetched beforehand,
//     or the declared asset's bytes on disk); no answer ever holds an undeclared file;
//   - where the oracle below can tell (a target that cannot be parsed safely, a declared
//     output with a valid or an invalid query), the answer is exactly the one it predicts.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/codes.js';
import type { Report } from '../../src/store/selectors.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { rawRequest } from '../helpers/raw-request.js';
import { serve } from '../helpers/service.js';
import { writeFile } from '../helpers/workspace.js';

type Served = Awaited<ReturnType<typeof serve>>;

// ---------------------------------------------------------------------------------------
// The workspace: the basic fixture, its badge declaring assets with awkward names, and files
// nobody declares, each holding a marker that must never be served.

const SECRET = 'UNDECLARED_SECRET_MARKER';
const BADGE_ASSETS = ['star.svg', 'with space.svg', 'ünï.svg', 'a+b.svg', 'x;y=z.svg', 'icons/dot.svg', '50%.svg'];
const UNDECLARED_FILES = ['secret.txt', 'packages/secret.svg', 'packages/lib/widgets/badge/secret.svg', 'packages/lib/widgets/badge/icons/secret.svg', 'packages/app/main/secret.svg'];

interface DeclaredModule {
  pkg: string;
  version: string;
  subpath: string;
  dir: string;
  platforms: ('web' | 'node')[];
  assets: string[];
}

const MODULES: DeclaredModule[] = [
  { pkg: '@acme/app', version: '1.0.0', subpath: 'main', dir: 'packages/app/main', platforms: ['web'], assets: ['logo.svg'] },
  { pkg: '@acme/app', version: '1.0.0', subpath: 'templates', dir: 'packages/app/templates', platforms: ['web'], assets: [] },
  { pkg: '@acme/lib', version: '1.2.0', subpath: 'format', dir: 'packages/lib/format', platforms: ['web'], assets: [] },
  { pkg: '@acme/lib', version: '1.2.0', subpath: 'server', dir: 'packages/lib/server', platforms: ['node'], assets: [] },
  { pkg: '@acme/lib', version: '1.2.0', subpath: 'widgets/badge', dir: 'packages/lib/widgets/badge', platforms: ['web'], assets: BADGE_ASSETS },
];

// ---------------------------------------------------------------------------------------
// The oracle, written from the README, not from the service's code.

/** Every variant a query can name (README "Addresses"), by a key of its own. */
const VARIANTS = (['browser', 'node'] as const).flatMap((target) => [
  { target, env: 'development', min: 'false', sourcemap: 'inline' },
  { target, env: 'development', min: 'true', sourcemap: 'inline' },
  { target, env: 'development', min: 'false', sourcemap: 'none' },
  { target, env: 'development', min: 'true', sourcemap: 'none' },
  { target, env: 'production', min: 'true', sourcemap: 'none' },
]);
const variantKey = (v: { target: string; env: string; min: string; sourcemap: string }) => `${v.target}.${v.env}.${v.min}.${v.sourcemap}`;
const canonicalQuery = (v: { target: string; env: string; min: string; sourcemap: string }) => `target=${v.target}&format=esm&env=${v.env}&min=${v.min}&sourcemap=${v.sourcemap}&types=false&css=false`;

const ALLOWED: Record<string, readonly string[] | null> = {
  target: ['browser', 'node'],
  format: ['esm'],
  env: ['development', 'production'],
  min: ['false', 'true'],
  sourcemap: ['inline', 'none'],
  types: ['false'],
  css: ['false'],
  v: null,
};

/** The variant a query names by README "Addresses" (absent means the default), or null when it is outside that table. */
function variantOfQuery(query: string): string | null {
  const seen = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (!Object.hasOwn(ALLOWED, name) || seen.has(name)) return null;
    const allowed = ALLOWED[name];
    if (allowed && !allowed.includes(value)) return null;
    seen.set(name, value);
  }
  const env = seen.get('env') ?? 'development';
  const production = env === 'production';
  const min = seen.get('min') ?? String(production);
  const sourcemap = seen.get('sourcemap') ?? (production ? 'none' : 'inline');
  if (production && (min !== 'true' || sourcemap !== 'none')) return null;
  return variantKey({ target: seen.get('target') ?? 'browser', env, min, sourcemap });
}

/**
 * Can the target not be parsed safely (SECURITY.md)? Over 8 KiB, a `#`, anything but
 * printable ASCII (what an HTTP parser refuses), broken percent-encoding or a NUL byte.
 * `target` is what the server receives, one character per byte.
 */
function isUnsafeTarget(target: string): boolean {
  if (target.length > 8192 || target.includes('#') || /[^\x21-\x7e]/.test(target)) return true;
  try {
    return decodeURIComponent(target.replace(/\+/g, ' ')).includes('\0');
  } catch {
    return true;
  }
}

type Output =
  | { kind: 'modules' | 'styles'; module: DeclaredModule }
  | { kind: 'assets'; module: DeclaredModule; file: string };

/** Declared outputs by their decoded segments after `/m/` (a segment holding `%` never names anything). */
const DECLARED = new Map<string, Output>();
for (const module of MODULES) {
  const head = [...module.pkg.split('/').slice(0, -1), `${module.pkg.split('/').at(-1)}@${module.version}`];
  for (const kind of ['modules', 'styles'] as const) DECLARED.set(JSON.stringify([...head, kind, ...module.subpath.split('/')]), { kind, module });
  for (const file of module.assets) {
    const segments = [...head, 'assets', ...module.subpath.split('/'), ...file.split('/')];
    if (segments.some((s) => s.includes('%'))) continue;
    DECLARED.set(JSON.stringify(segments), { kind: 'assets', module, file });
  }
}

interface Canonical {
  status: number;
  code?: string;
  body: Buffer;
}

/** What an answer must be, when the oracle can tell. */
type Prediction =
  | { is: 'unsafe' }
  | { is: 'refused-query'; output: Output }
  | { is: 'output'; output: Output; expected: Canonical }
  /** `/m/` segments that name nothing declared: never a 200. */
  | { is: 'undeclared' }
  /** Not literally under `/m/`: no 200 unless it decodes to a declared output. */
  | { is: 'elsewhere'; output: Output | null; query: string };

const tryDecode = (segment: string): string | null => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
};

function predict(target: string, canonical: (output: Output, variant: string) => Canonical, assetBytes: (output: Output) => Buffer): Prediction {
  if (isUnsafeTarget(target)) return { is: 'unsafe' };
  const mark = target.indexOf('?');
  const pathPart = mark === -1 ? target : target.slice(0, mark);
  const query = mark === -1 ? '' : target.slice(mark + 1);
  const raw = pathPart.split('/').slice(1);
  const decoded = raw.map(tryDecode);
  const output = decoded[0] === 'm' && decoded.every((s) => s !== null) ? DECLARED.get(JSON.stringify(decoded.slice(1))) ?? null : null;
  if (raw[0] !== 'm') return { is: 'elsewhere', output, query };
  if (!output) return { is: 'undeclared' };
  return expectationFor(output, query, canonical, assetBytes);
}

function expectationFor(output: Output, query: string, canonical: (output: Output, variant: string) => Canonical, assetBytes: (output: Output) => Buffer): Prediction {
  if (output.kind === 'assets') {
    // An asset address ignores its query: the same declared bytes whatever it holds.
    return { is: 'output', output, expected: { status: 200, body: assetBytes(output) } };
  }
  const variant = variantOfQuery(query);
  if (variant === null) return { is: 'refused-query', output };
  return { is: 'output', output, expected: canonical(output, variant) };
}

// ---------------------------------------------------------------------------------------
// Generators.

const hex = (byte: number, lower: boolean) => {
  const text = byte.toString(16).padStart(2, '0');
  return `%${lower ? text : text.toUpperCase()}`;
};

/** Percent-encodes the characters of `text` chosen by `mask` (UTF-8, as browsers do). */
function encodeSome(text: string, mask: boolean[], lower: boolean): string {
  return [...text]
    .map((char, index) => (mask[index % Math.max(1, mask.length)] ? [...Buffer.from(char, 'utf8')].map((b) => hex(b, lower)).join('') : char))
    .join('');
}

/** What a client puts in a path for `text`: printable ASCII as is, everything else percent-encoded. */
const clientEncode = (text: string): string => [...text].map((char) => (/^[\x21-\x7e]$/.test(char) && !'#/?%'.includes(char) ? char : [...Buffer.from(char, 'utf8')].map((b) => hex(b, false)).join(''))).join('');

// Segments of the declared outputs, and other names of the workspace (files nobody declares).
const NAMES = [
  ...new Set([...DECLARED.keys()].flatMap((key) => (JSON.parse(key) as string[]).map(clientEncode))),
  'app@1.0.1', 'lib@1.0.0', 'app', 'lib', '@acme@1.0.0', 'types', 'sources', 'index.ts', 'helper.ts', 'module.json',
  'package.json', 'styles.css', 'internal', 'pad.ts', 'secret.svg', 'secret.txt', 'core.json', 'packages', 'node_modules', '.core',
];
// Ways out of a module, hidden separators, broken and double encodings.
const TRICKS = [
  '.', '..', '', '...', '%2e', '%2E', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '%2f', '%2F', '..%2f', '%2e%2e%2f', '%2e%2e%2F', '%5c', '%5C',
  '..%5c', '\\', '..\\', '..\\..\\package.json', '%25', '%252e%252e', '%252f', '%25252e', '%00', 'main%00', '%00.svg', '%ZZ', '%', '%2',
  '%e0%a4%a', '%C0%AE', '%C0%AE%C0%AE', '%c0%af', '%u002e', '%E2%80%AE', '%EF%BC%8E%EF%BC%8E', '~', ';', ';a=b', '%3B', '%3F', '%3f',
  '?', '%23', '@', '%40', '+', '%20', '%09', '%0a', '%7f', 'main;x', 'logo.svg;', 'logo.svg%3F', '..;', '%2e%2e;', 'logo.svg.', 'MAIN',
];
// Unicode: encoded (what a client must send), NFC and NFD spellings, look-alikes.
const UNICODE_TEXT = ['ünï.svg', 'u\u0308n\u0131.svg', 'é', '日本', '😀', '\u202e', '\u200b', 'ｍａｉｎ', 'ma\u0131n', '\u2024\u2024', '\ufeff', 'Ω'];
const ENCODED_UNICODE = UNICODE_TEXT.map((text) => encodeURIComponent(text));
// Raw characters a client may put in a path (printable ASCII but `#`, `/` and `?`, and latin-1).
const RAW_CHARS = [...Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).filter((c) => !'#/?'.includes(c)), 'é', 'ü', '\u00ff', '\u0080'];

const rawChar = fc.constantFrom(...RAW_CHARS);
const longSegment = fc.oneof(
  fc.integer({ min: 200, max: 4000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 50, max: 1500 }).map((n) => '%2e'.repeat(n)),
  fc.integer({ min: 50, max: 1000 }).map((n) => '..%2f'.repeat(n)),
  fc.string({ unit: rawChar, minLength: 100, maxLength: 3000 }),
);

/** One path segment: a name of the workspace (maybe re-encoded), a trick, unicode, raw characters, or a long string. */
const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...NAMES), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean()).map(([name, mask, lower]) => encodeSome(name, mask, lower)) },
  { weight: 4, arbitrary: fc.constantFrom(...TRICKS) },
  { weight: 2, arbitrary: fc.constantFrom(...ENCODED_UNICODE) },
  { weight: 2, arbitrary: fc.string({ unit: rawChar, maxLength: 12 }) },
  { weight: 1, arbitrary: longSegment },
);

/** The segments of a declared output, mutated: some re-encoded (once or twice), some tricks inserted, some dropped. */
const mutatedDeclared = fc
  .tuple(
    fc.constantFrom(...[...DECLARED.keys()].map((key) => (JSON.parse(key) as string[]).map(clientEncode))),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('encode', 'double', 'insert', 'drop', 'replace', 'keep', 'keep', 'keep'), segment, fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.boolean()), { maxLength: 3 }),
  )
  .map(([segments, mutations]) => {
    const result = [...segments];
    for (const [at, how, other, mask, lower] of mutations) {
      const index = at % (result.length + 1);
      const current = result[index] ?? '';
      if (how === 'encode') result[index] = encodeSome(current, mask, lower);
      else if (how === 'double') result[index] = encodeSome(current, mask, lower).replace(/%/g, '%25');
      else if (how === 'insert') result.splice(index, 0, other);
      else if (how === 'drop') result.splice(index, 1);
      else if (how === 'replace') result[index] = other;
    }
    return result;
  });

const parameterName = fc.constantFrom('target', 'format', 'env', 'min', 'sourcemap', 'types', 'css', 'v', 'foo', 'Target', 'ENV', 'env%20', 'en%76', '%65nv', '', 'v[]', 'min%00', 'sourceMap', '%ZZ', 'env%3D', '__proto__', 'constructor');
const parameterValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('browser', 'node', 'esm', 'development', 'production', 'false', 'true', 'inline', 'none') },
  { weight: 3, arbitrary: fc.constantFrom('', 'cjs', 'deno', 'staging', 'TRUE', '1', 'yes', 'external', 'prod%75ction', 'tru%65', '%ZZ', '%00', '%', '+true', 'true+', 'production%00', 'null', 'undefined', '%E2%80%AE') },
  { weight: 1, arbitrary: fc.constantFrom(...ENCODED_UNICODE) },
  { weight: 1, arbitrary: fc.string({ unit: rawChar, maxLength: 10 }).map((text) => text.replace(/[&=]/g, '')) },
);
const parameter = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(parameterName, parameterValue).map(([name, value]) => `${name}=${value}`) },
  { weight: 1, arbitrary: parameterName },
  { weight: 1, arbitrary: fc.constantFrom('=', '==', '&', 'env==production', 'v=a=b') },
);
/** A query: valid ones spelled out or in part, shuffled, and generated ones with duplicates and junk. */
const query = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...VARIANTS.map(canonicalQuery), '', 'env=production', 'target=node', 'sourcemap=none', 'min=true', 'v=1') },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...VARIANTS), fc.shuffledSubarray(['target', 'format', 'env', 'min', 'sourcemap', 'types', 'css', 'v'] as const), fc.string({ unit: rawChar, maxLength: 6 }))
      .map(([variant, names, token]) =>
        names.map((name) => (name === 'v' ? `v=${encodeURIComponent(token)}` : name === 'format' ? 'format=esm' : name === 'types' || name === 'css' ? `${name}=false` : `${name}=${variant[name]}`)).join('&'),
      ),
  },
  { weight: 4, arbitrary: fc.tuple(fc.array(parameter, { maxLength: 6 }), fc.constantFrom('&', '&', '&&', ';')).map(([parameters, glue]) => parameters.join(glue)) },
);

const prefix = fc.oneof({ weight: 12, arbitrary: fc.constant('m') }, { weight: 1, arbitrary: fc.constantFrom('M', '%6d', '%6D', '', '.', '..', 'm%2f', 'mm', '%2e%2e') });

/** A whole request-target: `/<prefix>/<segments>[?<query>]`. */
const target = fc
  .tuple(prefix, fc.oneof({ weight: 3, arbitrary: mutatedDeclared }, { weight: 2, arbitrary: fc.array(segment, { maxLength: 9 }) }), fc.option(query, { freq: 3 }))
  .map(([head, segments, search]) => `/${head}/${segments.join('/')}${search === null ? '' : `?${search}`}`);

// ---------------------------------------------------------------------------------------

describe('properties of the /m/ addresses', function () {
  this.timeout(120_000);
  let service: Served;
  let root: string;
  const reported: string[] = [];
  const canonicalAnswers = new Map<string, Canonical>();
  const assetFiles = new Map<string, Buffer>();
  let requests = 0;
  /** Answers by code ('200' for outputs): the generators must reach every kind of answer. */
  const tally = new Map<string, number>();

  const outputKey = (output: Output) => `${output.kind} ${output.module.pkg}/${output.module.subpath}${output.kind === 'assets' ? ` ${output.file}` : ''}`;
  const canonical = (output: Output, variant: string): Canonical => {
    const known = canonicalAnswers.get(`${outputKey(output)} ${variant}`);
    if (!known) throw new Error(`no canonical answer for ${outputKey(output)} ${variant}`);
    return known;
  };
  const assetBytes = (output: Output): Buffer => assetFiles.get(outputKey(output))!;

  const errorCode = (answer: { status: number; headers: Record<string, string | string[] | undefined>; text: string }): string => {
    const where = `${answer.status} ${answer.text.slice(0, 200)}`;
    expect(answer.headers['content-type'], where).to.match(/^application\/json\b/);
    const body = JSON.parse(answer.text) as { code: string; message: string };
    expect(body.code, where).to.be.oneOf(Object.keys(ERROR_CODES));
    expect(ERROR_CODES[body.code as keyof typeof ERROR_CODES].status, `${body.code} carries its status (${where})`).to.equal(answer.status);
    expect(body.message, where).to.be.a('string').that.is.not.empty;
    return body.code;
  };

  /** The properties every answer to `sent` (the target as the server receives it) must hold. */
  function check(sent: string, answer: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; text: string }) {
    requests += 1;
    const shown = sent.length > 300 ? `${sent.slice(0, 300)}… (${sent.length} characters)` : sent;
    expect(answer.status, `${shown} answered ${answer.status}: ${answer.text.slice(0, 200)}`).to.be.within(200, 499);
    expect(answer.text, `${shown} leaked an undeclared file`).not.to.include(SECRET);
    const code = answer.status === 200 ? null : errorCode(answer);
    tally.set(code ?? '200', (tally.get(code ?? '200') ?? 0) + 1);
    const prediction = predict(sent, canonical, assetBytes);
    const where = `${shown} (predicted ${prediction.is}) answered ${answer.status} ${answer.text.slice(0, 160)}`;
    switch (prediction.is) {
      case 'unsafe':
        expect(code, where).to.equal('REQUEST_INVALID');
        break;
      case 'refused-query':
        expect(code, where).to.equal('OPTION_UNSUPPORTED');
        break;
      case 'output':
        expect(answer.status, where).to.equal(prediction.expected.status);
        if (prediction.expected.status === 200) expect(answer.body.equals(prediction.expected.body), `${where}: the body of the declared output`).to.equal(true);
        else expect(code, where).to.equal(prediction.expected.code);
        break;
      case 'undeclared':
        expect(answer.status, `${where}: a 200 for segments that name no declared output`).not.to.equal(200);
        break;
      case 'elsewhere':
        if (answer.status === 200) {
          expect(prediction.output, `${where}: a 200 for a path that decodes to no declared output`).to.not.equal(null);
          const expected = expectationFor(prediction.output!, prediction.query, canonical, assetBytes);
          expect(expected.is, where).to.equal('output');
          expect(answer.body.equals((expected as { expected: Canonical }).expected.body), `${where}: the body of the declared output`).to.equal(true);
        }
        break;
    }
  }

  before(async function () {
    root = fixtureWorkspace('basic', {
      'packages/lib/widgets/badge/module.json': JSON.stringify({ platforms: ['web'], entry: 'index.ts', assets: BADGE_ASSETS }),
      ...Object.fromEntries(BADGE_ASSETS.filter((file) => file !== 'star.svg').map((file) => [`packages/lib/widgets/badge/${file}`, `<svg xmlns="http://www.w3.org/2000/svg"><title>${file}</title></svg>`])),
      ...Object.fromEntries(UNDECLARED_FILES.map((file) => [file, `${SECRET} ${file}`])),
    });
    service = await serve(root, { logger: (line) => reported.push(line) });

    // The oracle's model of the workspace is the service's.
    const report = (await service.get('/state')).json<Report>();
    expect(report.modules.map((m) => `${m.specifier} ${m.version} ${m.platforms.join(',')} ${m.status}`)).to.deep.equal(
      MODULES.map((m) => `${m.pkg}/${m.subpath} ${m.version} ${m.platforms.join(',')} valid`),
    );

    // The canonical answer of every declared output in every variant, fetched once.
    for (const output of DECLARED.values()) {
      if (output.kind === 'assets') {
        assetFiles.set(outputKey(output), fs.readFileSync(path.join(root, output.module.dir, output.file)));
        continue;
      }
      for (const variant of VARIANTS) {
        const answer = await service.get(`/m/${output.module.pkg}@${output.module.version}/${output.kind}/${output.module.subpath}?${canonicalQuery(variant)}`);
        const code = answer.status === 200 ? undefined : (answer.json() as { code: string }).code;
        canonicalAnswers.set(`${outputKey(output)} ${variantKey(variant)}`, { status: answer.status, code, body: answer.body });
      }
    }
    // Sanity of the oracle: code for the declared platforms only, a stylesheet for main only.
    for (const [key, answer] of canonicalAnswers) {
      const [kind, specifier, variant] = key.split(' ') as [string, string, string];
      const module = MODULES.find((m) => `${m.pkg}/${m.subpath}` === specifier)!;
      const fits = module.platforms.includes(variant.startsWith('browser') ? 'web' : 'node');
      const expected = !fits ? 404 : kind === 'modules' || specifier === '@acme/app/main' ? 200 : 404;
      expect(answer.status, key).to.equal(expected);
      if (!fits) expect(answer.code, key).to.equal('CONDITIONAL_NOT_FOUND');
    }
  });

  after(async function () {
    await service?.close();
  });

  afterEach(function () {
    expect(reported.filter((line) => /internal error/i.test(line)), 'internal errors reported by the service').to.deep.equal([]);
  });

  it('answers generated targets (paths and queries, sent verbatim) within the properties', async function () {
    await fc.assert(
      fc.asyncProperty(target, async (sent) => {
        check(sent, await service.get(sent));
      }),
      { numRuns: 4000 },
    );
  });

  it('answers every declared output under generated queries exactly as the query means by README "Addresses"', async function () {
    const address = fc.constantFrom(...[...DECLARED.values()].map((output) => `/m/${output.module.pkg}@${output.module.version}/${output.kind}/${output.module.subpath}${output.kind === 'assets' ? `/${encodeURIComponent(output.file).replace(/%2F/g, '/')}` : ''}`));
    await fc.assert(
      fc.asyncProperty(address, query, async (base, search) => {
        const sent = `${base}?${search}`;
        const answer = await service.get(sent);
        check(sent, answer);
        if (!isUnsafeTarget(sent)) expect(predict(sent, canonical, assetBytes).is, sent).to.be.oneOf(['output', 'refused-query']);
      }),
      { numRuns: 2500 },
    );
  });

  it('answers targets sent byte for byte on a socket: raw unicode, control characters, spaces', async function () {
    const rawSegment = fc.oneof(
      { weight: 4, arbitrary: segment },
      { weight: 2, arbitrary: fc.constantFrom(...UNICODE_TEXT) },
      { weight: 1, arbitrary: fc.constantFrom(' ', '\t', '\x01', '\x7f', '\x00', '\x1b', 'ma in', '\u00a0') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }).map((text) => text.replace(/[\r\n/?#]/g, '')) },
    );
    const rawTarget = fc
      .tuple(prefix, fc.oneof(mutatedDeclared, fc.array(rawSegment, { maxLength: 7 })), fc.option(query, { freq: 3 }))
      .map(([head, segments, search]) => `/${head}/${segments.join('/')}${search === null ? '' : `?${search}`}`);
    await fc.assert(
      fc.asyncProperty(rawTarget, async (written) => {
        const answer = await rawRequest(service.port, `GET ${written} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
        const received = { status: answer.status, headers: answer.headers, body: Buffer.from(answer.body, 'utf8'), text: answer.body };
        // What the server reads: the target's UTF-8 bytes, one character each. A space ends
        // the target in the request line: a parser may refuse the rest, or take the part before it.
        const bytes = Buffer.from(written, 'utf8').toString('latin1');
        const space = bytes.indexOf(' ');
        if (space !== -1 && answer.status === 400 && JSON.parse(answer.body).code === 'REQUEST_INVALID') check(bytes, received);
        else check(space === -1 ? bytes : bytes.slice(0, space), received);
      }),
      { numRuns: 1000 },
    );
  });

  const TOKEN_BASE = '/m/@acme/app@1.0.0/modules/main?v=';
  it('draws the 8 KiB line exactly: a target of 8192 characters is answered, one of 8193 is REQUEST_INVALID', async function () {
    const padded = fc.tuple(fc.constantFrom(...[...DECLARED.values()].filter((o) => o.kind !== 'assets' || !o.file.includes('%'))), fc.integer({ min: 8150, max: 8250 }), fc.boolean()).map(([output, length, inPath]) => {
      const base = `/m/${output.module.pkg}@${output.module.version}/${output.kind}/${output.module.subpath}${output.kind === 'assets' ? `/${encodeURIComponent(output.file).replace(/%2F/g, '/')}` : ''}`;
      // Padding in the cache-busting token keeps the address declared; in the path it does not.
      const filler = inPath ? `${base}/` : `${base}?v=`;
      return filler + 'x'.repeat(Math.max(0, length - filler.length));
    });
    const lengths = new Set<number>();
    await fc.assert(
      fc.asyncProperty(padded, async (sent) => {
        lengths.add(sent.length);
        check(sent, await service.get(sent));
      }),
      { numRuns: 300, examples: [[`${TOKEN_BASE}${'x'.repeat(8192 - TOKEN_BASE.length)}`], [`${TOKEN_BASE}${'x'.repeat(8193 - TOKEN_BASE.length)}`]] },
    );
    expect([...lengths].some((n) => n <= 8192) && [...lengths].some((n) => n > 8192), 'both sides of the line were tried').to.equal(true);
  });

  it('still answers /state with every module valid, after thousands of requests of every kind', async function () {
    expect(requests).to.be.at.least(7500);
    const counts = Object.fromEntries(tally);
    for (const kind of ['200', 'OUTPUT_NOT_AVAILABLE', 'REQUEST_INVALID', 'OPTION_UNSUPPORTED']) {
      expect(counts[kind] ?? 0, `answers ${kind} among ${JSON.stringify(counts)}`).to.be.at.least(300);
    }
    expect(counts.CONDITIONAL_NOT_FOUND ?? 0, `answers CONDITIONAL_NOT_FOUND among ${JSON.stringify(counts)}`).to.be.at.least(20);
    const answer = await service.get('/state');
    expect(answer.status).to.equal(200);
    expect(answer.json<Report>().modules.every((m) => m.status === 'valid')).to.equal(true);
  });
});

// Names a client or a manifest may use that are also members of Object.prototype: found by
// the generated queries above (`?constructor=browser` answered 500), then for the other
// name-keyed tables. Each must be an ordinary unknown name.
describe('names that Object.prototype also holds', function () {
  const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
  let service: Served;
  let root: string;
  const reported: string[] = [];

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root, { logger: (line) => reported.push(line) });
  });
  after(async function () {
    await service?.close();
  });
  afterEach(function () {
    expect(reported.filter((line) => /internal error|effect failed/i.test(line))).to.deep.equal([]);
  });

  it('are unknown query parameters: OPTION_UNSUPPORTED on code and stylesheets, ignored on assets', async function () {
    for (const name of NAMES) {
      const asset = await service.get(`/m/@acme/app@1.0.0/assets/main/logo.svg?${name}=browser`);
      expect(asset.status, `asset ?${name}`).to.equal(200);
      expect(asset.text).to.equal(fs.readFileSync(path.join(root, 'packages/app/main/logo.svg'), 'utf8'));
      for (const address of ['/m/@acme/app@1.0.0/modules/main', '/m/@acme/app@1.0.0/styles/main']) {
        const answer = await service.get(`${address}?${name}=browser`);
        expect(answer.status, `${address}?${name}: ${answer.text}`).to.equal(400);
        expect(answer.json().code).to.equal('OPTION_UNSUPPORTED');
      }
    }
  });

  it('are unregistered bundlers: MANIFEST_INVALID naming the bundler, not a failed bundler run', async function () {
    const manifest = 'packages/lib/widgets/badge/module.json';
    const before = fs.readFileSync(path.join(root, manifest), 'utf8');
    try {
      for (const name of NAMES) {
        writeFile(root, manifest, JSON.stringify({ platforms: ['web'], entry: 'index.ts', assets: ['star.svg'], bundler: name }));
        const badge = (await service.get('/state')).json<Report>().modules.find((m) => m.specifier === '@acme/lib/widgets/badge')!;
        expect(badge.status, name).to.equal('invalid');
        expect(badge.diagnostics.map((d) => d.kind), `${name}: ${JSON.stringify(badge.diagnostics)}`).to.deep.equal(['MANIFEST_INVALID']);
        expect(badge.diagnostics[0]!.message).to.include(`"${name}" is not registered`);
      }
    } finally {
      writeFile(root, manifest, before);
    }
  });

  it('are undeclared dependencies: a bare import of the package "constructor" is DEPENDENCY_NOT_DECLARED', async function () {
    const entry = 'packages/lib/widgets/badge/index.ts';
    const before = fs.readFileSync(path.join(root, entry), 'utf8');
    try {
      writeFile(root, entry, `import made from 'constructor';\nexport const BADGE = made;\n`);
      const badge = (await service.get('/state')).json<Report>().modules.find((m) => m.specifier === '@acme/lib/widgets/badge')!;
      expect(badge.status).to.equal('invalid');
      expect(badge.diagnostics.map((d) => d.kind), JSON.stringify(badge.diagnostics)).to.deep.equal(['DEPENDENCY_NOT_DECLARED']);
      expect(badge.diagnostics[0]!.message).to.include('"constructor"');
    } finally {
      writeFile(root, entry, before);
    }
    expect((await service.get('/state')).json<Report>().modules.every((m) => m.status === 'valid')).to.equal(true);
  });
});
