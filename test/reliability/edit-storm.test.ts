// An edit storm (README "Workspaces", README "Addresses", README "The event log, replay and state subscription"): hundreds of random valid and invalid edits of sources,
// stylesheets, assets and manifests in a few seconds, whole-file writes and atomic renames,
// with requests in flight. Every edit writes a unique marker, so each content on disk is
// known by its hash. Then, once quiet:
//   - `/state` deep-equals the report of a service started afresh on the same tree, and the
//     replay of the recorded log;
//   - every address serves the newest content: the code of each valid module holds the last
//     marker of each of its sources, its stylesheet the last stylesheet marker, each asset the
//     bytes on disk, and the ETag is the output hash of the folded state;
//   - in the recorded log, no build result of an older edit ever replaced a newer one: the
//     results each variant accepted read ever newer edits of every file, and so did the
//     workspace reads of every manifest;
//   - during the storm nothing answered 5xx, and no answer was older than its request.
// A second storm then fixes every file in one burst, and the same holds with every module valid.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ERROR_CODES } from '../../src/codes.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import type { CoreEvent } from '../../src/store/events.js';
import { reducer } from '../../src/store/reducer.js';
import { lastSession, parseLog, replay } from '../../src/store/replay.js';
import { selectReport, type Report } from '../../src/store/selectors.js';
import { initialState, type BuildRecord, type ServiceState } from '../../src/store/state.js';
import { readText } from '../helpers/edit.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import type { Answer } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { defects, freshReport, moduleOf, quietTree, stateOf, type Served } from './support.js';

// ---------------------------------------------------------------------------------------
// What is edited, and how. `valid` and `invalid` write a content holding `marker`.

interface Editable {
  tag: string;
  file: string;
  valid(marker: string, random: () => number): string;
  invalid(marker: string, random: () => number): string;
  /** How often it is picked, relative to the others. */
  weight: number;
}

