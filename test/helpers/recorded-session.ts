// A recorded session of the example workspace: started, a module broken by a bad import,
// then fixed, then stopped; each step awaited on /state, so the log holds every build.
import path from 'node:path';
import { edit } from './edit.js';
import { serve } from './service.js';
import { exampleWorkspace, tempWorkspace } from './workspace.js';

export const BROKEN_MODULE = '@demo/shop/storefront';
export const BROKEN_FILE = 'packages/shop/storefront/index.ts';
export const BAD_IMPORT = "import './no-such-file.js';\n";

export async function recordSession(): Promise<string> {
  const root = exampleWorkspace();
  const record = path.join(tempWorkspace(), 'session.ndjson');
  const service = await serve(root, { record });
  try {
    const statusOf = async () => (await service.get('/state')).json<{ modules: { specifier: string; status: string }[] }>().modules.find((m) => m.specifier === BROKEN_MODULE)?.status;
    if ((await statusOf()) !== 'valid') throw new Error('the example workspace should start valid');
    edit(root, BROKEN_FILE, (text) => text + BAD_IMPORT);
    if ((await statusOf()) !== 'invalid') throw new Error('the bad import should make the module invalid');
    edit(root, BROKEN_FILE, (text) => text.replace(BAD_IMPORT, ''));
    if ((await statusOf()) !== 'valid') throw new Error('removing the bad import should make the module valid');
  } finally {
    await service.close();
  }
  return record;
}
