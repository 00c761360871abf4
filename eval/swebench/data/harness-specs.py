#!/usr/bin/env python3
"""Writes harness-specs.json: the public SWE-bench harness's per-repository, per-version install specs
(MAP_REPO_VERSION_TO_SPECS_PY in swebench/harness/constants/python.py) as data.

    python3 eval/swebench/data/harness-specs.py GIT_DIR [COMMIT] > eval/swebench/data/harness-specs.json

GIT_DIR is a clone of the harness's repository (bare is fine); the file is read with `git show
COMMIT:PATH`, never checked out. It is read statically: parsed with `ast` and its module-level
statements interpreted over a closed set of forms (literals, names, list `+`, dict and list
comprehensions, `for` over a literal list, `if`/`elif`/`else` on `in`/`==`, `d[k] = v`, `d[k] += v`,
`.update`, `.extend`, `int(...)`). Nothing of the file is executed: a form outside that set stops the
generator with its line, so a change upstream is seen, not run.
"""

import ast
import json
import subprocess
import sys

SOURCE_PATH = "swebench/harness/constants/python.py"
TABLE = "MAP_REPO_VERSION_TO_SPECS_PY"
# The file moved (and was later dropped) upstream; this is the last commit that has it.
DEFAULT_COMMIT = "b8d53321b98c1193f9df999ff11d57ac5f5f551d"
KEYS = ["python", "packages", "pip_packages", "pre_install", "install", "test_cmd", "env_vars_test", "eval_commands"]


class Unsupported(Exception):
    pass


class Reader:
    def __init__(self):
        self.names = {}

    def fail(self, node, what):
        raise Unsupported(f"line {getattr(node, 'lineno', '?')}: {what} is not a form this reader interprets")

    def value(self, node, scope):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in scope:
                return scope[node.id]
            if node.id in self.names:
                return self.names[node.id]
            self.fail(node, f"name {node.id}")
        if isinstance(node, ast.List):
            return [self.value(e, scope) for e in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e, scope) for e in node.elts)
        if isinstance(node, ast.Dict):
            return self.dict_literal(node, scope)
        if isinstance(node, ast.JoinedStr):
            return "".join(self.fstring_part(p, scope) for p in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.value(node.left, scope) + self.value(node.right, scope)
        if isinstance(node, ast.Subscript):
            return self.value(node.value, scope)[self.value(node.slice, scope)]
        if isinstance(node, (ast.DictComp, ast.ListComp)):
            return self.comprehension(node, scope)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int":
            return int(self.value(node.args[0], scope))
        self.fail(node, type(node).__name__)

    def fstring_part(self, part, scope):
        if isinstance(part, ast.FormattedValue):
            return str(self.value(part.value, scope))
        return self.value(part, scope)

    def dict_literal(self, node, scope):
        out = {}
        for key, val in zip(node.keys, node.values):
            if key is None:  # {**other, ...}
                out.update(self.value(val, scope))
            else:
                out[self.value(key, scope)] = self.value(val, scope)
        return out

    def comprehension(self, node, scope):
        if len(node.generators) != 1 or node.generators[0].ifs:
            self.fail(node, "a comprehension with more than one for, or an if")
        gen = node.generators[0]
        if not isinstance(gen.target, ast.Name):
            self.fail(node, "a comprehension target that is not a name")
        items = []
        for item in self.value(gen.iter, scope):
            inner = {**scope, gen.target.id: item}
            if isinstance(node, ast.DictComp):
                items.append((self.value(node.key, inner), self.value(node.value, inner)))
            else:
                items.append(self.value(node.elt, inner))
        return dict(items) if isinstance(node, ast.DictComp) else items

    def test(self, node, scope):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.value(node.left, scope), self.value(node.comparators[0], scope)
            op = node.ops[0]
            if isinstance(op, ast.In):
                return left in right
            if isinstance(op, ast.NotIn):
                return left not in right
            if isinstance(op, ast.Eq):
                return left == right
        self.fail(node, "a condition")

    def target(self, node, scope):
        """The container and key an assignment writes (name: the module's names)."""
        if isinstance(node, ast.Name):
            return self.names, node.id
        if isinstance(node, ast.Subscript):
            return self.value(node.value, scope), self.value(node.slice, scope)
        self.fail(node, "an assignment target")

    def statement(self, node, scope):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            return
        if isinstance(node, ast.Assign):
            val = self.value(node.value, scope)
            for tgt in node.targets:
                where, key = self.target(tgt, scope)
                where[key] = val
            return
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            where, key = self.target(node.target, scope)
            where[key] = self.value(node.value, scope)
            return
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            where, key = self.target(node.target, scope)
            where[key] = where[key] + self.value(node.value, scope)
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self.method(node.value, scope)
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse:
            for item in self.value(node.iter, scope):
                for inner in node.body:
                    self.statement(inner, {**scope, node.target.id: item})
            return
        if isinstance(node, ast.If):
            for inner in node.body if self.test(node.test, scope) else node.orelse:
                self.statement(inner, scope)
            return
        self.fail(node, type(node).__name__)

    def method(self, call, scope):
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in ("update", "extend", "append"):
            self.fail(call, "a call")
        obj = self.value(func.value, scope)
        args = [self.value(a, scope) for a in call.args]
        if func.attr == "update" and isinstance(obj, dict):
            obj.update(*args)
        elif func.attr in ("extend", "append") and isinstance(obj, list):
            getattr(obj, func.attr)(*args)
        else:
            self.fail(call, f".{func.attr} on a {type(obj).__name__}")


def read_specs(text):
    reader = Reader()
    tree = ast.parse(text)
    for node in tree.body:
        # Only the statements up to the table matter; what follows (other maps) is not needed.
        reader.statement(node, {})
        if TABLE in reader.names:
            break
    table = reader.names.get(TABLE)
    if table is None:
        raise Unsupported(f"{TABLE} not found")
    return table


def entry(spec):
    """The spec with its known keys first, then any other (no_use_env, nano_cpus, ...) as it is."""
    return {**{k: spec[k] for k in KEYS if k in spec}, **{k: spec[k] for k in sorted(spec) if k not in KEYS}}


def main(argv):
    git_dir = argv[1]
    commit = argv[2] if len(argv) > 2 else DEFAULT_COMMIT
    commit = subprocess.check_output(["git", "--git-dir", git_dir, "rev-parse", f"{commit}^{{commit}}"], text=True).strip()
    text = subprocess.check_output(["git", "--git-dir", git_dir, "show", f"{commit}:{SOURCE_PATH}"], text=True)
    table = read_specs(text)
    out = {
        "source": {
            "repository": "github.com/SWE-bench/SWE-bench",
            "commit": commit,
            "path": SOURCE_PATH,
            "table": TABLE,
            "license": "MIT",
            "read": "statically (ast, a closed set of forms; nothing of the file executed)",
            "generator": "eval/swebench/data/harness-specs.py",
        },
        "specs": {repo: {ver: entry(s) for ver, s in sorted(versions.items())} for repo, versions in sorted(table.items())},
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