const HELPER = 'packages/app/main/helper.ts';
const STYLES = 'packages/app/main/styles.css';
const LOGO = 'packages/app/main/logo.svg';
const PAD = 'packages/lib/format/internal/pad.ts';
const BADGE = 'packages/lib/widgets/badge/index.ts';
const TEMPLATES = 'packages/app/templates/index.ts';
const SERVER = 'packages/lib/server/index.ts';
const BADGE_MANIFEST = 'packages/lib/widgets/badge/module.json';
const MAIN_MANIFEST = 'packages/app/main/module.json';
const LIB_MANIFEST = 'packages/lib/package.json';
const WORKSPACE_MANIFEST = 'core.json';

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const EDITABLE: Editable[] = [
  {
    tag: 'H',
    file: HELPER,
    weight: 4,
    valid: (marker) => `export const HELPER_MARKER = '${marker}';\n\nexport function greet(): string {\n  return \`Hello from \${HELPER_MARKER}\`;\n}\n`,
    invalid: (marker, random) =>
      pick(random, [
        `export const HELPER_MARKER = '${marker}';\nexport function greet(: string {\n`,
        `import './missing-${marker}.ts';\nexport const greet = () => '${marker}';\n`,
        `export const HELPER_MARKER = '${marker}';\n`, // main imports greet, which is gone
      ]),
  },
  {
    tag: 'C',
    file: STYLES,
    weight: 3,
    valid: (marker, random) => `.core-probe {\n  color: rgb(${Math.floor(random() * 256)}, 2, 3);\n  display: block;\n  --storm: "${marker}";\n}\n`,
    invalid: (marker) => `@import "./missing-${marker}.css";\n.core-probe { color: red; }\n`,
  },
  {
    tag: 'L',
    file: LOGO,
    weight: 1,
    valid: (marker) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><title>${marker}</title></svg>`,
    invalid: (marker) => `<svg xmlns="http://www.w3.org/2000/svg"><title>${marker}</title>`, // an asset is never invalid
  },
  {
    tag: 'P',
    file: PAD,
    weight: 3,
    valid: (marker) =>
      `export function pad(n: number, width: number): string {\n  if (width < 1) {\n    throw new RangeError('${marker}: width must be at least 1');\n  }\n  const digits = String(Math.trunc(n));\n  return digits.length >= width ? digits : '0'.repeat(width - digits.length) + digits;\n}\n`,
    invalid: (marker) => `export function pad(n: number, width: number): string {\n  throw new RangeError('${marker}';\n}\n`,
  },
  {
    tag: 'B',
    file: BADGE,
    weight: 3,
    valid: (marker) => `import star from './star.svg';\n\nexport const BADGE_MARKER = '${marker}';\nexport const starIcon: string = star;\n`,
    invalid: (marker, random) =>
      pick(random, [`export const BADGE_MARKER = '${marker}' +;\n`, `import fs from 'node:fs';\nexport const BADGE_MARKER = '${marker}' + fs;\n`, `import x from '@acme/app/nothing';\nexport const BADGE_MARKER = '${marker}' + x;\n`]),
  },
  {
    tag: 'T',
    file: TEMPLATES,
    weight: 2,
    valid: (marker) => `import { html } from 'lit';\n\nexport const TEMPLATES_MARKER = '${marker}';\nexport const emptyState = (label: string) => html\`<p class="empty">\${label}</p>\`;\n`,
    invalid: (marker) => `import { html } from 'lit';\nexport const TEMPLATES_MARKER = '${marker}';\nexport const emptyState = (label: string) => html\`<p>\${label</p>\`;\n`,
  },
  {
    tag: 'S',
    file: SERVER,
    weight: 1,
    valid: (marker) => `import { join } from 'node:path';\n\nexport const SERVER_MARKER = '${marker}';\nexport const dataFile = (root: string, name: string): string => join(root, 'data', name);\n`,
    invalid: (marker) => `import { join } from 'node:path';\nexport const SERVER_MARKER = '${marker}' join;\n`,
  },
  {
    tag: 'BM',
    file: BADGE_MANIFEST,
    weight: 2,
    valid: (marker, random) => JSON.stringify({ platforms: pick(random, [['web'], ['web', 'node']]), entry: 'index.ts', assets: ['star.svg'], marker }),
    invalid: (marker, random) =>
      pick(random, [
        `{"platforms": ["web"], "entry": "index.ts", "assets": ["star.svg"], "marker": "${marker}",}`,
        JSON.stringify({ platforms: 'web', entry: 'index.ts', marker }),
        JSON.stringify({ platforms: ['web'], entry: 'index.ts', bundler: 'constructor', marker }),
        JSON.stringify({ platforms: ['web'], entry: 'index.ts', assets: ['../../package.json'], marker }),
      ]),
  },
  {
    tag: 'AM',
    file: MAIN_MANIFEST,
    weight: 1,
    valid: (marker) => JSON.stringify({ platforms: ['web'], assets: ['logo.svg'], marker }),
    invalid: (marker) => JSON.stringify({ platforms: ['web'], assets: 'logo.svg', marker }),
  },
  {
    tag: 'LP',
    file: LIB_MANIFEST,
    weight: 2,
    valid: (marker, random) =>
      `${JSON.stringify(
        {
          name: '@acme/lib',
          version: pick(random, ['1.2.0', '1.2.0', '1.3.0']),
          private: true,
          description: marker,
          exports: { './format': './format/index.ts', './server': './server/index.ts' },
          dependencies: {},
          core: { modules: '.', bundler: 'ts' },
          bundlers: { ts: '@core-js/packages/bundlers/ts' },
        },
        null,
        2,
      )}\n`,
    invalid: (marker, random) => pick(random, [`{"name": "@acme/lib", "description": "${marker}", `, JSON.stringify({ name: '@acme/lib', version: 'latest', description: marker })]),
  },
  {
    tag: 'W',
    file: WORKSPACE_MANIFEST,
    weight: 1,
    valid: (marker) => JSON.stringify({ packages: ['packages/app', 'packages/lib'], marker }),
    invalid: (marker) => JSON.stringify({ packages: 'packages/app', marker }),
  },
];

/** The edited files each module's code is built from (its other files are never edited). */
const CODE_SOURCES: Record<string, string[]> = {
  '@acme/app/main': [HELPER],
  '@acme/app/templates': [TEMPLATES],
  '@acme/lib/format': [PAD],
  '@acme/lib/widgets/badge': [BADGE],
  '@acme/lib/server': [SERVER],
};

const MARKER = /STORM_([A-Z]+)_(\d+)/g;

/** Text of each edited file of the fixture, found in its outputs, that no edit of the storm writes. */
const FIXTURE_SIGNS: Record<string, string> = {
  [HELPER]: 'APP_HELPER_MARKER',
  [STYLES]: '.core-probe',
  [LOGO]: '#123456',
  [PAD]: 'LIB_PAD_MARKER',
  [BADGE]: 'createBadge',
  [TEMPLATES]: 'emptyState',
  [SERVER]: 'function dataFile',
};

/** A small seeded generator (mulberry32), so a failing storm can be run again with its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------

interface Written {
  index: number;
  valid: boolean;
  text: string;
}

/** The workspace under a storm: what was written where, by hash, in order. */
class Storm {
  /** Global edit counter: the n of every marker. */
  count = 0;
  /** Per file, every content written, oldest first; index -1 is the fixture's own content. */
  readonly history = new Map<string, Written[]>();
  /** Per file, content hash to the index of the edit that wrote it. */
  readonly byHash = new Map<string, Map<string, number>>();

  constructor(readonly root: string) {
    for (const { file } of EDITABLE) this.remember(file, { index: -1, valid: true, text: readText(root, file) });
  }

  private remember(file: string, written: Written) {
    if (!this.history.has(file)) this.history.set(file, []);
    this.history.get(file)!.push(written);
    if (!this.byHash.has(file)) this.byHash.set(file, new Map());
    this.byHash.get(file)!.set(contentHash(written.text), written.index);
  }

  /** Writes a new content of `editable`: valid or not, in place or by an atomic rename. */
  edit(editable: Editable, valid: boolean, random: () => number): void {
    const index = this.count++;
    const marker = `STORM_${editable.tag}_${String(index).padStart(5, '0')}`;
    const text = valid ? editable.valid(marker, random) : editable.invalid(marker, random);
    const target = path.join(this.root, editable.file);
    if (random() < 0.3) {
      // As many editors save: a temporary file beside it, renamed over it.
      const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${index}.tmp`);
      fs.writeFileSync(temporary, text);
      fs.renameSync(temporary, target);
    } else {
      fs.writeFileSync(target, text);
    }
    this.remember(editable.file, { index, valid, text });
  }

  /** The default-variant code address of every module, by the versions on disk now (requests may still find them gone). */
  addresses(): Map<string, string> {
    let lib = '1.2.0';
    try {
      lib = (JSON.parse(this.last(LIB_MANIFEST).text) as { version?: string }).version ?? lib;
    } catch {
      // a broken package.json: its modules are gone, and the address answers 404
    }
    return new Map([
      ['@acme/app/main', `/m/@acme/app@1.0.0/modules/main?${DEV}`],
      ['@acme/app/templates', `/m/@acme/app@1.0.0/modules/templates?${DEV}`],
      ['@acme/lib/format', `/m/@acme/lib@${lib}/modules/format?${DEV}`],
      ['@acme/lib/widgets/badge', `/m/@acme/lib@${lib}/modules/widgets/badge?${DEV}`],
      ['@acme/lib/server', `/m/@acme/lib@${lib}/modules/server?target=node`],
    ]);
  }

  last(file: string): Written {
    return this.history.get(file)!.at(-1)!;
  }

  /** The index of the newest edit of every file, now. */
  snapshot(): Map<string, number> {
    return new Map(EDITABLE.map(({ file }) => [file, this.last(file).index]));
  }

  /** The marker of the last edit of `file`, or null for the fixture's own content. */
  lastMarker(file: string): string | null {
    const last = this.last(file);
    return last.index === -1 ? null : (/STORM_[A-Z]+_\d+/.exec(last.text)?.[0] ?? null);
  }
}

/** Rewrites a JSON file of `root` through `change`. */
function editJsonText(root: string, file: string, change: (json: any) => void): void {
  const json = JSON.parse(readText(root, file));
  change(json);
  fs.writeFileSync(path.join(root, file), `${JSON.stringify(json, null, 2)}\n`);
}

const tagOf = (file: string) => EDITABLE.find((e) => e.file === file)!.tag;

/** Markers of `tag` found in `text`, as edit indices. */
const markersIn = (text: string, tag: string): number[] => [...text.matchAll(MARKER)].filter((m) => m[1] === tag).map((m) => Number(m[2]));

/** The default variant's address of each module in `report`. */
function defaultAddress(module: Report['modules'][number], kind: 'modules' | 'styles' = 'modules', query = DEV): string {
  const q = module.platforms.includes('web') ? query : query.replace('target=browser', 'target=node');
  return `/m/${module.package}@${module.version}/${kind}/${module.subpath}?${q}`;
}

const defaultVariantKey = (module: Report['modules'][number]) => (module.platforms.includes('web') ? 'browser.development' : 'node.development');

// ---------------------------------------------------------------------------------------

/** Broken states the first storm holds until the service reports them (`holdBroken`), and the edits each makes. */
const HELD_BROKEN = 5;
const EDITS_OF_A_HOLD = 6;

describe('an edit storm', function () {
  this.timeout(180_000);
  const seed = Number(process.env.STORM_SEED ?? Date.now() % 1_000_000);
  const random = seeded(seed);
  let root: string;
  let record: string;
  let service: Served;
  let storm: Storm;
  const reported: string[] = [];
  /** Problems seen by requests during the storms, for one assertion at the end of each. */
  const problems: string[] = [];
  let answered = 0;
  /** Requests sent and not yet answered (named in a failure). */
  const pending = new Set<string>();

  before(async function () {
    root = fixtureWorkspace('basic');
    quietTree(root);
    record = path.join(tempWorkspace(), 'storm.ndjson');
    service = await serve(root, { record, logger: (line) => reported.push(line) });
    storm = new Storm(root);
    if (process.env.STORM_VERBOSE) console.log(`recording to ${record}`);
    expect((await stateOf(service)).modules.every((m) => m.status === 'valid')).to.equal(true);
  });
  after(async function () {
    await service?.close();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') {
      console.log(`      (edit storm seed ${seed}: run again with STORM_SEED=${seed})`);
      if (process.env.STORM_KEEP) fs.copyFileSync(record, process.env.STORM_KEEP);
    }
  });

  /** A request during the storm: never 5xx, errors from the table, never older than the request. */
  async function probe(address: string, module: string | null, kind: 'modules' | 'styles' | 'assets' | 'state') {
    const before = storm.snapshot();
    let answer: Answer;
    const pendingKey = `${address} sent after edit ${storm.count - 1} at ${Date.now()}`;
    pending.add(pendingKey);
    try {
      answer = await service.get(address);
    } catch (error) {
      pending.delete(pendingKey);
      problems.push(`${address}: ${(error as Error).message}`);
      return;
    }
    pending.delete(pendingKey);
    answered += 1;
    if (answer.status >= 500) problems.push(`${address} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    if (answer.status !== 200 && answer.status !== 304) {
      const code = /^application\/json/.test(String(answer.headers['content-type'])) ? (JSON.parse(answer.text) as { code: string }).code : null;
      if (!code || !(code in ERROR_CODES)) problems.push(`${address} answered ${answer.status} without a code of the table: ${answer.text.slice(0, 300)}`);
      return;
    }
    // The answer is never older than the request: each source it holds is at least as new as
    // the last edit written before the request was sent.
    const files = kind === 'modules' && module ? CODE_SOURCES[module]! : kind === 'styles' ? [STYLES] : kind === 'assets' ? [LOGO] : [];
    for (const file of files) {
      const floor = before.get(file)!;
      const seen = markersIn(answer.text, tagOf(file));
      if (floor === -1) continue;
      // No marker and none of the fixture's text: the file was read empty, in the middle of a
      // write that began after the request was sent (a newer state, if a torn one; the
      // service builds again once the write is over).
      if (seen.length === 0 && !answer.text.includes(FIXTURE_SIGNS[file]!)) continue;
      if (seen.length === 0 || Math.min(...seen) < floor) {
        problems.push(`${address} answered content of ${file} from edit ${seen.join(',') || '(the fixture)'}; edit ${floor} was written before the request`);
      }
    }
  }

  /**
   * A broken state held until the service has reported it, so the storm holds broken builds and
   * broken manifests however many random edits a loaded machine folds into one build: the
   * helper broken (manifests of its module valid, so it is built: a failed build), and the
   * badge's manifest broken then mended (two workspace models that differ: a read at least).
   */
  async function holdBroken(label: string): Promise<void> {
    const editable = (file: string) => EDITABLE.find((e) => e.file === file)!;
    for (const file of [WORKSPACE_MANIFEST, LIB_MANIFEST, MAIN_MANIFEST]) storm.edit(editable(file), true, random);
    storm.edit(editable(BADGE_MANIFEST), false, random);
    storm.edit(editable(HELPER), false, random);
    const broken = await stateOf(service);
    expect(moduleOf(broken, '@acme/app/main')?.status, `${label}: the helper broken`).to.equal('invalid');
    expect(moduleOf(broken, '@acme/lib/widgets/badge')?.diagnostics.map((d) => d.file), `${label}: the badge's manifest broken`).to.include(BADGE_MANIFEST);
    storm.edit(editable(BADGE_MANIFEST), true, random);
    const mended = await stateOf(service);
    expect(moduleOf(mended, '@acme/lib/widgets/badge')?.diagnostics.map((d) => d.file), `${label}: the badge's manifest mended`).not.to.include(BADGE_MANIFEST);
  }

  /**
   * Hundreds of edits, with requests in flight; resolves when the requests are answered.
   * `held` broken states (holdBroken) are spread over the storm, their edits beyond `edits`.
   */
  async function rage(edits: number, invalidShare: number, held = 0): Promise<void> {
    const inFlight: Promise<void>[] = [];
    const weighted = EDITABLE.flatMap((editable) => Array.from({ length: editable.weight }, () => editable));
    const holds = new Set(Array.from({ length: held }, (_, k) => Math.floor(((k + 0.5) * edits) / held)));
    for (let n = 0; n < edits; n += 1) {
      if (holds.has(n)) await holdBroken(`held broken state before edit ${n}`);
      storm.edit(pick(random, weighted), random() >= invalidShare, random);
      if (n % 4 === 0) {
        const [specifier, address] = pick(random, [...storm.addresses()]);
        inFlight.push(probe(address, specifier, 'modules'));
        inFlight.push(probe(`/m/@acme/app@1.0.0/styles/main?${DEV}`, '@acme/app/main', 'styles'));
        inFlight.push(probe('/m/@acme/app@1.0.0/assets/main/logo.svg', '@acme/app/main', 'assets'));
      } else if (n % 4 === 2) {
        inFlight.push(probe('/state', null, 'state'));
      }
      // Pacing, not a measure: a few edits land within one turn of the event loop, others apart.
      if (random() < 0.7) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 12)));
    }
    const timer = setInterval(() => {
      if (process.env.STORM_VERBOSE) console.log(`waiting for ${pending.size} answers: ${[...pending].slice(0, 5).join(' | ')}`);
    }, 5000);
    try {
      await Promise.all(inFlight);
    } finally {
      clearInterval(timer);
    }
  }

  /** The checks once the tree is quiet. */
  async function expectQuiet(label: string): Promise<Report> {
    const live = await stateOf(service);

    // The same report as a service started on this tree, and as the replay of the log.
    expect(live, `${label}: /state against a fresh service on the same tree`).to.deep.equal(await freshReport(root));
    const parsed = parseLog(fs.readFileSync(record, 'utf8'), record);
    expect(parsed.warnings).to.deep.equal([]);
    const events = lastSession(parsed.events);
    const folded = replay(events);
    expect(selectReport(folded), `${label}: the replay of the recorded log`).to.deep.equal(live);

    // Every address serves the newest content, and the folded state's output.
    for (const module of live.modules) {
      const address = defaultAddress(module);
      const answer = await service.get(address);
      if (module.status === 'invalid') {
        expect(answer.status, `${address}: ${answer.text.slice(0, 200)}`).to.equal(422);
        expect(answer.json().diagnostics, address).to.deep.equal(module.diagnostics);
        continue;
      }
      expect(answer.status, `${address}: ${answer.text.slice(0, 300)}`).to.equal(200);
      for (const file of CODE_SOURCES[module.specifier]!) {
        const marker = storm.lastMarker(file);
        if (marker) expect(answer.text, `${label}: ${address} holds the last edit of ${file}`).to.include(marker);
        expect(markersIn(answer.text, tagOf(file)).every((n) => `STORM_${tagOf(file)}_${String(n).padStart(5, '0')}` === marker), `${address}: no older edit of ${file}`).to.equal(true);
      }
      const record = folded.builds[module.specifier]!.variants[defaultVariantKey(module)]!.last as BuildRecord;
      expect(answer.headers.etag, `${address}: the output of the folded state`).to.equal(`"${record.outputs!.code.hash}"`);
      // Production output is built on request from the same sources.
      const production = await service.get(defaultAddress(module, 'modules', PROD));
      expect(production.status, production.text.slice(0, 200)).to.equal(200);
      for (const file of CODE_SOURCES[module.specifier]!) {
        const marker = storm.lastMarker(file);
        if (marker) expect(production.text, `${label}: production ${module.specifier} holds the last edit of ${file}`).to.include(marker);
      }
    }
    const main = moduleOf(live, '@acme/app/main');
    if (main?.status === 'valid') {
      const styles = await service.get(defaultAddress(main, 'styles'));
      expect(styles.status).to.equal(200);
      const marker = storm.lastMarker(STYLES);
      if (marker) expect(styles.text, `${label}: the stylesheet holds the last edit`).to.include(marker);
      const record = folded.builds['@acme/app/main']!.variants['browser.development']!.last!;
      expect(styles.headers.etag).to.equal(`"${record.outputs!.styles!.hash}"`);
    }
    if (main && !main.diagnostics.some((d) => d.file === MAIN_MANIFEST)) {
      const logo = await service.get(`/m/@acme/app@${main.version}/assets/main/logo.svg`);
      expect(logo.status).to.equal(200);
      expect(logo.text, `${label}: the asset as it is on disk`).to.equal(readText(root, LOGO));
    }
    // Addresses carry the current version only.
    for (const module of live.modules.filter((m) => m.package === '@acme/lib')) {
      const other = module.version === '1.2.0' ? '1.3.0' : '1.2.0';
      const answer = await service.get(defaultAddress({ ...module, version: other }));
      expect(answer.status, `${module.specifier}@${other}`).to.equal(404);
    }

    expectNoOlderOverNewer(events, label);
    if (process.env.STORM_VERBOSE) {
      const counts: Record<string, number> = {};
      for (const event of events) counts[event.type] = (counts[event.type] ?? 0) + 1;
      console.log(label, JSON.stringify(counts), live.modules.map((m) => `${m.subpath}:${m.status}`).join(' '), live.diagnostics.length);
    }
    return live;
  }

  /** Folds the log event by event: what each variant accepted, and each workspace read, only ever moves forward. */
  function expectNoOlderOverNewer(events: CoreEvent[], label: string) {
    let state: ServiceState = initialState();
    /** Per `module variant file` (or `workspace file`), the newest edit accepted so far. */
    const newest = new Map<string, { index: number; seq: number }>();
    const lastBuild = new Map<string, number>();
    let checked = 0;
    const forward = (key: string, file: string, hash: string | null, seq: number) => {
      const index = hash === null ? undefined : storm.byHash.get(file)?.get(hash);
      if (index === undefined) return; // absent, unverified ('?') or caught half-written
      const before = newest.get(key);
      expect(index, `${label}: ${key} went back from edit ${before?.index} (seq ${before?.seq}) to edit ${index} (seq ${seq})`).to.be.at.least(before?.index ?? -1);
      newest.set(key, { index, seq });
      checked += 1;
    };
    for (const event of events) {
      const previous = state;
      state = reducer(state, event);
      if (event.type === 'service.started') continue;
      if (state.workspace !== previous.workspace || state.workspace.sources !== previous.workspace.sources) {
        for (const [file, hash] of Object.entries(state.workspace.sources)) if (storm.byHash.has(file)) forward(`workspace ${file}`, file, hash, event.seq);
      }
      for (const [specifier, builds] of Object.entries(state.builds)) {
        for (const [variant, entry] of Object.entries(builds.variants)) {
          const accepted = entry.last;
          if (!accepted || accepted === previous.builds[specifier]?.variants[variant]?.last) continue;
          const key = `${specifier} ${variant}`;
          expect(accepted.build, `${label}: ${key} accepted build ${accepted.build} after build ${lastBuild.get(key)}`).to.be.above(lastBuild.get(key) ?? 0);
          lastBuild.set(key, accepted.build);
          for (const [file, hash] of Object.entries(accepted.inputs)) if (storm.byHash.has(file)) forward(`${key} ${file}`, file, hash, event.seq);
        }
      }
    }
    expect(checked, 'accepted results compared').to.be.at.least(20);
    if (process.env.STORM_VERBOSE) console.log(label, `${checked} accepted inputs compared over ${newest.size} keys`);
  }

  it('settles after hundreds of random valid and invalid edits to the state a fresh service reports, serving the newest content', async function () {
    await rage(400, 0.35, HELD_BROKEN);
    expect(storm.count).to.equal(400 + HELD_BROKEN * EDITS_OF_A_HOLD);
    await expectQuiet('after the storm');
    // The storm was one: the service saw broken builds and broken manifests along the way (each
    // held broken state makes one of each at least, whatever the machine's load).
    const events = parseLog(fs.readFileSync(record, 'utf8')).events;
    expect(events.filter((e) => e.type === 'build.failed').length, 'failed builds during the storm').to.be.at.least(HELD_BROKEN);
    expect(events.filter((e) => e.type === 'workspace.read').length, 'workspace reads during the storm').to.be.at.least(HELD_BROKEN);
    expect(problems, 'answers during the storm').to.deep.equal([]);
    expect(answered).to.be.at.least(200);
    expect(defects(reported)).to.deep.equal([]);
  });

  it('settles with every module valid after a burst that fixes every file', async function () {
    await rage(150, 0.5);
    // Every file valid again, in one synchronous burst: no turn of the event loop between writes.
    for (const editable of EDITABLE) storm.edit(editable, true, random);
    const live = await expectQuiet('after the fixing burst');
    expect(live.diagnostics).to.deep.equal([]);
    expect(live.modules.map((m) => `${m.specifier} ${m.status}`)).to.have.members(Object.keys(CODE_SOURCES).map((s) => `${s} valid`));
    for (const file of Object.values(CODE_SOURCES).flat()) expect(storm.lastMarker(file)).to.be.a('string');
    expect(problems, 'answers during the storm').to.deep.equal([]);
    expect(defects(reported)).to.deep.equal([]);
  });
});

