// Removing the environment images a test's repositories got built (by project label), so a test
// leaves the engine as it found it.
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { engine } from './sandbox.js';

export async function removeEnvImagesOf(repos: string[]): Promise<void> {
  for (const repo of repos) {
    const images = await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]);
    for (const image of images)
      for (const ref of image.tags.length ? image.tags : [image.id])
        await engine.removeImage(ref).catch(() => undefined);
  }
}
