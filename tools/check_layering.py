#!/usr/bin/env python3
"""The layering check: every #include of sift's own code goes along the arrows of the module
graph, which CMakeLists.txt defines once (each sift_module's DEPS) and writes to
build/layering.json at configure time. A file of module M may include

  - headers of M itself, and of the modules M depends on (directly or through others);
  - the public headers include/sift/*.h (declarations only), but for those of a library
    above M (sift/lines.h is sift_formats');
  - a library's third-party headers only where that library is linked (httplib, OpenSSL,
    SQLite, libpq, zlib, zstd, libtorch, Boost).

The Python binding (python/src) includes only include/sift/ and its own files, and the CLI's
scoring commands (src/apps/cmd_{score,batch,eval,calibrate}.cpp) and the label loop
(src/label/) only the public API, the file formats and the components (no scoring/, model/,
kernels/ or tokenizer/ headers; the label loop reads sift.json by scoring/artifact.h and
bounds its reports' UTF-8 by tokenizer/utf8.h).

Usage: check_layering.py LAYERING_JSON SOURCE_DIR [ROOT]    (ROOT: the tree to check, default SOURCE_DIR)
Prints each include against the arrows as FILE:LINE: ..., exits 1 if there is any.
"""
import json
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# Third-party headers, by the library that links them.
THIRD_PARTY = {
    "httplib.h": "PkgConfig::HTTPLIB",
    "openssl/": "OpenSSL::Crypto",
    "sqlite3.h": "SQLite::SQLite3",
    "libpq-fe.h": "PkgConfig::LIBPQ",
    "zlib.h": "ZLIB::ZLIB",
    "zstd.h": "PkgConfig::ZSTD",
    "torch/": "torch",
    "boost/": "Boost",
}
# Public headers that belong to a library above the engine.
PUBLIC_OWNERS = {"sift/lines.h": "sift_formats", "sift/engines.h": "sift_remote"}
SCORING_COMMANDS = ("cmd_score.cpp", "cmd_batch.cpp", "cmd_eval.cpp", "cmd_calibrate.cpp")
ENGINE_INTERNALS = ("scoring/", "model/", "kernels/", "tokenizer/")
LABEL_LOOP_ENGINE_HEADERS = ("scoring/artifact.h", "tokenizer/utf8.h")


def closure(modules):
    """Each module's dependencies, direct or through others."""
    seen = {}

    def visit(name, stack=()):
        if name in seen:
            return seen[name]
        deps = set()
        for dep in modules.get(name, {}).get("deps", []):
            if dep in modules and dep not in stack:
                deps |= {dep} | visit(dep, stack + (name,))
        seen[name] = deps
        return deps

    for name in modules:
        visit(name)
    return seen


def third_party_allowed(module, header, modules, reach):
    for prefix, library in THIRD_PARTY.items():
        if header == prefix or (prefix.endswith("/") and header.startswith(prefix)):
            linked = set(modules[module]["deps"])
            for dep in reach[module]:
                linked |= set(modules[dep]["deps"])
            return any(library in link for link in linked)
    return True


def main():
    layering = json.loads(pathlib.Path(sys.argv[1]).read_text())
    source = pathlib.Path(sys.argv[2])
    root = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else source
    modules = layering["modules"]
    reach = closure(modules)

    # Which module owns a file under src/: by file first (a module of single files), else by folder.
    owner_of_file, owner_of_dir = {}, {}
    for name, m in modules.items():
        for f in m.get("files", []):
            owner_of_file[f] = name
        for d in m.get("dirs", []):
            owner_of_dir[d] = name

    def owner(path):  # path relative to src/
        stem = str(pathlib.PurePosixPath(path).with_suffix(""))
        for suffix in (".cpp", ".h"):
            if stem + suffix in owner_of_file:
                return owner_of_file[stem + suffix]
        return owner_of_dir.get(str(pathlib.PurePosixPath(path).parent))

    problems = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".h", ".cpp") or not path.is_file():
            continue
        relative = path.relative_to(root / "src").as_posix()
        module = owner(relative)
        if module is None:
            continue  # a folder no library builds (none today)
        allowed = {module} | reach[module]
        is_scoring_command = relative.startswith("apps/") and path.name in SCORING_COMMANDS
        is_label_loop = relative.startswith("label/")
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            quote, header = match.groups()
            where = f"src/{relative}:{number}"
            if quote == "<":
                if not third_party_allowed(module, header, modules, reach):
                    problems.append(f"{where}: <{header}> in {module}, which does not link its library")
                continue
            if header.startswith("sift/"):
                needed = PUBLIC_OWNERS.get(header)
                if needed and needed not in allowed:
                    problems.append(f"{where}: \"{header}\" belongs to {needed}, above {module}")
                continue
            target = owner(header)
            if target is None:
                continue  # a sibling file by its plain name, or a generated header
            if target not in allowed:
                problems.append(f"{where}: \"{header}\" is {target}'s; {module} does not depend on it")
            elif is_scoring_command and header.startswith(ENGINE_INTERNALS):
                problems.append(f"{where}: \"{header}\" is internal to the engine; the scoring commands use "
                                "include/sift/ (and the formats and components)")
            elif is_label_loop and header.startswith(ENGINE_INTERNALS) and header not in LABEL_LOOP_ENGINE_HEADERS:
                problems.append(f"{where}: \"{header}\" is internal to the engine; the label loop uses include/sift/ "
                                "(and sift.json's reader, scoring/artifact.h)")

    python_src = root / "python" / "src"
    for path in sorted(python_src.glob("*")) if python_src.is_dir() else []:
        if path.suffix not in (".h", ".cpp"):
            continue
        own = {p.name for p in python_src.iterdir()}
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if match and match.group(1) == '"' and not match.group(2).startswith("sift/") and match.group(2) not in own:
                problems.append(f"python/src/{path.name}:{number}: \"{match.group(2)}\": the Python binding "
                                "includes only include/sift/ and its own files")

    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) against the layers (docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"layering: every include of {len(modules)} libraries goes along their dependencies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
