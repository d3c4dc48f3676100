// Records keyed by file path, one per module (a build's inputs and their hashes), kept for the
// service's life. V8 gives an object made by `{}` the shape of every earlier `{}` that took the
// same first keys, and keeps at most about 1,500 such first keys on the shape of `{}`. Tens of
// thousands of records whose first key is a path of their own would use them all up, and from
// then on every `{}` given a new first key, such as the headers of each request, gets a shape
// nobody shares: the property reads that follow miss their caches on every request (ARCHITECTURE.md
// "One module's requests at 10,000 modules"). These records start from a shape of their own
// instead; they are still plain objects (prototype `Object.prototype`, own keys in order).
function PathRecordShape(this: object): void {}
PathRecordShape.prototype = Object.prototype;

/** An empty plain object for keys that are file paths, off the shape of `{}`. */
export function pathRecord<T>(): Record<string, T> {
  return new (PathRecordShape as unknown as new () => Record<string, T>)();
}
