"""A user's own molecule is that molecule (issue 39, point 1): the
Hamiltonian's cache key covers everything that defines it, a bond scan gets
one Hamiltonian per geometry whose exact energies are psi4's, and without
psi4 a molecule that is not bundled is a clear error before anything is
written."""
import json
import os
import subprocess

import pytest

from conftest import needs_psi4
from q2.molecule import MoleculeConfig
from q2.profiling import molecules
from q2.profiling.molecules import (MOLECULES, Psi4NotFoundError,
                                    hamiltonian_key)


def h2(r, **kw):
    args = dict(name="H2", symbols=["H", "H"], coords=[[0.0, 0.0, 0.0],
                                                        [0.0, 0.0, r]],
                charge=0, active_electrons=2, active_orbitals=2)
    args.update(kw)
    return MoleculeConfig(**args)


# q2m3's MoleculeConfig docstring example.
WATER = dict(name="H2O", symbols=["O", "H", "H"],
             coords=[[0.0, 0.0, 0.117], [-0.756, 0.0, -0.469],
                     [0.756, 0.0, -0.469]],
             charge=0, active_electrons=4, active_orbitals=4)


def test_molecule_config_is_q2m3s():
    import dataclasses
    names = [f.name for f in dataclasses.fields(MoleculeConfig)]
    assert names[:7] == ["name", "symbols", "coords", "charge",
                         "active_electrons", "active_orbitals", "basis"]
    m = MoleculeConfig("H2", ["H", "H"], [[0, 0, 0], [0, 0, 0.74]], 0, 2, 2)
    assert m.basis == "sto-3g" and m.n_atoms == 2
    assert list(m.center) == [0, 0, 0.37] and m.coords_array.shape == (2, 3)
    water = MoleculeConfig(**WATER)
    water.validate()
    assert (water.n_electrons, water.frozen_core) == (10, 3)
    with pytest.raises(ValueError, match="symbols"):
        MoleculeConfig("x", ["H"], [[0, 0, 0], [0, 0, 1]], 0, 2, 2).validate()
    with pytest.raises(ValueError, match="3 components"):
        MoleculeConfig("x", ["H", "H"], [[0, 0], [0, 0, 1]], 0, 2,
                       2).validate()
    # q2m3's presets, with q2m3's names and geometries.
    assert (MOLECULES["h2"].name, MOLECULES["h3o"].name) == ("H2", "H3O+")
    assert MOLECULES["h2"].coords[1][2] == 0.74


def test_key_covers_everything_that_defines_the_hamiltonian():
    base = hamiltonian_key(h2(0.74))
    changed = [
        h2(0.7400001), h2(0.74, symbols=["H", "Li"], charge=0,
                          active_electrons=2, active_orbitals=2),
        h2(0.74, symbols=["He", "He"], charge=2),
        h2(0.74, basis="6-31g"), h2(0.74, active_orbitals=3),
        h2(0.74, symbols=["Li", "H"], active_electrons=2, active_orbitals=2),
    ]
    keys = [hamiltonian_key(m) for m in changed]
    assert all(k != base for k in keys)
    assert len({json.dumps(k, sort_keys=True) for k in keys}) == len(keys)
    # The name does not define the Hamiltonian; spelling does not either.
    assert hamiltonian_key(h2(0.74, name="other")) == base
    assert hamiltonian_key(h2(0.74, symbols=["h", "H"], basis="STO-3G")) \
        == base
    assert base["frozen_core"] == 0 and base["multiplicity"] == 1
    lih = hamiltonian_key(h2(1.6, symbols=["Li", "H"]))
    assert lih["frozen_core"] == 1
    # A multiplicity q2-qpe cannot build is refused, as is a bad charge.
    with pytest.raises(ValueError, match="multiplicity"):
        hamiltonian_key(h2(0.74, multiplicity=3))
    with pytest.raises(ValueError, match="electrons"):
        hamiltonian_key(h2(0.74, charge=1))


def test_presets_are_bundled_and_an_edited_preset_is_not(monkeypatch):
    monkeypatch.setenv("Q2_NO_PSI4", "1")
    for key, mol in MOLECULES.items():
        path, source = molecules.resolve(mol)
        assert source == "bundled" and os.path.isfile(path), key
    # The same physics under another name is the bundled file too.
    assert molecules.resolve(h2(0.74, name="mine"))[1] == "bundled"
    edited = MoleculeConfig(**{**MOLECULES["h2"].__dict__,
                               "coords": [[0, 0, 0], [0, 0, 0.9]]})
    with pytest.raises(Psi4NotFoundError):
        molecules.resolve(edited)


