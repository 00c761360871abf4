// A colour for Ink's Text, or none when the user asked for none (NO_COLOR).
export const color = (c: string): string | undefined => (process.env.NO_COLOR ? undefined : c);
