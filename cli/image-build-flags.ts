// The flags `image build` and `ci-image build` share: --force and --dockerfile.
import { parseArgs } from 'node:util';

export function buildFlags(args: string[]): { force: boolean; path: 'offline' | 'dockerfile' } {
  const { values } = parseArgs({
    args,
    options: { force: { type: 'boolean', default: false }, dockerfile: { type: 'boolean', default: false } },
  });
  return { force: values.force, path: values.dockerfile ? 'dockerfile' : 'offline' };
}