def test_without_psi4_a_user_molecule_is_refused_before_anything_is_written(
        tmp_path, monkeypatch):
    from q2.profiling.orchestrator import run_single_profile
    from q2.profiling.qpe_profiler import profile_hamiltonian_build
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))          # no psi4 anywhere
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    msgs = []
    for call in (lambda: profile_hamiltonian_build(h2(0.6), 2, 1),
                 lambda: run_single_profile(h2(1.2), 2, 1,
                                            ir_dir=tmp_path / "ir",
                                            on_progress=msgs.append)):
        with pytest.raises(Psi4NotFoundError) as e:
            call()
        msg = str(e.value)
        assert "needs psi4" in msg and "apt-get install psi4" in msg, msg
        assert "'H2'" in msg
    assert sorted(os.listdir(tmp_path)) == ["bin"]   # no cache, no ir_dir
    assert msgs == []


# An independent psi4 run (its own FCI, not q2's recipe or solver) for the
# exact energies of the scan.
FCI_INPUT = r"""
import json
import psi4
psi4.core.set_output_file("fci.out", False)
psi4.set_memory("500 MB")
out = {}
for r in %r:
    mol = psi4.geometry("0 1\nH 0 0 0\nH 0 0 %%r\nunits angstrom\n"
                        "symmetry c1\nno_reorient\nno_com\n" %% r)
    psi4.set_options({"basis": "sto-3g", "scf_type": "pk",
                      "e_convergence": 1e-10, "d_convergence": 1e-10})
    out[repr(r)] = psi4.energy("fci", molecule=mol)
    psi4.core.clean()
with open("fci.json", "w") as f:
    json.dump(out, f)
"""

SCAN = (0.60, 0.74, 1.20)


@pytest.fixture(scope="module")
def psi4_fci(tmp_path_factory):
    d = tmp_path_factory.mktemp("psi4-fci")
    (d / "input.py").write_text(FCI_INPUT % (SCAN,))
    subprocess.run(["psi4", "-k", "-n", "1", "-i", "input.py", "-o",
                    "output.dat"], cwd=d, check=True, capture_output=True)
    return {float(k): v for k, v in
            json.loads((d / "fci.json").read_text()).items()}


@needs_psi4
def test_h2_bond_scan_energies_are_psi4s(psi4_fci):
    from q2.profiling.qpe_profiler import profile_hamiltonian_build
    seen = {}
    for r in SCAN:
        mol = h2(r)
        _, ops, coeffs, hf, params = profile_hamiltonian_build(mol, 2, 1)
        assert ops and list(hf) == [1, 1, 0, 0]
        # q2's exact ground energy of this geometry's Hamiltonian is psi4's
        # FCI energy of the same geometry.
        assert abs(params["exact_energy"] - psi4_fci[r]) < 1e-6, \
            (r, params["exact_energy"], psi4_fci[r])
        seen[r] = (tuple(coeffs), params["hamiltonian"])
        if r != 0.74:   # built by psi4 now (0.74 is the bundled preset)
            assert params["hamiltonian_source"] == "psi4"
            assert abs(params["psi4"]["ci_energy"] - psi4_fci[r]) < 1e-6
    assert len({c for c, _ in seen.values()}) == 3     # distinct Hamiltonians
    assert len({p for _, p in seen.values()}) == 3
    # A second build of the same geometry is the cached file.
    path, source = molecules.resolve(h2(0.60, name="again"))
    assert source == "psi4"
    assert os.path.samefile(path, seen[0.60][1]) or \
        open(path).read() == open(seen[0.60][1]).read()


@needs_psi4
def test_q2m3_docstring_water_builds():
    from q2.profiling.qpe_profiler import profile_hamiltonian_build
    snap, ops, coeffs, hf, params = profile_hamiltonian_build(
        MoleculeConfig(**WATER), 2, 1)
    assert params["n_system_qubits"] == 8 and list(hf).count(1) == 4
    assert abs(params["exact_energy"] - params["psi4"]["ci_energy"]) < 1e-6
