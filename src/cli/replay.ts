// TODO(issue): `core replay`, written in its own issue.
export const REPLAY_HELP = 'Usage: core replay\n';
export async function replayCommand(_args: string[]): Promise<number> {
  process.stderr.write('core replay: not available in this build\n');
  return 1;
}
