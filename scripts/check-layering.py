#!/usr/bin/env python3
"""Layers point down: every q2 library includes only headers of itself and
of the libraries it links (transitively), as CMake declares them.

The build writes the libraries (q2_add_library in cmake/Q2Utils.cmake) to
<build>/q2-layers.json: for each, its source directory, the header paths it
owns (by default include/q2/<its directory below lib/>) and the libraries
it links. This script reads every source and public header of each library
and reports each `#include "q2/..."` whose owner the library does not link,
and each quoted include that climbs out of the library's own directory
("../Other/X.h"). Exit status 1 when there is any (the ctest test
`layering`), 2 on bad input. docs/architecture.md shows the layers.

    check-layering.py --layers build/q2-layers.json --source-dir .
"""
import argparse
import json
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".c", ".inc", ".def")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        libs = data["libraries"]
        for name, lib in libs.items():
            lib["dir"] = lib["dir"].rstrip("/")
            lib.setdefault("links", [])
            lib.setdefault("headers", [])
        return libs
    except (OSError, ValueError, KeyError, AttributeError) as e:
        sys.exit(f"check-layering: {path}: {e}")


def header_prefixes(name, lib):
    """Include strings ("q2/...") the library owns: its header paths, and by
    default the mirror of its directory (lib/X/Y -> q2/X/Y)."""
    owned = [h[len("include/"):] if h.startswith("include/") else h
             for h in lib["headers"]]
    if lib["dir"].startswith("lib/"):
        owned.append("q2/" + lib["dir"][len("lib/"):])
    return owned


def owners(include, prefixes):
    """The libraries owning an include: the longest matching prefix; an
    include in a directory that holds several libraries (q2/Conversion/
    Passes.h) is owned by each of them."""
    best, found = -1, []
    for name, owned in prefixes.items():
        for p in owned:
            if include == p or include.startswith(p + "/"):
                if len(p) > best:
                    best, found = len(p), [name]
                elif len(p) == best:
                    found.append(name)
    if found:
        return found
    # A shared header above the libraries' directories: owned by those
    # below it.
    d = os.path.dirname(include)
    return [n for n, owned in prefixes.items()
            if any(p.startswith(d + "/") for p in owned)]


def closure(name, libs):
    seen, todo = {name}, [name]
    while todo:
        for dep in libs[todo.pop()]["links"]:
            if dep in libs and dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def files_of(root, own_dir, other_dirs):
    """Sources under own_dir, without the directories of other libraries."""
    top = os.path.join(root, own_dir)
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames
                       if os.path.join(rel, d) not in other_dirs]
        for f in sorted(filenames):
            if f.endswith(SOURCES):
                yield os.path.join(dirpath, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", required=True,
                    help="q2-layers.json written by the build")
    ap.add_argument("--source-dir", required=True, help="the source tree")
    args = ap.parse_args()
    libs = load(args.layers)
    root = os.path.abspath(args.source_dir)
    prefixes = {n: header_prefixes(n, l) for n, l in libs.items()}
    lib_dirs = {l["dir"] for l in libs.values()}
    header_dirs = {"include/" + p for owned in prefixes.values()
                   for p in owned}
    problems = []
    for name, lib in sorted(libs.items()):
        allowed = closure(name, libs)
        dirs = [lib["dir"]] + ["include/" + p for p in prefixes[name]]
        for d in dict.fromkeys(dirs):
            if not os.path.isdir(os.path.join(root, d)):
                continue
            others = (lib_dirs | header_dirs) - {d}
            for path in files_of(root, d, others):
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    inc = m.group(1)
                    line = text.count("\n", 0, m.start()) + 1
                    if inc.startswith("q2/"):
                        who = owners(inc, prefixes)
                        if who and not allowed.intersection(who):
                            problems.append(
                                f"{rel}:{line}: {name} includes \"{inc}\" "
                                f"({' or '.join(sorted(who))}), which it "
                                f"does not link")
                    elif inc.startswith("../") or "/../" in inc:
                        problems.append(
                            f"{rel}:{line}: {name} includes \"{inc}\" from "
                            f"outside its directory")
    for p in problems:
        print(p)
    if problems:
        print(f"check-layering: {len(problems)} include(s) against the "
              f"layers (a library may include its own headers and those of "
              f"the libraries it links)", file=sys.stderr)
        return 1
    print(f"check-layering: {len(libs)} libraries, every include points "
          f"down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
