"""The molecules of q2m3's profiling runs (stdlib only).

Each is built with psi4 through ``q2-qpe --molecule`` when psi4 is on PATH,
else read from the FCIDUMP bundled in examples/hamiltonians, which psi4
1.3.2 computed from the same geometry, basis and active space
(examples/hamiltonians/README.md)."""
import dataclasses
import os
import shutil
import subprocess
import tempfile
import threading


@dataclasses.dataclass(frozen=True)
class MoleculeConfig:
    """A molecule as q2m3 configures it: geometry (Angstrom), charge, basis
    and active space, plus the bundled FCIDUMP of the same system."""
    name: str
    symbols: tuple
    coords: tuple          # ((x, y, z), ...) in Angstrom
    charge: int = 0
    basis: str = "sto-3g"
    active_electrons: int = 2
    active_orbitals: int = 2
    fcidump: str = ""      # file name in examples/hamiltonians

    @property
    def n_system_qubits(self):
        return 2 * self.active_orbitals

    def xyz(self):
        lines = [str(len(self.symbols)), self.name]
        for s, (x, y, z) in zip(self.symbols, self.coords):
            lines.append(f"{s} {x:.10f} {y:.10f} {z:.10f}")
        return "\n".join(lines) + "\n"

    def hamiltonian_path(self):
        """The FCIDUMP to build from: psi4's (cached) when psi4 is on PATH,
        else the bundled one."""
        if shutil.which("psi4") and os.environ.get("Q2_NO_PSI4") != "1":
            return _psi4_fcidump(self)
        return bundled_fcidump(self.fcidump)


def _source_examples():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        here))), "examples", "hamiltonians")


def bundled_fcidump(name):
    """Path of a bundled Hamiltonian file (the build's share/q2/examples,
    else the source tree's examples/hamiltonians)."""
    dirs = []
    try:
        from .. import _config
        dirs.append(os.path.join(_config.EXAMPLES_DIR, "hamiltonians"))
        dirs.append(_config.EXAMPLES_DIR)
    except ImportError:
        pass
    if os.environ.get("Q2_SOURCE_DIR"):
        dirs.append(os.path.join(os.environ["Q2_SOURCE_DIR"], "examples",
                                 "hamiltonians"))
    dirs.append(_source_examples())
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise FileNotFoundError(f"bundled Hamiltonian {name!r} not found in "
                            + ", ".join(dirs))


_psi4_lock = threading.Lock()


def _psi4_fcidump(mol):
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                         os.path.expanduser("~/.cache"), "q2", "molecules")
    out = os.path.join(cache, f"{mol.name}_{mol.basis}_"
                       f"{mol.active_electrons}e{mol.active_orbitals}o.FCIDUMP")
    with _psi4_lock:
        if os.path.isfile(out):
            return out
        os.makedirs(cache, exist_ok=True)
        from .. import _config
        q2qpe = os.path.join(os.environ.get("Q2_BIN_DIR") or _config.BIN_DIR,
                             "q2-qpe")
        with tempfile.TemporaryDirectory(prefix="q2-mol-") as d:
            xyz = os.path.join(d, f"{mol.name}.xyz")
            with open(xyz, "w") as f:
                f.write(mol.xyz())
            tmp = os.path.join(d, "out.FCIDUMP")
            subprocess.run(
                [q2qpe, "--molecule", xyz, "--basis", mol.basis, "--charge",
                 str(mol.charge), "--active",
                 f"{mol.active_electrons},{mol.active_orbitals}",
                 "--fcidump-out", tmp, "--info"],
                check=True, stdout=subprocess.DEVNULL)
            os.replace(tmp, out)  # atomic: a cache file is whole or absent
    return out


# q2m3's molecules (H2 at the equilibrium bond length, H3O+ in a 4e/4o
# active space), with the geometries of the bundled FCIDUMPs.
MOLECULES = {
    "h2": MoleculeConfig(
        name="h2", symbols=("H", "H"),
        coords=((0.0, 0.0, 0.0), (0.0, 0.0, 0.7414)),
        charge=0, basis="sto-3g", active_electrons=2, active_orbitals=2,
        fcidump="h2_0.7414.FCIDUMP"),
    "h3o": MoleculeConfig(
        name="h3o", symbols=("O", "H", "H", "H"),
        coords=((0.0, 0.0, 0.1173), (0.0, 0.9572, -0.4692),
                (0.8286, -0.4786, -0.4692), (-0.8286, -0.4786, -0.4692)),
        charge=1, basis="sto-3g", active_electrons=4, active_orbitals=4,
        fcidump="h3o+_4e4o.FCIDUMP"),
}


def molecule_arg(fn, mol, name="mol"):
    """A MoleculeConfig from a config or a MOLECULES key; errors name the
    argument."""
    if isinstance(mol, MoleculeConfig):
        return mol
    if isinstance(mol, str):
        key = mol.lower()
        if key in MOLECULES:
            return MOLECULES[key]
        raise ValueError(f"{fn}: {name} {mol!r} is not a molecule key "
                         f"(known: {', '.join(MOLECULES)})")
    raise TypeError(f"{fn}: {name} must be a MoleculeConfig or a MOLECULES "
                    f"key, got {type(mol).__name__}")
