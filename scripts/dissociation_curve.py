#!/usr/bin/python3
"""Dissociation curves as a user would draw them: QPE vs exact vs Hartree-Fock.

For every bond length: build the Hamiltonian (psi4 through `q2-qpe --molecule`
when psi4 is installed; otherwise the shipped H2 FCIDUMPs of
examples/hamiltonians/h2_curve), generate the QPE program with q2-qpe's
defaults, compile and run it once (`q2-opt --profile-stages --run 1`), and
read energy, resolution, Trotter bound, exact and HF energies from the report.

    /usr/bin/python3 scripts/dissociation_curve.py [--bin build/bin]
        [--work build/curve] [--png docs/images/dissociation.png]
        [--molecules h2,lih] [--modes dynamic[,fixed]] [--psi4 auto|never]
        [--check]

--check: exit 1 unless every point is within one resolution of the exact
energy (ctest `h2-curve`; no plot then unless --png is given).
Heavier molecule: LiH, STO-3G, active space 2e,3o (6 qubits), psi4 only.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H2_CURVE = os.path.join(ROOT, "examples", "hamiltonians", "h2_curve")
# Bond lengths (Angstrom) of the shipped H2 FCIDUMPs and of the psi4 runs.
H2_R = ["0.5", "0.6", "0.7414", "0.9", "1.1", "1.3", "1.5", "1.8", "2.1"]
LIH_R = ["1.0", "1.2", "1.4", "1.595", "1.8", "2.1", "2.5", "3.0"]


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"dissociation_curve: {' '.join(cmd)} failed:\n{p.stderr}")
    return p


def have_psi4():
    return shutil.which("psi4") is not None or \
        subprocess.run([sys.executable, "-c", "import psi4"],
                       capture_output=True).returncode == 0


def xyz(path, molecule, r):
    atoms = {"h2": ("H", "H"), "lih": ("Li", "H")}[molecule]
    with open(path, "w") as f:
        f.write(f"2\n{molecule} {r} A\n{atoms[0]} 0 0 0\n{atoms[1]} 0 0 {r}\n")


def point(args, molecule, r, source, mode):
    """Runs one bond length; returns the row of the table."""
    work = os.path.join(args.work, f"{molecule}_{r}_{mode}")
    os.makedirs(work, exist_ok=True)
    prog = os.path.join(work, "qpe.mlir")
    report = os.path.join(work, "report.json")
    for f in (prog, report, os.path.join(work, "qpe.o")):
        if os.path.exists(f):
            os.remove(f)
    qpe = [os.path.join(args.bin, "q2-qpe")]
    if source == "psi4":
        geom = os.path.join(work, "geom.xyz")
        xyz(geom, molecule, r)
        # q2-qpe requires the active space: all of H2's (2e in 2 orbitals),
        # LiH's valence 2e,3o (Li 1s frozen).
        qpe += ["--molecule", geom, "--charge", "0", "--active",
                "2,3" if molecule == "lih" else "2,2"]
    else:
        qpe += [os.path.join(H2_CURVE, f"h2_{r}.FCIDUMP")]
    t0 = time.time()
    run(qpe + ["--mode", mode, "-o", prog])
    opt = run([os.path.join(args.bin, "q2-opt"), "--profile-stages", "--run",
               "1", prog, "-o", os.path.join(work, "qpe.o"), "--report",
               report])
    wall = time.time() - t0
    rep = json.load(open(report))
    par, s = rep["parameters"], rep["phase_c"]["sets"][0]
    return {"molecule": molecule, "r": float(r), "mode": mode,
            "energy": s["energy"],
            "peak_energy": s["peak_energy"], "peak_mass": s["peak_mass"],
            "resolution": s["resolution"],
            "trotter_bound": s.get("trotter_bound", float("nan")),
            "exact": par.get("exact_energy", float("nan")),
            "hf": par.get("hf_energy", float("nan")),
            "error_resolutions": s.get("error_resolutions", float("nan")),
            "n_est": par["n_est"], "n_trotter": par["n_trotter"],
            "power": par["power"], "wall_s": wall,
            "warned": "warning" in opt.stderr}


def plot(rows, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("dissociation_curve: no matplotlib, plot skipped", file=sys.stderr)
        return
    mols = sorted({r["molecule"] for r in rows})
    fig, axes = plt.subplots(2, len(mols), figsize=(6.5 * len(mols), 7),
                             sharex="col", squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1.3]})
    for c, m in enumerate(mols):
        pts = sorted((r for r in rows if r["molecule"] == m),
                     key=lambda r: r["r"])
        R = [p["r"] for p in pts]
        ax = axes[0][c]
        ax.plot(R, [p["hf"] for p in pts], "s--", color="tab:gray",
                label="Hartree-Fock")
        ax.plot(R, [p["exact"] for p in pts], "-", color="black",
                label="exact (FCI in the basis)")
        ax.errorbar(R, [p["energy"] for p in pts],
                    yerr=[p["resolution"] for p in pts], fmt="o",
                    color="tab:red", capsize=3,
                    label="QPE (bar: one resolution)")
        ax.set_ylabel("energy (Ha)")
        name = {"h2": "H$_2$", "lih": "LiH (2e,3o)"}.get(m, m)
        ax.set_title(f"{name} / STO-3G, q2-qpe defaults")
        ax.legend()
        ax.grid(alpha=0.3)
        ax = axes[1][c]
        ax.axhspan(-1, 1, color="tab:green", alpha=0.15,
                   label="within one resolution")
        ax.plot(R, [(p["energy"] - p["exact"]) / p["resolution"] for p in pts],
                "o-", color="tab:red", label="QPE - exact")
        ax.plot(R, [p["trotter_bound"] / p["resolution"] for p in pts], "v:",
                color="tab:blue", label="Trotter bound")
        ax.set_ylim(-1.6, 1.6)
        ax.set_xlabel("bond length (Å)")
        ax.set_ylabel("resolutions")
        ax.legend(fontsize=8, loc="lower left")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
    fig.savefig(png, dpi=110)
    print(f"plot: {png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "curve"))
    ap.add_argument("--png", default=None)
    ap.add_argument("--molecules", default="h2,lih")
    ap.add_argument("--psi4", choices=["auto", "never"], default="auto")
    ap.add_argument("--modes", default="dynamic",
                    help="q2-qpe --mode of each point: dynamic, fixed or both "
                         "(comma-separated; the plot shows the first)")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.png is None and not args.check:
        args.png = os.path.join(args.work, "dissociation.png")
    psi4 = args.psi4 == "auto" and have_psi4()
    modes = args.modes.split(",")
    if not modes or any(m not in ("dynamic", "fixed") for m in modes):
        sys.exit(f"dissociation_curve: --modes takes dynamic and/or fixed, "
                 f"got '{args.modes}'")
    rows = []
    for m in args.molecules.split(","):
        if m not in ("h2", "lih"):
            sys.exit(f"dissociation_curve: unknown molecule '{m}' (h2, lih)")
        if m == "lih" and not psi4:
            print("dissociation_curve: psi4 not found, LiH skipped",
                  file=sys.stderr)
            continue
        for r in (H2_R if m == "h2" else LIH_R):
            for mode in modes:
                row = point(args, m, r, "psi4" if psi4 else "fcidump", mode)
                rows.append(row)
                print(f"{m:4s} {mode:7s} R={r:7s} E={row['energy']: .6f} "
                      f"exact={row['exact']: .6f} HF={row['hf']: .6f} res="
                      f"{row['resolution']*1e3:.3f} mHa bound="
                      f"{row['trotter_bound']*1e3:.3f} mHa err="
                      f"{row['error_resolutions']:+.2f} res peak="
                      f"{row['peak_mass']:.3f} ({row['wall_s']:.1f} s)",
                      flush=True)
    if not rows:
        sys.exit("dissociation_curve: nothing to run")
    os.makedirs(args.work, exist_ok=True)
    with open(os.path.join(args.work, "curve.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    if args.png:
        plot([r for r in rows if r["mode"] == modes[0]], args.png)
    bad = [r for r in rows if not abs(r["error_resolutions"]) <= 1.0]
    if args.check and bad:
        for r in bad:
            print(f"FAIL {r['molecule']} {r['mode']} R={r['r']}: "
                  f"{r['error_resolutions']:+.2f} resolutions", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
