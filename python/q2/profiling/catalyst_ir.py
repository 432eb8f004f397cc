"""q2m3's name for the IR-analysis module: ``q2.profiling.catalyst_ir`` is
``q2.profiling.ir`` (the same module object), so that ``from
q2m3.profiling.catalyst_ir import ...`` needs only its package renamed."""
import sys

from . import ir as _ir

sys.modules[__name__] = _ir
