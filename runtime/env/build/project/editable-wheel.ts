// The project's editable install without pip, when its build backend can do it, for speed: pip
// takes 2.9 s for a small project here, 2.1 s of it its own start and one fresh interpreter per
// PEP 517 hook; the three hooks in one interpreter take 0.7 s. This program, run by the venv's
// Python in the project phase's box (no network, no secret: the same place pip ran the backend),
// does what pip's install does for an editable wheel:
//   - reads [build-system] from pyproject.toml (default setuptools' legacy backend, as pip's
//     --use-pep517), puts backend-path first on sys.path, imports the backend;
//   - calls build_editable (PEP 660) into a scratch directory in /tmp, in /work, as pip's hook runner does;
//   - unpacks the wheel into the venv (root and .data/purelib|platlib into site-packages,
//     .data/scripts into bin), writes INSTALLER and direct_url.json as pip does, and a wrapper in
//     bin for each console and GUI script of its entry points.
// Run isolated (-I): neither /work nor any PYTHON* variable decides what `import zipfile` means;
// and writing no bytecode (-B): nothing of the build's own to sort out of its layer.
// Anything it cannot do — a backend without build_editable, a wheel entry outside the venv, any
// error — exits non-zero before or without installing, and the step runs pip as before, which
// then reports the failure in pip's words. What either leaves is read back as data, and piper
// writes the install from it (project-layer.ts, project-files.ts): the wrappers and the
// INSTALLER/direct_url.json written here stay in the build box.

/** Exit status meaning "not done, let pip do it" for reasons that are not a failure. */
const PIP_INSTEAD = 75;

export const EDITABLE_WHEEL_SOURCE = String.raw`
import configparser, importlib, json, os, shutil, sys, sysconfig, tempfile, zipfile

try:
    import tomllib
except ImportError:
    # Python 3.9 (Debian bullseye) has no tomllib; its setuptools has no build_editable either.
    print("piper: this Python has no tomllib; pip installs the project")
    sys.exit(${PIP_INSTEAD})
os.chdir("/work")
build_system = {}
if os.path.exists("pyproject.toml"):
    with open("pyproject.toml", "rb") as f:
        build_system = tomllib.load(f).get("build-system", {})
spec = build_system.get("build-backend") or "setuptools.build_meta:__legacy__"
for path in reversed(build_system.get("backend-path", [])):
    sys.path.insert(0, os.path.join("/work", path))
if spec.startswith("setuptools.build_meta:__legacy__"):
    sys.path.insert(0, "/work")
module, _, attr = spec.partition(":")
backend = importlib.import_module(module)
for part in filter(None, attr.split(".")):
    backend = getattr(backend, part)
if not hasattr(backend, "build_editable"):
    print("piper: the build backend has no build_editable; pip installs the project")
    sys.exit(${PIP_INSTEAD})
out = tempfile.mkdtemp(prefix="piper-editable-")
wheel = os.path.join(out, backend.build_editable(out))

paths = sysconfig.get_paths()
site, scripts, prefix = paths["purelib"], paths["scripts"], sys.prefix
python = os.path.join(scripts, "python")
files = []
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        name = info.filename
        parts = name.split("/")
        if name.endswith("/") or not name:
            continue
        if name.startswith("/") or ".." in parts or "\\" in name:
            sys.exit("piper: wheel entry outside the venv: " + name)
        if parts[0].endswith(".data") and len(parts) > 2:
            where = {"purelib": site, "platlib": site, "scripts": scripts, "data": prefix}.get(parts[1])
            if where is None:
                sys.exit("piper: wheel entry of an unknown scheme: " + name)
            target = os.path.join(where, *parts[2:])
        else:
            target = os.path.join(site, *parts)
        files.append((info, target, len(parts) > 2 and parts[0].endswith(".data") and parts[1] == "scripts"))
    dist_info = sorted({p[0] for p in (i.filename.split("/") for i, _, _ in files) if p[0].endswith(".dist-info")})
    if len(dist_info) != 1:
        sys.exit("piper: the wheel has %d .dist-info directories" % len(dist_info))
    for info, target, is_script in files:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        data = z.read(info)
        if is_script and data.startswith(b"#!python"):
            data = b"#!" + python.encode() + data[len(b"#!python"):]
        with open(target, "wb") as f:
            f.write(data)
        if is_script:
            os.chmod(target, 0o755)
meta = os.path.join(site, dist_info[0])
with open(os.path.join(meta, "INSTALLER"), "w") as f:
    f.write("pip\n")
with open(os.path.join(meta, "direct_url.json"), "w") as f:
    json.dump({"dir_info": {"editable": True}, "url": "file:///work"}, f)
entry_points = configparser.ConfigParser(delimiters=("=",), interpolation=None)
entry_points.optionxform = str
if os.path.exists(os.path.join(meta, "entry_points.txt")):
    entry_points.read(os.path.join(meta, "entry_points.txt"), encoding="utf-8")
for section in ("console_scripts", "gui_scripts"):
    if not entry_points.has_section(section):
        continue
    for script, target in entry_points.items(section):
        module, _, func = target.partition(":")
        func = func.split("[")[0].strip()
        first = func.split(".")[0]
        path = os.path.join(scripts, script.strip())
        with open(path, "w") as f:
            f.write("#!%s\nimport sys\nfrom %s import %s\nif __name__ == '__main__':\n    sys.exit(%s())\n" % (python, module.strip(), first, func))
        os.chmod(path, 0o755)
shutil.rmtree(out, ignore_errors=True)
with open(os.path.join(meta, "METADATA"), encoding="utf-8", errors="replace") as f:
    fields = dict(l.split(": ", 1) for l in f.read().split("\n\n")[0].splitlines() if ": " in l)
print("Successfully installed %s-%s (editable, by its build backend)" % (fields.get("Name", "?"), fields.get("Version", "?")))
`;
