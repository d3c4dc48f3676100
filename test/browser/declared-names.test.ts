// Names TypeScript declares for its checker alone, which esbuild erases, in Chromium (README
// "Bundling real code", names nothing binds): a read of a global only a declaration file the
// package's tsconfig includes declares (`declare function analytics(...)` in types/globals.d.ts,
// `declare global { var eventQueue }` in a module one), and a write of a name declared so, in a
// declaration file or in the source (`declare let counter: number; counter = 1;`), throw when the
// module is imported, and /state lists each invalid, as core dist does; a module testing such a
// global with typeof, or writing the declared name on the global object first, is valid and runs
// on the preview.
import { chromiumForSuite } from '../helpers/chromium.js';
import { itJudgesAsChromiumRuns } from '../helpers/judged-pages.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SHOW = (value: string) => `document.body.insertAdjacentHTML('beforeend', '<p id="shown">' + ${value} + '</p>');\n`;

const THROWING = {
  declarationFileCall: { text: `analytics('js');\n${SHOW("'tracked'")}`, thrown: 'analytics is not defined' },
  declarationFileBlock: { text: `eventQueue.push('x');\n${SHOW("'pushed'")}`, thrown: 'eventQueue is not defined' },
  // Written only, never read: the write alone throws.
  declarationFileWrite: { text: `pageCounter = 1;\n${SHOW("'counted'")}`, thrown: 'pageCounter is not defined' },
  declaredWrite: { text: `declare let counter: number;\ncounter = 1;\n${SHOW("'counted'")}`, thrown: 'counter is not defined' },
} as const;

const RUNNING = {
  declarationFileTested: { text: `if (typeof analytics === 'function') analytics('js');\n${SHOW("'tracked ' + typeof analytics")}`, shown: 'tracked undefined' },
  declaredWriteShimmed: { text: `declare let shimmedCounter: number;\n(globalThis as { shimmedCounter?: number }).shimmedCounter = 0;\nshimmedCounter = 1;\n${SHOW("'counted ' + shimmedCounter")}`, shown: 'counted 1' },
} as const;

function workspace(): string {
  const cases = { ...THROWING, ...RUNNING };
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'] }),
    'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: Object.fromEntries(Object.keys(cases).map((name) => [`./${name}`, `./${name}/index.ts`])) }),
    // The globals, declared where only the checker reads them.
    'packages/app/tsconfig.json': json({ include: ['*/index.ts', 'types'] }),
    'packages/app/types/globals.d.ts': 'declare function analytics(...args: unknown[]): void;\ndeclare let pageCounter: number;\n',
    'packages/app/types/page.d.ts': 'export {};\ndeclare global {\n  var eventQueue: unknown[];\n}\n',
    ...Object.fromEntries(Object.entries(cases).map(([name, { text }]) => [`packages/app/${name}/index.ts`, `${text}export {};\n`])),
  });
}

describe('names TypeScript declares for its checker alone, read or written where the import runs, in Chromium', function () {
  this.timeout(300_000);
  const browser = chromiumForSuite();
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  itJudgesAsChromiumRuns({ browser, service: () => service, root: () => root, throwing: THROWING, running: RUNNING, entryOf: () => 'index.ts' });
});
