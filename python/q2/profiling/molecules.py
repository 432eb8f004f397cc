"""Molecules of q2.profiling: q2m3's ``MoleculeConfig`` and ``MOLECULES``,
and the one place a molecule becomes a Hamiltonian file (stdlib only).

A molecule's Hamiltonian is determined by what ``hamiltonian_key`` lists:
element symbols, coordinates (exact decimal text), charge, multiplicity,
basis, active space and the frozen core. A molecule with the key of a
bundled FCIDUMP (``MOLECULES``, as defined) is read from that file, which
psi4 1.3.2 computed from the same geometry (examples/hamiltonians/README.md).
Any other molecule is built with psi4 through ``q2-qpe --molecule`` and
cached under ``$XDG_CACHE_HOME/q2/molecules`` (default ``~/.cache``), keyed
by the same fields plus psi4's version and the build recipe, so that a bond
scan gets one Hamiltonian per geometry. Without psi4 such a molecule is a
``Psi4NotFoundError``, raised before anything is written.
"""
import dataclasses
import hashlib
import json
import math
import numbers
import os
import shutil
import subprocess
import threading

__all__ = ["MoleculeConfig", "MOLECULES", "Psi4NotFoundError",
           "hamiltonian_key", "molecule_arg", "bundled_fcidump"]

# H..Kr: the elements of q2-qpe --molecule (STO-3G's range).
_ELEMENTS = ("H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr "
             "Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr").split()
_Z = {s.lower(): z for z, s in enumerate(_ELEMENTS, 1)}


class Psi4NotFoundError(RuntimeError):
    """A molecule that is not bundled needs psi4, which is not installed."""


@dataclasses.dataclass
class MoleculeConfig:
    """A molecule as q2m3 configures it (same fields, order and defaults):
    atomic symbols, coordinates in Angstrom, total charge, the active space
    (electrons, spatial orbitals; the lowest (N - NE)/2 orbitals are frozen)
    and the basis. ``multiplicity`` is q2's (only 1: closed-shell RHF, as
    ``q2-qpe --molecule`` builds it)."""
    name: str
    symbols: list
    coords: list
    charge: int
    active_electrons: int
    active_orbitals: int
    basis: str = "sto-3g"
    multiplicity: int = 1

    @property
    def n_atoms(self):
        return len(self.symbols)

    @property
    def coords_array(self):
        import numpy as np
        return np.array(self.coords, dtype=float)

    @property
    def center(self):
        return self.coords_array.mean(axis=0)

    @property
    def n_system_qubits(self):
        return 2 * int(self.active_orbitals)

    @property
    def n_electrons(self):
        """All electrons: the nuclear charges minus the charge."""
        return sum(_Z[s.lower()] for s in self.symbols) - int(self.charge)

    @property
    def frozen_core(self):
        """Doubly occupied orbitals outside the active space."""
        return (self.n_electrons - int(self.active_electrons)) // 2

    def validate(self):
        """Checks the configuration (q2m3's checks, then what q2-qpe
        --molecule checks before psi4 runs); ValueError/TypeError naming the
        field."""
        if len(self.symbols) != len(self.coords):
            raise ValueError(
                f"Number of symbols ({len(self.symbols)}) must match number "
                f"of coordinate sets ({len(self.coords)})")
        for i, coord in enumerate(self.coords):
            if len(coord) != 3:
                raise ValueError(f"Coordinate {i} must have 3 components, "
                                 f"got {len(coord)}")
        _check_molecule(self)


def _int_field(mol, name, minimum):
    v = getattr(mol, name)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"MoleculeConfig {mol.name!r}: {name} must be an "
                        f"int, got {type(v).__name__} {v!r}")
    if v < minimum:
        raise ValueError(f"MoleculeConfig {mol.name!r}: {name} must be >= "
                         f"{minimum}, got {v}")
    return int(v)


