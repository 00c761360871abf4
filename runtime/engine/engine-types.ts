// The shapes the engine adapter (docker-engine.ts) speaks in: what the sandbox sends to the engine
// and what it reads back, as far as piper-agent uses them.
export interface EngineInfo {
  version: string;
  apiVersion: string;
  os: string;
  endpoint: string;
}

/** The body of POST /containers/create, as far as the sandbox uses it. */
export interface ContainerConfig {
  Image: string;
  Cmd: string[];
  User: string;
  WorkingDir: string;
  Env: string[];
  Labels: Record<string, string>;
  OpenStdin: boolean;
  StdinOnce: boolean;
  AttachStdin: boolean;
  AttachStdout: boolean;
  AttachStderr: boolean;
  Tty: false;
  HostConfig: Record<string, unknown>;
}

/** The OCI runtimes the engine can start containers with (GET /info `Runtimes`), and its default. */
export interface EngineRuntimes {
  names: string[];
  default: string;
}

export interface ContainerState {
  id: string;
  exitCode: number;
  oomKilled: boolean;
  running: boolean;
  imageId: string;
}

export interface ContainerSummary {
  id: string;
  /** The container's names, without the engine's leading '/'. */
  names: string[];
  labels: Record<string, string>;
  state: string;
  /** When it was created, in seconds since the epoch (the engine's clock). */
  created: number;
}

export interface ImageSummary {
  id: string;
  tags: string[];
  labels: Record<string, string>;
  size: number;
  created: number;
}

/** What an engine made of a created container's settings (GET /containers/{id}/json). */
export interface AppliedSettings {
  User: string;
  HostConfig: Record<string, unknown>;
}

/** What inspecting an image tells piper. */
export interface ImageInfo {
  id: string;
  size: number;
  created: string;
  labels: Record<string, string>;
  layers: string[];
  /** As Go names it (amd64, arm64): which nodes can run the image. */
  architecture: string;
}

export type ProgressListener = (event: { status?: string; stream?: string; error?: string }) => void;
