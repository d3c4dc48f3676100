// Manifests nested deeper than any needs (README "Workspaces"): `exports` or a bundler's
// `processors` 5,000 levels deep is MANIFEST_INVALID, in a service started on it and in one
// running when the edit comes; the service listens, answers /state, and recovers once the
// manifest is whole again.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Report } from '../../src/store/selectors.js';
import { MAX_MANIFEST_DEPTH } from '../../src/workspace/json.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { defects, stateOf } from './support.js';

const LEVELS = 5_000;
const LIB_MANIFEST = 'packages/lib/package.json';

const MARKER = '__DEEP__';

/** Each member made deep: where it goes in the library's manifest, and the key and innermost value of its nesting. */
const DEEP_MEMBERS: Record<string, { place(manifest: Record<string, unknown>): void; key: string; inner: string }> = {
  exports: { place: (manifest) => void ((manifest.exports as Record<string, unknown>)['./format'] = MARKER), key: 'import', inner: '"./format/index.ts"' },
  'bundlers.ts.processors': {
    place: (manifest) => void (manifest.bundlers = { ts: { specifier: '@core-js/packages/bundlers/ts', processors: MARKER } }),
    key: 'bundle',
    inner: '{"compiler": "esbuild"}',
  },
};

/** The library's manifest with `member` nested `LEVELS` deep, written as text (JSON.stringify of the value would recurse as deep). */
function deepText(original: string, member: string): string {
  const manifest = JSON.parse(original) as Record<string, unknown>;
  const { place, key, inner } = DEEP_MEMBERS[member]!;
  place(manifest);
  return JSON.stringify(manifest, null, 2).replace(`"${MARKER}"`, `${`{"${key}": `.repeat(LEVELS)}${inner}${'}'.repeat(LEVELS)}`);
}

/** The diagnostics of the report naming the library's manifest as too deep, wherever they are listed. */
function tooDeep(report: Report) {
  const all = [...report.diagnostics, ...report.modules.flatMap((module) => module.diagnostics)];
  return all.filter((diagnostic) => diagnostic.kind === 'MANIFEST_INVALID' && diagnostic.message.includes(`more than ${MAX_MANIFEST_DEPTH} levels deep`));
}

describe(`manifests nested ${LEVELS} levels deep`, function () {
  this.timeout(120_000);

  for (const member of Object.keys(DEEP_MEMBERS)) {
    it(`${member}: a service started on it listens, answers /state with MANIFEST_INVALID, and recovers`, async function () {
      const root = fixtureWorkspace('basic');
      const file = path.join(root, LIB_MANIFEST);
      const original = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, deepText(original, member));
      const reported: string[] = [];
      const service = await serve(root, { logger: (line) => reported.push(line) });
      try {
        const report = await stateOf(service);
        expect(tooDeep(report), JSON.stringify(report.diagnostics).slice(0, 500)).to.have.length.greaterThan(0);
        expect(report.modules.map((module) => module.specifier)).not.to.include('@acme/lib/format');
        fs.writeFileSync(file, original);
        await waitFor(async () => (await stateOf(service)).modules.some((module) => module.specifier === '@acme/lib/format' && module.status === 'valid'), { what: '@acme/lib/format valid again' });
        expect(defects(reported)).to.deep.equal([]);
      } finally {
        await service.close();
      }
    });

    it(`${member}: a running service that gets the edit keeps answering, and recovers`, async function () {
      const root = fixtureWorkspace('basic');
      const file = path.join(root, LIB_MANIFEST);
      const original = fs.readFileSync(file, 'utf8');
      const reported: string[] = [];
      const service = await serve(root, { logger: (line) => reported.push(line) });
      try {
        expect((await stateOf(service)).modules.find((module) => module.specifier === '@acme/lib/format')?.status).to.equal('valid');
        fs.writeFileSync(file, deepText(original, member));
        const report = await stateOf(service);
        expect(tooDeep(report), JSON.stringify(report.diagnostics).slice(0, 500)).to.have.length.greaterThan(0);
        expect((await service.get('/log')).status).to.equal(200);
        fs.writeFileSync(file, original);
        await waitFor(async () => (await stateOf(service)).modules.some((module) => module.specifier === '@acme/lib/format' && module.status === 'valid'), { what: '@acme/lib/format valid again' });
        expect(defects(reported)).to.deep.equal([]);
      } finally {
        await service.close();
      }
    });
  }
});
