// What differs between model providers at the transport level: how the API key travels, which
// environment variables a person sets, and the public endpoint used when no base URL is given.
// Fix texts name these variables, so an error says exactly what to set for the provider in use.

export interface Provider {
  /** As a person names it in a message: "OpenAI-compatible", "Anthropic". */
  name: string;
  keyVar: string;
  urlVar: string;
  /** The public endpoint, used when the key is set and no base URL is. */
  defaultBaseUrl: string;
  /** The request headers that carry the key (and any version pin). */
  headers(apiKey: string): Record<string, string>;
}

export const OPENAI: Provider = {
  name: 'OpenAI-compatible',
  keyVar: 'OPENAI_API_KEY',
  urlVar: 'OPENAI_BASE_URL',
  defaultBaseUrl: 'https://api.openai.com/v1',
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
};

/** The Messages API version this client speaks; its reply shapes are what anthropic-messages.ts reads. */
export const ANTHROPIC_VERSION = '2023-06-01';

export const ANTHROPIC: Provider = {
  name: 'Anthropic',
  keyVar: 'ANTHROPIC_API_KEY',
  urlVar: 'ANTHROPIC_BASE_URL',
  // Without /v1, as Anthropic's own SDKs take it: request paths carry the version.
  defaultBaseUrl: 'https://api.anthropic.com',
  headers: (apiKey) => ({ 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION }),
};
