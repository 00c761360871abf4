// The engine's replies as piper's own types: a listed container, a listed image, an inspected
// image. Pure mappings, apart from the adapter (docker-engine.ts) that makes the calls.
import type Docker from 'dockerode';
import type { ContainerSummary, ImageInfo, ImageSummary } from './engine-types.js';
import { shortTag } from './image-names.js';

export function containerSummaryOf(c: Docker.ContainerInfo): ContainerSummary {
  return {
    id: c.Id,
    names: (c.Names ?? []).map((n) => n.replace(/^\//, '')),
    labels: c.Labels ?? {},
    state: c.State,
    created: c.Created,
  };
}

export function imageSummaryOf(i: Docker.ImageInfo): ImageSummary {
  return {
    id: i.Id,
    // `<none>:<none>` is how the engine lists an untagged image: no tag.
    tags: (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>').map(shortTag),
    labels: i.Labels ?? {},
    size: i.Size,
    created: i.Created,
  };
}

export function imageInfoOf(info: Docker.ImageInspectInfo): ImageInfo {
  return {
    id: info.Id,
    size: info.Size,
    created: info.Created,
    labels: info.Config?.Labels ?? {},
    layers: info.RootFS?.Layers ?? [],
    architecture: info.Architecture ?? '',
  };
}