// Found by the storm: a request for a module whose manifest broke after the route looked it
// up (between the disk check and the wait for its build) waited forever: an unbuildable module
// has no variants and ignores the request. It answers BUILD_FAILED instead.
describe('a module whose manifest breaks while a request waits for its build', function () {
  it('answers BUILD_FAILED with the manifest diagnostics rather than waiting forever', async function () {
    const root = fixtureWorkspace('basic');
    const service = await serve(root, { logger: () => {} });
    try {
      await stateOf(service);
      fs.writeFileSync(path.join(root, MAIN_MANIFEST), JSON.stringify({ platforms: ['web'], assets: 'logo.svg' }));
      // What the route does after it found the module declared: the disk check, then the build.
      const { readiness } = service.internals;
      await readiness.workspace({ kind: 'variant', module: '@acme/app/main', variant: 'browser.development' });
      const outcome = await Promise.race([
        readiness.variant('@acme/app/main', 'browser.development').then(
          () => 'a build record',
          (error: Error & { code?: string; diagnostics?: { kind: string }[] }) => `${error.code} ${error.diagnostics?.map((d) => d.kind).join()}`,
        ),
        new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 15 s'), 15_000)),
      ]);
      expect(outcome).to.equal('BUILD_FAILED MANIFEST_INVALID');
    } finally {
      await service.close();
    }
  });
});