def _check_molecule(mol):
    if not mol.symbols:
        raise ValueError(f"MoleculeConfig {mol.name!r}: no atoms")
    for i, s in enumerate(mol.symbols):
        if not isinstance(s, str) or s.lower() not in _Z:
            raise ValueError(f"MoleculeConfig {mol.name!r}: symbols[{i}] "
                             f"{s!r} is not an element H..Kr")
    for i, c in enumerate(mol.coords):
        for x in c:
            if isinstance(x, bool) or not isinstance(x, numbers.Real) or \
                    not math.isfinite(x):
                raise ValueError(f"MoleculeConfig {mol.name!r}: coords[{i}] "
                                 f"must be 3 finite numbers, got {list(c)}")
    if not isinstance(mol.charge, numbers.Integral) or \
            isinstance(mol.charge, bool):
        raise TypeError(f"MoleculeConfig {mol.name!r}: charge must be an "
                        f"int, got {mol.charge!r}")
    if _int_field(mol, "multiplicity", 1) != 1:
        raise ValueError(f"MoleculeConfig {mol.name!r}: multiplicity "
                         f"{mol.multiplicity}: only 1 (closed-shell RHF) is "
                         "supported, as by q2-qpe --molecule")
    ne = _int_field(mol, "active_electrons", 1)
    no = _int_field(mol, "active_orbitals", 1)
    if ne > 2 * no:
        raise ValueError(f"MoleculeConfig {mol.name!r}: {ne} active "
                         f"electrons do not fit in {no} orbitals")
    n = mol.n_electrons
    if n <= 0 or n % 2:
        raise ValueError(f"MoleculeConfig {mol.name!r}: {n} electrons at "
                         f"charge {mol.charge}; a closed shell needs a "
                         "positive even number")
    if ne > n or (n - ne) % 2:
        raise ValueError(f"MoleculeConfig {mol.name!r}: active space "
                         f"({ne}e, {no}o) does not fit {n} electrons (the "
                         "frozen core takes pairs)")
    if not isinstance(mol.basis, str) or not mol.basis.strip():
        raise ValueError(f"MoleculeConfig {mol.name!r}: basis must be a "
                         "non-empty str")


def hamiltonian_key(mol):
    """What defines the molecule's Hamiltonian, as a canonical dict:
    symbols, coordinates (shortest exact decimal text of each float),
    charge, multiplicity, basis, active space and frozen core. Checks the
    configuration first (``MoleculeConfig.validate``)."""
    mol.validate()
    return {
        "symbols": [_ELEMENTS[_Z[s.lower()] - 1] for s in mol.symbols],
        "coords": [[repr(float(x)) for x in c] for c in mol.coords],
        "charge": int(mol.charge),
        "multiplicity": int(mol.multiplicity),
        "basis": mol.basis.strip().lower(),
        "active": [int(mol.active_electrons), int(mol.active_orbitals)],
        "frozen_core": mol.frozen_core,
    }


def _key_text(key):
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def _xyz(mol, key):
    lines = [str(len(key["symbols"])), mol.name]
    for s, c in zip(key["symbols"], key["coords"]):
        lines.append(f"{s} {c[0]} {c[1]} {c[2]}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Bundled Hamiltonians
# ---------------------------------------------------------------------------

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


# q2m3's molecules, with q2m3's names and geometries (examples/hamiltonians
# has psi4's FCIDUMP of each).
MOLECULES = {
    "h2": MoleculeConfig(
        name="H2", symbols=["H", "H"],
        coords=[[0.0, 0.0, 0.0], [0.0, 0.0, 0.74]],
        charge=0, active_electrons=2, active_orbitals=2, basis="sto-3g"),
    "h3o": MoleculeConfig(
        name="H3O+", symbols=["O", "H", "H", "H"],
        coords=[[0.0, 0.0, 0.1173], [0.0, 0.9572, -0.4692],
                [0.8286, -0.4786, -0.4692], [-0.8286, -0.4786, -0.4692]],
        charge=1, active_electrons=4, active_orbitals=4, basis="sto-3g"),
}

# Hamiltonian key -> bundled file. Taken from the definitions above before
# anyone can change them: a preset whose geometry a script edits is a new
# molecule (psi4), never silently the bundled one.
_BUNDLED = {_key_text(hamiltonian_key(MOLECULES[k])): f for k, f in (
    ("h2", "h2_0.74.FCIDUMP"), ("h3o", "h3o+_4e4o.FCIDUMP"))}


# ---------------------------------------------------------------------------
# psi4
# ---------------------------------------------------------------------------

_PSI4_HINT = ("install it with `apt-get install psi4` (Debian), or use a "
              "bundled molecule (MOLECULES: "
              + ", ".join(f"{k!r}" for k in MOLECULES) + ")")


def find_psi4():
    """psi4 on PATH, or None (also when Q2_NO_PSI4=1)."""
    if os.environ.get("Q2_NO_PSI4") == "1":
        return None
    return shutil.which("psi4")


_lock = threading.Lock()
_versions = {}


def _psi4_version(psi4):
    """psi4 --version (about 1 s: psi4 imports itself), remembered per
    executable (path, mtime, size) in this process and in the cache."""
    st = os.stat(psi4)
    tag = [os.path.realpath(psi4), st.st_mtime_ns, st.st_size]
    key = json.dumps(tag)
    if key in _versions:
        return _versions[key]
    store = os.path.join(_cache_dir(), "psi4-versions.json")
    try:
        with open(store) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    if key not in known:
        out = subprocess.run([psi4, "--version"], capture_output=True,
                             text=True, stdin=subprocess.DEVNULL)
        if out.returncode != 0 or not out.stdout.strip():
            raise RuntimeError(f"{psi4} --version failed (exit code "
                               f"{out.returncode}): {out.stderr.strip()}")
        known[key] = out.stdout.strip()
        os.makedirs(os.path.dirname(store), exist_ok=True)
        tmp = f"{store}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(known, f)
        os.replace(tmp, store)
    _versions[key] = known[key]
    return known[key]


def _bin_dir():
    from .. import _config
    return os.environ.get("Q2_BIN_DIR") or _config.BIN_DIR


def _cache_dir():
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or
                        os.path.expanduser("~/.cache"), "q2", "molecules")


