"""sweep_race.py STUB_DIR WORK ROUNDS

Issue 28 (7): a `--only` sweep racing a full sweep on one --out. In each
round an --only job runs point h2-fixed-e2-t1 slowly (its phase A sleeps
1.5 s); once it holds the point, a full sweep of the same grid starts and
reaches that point first. The full sweep must exit 0 and its summary.csv
must give every point the status of the point's own result.json (before the
fix it recorded the raced point as failed, "in use by another process",
while the point's result.json said ok). Prints one line per round; exits 1
on the first contradiction.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import time

stub_dir, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
stub = os.path.join(stub_dir, "stub.sh")
KEY = "h2-fixed-e2-t1"


def sweep(out, log, extra, slow=False):
    sleep = "/bin/sleep 1.5 && " if slow else ""
    return ["q2-profile", "sweep", "--out", out, "--molecule", f"h2={stub}",
            "--grid", "2x1,2x2", "--modes", "fixed", "--wall-s", "30",
            "--no-progress", "--jobs", "1",
            "--phase-a", f"/bin/sh -c '{sleep}exec /bin/sh {stub} A "
            f"{{mode}} {{n_est}} {{n_trotter}} {{prog}} {log}'",
            "--phase-bc", f"/bin/sh {stub} BC {{mode}} {{n_est}} "
            f"{{n_trotter}} {{report}} {log}"] + extra


for r in range(rounds):
    out = os.path.join(work, f"round{r}")
    shutil.rmtree(out, ignore_errors=True)
    log = out + ".log"
    only = subprocess.Popen(sweep(out, log, ["--only", KEY], slow=True),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # The point's directory exists once the --only job holds its lock.
    deadline = time.time() + 20
    while not os.path.isdir(os.path.join(out, "points", KEY)):
        if time.time() > deadline or only.poll() is not None:
            sys.exit(f"round {r}: the --only job did not start its point")
        time.sleep(0.02)
    full = subprocess.run(sweep(out, log, []), capture_output=True, text=True)
    only_err = only.communicate()[1].decode()
    if only.returncode != 0:
        sys.exit(f"round {r}: --only job exit {only.returncode}: {only_err}")
    if full.returncode != 0:
        sys.exit(f"round {r}: full sweep exit {full.returncode}: "
                 f"{full.stderr.strip()}")
    with open(os.path.join(out, "summary.csv"), newline="") as fh:
        rows = {row["key"]: row["status"] for row in csv.DictReader(fh)}
    points = sorted(os.listdir(os.path.join(out, "points")))
    for key in (p for p in points if not p.endswith(".lock")):
        with open(os.path.join(out, "points", key, "result.json")) as fh:
            status = json.load(fh)["status"]
        if rows.get(key) != status:
            sys.exit(f"round {r}: summary says {key} {rows.get(key)}, its "
                     f"result.json says {status}")
    if rows.get(KEY) != "ok" or len(rows) != 2:
        sys.exit(f"round {r}: summary {rows}")
    print(f"round {r}: {len(rows)} points agree")
