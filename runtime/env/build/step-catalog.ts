// Every script an environment build can run, by phase, each rendered with placeholder arguments:
// the build spec carries this list (choose/build-spec.ts), so a change to any step's text changes
// every key and no image built by the old text is reused. The arguments themselves (requirements,
// packages, files) are the spec's own data.
import { EDITABLE_WHEEL_SOURCE } from './project/editable-wheel.js';
import { finderSource } from './project/editable-finder.js';
import { launchersStep } from './project/venv-launchers.js';
import { commandListStep } from './project/system-commands.js';
import {
  offlineInstallStep,
  pipDownloadStep,
  sdistBuildStep,
  sdistFetchStep,
  sdistListStep,
} from './deps/download-steps.js';
import { buildDepsDownloadStep, buildDepsInstallStep } from './deps/sdist-build-deps.js';
import { versionsScanStep } from './deps/installed-versions.js';
import { importCheckStep } from './import-check.js';
import { carriedDebsStep } from './offline/apt-offline.js';
import { entryPointsScanStep } from './project/pytest-entry-points.js';
import { Redactor } from '../plan/secrets.js';
import {
  aptStep,
  cleanStep,
  indexProbeStep,
  projectStep,
  repoWheelsStep,
  setupStep,
  venvStep,
} from './steps.js';
import type { StepSpec } from './build-box.js';

export interface CatalogStep {
  phase: 'dependencies' | 'build tools' | 'wheelhouse' | 'project' | 'top-up' | 'image';
  step: string;
  script: string;
}

const REQ = ['REQUIREMENT'];
const DIRS = ['/DIR'];
const NONE = new Redactor([]);

export function stepCatalog(): CatalogStep[] {
  const steps: Array<[CatalogStep['phase'], StepSpec]> = [
    ['dependencies', venvStep()],
    ['dependencies', aptStep('apt', ['PACKAGE'], false, true)],
    ['dependencies', aptStep('apt', ['PACKAGE'], true, false)],
    ['build tools', aptStep('apt', ['PACKAGE'], false, true, true)],
    ['build tools', carriedDebsStep(['PACKAGE'])],
    ['dependencies', indexProbeStep([])],
    ['dependencies', pipDownloadStep(REQ, [], NONE)],
    ['dependencies', sdistListStep('NAME', [])],
    ['dependencies', sdistFetchStep('NAME', 'FILE', [])],
    ['dependencies', buildDepsDownloadStep(REQ, [])],
    ['dependencies', buildDepsInstallStep(REQ)],
    ['dependencies', sdistBuildStep('FILE')],
    ['dependencies', offlineInstallStep(REQ, DIRS)],
    ['dependencies', offlineInstallStep(REQ, DIRS, 'fresh')],
    ['top-up', offlineInstallStep(REQ, DIRS, 'onto')],
    ['dependencies', versionsScanStep('versions', '3.13')],
    ['dependencies', importCheckStep('3.13', ['NAME'])],
    ['dependencies', entryPointsScanStep('pytest plugins', '3.13')],
    ['dependencies', cleanStep()],
    ['wheelhouse', repoWheelsStep(REQ, DIRS)],
    ['project', commandListStep()],
    ['project', setupStep(0, 'COMMAND')],
    ['project', projectStep({ env: { NAME: 'VALUE' }, note: 'NOTE' })],
    ['project', launchersStep([{ program: 'PROGRAM', module: 'MODULE' }])],
  ];
  return [
    ...steps.map(([phase, s]) => ({ phase, step: s.name, script: s.script })),
    { phase: 'project', step: 'editable wheel', script: EDITABLE_WHEEL_SOURCE },
    { phase: 'image', step: 'editable finder', script: finderSource({ mapping: {}, namespaces: {} }) },
  ];
}
