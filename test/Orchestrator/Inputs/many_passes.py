"""many_passes.py IN N OUT: IN (a q2-profile report) with its pipeline
repeated into N top-level elements (stages), one pass record each: a
pipeline of N passes, for plots that must stay readable."""
import json
import sys

r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
b = r["phase_b"]
proto_s = [s for s in b["stages"] if s["kind"] == "compile"]
proto_p = [p for p in b["passes"] if p["parent"] == -1 and not p["adaptor"]]
stages, passes, t = [b["stages"][0]], [], b["stages"][0]["end"]["elapsed_s"]
for i in range(n):
    s = json.loads(json.dumps(proto_s[i % len(proto_s)]))
    p = json.loads(json.dumps(proto_p[i % len(proto_p)]))
    wall = 0.001 + (i * 7919 % 97) * 1e-4
    p.update(index=i, start_s=t, end_s=t + wall, wall_s=wall, self_wall_s=wall,
             cpu_s=wall, argument="%s-%d" % (p["argument"] or "pass", i))
    p["stage"] = s["name"] = "%s-%d" % (s["name"], i)
    s.update(index=i + 1, first_pass=i, end_pass=i + 1, wall_s=wall, cpu_s=wall)
    s["begin"]["elapsed_s"], s["end"]["elapsed_s"] = t, t + wall
    t += wall
    stages.append(s)
    passes.append(p)
b["stages"], b["passes"] = stages, passes
json.dump(r, open(sys.argv[3], "w"))
