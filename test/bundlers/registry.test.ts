// The bundler registry (src/bundlers/registry.ts): what it tells the loaded bundlers.
import { expect } from 'chai';
import { createBundlerRegistry } from '../../src/bundlers/registry.js';
import type { Bundler } from '../../src/bundlers/types.js';

describe('createBundlerRegistry', () => {
  it('tells every loaded bundler of files just saved, with the bytes the service read', async () => {
    const told: Record<string, [readonly string[], string | undefined][]> = { loaded: [], plain: [] };
    const fake = (name: string): Bundler => ({
      bundle: async () => [],
      rebuild: async () => {
        throw new Error('not built here');
      },
      ...(name === 'plain' ? {} : { anticipate: (saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined) => told[name]!.push([saved, bytesOf(saved[0]!)?.toString()]) }),
      dispose: async () => {},
    });
    const registry = createBundlerRegistry('/nowhere', (specifier) => ({ load: async () => ({ createBundler: () => fake(specifier) }) }));
    await registry.get({ name: 'a', specifier: 'loaded' });
    await registry.get({ name: 'b', specifier: 'plain' });
    // Still loading: it has built nothing yet, so nothing of its can be anticipated.
    void registry.get({ name: 'c', specifier: 'loading' });
    registry.anticipate!(['app/a.css'], (file) => Buffer.from(`${file} bytes`));
    expect(told).to.deep.equal({ loaded: [[['app/a.css'], 'app/a.css bytes']], plain: [] });
    await registry.dispose();
  });
});
