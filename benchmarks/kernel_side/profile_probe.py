"""Kernel-side: where a probe snapshot spends its time.

``phases``: wraps the probe's per-phase callables with perf_counter timers (cheap, so
absolute numbers stay close to an unwrapped call) and runs one ``call``.
``hotspots``: cProfile of one ``call``, top functions by own time (attribution; the
profiler inflates small functions).
Both read the probe's internals, which may change: a missing one is reported, not fatal.
"""

import base64
import cProfile
import json
import pstats
import sys
import time

from .peers import JsonText

PROBE = "_jupyter_kernel_state_probe"
# (object path from the probe package, attribute, its name in the report) timed by ``phases``.
PHASES = (
    ("entry._state.visibility", "names", "visibility.names"),
    ("entry._state.sorter", "sort", "sorter.sort"),
    ("entry._state.cache", "entry", "cache.entry"),
    ("inspect.cache", "build", "summary.build"),  # summary.build, as the cache calls it
    ("entry._state.cache", "fragments", "cache.fragments"),
    ("entry._state.tracker", "change_of_many", "tracker.change_of_many"),
    ("entry._state.tracker", "removed_since", "tracker.removed_since"),
    ("entry", "dumps", "entry.dumps"),
)


def _encode(request):
    return base64.urlsafe_b64encode(json.dumps(request).encode("ascii")).decode("ascii")


def _resolve(path):
    obj = sys.modules[PROBE]
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def phases(request):
    timings = {}
    patches = []
    missing = []
    for path, attr, key in PHASES:
        try:
            obj = _resolve(path)
            original = getattr(obj, attr)
        except AttributeError:
            missing.append(key)
            continue
        patches.append((obj, attr, original, attr in getattr(obj, "__dict__", {})))
        setattr(obj, attr, _timer(original, timings.setdefault(key, [0, 0.0])))
    try:
        t0 = time.perf_counter()
        reply = sys.modules[PROBE].entry.call(_encode(request))
        total = time.perf_counter() - t0
    finally:
        for obj, attr, original, own in reversed(patches):
            if own:
                setattr(obj, attr, original)
            else:
                delattr(obj, attr)
    out = {
        "total_ms": total * 1e3,
        "reply_chars": len(reply.text),
        "phases": {k: {"calls": n, "ms": s * 1e3} for k, (n, s) in timings.items()},
        "missing": missing,
    }
    return JsonText(json.dumps(out))


def _timer(fn, record):
    perf = time.perf_counter

    def timed(*args, **kwargs):
        t0 = perf()
        try:
            return fn(*args, **kwargs)
        finally:
            record[0] += 1
            record[1] += perf() - t0

    return timed


def hotspots(request, top=15):
    encoded = _encode(request)
    return _profiled(lambda: sys.modules[PROBE].entry.call(encoded), top)


def hook_hotspots(top=10):
    """cProfile of one post_run_cell scan of the tracker (as after a cell changing nothing)."""
    tracker = sys.modules[PROBE].entry._state.tracker
    return _profiled(lambda: tracker.scan(None), top)


def _profiled(fn, top):
    profile = cProfile.Profile()
    profile.enable()
    fn()
    profile.disable()
    stats = pstats.Stats(profile).stats
    rows = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    out = [
        {
            "function": "{}:{}({})".format(f.rsplit("/", 1)[-1], line, name),
            "calls": nc,
            "tottime_ms": tt * 1e3,
            "cumtime_ms": ct * 1e3,
        }
        for (f, line, name), (cc, nc, tt, ct, _callers) in rows
    ]
    return JsonText(json.dumps(out))
