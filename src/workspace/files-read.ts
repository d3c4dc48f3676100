// What a build read, apart from what it only depends on (README "Shared files", "Bundling real
// code"): the one answer for every place that asks, the store's shared files and copies, a batch's
// shared files, `core dist`'s results from the team cache, and the team start's read-ahead.

/** A build as every layer keeps it: its inputs (a list, or paths to their hashes) and those it only depends on. */
export interface InputsOfBuild {
  inputs: readonly string[] | Readonly<Record<string, unknown>>;
  /**
   * The inputs that are no file the build read, whose bytes are in no output: where a link leads
   * (`<path> ->`), the paths tried before the file found (absent), the config places, and the
   * files another module's entry re-exports from, from TypeScript. Absent when none.
   */
  resolution?: readonly string[] | undefined;
}

/** The files a build read: its inputs but those it only depends on (`resolution`). */
export function filesRead(build: InputsOfBuild): readonly string[] {
  const { inputs, resolution } = build;
  const all: readonly string[] = Array.isArray(inputs) ? inputs : Object.keys(inputs);
  if (!resolution || resolution.length === 0) return all;
  const dependsOn = new Set(resolution);
  return all.filter((file) => !dependsOn.has(file));
}
