// A module whose last build failed on a line of its entry, and a workspace on disk holding that
// entry as the build read it: what the code frames of the terminal, the dashboard and the overlay
// are read from (README "Code frames").
import { contentHash } from '../../src/outputs/content-hash.js';
import type { ServiceState } from '../../src/store/state.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { fold, moduleModel, started, startedBuild, workspaceModel } from './models.js';
import { tempWorkspace } from './workspace.js';

export const FRAMED_MODULE = moduleModel('one');
export const FRAMED_FILE = FRAMED_MODULE.entry!;
export const BUILT_LINE = "import './nope.js';";
/** The entry as the failed build read it: the error is on line 2, column 8. */
export const BUILT_TEXT = `export const kept = 1;\n${BUILT_LINE}\nexport const after = 2;\n`;
/** The entry saved after that build, before the next: line 2 holds something else now. */
export const SAVED_LINE = 'export const fixed = true;';
export const SAVED_TEXT = `export const kept = 1;\n${SAVED_LINE}\nexport const after = 2;\n`;

/** The state after the failed build of `FRAMED_MODULE`, which read `BUILT_TEXT`, and a workspace on disk holding `text` there. */
export function framedWorkspace(text = BUILT_TEXT): { root: string; state: ServiceState } {
  const root = tempWorkspace({ [FRAMED_FILE]: text });
  const state = fold([
    started,
    { type: 'workspace.read', workspace: workspaceModel([FRAMED_MODULE]) },
    startedBuild(1, 'browser.development', [{ module: FRAMED_MODULE, generation: 1 }]),
    {
      type: 'build.failed',
      build: 1,
      module: FRAMED_MODULE.specifier,
      variant: 'browser.development',
      errors: [diagnostic('BUNDLE_ERROR', 'Could not resolve "./nope.js"', { file: FRAMED_FILE, line: 2, column: 8 })],
      imports: [],
      inputs: { [FRAMED_FILE]: contentHash(BUILT_TEXT) },
    },
  ]);
  return { root, state };
}

/** `state` after the save of `SAVED_TEXT` and the build that followed, which read it and failed on its line 3. */
export function rebuiltState(state: ServiceState): ServiceState {
  return fold(
    [
      { type: 'files.changed', files: { [FRAMED_FILE]: contentHash(SAVED_TEXT) }, source: 'watcher' },
      startedBuild(2, 'browser.development', [{ module: FRAMED_MODULE, generation: 2 }]),
      {
        type: 'build.failed',
        build: 2,
        module: FRAMED_MODULE.specifier,
        variant: 'browser.development',
        errors: [diagnostic('BUNDLE_ERROR', 'Expected ";"', { file: FRAMED_FILE, line: 3, column: 1 })],
        imports: [],
        inputs: { [FRAMED_FILE]: contentHash(SAVED_TEXT) },
      },
    ],
    state,
  );
}
