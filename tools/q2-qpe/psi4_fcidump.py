# psi4_fcidump.py - psi4 driver of `q2-qpe --molecule` (see docs/hamiltonians.md).
#
# q2-qpe writes a small psi4 input into a temporary directory that defines
# Q2_PARAMS_FILE (a JSON file with the molecule and the active space) and then
# executes this file; it runs as `psi4 -k` (no psithon preprocessing), so it is
# plain Python with the psi4 module.
#
# What it does:
#   1. RHF (symmetry c1, no reorientation, no COM shift) in the given basis.
#   2. Builds the FCIDUMP from psi4's MO coefficients (Ca) and AO integrals
#      (mints ao_kinetic, ao_potential, ao_eri). We do NOT use psi4 1.3.2's own
#      fcidump(): it drops the one-electron lines when cores are frozen.
#      Frozen core = the lowest n_core = (N_total - NE)/2 orbitals, folded into
#      the one-electron operator and the scalar (E_nuc + frozen-core energy);
#      active = the next NO orbitals; the rest are dropped.
#   3. Runs psi4's own CI (detci, frozen_docc = n_core, active = NO) as an
#      independent check of the file.
#   4. Writes P["result"] (JSON: scf_energy, ci_energy, ...). q2-qpe reads
#      it; the script never prints to stdout anything q2-qpe parses.
import json
import os

import numpy as np
import psi4

with open(Q2_PARAMS_FILE) as _f:  # noqa: F821 (defined by the generated input)
    P = json.load(_f)


def _write_fcidump(path, h1, eri, scalar, norb, nelec, ms2, thresh=1e-15):
    """Knowles-Handy FCIDUMP, unique integrals in chemists' notation.

    Order: two-electron (i>=j, k>=l, ij>=kl), then `i j 0 0` (i>=j), then the
    scalar `0 0 0 0`. 1-based orbital indices, symmetry c1 (all ORBSYM=1).
    """
    lines = ["&FCI",
             "NORB=%d," % norb,
             "NELEC=%d," % nelec,
             "MS2=%d," % ms2,
             "UHF=.FALSE.,",
             "ORBSYM=" + ",".join(["1"] * norb) + ",",
             "ISYM=1,",
             "&END"]
    fmt = "%28.20E %4d %4d %4d %4d"
    for i in range(norb):
        for j in range(i + 1):
            ij = i * (i + 1) // 2 + j
            for k in range(norb):
                for l in range(k + 1):
                    kl = k * (k + 1) // 2 + l
                    if kl > ij:
                        continue
                    v = eri[i, j, k, l]
                    if abs(v) > thresh:
                        lines.append(fmt % (v, i + 1, j + 1, k + 1, l + 1))
    for i in range(norb):
        for j in range(i + 1):
            v = h1[i, j]
            if abs(v) > thresh:
                lines.append(fmt % (v, i + 1, j + 1, 0, 0))
    lines.append(fmt % (scalar, 0, 0, 0, 0))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def main():
    # psi4 writes timer.dat and scratch files into the working directory.
    os.chdir(P["workdir"])
    psi4.core.set_output_file(P["psi4_output"], False)
    psi4.set_memory(P.get("memory", "500 MB"))
    geom = "%d %d\n" % (P["charge"], P["multiplicity"])
    geom += "\n".join(P["atoms"]) + "\n"
    geom += "units angstrom\nsymmetry c1\nno_reorient\nno_com\n"
    mol = psi4.geometry(geom)
    psi4.set_options({
        "basis": P["basis"],
        "reference": "rhf",
        "scf_type": "pk",
        "e_convergence": 1e-12,
        "d_convergence": 1e-10,
    })
    e_scf, wfn = psi4.energy("scf", return_wfn=True, molecule=mol)

    n_total = wfn.nalpha() + wfn.nbeta()
    ne, no = P["active_electrons"], P["active_orbitals"]
    nmo = wfn.nmo()
    if (n_total - ne) % 2 != 0 or ne > n_total:
        raise ValueError("active electrons %d incompatible with %d electrons"
                         % (ne, n_total))
    ncore = (n_total - ne) // 2
    if ncore + no > nmo:
        raise ValueError("%d frozen core + %d active orbitals exceed the %d "
                         "molecular orbitals of basis %s"
                         % (ncore, no, nmo, P["basis"]))

    C = np.asarray(wfn.Ca())
    mints = psi4.core.MintsHelper(wfn.basisset())
    H = np.asarray(mints.ao_kinetic()) + np.asarray(mints.ao_potential())
    I = np.asarray(mints.ao_eri())  # (mu nu | la si), chemists' notation
    Cc = C[:, :ncore]
    Ca = C[:, ncore:ncore + no]
    # Frozen-core density (per spin) and its Coulomb/exchange in the AO basis.
    D = Cc @ Cc.T
    J = np.einsum("pqrs,rs->pq", I, D)
    K = np.einsum("prqs,rs->pq", I, D)
    e_core = float(np.sum(D * (2.0 * H + 2.0 * J - K)))
    h1 = Ca.T @ (H + 2.0 * J - K) @ Ca
    eri = np.einsum("pqrs,pi,qj,rk,sl->ijkl", I, Ca, Ca, Ca, Ca, optimize=True)
    e_nuc = mol.nuclear_repulsion_energy()
    scalar = e_nuc + e_core
    _write_fcidump(P["fcidump"], h1, eri, scalar, no, ne,
                   P["multiplicity"] - 1)

    # psi4's own CI in the same active space: the independent check.
    psi4.set_options({
        "frozen_docc": [ncore],
        "active": [no],
        "e_convergence": 1e-10,
        "r_convergence": 1e-8,
    })
    e_ci = psi4.energy("detci", ref_wfn=wfn, molecule=mol)

    res = {"scf_energy": float(e_scf), "ci_energy": float(e_ci),
           "nuclear_repulsion": float(e_nuc), "frozen_core_energy": e_core,
           "n_electrons_total": int(n_total), "n_core": int(ncore),
           "n_active_orbitals": int(no), "n_mo": int(nmo),
           "basis": P["basis"]}
    with open(P["result"], "w") as f:
        json.dump(res, f, indent=2)


try:
    main()
except Exception as exc:  # reported by q2-qpe together with the output tail
    with open(P["result"] + ".err", "w") as f:
        f.write("%s: %s\n" % (type(exc).__name__, exc))
    raise
