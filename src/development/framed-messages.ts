// The lines around each place an `invalid` message points at (README "Code frames"): the overlay
// shows them as the terminal does. Read when the message is sent, by the rule every frame follows
// (`sourceFrames`): from the file the build that reported the message read, while it still holds
// what that build read. The state holds no source text, so the event log never carries any.
import { sourceFrames } from '../io/source-frames.js';
import { moduleLabel, type PushMessage } from '../protocol/push.js';
import type { ServiceState } from '../store/state.js';

/**
 * Gives each `invalid` message's diagnostics their frames, judged against `state`, the state the
 * message was derived from: its build's read hashes, never a later build's (a rebuild that
 * finished since read the new lines, which must not stand under this message's places). Other
 * messages as they are.
 */
export function createMessageFramer(root: string): (message: PushMessage, state: ServiceState) => Promise<PushMessage> {
  return async (message, state) => {
    if (message.type !== 'invalid' || !message.diagnostics.some((d) => d.file && d.line && !d.frame)) return message;
    // A message names its module by label (README "Preview and stylesheet push"), the state by specifier.
    const module = state.workspace.modules.find((candidate) => moduleLabel(candidate) === message.module)?.specifier ?? null;
    let frames: Record<string, string>;
    try {
      frames = sourceFrames(root, state, message.diagnostics.filter((d) => !d.frame).map((diagnostic) => ({ module, diagnostic })));
    } catch {
      return message; // no frame rather than no message
    }
    const diagnostics = message.diagnostics.map((d) => (!d.frame && d.file && d.line && frames[`${d.file}:${d.line}`] ? { ...d, frame: frames[`${d.file}:${d.line}`] } : d));
    return { ...message, diagnostics };
  };
}
