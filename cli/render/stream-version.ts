// The stream-json schema version, in a module of its own: the headless sink stamps it on `init`
// without importing the zod schemas (stream-schema.ts), which a run's first event need not wait for.

/** Bumped when a field changes meaning or disappears; new optional fields keep it. */
export const STREAM_SCHEMA_VERSION = 'piper-stream/2';
