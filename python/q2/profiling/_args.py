"""Argument checks shared by q2.profiling (errors name the argument)."""
import math
import numbers


def check_str(fn, name, v):
    if not isinstance(v, str):
        raise TypeError(f"{fn}: {name} must be a str, got {type(v).__name__}")
    return v


def check_bool(fn, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"{fn}: {name} must be a bool, got {type(v).__name__}")
    return v


def check_int(fn, name, v, minimum=None):
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


MODES = ("fixed", "dynamic")


def check_mode(fn, mode, allow_both=False, name="mode"):
    if not isinstance(mode, str):
        raise TypeError(f"{fn}: {name} must be a str, got {type(mode).__name__}"
                        f" {mode!r}")
    ok = MODES + (("both",) if allow_both else ())
    if mode not in ok:
        extra = " (both modes: run_both_modes or run_single_profile)" \
            if mode == "both" else ""
        raise ValueError(f"{fn}: {name} must be one of "
                         f"{', '.join(repr(m) for m in ok)}, got {mode!r}{extra}")
    return mode
