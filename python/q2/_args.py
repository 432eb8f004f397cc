"""Argument checks of q2 and q2.profiling (stdlib only): errors name the
function and the argument, TypeError for a wrong type, ValueError for a
wrong value; the messages of q2's top-level functions point at q2m3's
signatures in q2.profiling where a q2m3 call lands by mistake."""
import math
import numbers
import os

MODES = ("fixed", "dynamic")


def check_str(fn, name, v):
    if not isinstance(v, str):
        raise TypeError(f"{fn}: {name} must be a str, got {type(v).__name__}")
    return v


def check_bool(fn, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"{fn}: {name} must be a bool, got {type(v).__name__}")
    return v


def check_int(fn, name, v, minimum=None, allow_none=False):
    if v is None and allow_none:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{fn}: {name} must be an int, got "
                        f"{type(v).__name__} {v!r}")
    v = int(v)
    if minimum is not None and v < minimum:
        raise ValueError(f"{fn}: {name} must be >= {minimum}, got {v}")
    return v


def check_number(fn, name, v, positive=False, nonnegative=False):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a number, got "
                        f"{type(v).__name__} {v!r}")
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{fn}: {name} must be finite, got {v}")
    if positive and v <= 0:
        raise ValueError(f"{fn}: {name} must be positive, got {v}")
    if nonnegative and v < 0:
        raise ValueError(f"{fn}: {name} must be >= 0, got {v}")
    return v


def check_pid(fn, pid):
    """'self', an int or the decimal text of one (q2m3 types pid as
    int | str)."""
    if pid == "self":
        return "self"
    if isinstance(pid, str) and pid.strip().isdigit():
        pid = int(pid)
    if isinstance(pid, bool) or not isinstance(pid, numbers.Integral):
        raise TypeError(f"{fn}: pid must be 'self', an int or its decimal "
                        f"text, got {type(pid).__name__} {pid!r}")
    if pid <= 0:
        raise ValueError(f"{fn}: pid must be positive, got {pid}")
    return int(pid)


def check_callback(fn, name, v):
    if v is not None and not callable(v):
        raise TypeError(f"{fn}: {name} must be callable or None, got "
                        f"{type(v).__name__}")
    return v


def check_mode(fn, mode, allow_both=False, name="mode"):
    """'fixed' or 'dynamic' (or 'both' where allowed)."""
    if not isinstance(mode, str):
        raise TypeError(f"{fn}: {name} must be a str ('fixed' or 'dynamic'),"
                        f" got {type(mode).__name__} {mode!r}")
    ok = MODES + (("both",) if allow_both else ())
    if mode not in ok:
        extra = " (both modes: run_both_modes)" if mode == "both" else ""
        raise ValueError(f"{fn}: {name} must be one of "
                         f"{', '.join(repr(m) for m in ok)}, got "
                         f"{mode!r}{extra}")
    return mode


def check_modes(fn, value):
    """modes as a list of mode names: a string is one mode ('both' is
    both), never its letters."""
    if isinstance(value, str):
        if value == "both":
            return list(MODES)
        return [check_mode(fn, value, name="modes")]
    try:
        modes = list(value)
    except TypeError:
        raise TypeError(f"{fn}: modes must be a list of 'fixed'/'dynamic', "
                        f"got {type(value).__name__}") from None
    if not modes:
        raise ValueError(f"{fn}: modes is empty")
    return [check_mode(fn, m, name="modes") for m in modes]


Q2M3_HINT = ("; the q2m3 signature (mol_key, n_est, n_trotter, ...) is "
             "q2.profiling.orchestrator's")


def check_path(fn, name, value):
    """A path argument, or TypeError naming it (a q2m3 call passes an int
    or a molecule where q2 wants a directory)."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{fn}: {name} must be a path (str or os.PathLike), got "
                    f"{type(value).__name__} {value!r}{Q2M3_HINT}")
