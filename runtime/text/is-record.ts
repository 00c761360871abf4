// The one narrowing of an unknown JSON value to its fields: an object (an array included), read
// field by field with each field still unknown. For values nothing has checked yet, such as what a
// model was shown or a result before the trust gate parses it.
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
