// The PEP 508 marker environment of the sandbox's Python. The values are those of Debian's
// python3 in each supported release on linux/x86_64 (trixie: 3.13.5, bookworm: 3.11.2, bullseye:
// 3.9.2), so a marker is evaluated for the interpreter that will run the tests, not for the host's.
// platform_release / platform_version are the kernel's, which the plan cannot know (the engine may
// be remote): they are '' and a marker on them compares as a string against ''.

export const SANDBOX_PYTHONS = ['3.13', '3.11', '3.9'] as const;
export const DEBIAN_RELEASES = ['trixie', 'bookworm', 'bullseye'] as const;
export type SandboxPython = (typeof SANDBOX_PYTHONS)[number];
export type DebianRelease = (typeof DEBIAN_RELEASES)[number];

/** The Pythons between and below the sandbox's, which no Debian release the sandbox reaches carries. */
export const UNREACHABLE_PYTHONS =
  'Python 3.6 to 3.8 and 3.10: no Debian release the sandbox reaches carries them';

export const MARKER_VARIABLES = [
  'python_version',
  'python_full_version',
  'os_name',
  'sys_platform',
  'platform_release',
  'platform_system',
  'platform_version',
  'platform_machine',
  'platform_python_implementation',
  'implementation_name',
  'implementation_version',
  'extra',
] as const;

export type MarkerVariable = (typeof MARKER_VARIABLES)[number];
export type MarkerEnvironment = Record<MarkerVariable, string>;

/** Older spellings the reference implementation still accepts, and the variable each means. */
export const MARKER_ALIASES: Readonly<Record<string, MarkerVariable>> = {
  'os.name': 'os_name',
  'sys.platform': 'sys_platform',
  'platform.version': 'platform_version',
  'platform.machine': 'platform_machine',
  'platform.python_implementation': 'platform_python_implementation',
  python_implementation: 'platform_python_implementation',
};

export const FULL_VERSION: Record<SandboxPython, string> = {
  '3.13': '3.13.5',
  '3.11': '3.11.2',
  '3.9': '3.9.2',
};

export const PYTHON_OF: Record<DebianRelease, SandboxPython> = {
  trixie: '3.13',
  bookworm: '3.11',
  bullseye: '3.9',
};
export const DEBIAN_OF: Record<SandboxPython, DebianRelease> = {
  '3.13': 'trixie',
  '3.11': 'bookworm',
  '3.9': 'bullseye',
};

export function markerEnvironment(python: SandboxPython, extra = ''): MarkerEnvironment {
  const full = FULL_VERSION[python];
  return {
    python_version: python,
    python_full_version: full,
    os_name: 'posix',
    sys_platform: 'linux',
    platform_release: '',
    platform_system: 'Linux',
    platform_version: '',
    platform_machine: 'x86_64',
    platform_python_implementation: 'CPython',
    implementation_name: 'cpython',
    implementation_version: full,
    extra,
  };
}