// Found by the storm: a build may read a file while an editor saves it (truncated, then
// written). Saved with the very content it had, its hash is unchanged afterwards, so only its
// modification time tells that the build may have read it torn. A bundler of the workspace
// reads the entry torn once, the way that race does, on the first build after a flag appears.
describe('a file saved unchanged while a build reads it', function () {
  it('is built again: the torn read is never served as current', async function () {
    const flag = path.join(tempWorkspace(), 'tear-next-build');
    const bundler = `import fs from 'node:fs';
import path from 'node:path';
let torn = false;
export function createBundler({ root }) {
  const compile = (target) => {
    const file = path.join(root, target.entry);
    let text = fs.readFileSync(file, 'utf8');
    if (!torn && fs.existsSync(${JSON.stringify(flag)})) {
      torn = true;
      fs.writeFileSync(file, ''); // the editor truncates the file...
      const seen = fs.readFileSync(file, 'utf8'); // ...the build reads it...
      fs.writeFileSync(file, text); // ...and the editor writes the same content back
      text = seen;
    }
    const code = 'export const SOURCE = ' + JSON.stringify(text) + ';\\n';
    return { specifier: target.specifier, code: Buffer.from(code), styles: null, inputs: [target.entry], imports: [], errors: [] };
  };
  return { bundle: async (targets) => targets.map(compile), rebuild: async (target) => compile(target), dispose: async () => {} };
}
`;
    const root = fixtureWorkspace('basic', {
      'torn-bundler.mjs': bundler,
      [BADGE_MANIFEST]: JSON.stringify({ platforms: ['web'], entry: 'index.ts', assets: ['star.svg'], bundler: 'torn' }),
    });
    editJsonText(root, LIB_MANIFEST, (json) => (json.bundlers.torn = './torn-bundler.mjs'));
    quietTree(root);
    const service = await serve(root, { logger: () => {} });
    const address = `/m/@acme/lib@1.2.0/modules/widgets/badge?${DEV}`;
    try {
      expect((await service.get(address)).text).to.include('createBadge');
      fs.writeFileSync(flag, '');
      fs.writeFileSync(path.join(root, BADGE), "export const BADGE_SAVED = 'SAVED_CONTENT';\n");
      const answer = await service.get(address);
      expect(answer.status).to.equal(200);
      expect(answer.text, 'the code after the torn read').to.include('SAVED_CONTENT');
      expect(fs.readFileSync(path.join(root, BADGE), 'utf8')).to.include('SAVED_CONTENT');
    } finally {
      await service.close();
    }
  });
});

