// Progress goes to stderr, so stdout carries only the results.
const started = 0; // performance.now() counts from the start of the process

export function progress(message) {
  const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

export const elapsedSeconds = () => (performance.now() - started) / 1000;
