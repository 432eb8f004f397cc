"""q2m3's ``q2m3.molecule`` under q2's name: ``MoleculeConfig`` (a
molecule's geometry, charge, active space and basis). The class lives in
``q2.profiling.molecules`` with the bundled ``MOLECULES``."""
from .profiling.molecules import MoleculeConfig

__all__ = ["MoleculeConfig"]
