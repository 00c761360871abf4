// Parsing numeric command-line options with precise errors (exit 2, never NaN downstream).
import { UsageError } from './exit-codes.js';

export function numberOption(
  name: string,
  raw: string | undefined,
  range: { min: number; max: number; integer?: boolean },
): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const kind = range.integer ? 'an integer' : 'a number';
  if (raw.trim() === '' || !Number.isFinite(value) || (range.integer && !Number.isInteger(value))) {
    throw new UsageError(`${name} must be ${kind}, got '${raw}'`);
  }
  if (value < range.min || value > range.max) {
    throw new UsageError(`${name} must be between ${range.min} and ${range.max}, got ${raw}`);
  }
  return value;
}
