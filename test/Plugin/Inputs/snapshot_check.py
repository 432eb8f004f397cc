"""Checks a q2-snapshot report (schema q2.snapshots/1) for the lit tests.

usage: snapshot_check.py REPORT --labels L1,L2,... [--ir-bytes-of FILE ...]
                         [--shrinks] [--object FILE]

--labels       the records' labels, in order (the count must match too)
--ir-bytes-of  one file per record: its "ir" bytes/lines must equal the
               file's size and newline count (what `wc -c`/`wc -l` print),
               "-" skips a record
--shrinks      every record's IR is smaller than the previous one's
--object FILE  the last record's "object" bytes equal FILE's size
--llvm-ir FILE the "llvm_ir" bytes/lines of the one record that has them
               equal FILE's (the .ll written by the LLVMIR stage)
"""
import argparse
import json
import os
import sys


def fail(msg):
    print("snapshot_check: " + msg, file=sys.stderr)
    sys.exit(1)


ap = argparse.ArgumentParser()
ap.add_argument("report")
ap.add_argument("--labels", required=True)
ap.add_argument("--ir-bytes-of", nargs="*", default=[])
ap.add_argument("--shrinks", action="store_true")
ap.add_argument("--object")
ap.add_argument("--llvm-ir")
args = ap.parse_args()

with open(args.report) as f:
    doc = json.load(f)
if doc.get("schema") != "q2.snapshots/1":
    fail("schema is %r" % doc.get("schema"))
recs = doc["snapshots"]
labels = args.labels.split(",")
got = [r["label"] for r in recs]
if got != labels:
    fail("labels %r, expected %r" % (got, labels))

prev_t = 0.0
for i, r in enumerate(recs):
    if r["index"] != i:
        fail("record %d has index %r" % (i, r["index"]))
    # Every memory layer is there and plausible.
    st, ru, heap = r["status"], r["rusage"], r["heap"]
    if not (0 < st["vm_rss_bytes"] <= st["vm_hwm_bytes"] <= st["vm_peak_bytes"]):
        fail("record %d: implausible status %r" % (i, st))
    if st["vm_size_bytes"] < st["vm_rss_bytes"]:
        fail("record %d: VmSize < VmRSS" % i)
    # A sanitizer build (lit sets Q2_ASAN): ASan's allocator replaces
    # malloc, so mallinfo2's heap figures read zero there.
    heap_ok = heap["heap_in_use_bytes"] > 0 or os.environ.get("Q2_ASAN") == "1"
    if ru["ru_maxrss_self_bytes"] <= 0 or not heap_ok:
        fail("record %d: empty rusage/heap %r %r" % (i, ru, heap))
    if r["pid"] <= 0 or not r["self"]:
        fail("record %d: not a self snapshot" % i)
    # Records of one process are appended in execution order.
    if i > 0 and r["pid"] == recs[i - 1]["pid"] and r["elapsed_s"] < prev_t:
        fail("record %d: elapsed_s goes backwards" % i)
    prev_t = r["elapsed_s"]
    ir = r["ir"]
    if ir["kind"] != "mlir" or ir["bytes"] <= 0 or ir["ops"] <= 0:
        fail("record %d: bad ir %r" % (i, ir))
    if sum(ir["histogram"].values()) != ir["ops"]:
        fail("record %d: histogram does not add up to ops" % i)

for i, path in enumerate(args.ir_bytes_of):
    if path == "-":
        continue
    data = open(path, "rb").read()
    ir = recs[i]["ir"]
    if ir["bytes"] != len(data) or ir["lines"] != data.count(b"\n"):
        fail("record %d (%s): ir bytes/lines %d/%d, file %s has %d/%d" %
             (i, recs[i]["label"], ir["bytes"], ir["lines"], path, len(data),
              data.count(b"\n")))

if args.shrinks:
    for i in range(1, len(recs)):
        if recs[i]["ir"]["bytes"] >= recs[i - 1]["ir"]["bytes"]:
            fail("record %d: IR did not shrink (%d >= %d)" %
                 (i, recs[i]["ir"]["bytes"], recs[i - 1]["ir"]["bytes"]))

if args.object:
    size = os.path.getsize(args.object)
    obj = recs[-1].get("object")
    if obj is None or obj["bytes"] != size or obj["kind"] != "object":
        fail("last record's object %r, file size %d" % (obj, size))

if args.llvm_ir:
    data = open(args.llvm_ir, "rb").read()
    with_ll = [r for r in recs if "llvm_ir" in r]
    if len(with_ll) != 1:
        fail("%d records with llvm_ir, expected 1" % len(with_ll))
    ll = with_ll[0]["llvm_ir"]
    if (ll["kind"], ll["bytes"], ll["lines"]) != ("llvm-ir", len(data),
                                                  data.count(b"\n")):
        fail("llvm_ir %r vs file %d/%d" % (ll, len(data), data.count(b"\n")))

for r in recs:
    extra = ""
    if "llvm_ir" in r:
        extra += " llvm_ir=%d" % r["llvm_ir"]["bytes"]
    if "object" in r:
        extra += " object=%d" % r["object"]["bytes"]
    print("%s ir=%d lines=%d ops=%d rss=%d%s" %
          (r["label"], r["ir"]["bytes"], r["ir"]["lines"], r["ir"]["ops"],
           r["status"]["vm_rss_bytes"], extra))
print("OK %d records" % len(recs))