def _recipe_hash():
    """The FCIDUMP recipe (psi4_fcidump.py next to q2-qpe) is part of the
    key: a changed recipe is a new Hamiltonian."""
    p = os.path.join(_bin_dir(), "psi4_fcidump.py")
    try:
        with open(p, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return "missing"


def _safe(name):
    s = "".join(c if c.isalnum() or c in "._-" else
                ("p" if c == "+" else "_") for c in str(name))
    return s[:40] or "molecule"


def resolve(mol, on_progress=None, build=True):
    """(path, source) of the molecule's Hamiltonian file: ``"bundled"``
    or ``"psi4"`` (built now or read from the cache). Psi4NotFoundError,
    ValueError, TypeError before anything is written; RuntimeError when
    psi4 fails (its message). ``build=False`` only checks: the psi4 file
    may not exist yet. psi4's summary line goes to ``on_progress``."""
    key = hamiltonian_key(mol)
    bundled = _BUNDLED.get(_key_text(key))
    if bundled is not None:
        return bundled_fcidump(bundled), "bundled"
    psi4 = find_psi4()
    if psi4 is None:
        raise Psi4NotFoundError(
            f"molecule {mol.name!r} is not a bundled Hamiltonian: building "
            f"it needs psi4 (not found on PATH); {_PSI4_HINT}")
    full = dict(key, psi4=_psi4_version(psi4), recipe=_recipe_hash())
    digest = hashlib.sha256(_key_text(full).encode()).hexdigest()[:20]
    cache = _cache_dir()
    out = os.path.join(cache, f"{_safe(mol.name)}-{digest}.FCIDUMP")
    if not build:
        return out, "psi4"
    with _lock:
        if os.path.isfile(out):
            return out, "psi4"
        _build_with_psi4(mol, key, full, out, on_progress)
    return out, "psi4"


def _build_with_psi4(mol, key, full, out, on_progress):
    """Runs q2-qpe --molecule (psi4) into the cache: the FCIDUMP and, next
    to it, <name>.json with the key and psi4's energies. Both are written
    under temporary names and renamed, the FCIDUMP last (its presence means
    complete); a file lock keeps two processes from building one twice."""
    import fcntl
    import tempfile
    cache = os.path.dirname(out)
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isfile(out):
            return
        with tempfile.TemporaryDirectory(prefix="q2-mol-", dir=cache) as d:
            xyz = os.path.join(d, _safe(mol.name) + ".xyz")
            with open(xyz, "w") as f:
                f.write(_xyz(mol, key))
            tmp = os.path.join(d, "out.FCIDUMP")
            ne, no = key["active"]
            cmd = [os.path.join(_bin_dir(), "q2-qpe"), "--molecule", xyz,
                   "--basis", key["basis"], "--charge", str(key["charge"]),
                   "--multiplicity", str(key["multiplicity"]),
                   "--active", f"{ne},{no}", "--fcidump-out", tmp,
                   "--info", "--json"]
            p = subprocess.run(cmd, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL)
            if p.returncode != 0:
                raise RuntimeError(
                    f"psi4 could not build molecule {mol.name!r}: "
                    + (p.stderr.strip() or f"q2-qpe exit code {p.returncode}"))
            try:
                info = json.loads(p.stdout)
            except ValueError:
                info = {}
            meta = {"name": mol.name, "key": full,
                    "psi4": info.get("psi4", {})}
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1)
            os.replace(os.path.join(d, "meta.json"),
                       out[:-len(".FCIDUMP")] + ".json")
            os.replace(tmp, out)
    if on_progress is not None:
        for line in p.stderr.splitlines():
            if line.strip():
                on_progress(line.strip())


def psi4_result(path):
    """What psi4 reported for a cached Hamiltonian (scf_energy, ci_energy,
    n_core, ...; the JSON next to the FCIDUMP), or None for a bundled one."""
    meta = path[:-len(".FCIDUMP")] + ".json" if path.endswith(".FCIDUMP") \
        else None
    if meta is None or not os.path.isfile(meta):
        return None
    with open(meta) as f:
        return json.load(f).get("psi4")


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
