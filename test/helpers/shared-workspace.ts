// A workspace whose library shares module state, a Symbol and a class between its public modules
// through private files (README "Shared files"), and an app that shows whether each exists once:
// `#registry` 42, `#symbol` and `#instance` true, `#seed` the value registry.ts seeds.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

export const SEED_FILE = 'packages/lib/src/registry.ts';
export const seedSource = (seed: string) => `export const registry = new Map<string, unknown>([['seed', '${seed}']]);\n`;

export function sharedStateWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/lib', 'packages/app'], preview: '@r/app/main.js' }),
    'packages/lib/package.json': json({
      name: '@r/lib',
      version: '1.0.0',
      exports: { './define.js': './src/define.ts', './lookup.js': './src/lookup.ts', './mark.js': './src/mark.ts', './check.js': './src/check.ts', './make.js': './src/make.ts', './is.js': './src/is.ts' },
    }),
    [SEED_FILE]: seedSource('v1'),
    'packages/lib/src/define.ts': "import { registry } from './registry.ts';\nexport function define(name: string, value: unknown): void {\n  registry.set(name, value);\n}\n",
    'packages/lib/src/lookup.ts': "import { registry } from './registry.js';\nexport const lookup = (name: string): unknown => registry.get(name);\n",
    'packages/lib/src/token.ts': "export const TOKEN = Symbol('token');\n",
    'packages/lib/src/mark.ts': "import { TOKEN } from './token.ts';\nexport const mark = (target: object): object => Object.assign(target, { [TOKEN]: true });\n",
    'packages/lib/src/check.ts': "import { TOKEN } from './token.ts';\nexport const isMarked = (target: object): boolean => TOKEN in target;\n",
    'packages/lib/src/base.ts': 'export class Base {\n  kind = "base";\n}\n',
    'packages/lib/src/make.ts': "import { Base } from './base.ts';\nexport const make = (): Base => new Base();\n",
    'packages/lib/src/is.ts': "import { Base } from './base.ts';\nexport const isBase = (value: unknown): boolean => value instanceof Base;\n",
    'packages/app/package.json': json({ name: '@r/app', version: '1.0.0', exports: { './main.js': './main.ts' }, dependencies: { '@r/lib': '1.0.0' } }),
    'packages/app/main.ts': [
      "import { define } from '@r/lib/define.js';",
      "import { lookup } from '@r/lib/lookup.js';",
      "import { mark } from '@r/lib/mark.js';",
      "import { isMarked } from '@r/lib/check.js';",
      "import { make } from '@r/lib/make.js';",
      "import { isBase } from '@r/lib/is.js';",
      "define('x', 42);",
      'const show = (id: string, value: unknown) => {',
      "  const element = document.createElement('p');",
      '  element.id = id;',
      '  element.textContent = String(value);',
      '  document.body.append(element);',
      '};',
      "show('registry', lookup('x'));",
      "show('symbol', isMarked(mark({})));",
      "show('instance', isBase(make()));",
      "show('seed', lookup('seed'));",
      '',
    ].join('\n'),
  });
}

/** What the app shows, once it has shown it. */
export const SHOWN = { registry: '42', symbol: 'true', instance: 'true' };
