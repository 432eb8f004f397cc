"""Checks a report whose Phase C was skipped: argv = report, qubits, bytes,
limit (0: the default, any value below qubits), the reason's ending."""
import json
import sys

path, qubits, nbytes, limit, why = sys.argv[1:]
r = json.load(open(path))
assert r["error"] is None, r["error"]
names = [s["name"] for s in r["phase_b"]["stages"]]
assert names == ["Input", "HLOLowering", "QuantumLowering", "Bufferization",
                 "LLVMDialect", "LLVMIR", "ObjectCode"], names
c = r["phase_c"]
assert c["skipped"] is True, c
assert c["qubits"] == int(qubits), c
assert int(c["bytes_needed"]) == int(nbytes), c
if int(limit):
    assert c["limit"] == int(limit), c
assert c["limit"] < c["qubits"], c
assert c["sets"] == [] and c["runtime"] == "", c
assert c["reason"].endswith(why), c["reason"]
print("OK")
