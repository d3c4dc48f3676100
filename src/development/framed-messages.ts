// The lines around each place an `invalid` message points at (README "Preview and stylesheet
// push"): the overlay shows them as the terminal does. Read from a file the service built from,
// as the dashboard's frames are (`sourceFrames`), when the message is sent: the state holds no
// source text, so the event log never carries any.
import { sourceFrames } from '../io/source-frames.js';
import type { PushMessage } from '../protocol/push.js';
import type { ServiceState } from '../store/state.js';

/** Gives each `invalid` message's diagnostics their frames; other messages as they are. */
export function createMessageFramer(root: string, getState: () => ServiceState): (message: PushMessage) => Promise<PushMessage> {
  return async (message) => {
    if (message.type !== 'invalid' || !message.diagnostics.some((d) => d.file && d.line && !d.frame)) return message;
    const state = getState();
    const readable = (file: string) => file in state.workspace.sources || Object.values(state.builds).some((builds) => Object.values(builds.variants).some((variant) => variant.last?.inputs[file] !== undefined));
    let frames: Record<string, string>;
    try {
      frames = await sourceFrames(root, message.diagnostics.filter((d) => !d.frame), readable);
    } catch {
      return message; // no frame rather than no message
    }
    const diagnostics = message.diagnostics.map((d) => (!d.frame && d.file && d.line && frames[`${d.file}:${d.line}`] ? { ...d, frame: frames[`${d.file}:${d.line}`] } : d));
    return { ...message, diagnostics };
  };
}
