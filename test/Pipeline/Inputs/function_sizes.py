#!/usr/bin/env python3
"""Instructions per function of LLVM IR files: prints, for each FILE,
`FILE: functions N, instructions T, largest L (@name)` and exits non-zero if
a largest function exceeds --max."""
import re
import sys


def sizes(path):
    out, name, n = {}, None, 0
    for line in open(path):
        m = re.match(r"define .*?@([\w.$]+)\(", line)
        if m:
            name, n = m.group(1), 0
        elif line.startswith("}") and name:
            out[name] = n
            name = None
        elif name and line.startswith("  ") and not line.strip().endswith(":"):
            n += 1
    return out


args = sys.argv[1:]
limit = None
if args[:1] == ["--max"]:
    limit, args = int(args[1]), args[2:]
bad = False
for path in args:
    s = sizes(path)
    big = max(s, key=s.get)
    print(f"{path.split('/')[-1]}: functions {len(s)}, instructions "
          f"{sum(s.values())}, largest {s[big]} (@{big})")
    if limit is not None and s[big] > limit:
        print(f"{path.split('/')[-1]}: @{big} has {s[big]} instructions, "
              f"above {limit}")
        bad = True
sys.exit(1 if bad else 0)