// Found by the storm: a helper caught empty (an editor's write truncates the file first) puts
// no bytes in the output, and the next change of that file must still build the module again.
describe('a file that put no bytes in the output', function () {
  for (const watch of [true, false]) {
    it(`is an input all the same (${watch ? 'watching' : 'no watcher, the check before answering'})`, async function () {
      const root = fixtureWorkspace('basic', { [PAD]: '' });
      quietTree(root);
      const service = await serve(root, { watch, logger: () => {} });
      try {
        expect(moduleOf(await stateOf(service), '@acme/lib/format')!.status).to.equal('valid');
        fs.writeFileSync(path.join(root, PAD), "export const pad = (n: number, width: number): string => 'PAD_WRITTEN_AT_LAST' + String(n).padStart(width, '0');\n");
        const code = await service.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`);
        expect(code.status).to.equal(200);
        expect(code.text, 'the code after the helper was written').to.include('PAD_WRITTEN_AT_LAST');
      } finally {
        await service.close();
      }
    });
  }
});

// Found by the storm: a failed build names the file that failed, not the others it read; a
// helper that breaks while the stylesheet is broken went unseen until the stylesheet was fixed.
describe('a file read by a build that failed elsewhere', function () {
  for (const watch of [true, false]) {
    it(`is an input all the same: its own break is reported at once (${watch ? 'watching' : 'no watcher, the check before answering'})`, async function () {
      const root = fixtureWorkspace('basic', { [STYLES]: '@import "./missing.css";\n.core-probe { color: red; }\n' });
      quietTree(root);
      const service = await serve(root, { watch, logger: () => {} });
      try {
        expect(moduleOf(await stateOf(service), '@acme/app/main')!.diagnostics.map((d) => d.file)).to.deep.equal([STYLES]);
        fs.writeFileSync(path.join(root, HELPER), "import './missing-helper.ts';\nexport const greet = () => 'BROKEN';\n");
        const live = await stateOf(service);
        expect(moduleOf(live, '@acme/app/main')!.diagnostics.map((d) => d.file).sort(), 'both broken files').to.deep.equal([HELPER, STYLES]);
        expect(live).to.deep.equal(await freshReport(root));
      } finally {
        await service.close();
      }
    });
  }
});

// Found by the storm: a build that fails on an import of a missing export reports the error
// at the import, in the importing file; the file that can fix it is the one the message names.
describe('a failure caused by another file', function () {
  for (const watch of [true, false]) {
    it(`is built again once that file is fixed (${watch ? 'watching' : 'no watcher, the check before answering'})`, async function () {
      const root = fixtureWorkspace('basic', { [HELPER]: "export const HELPER_MARKER = 'BROKEN';\n" });
      quietTree(root);
      const service = await serve(root, { watch, logger: () => {} });
      try {
        const broken = moduleOf(await stateOf(service), '@acme/app/main')!;
        expect(broken.status).to.equal('invalid');
        expect(broken.diagnostics.map((d) => d.message).join()).to.include('No matching export');
        fs.writeFileSync(path.join(root, HELPER), "export const HELPER_MARKER = 'FIXED';\nexport const greet = () => HELPER_MARKER;\n");
        expect(moduleOf(await stateOf(service), '@acme/app/main')!.status, 'the report after the fix').to.equal('valid');
        const code = await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`);
        expect(code.status).to.equal(200);
        expect(code.text).to.include('FIXED');
      } finally {
        await service.close();
      }
    });
  }
});
