"""Nothing the probe triggers reaches a client: ``print`` output is captured (bounded),
``display()``/``publish_display_data`` and ``sys.displayhook`` are dropped, warnings
are ignored and logging is disabled for the duration of one probe call.  Everything is
restored on the way out, even on ``BaseException``."""

import sys
import warnings

#: Output a repr prints while the probe runs is swallowed (and bounded).
MAX_CAPTURED = 64 * 1024
_MISSING = object()


class Sink:
    """A bounded stand-in for stdout/stderr while the probe runs."""

    def __init__(self):
        self.size = 0
        self.parts = []

    def write(self, text):
        if type(text) is str and self.size < MAX_CAPTURED:
            self.parts.append(text[: MAX_CAPTURED - self.size])
            self.size += len(self.parts[-1])
        return len(text) if type(text) is str else 0

    def flush(self):
        pass

    def isatty(self):
        return False


def _drop(*args, **kwargs):
    return None


class Quiet:
    """Context manager; ``shell`` is the IPython shell or None."""

    def __init__(self, shell=None):
        self.shell = shell
        self.sink = Sink()
        self._saved = None
        self._warnings = None
        self._logging = None
        self._pub = None

    def __enter__(self):
        self._saved = sys.stdout, sys.stderr, sys.displayhook
        sys.stdout = sys.stderr = self.sink
        sys.displayhook = _drop
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore")
        logging = sys.modules.get("logging")
        if logging is not None:
            self._logging = (logging, logging.root.manager.disable)
            logging.disable(logging.CRITICAL)
        self._mute_display()
        return self

    def _mute_display(self):
        pub = getattr(self.shell, "display_pub", None) if self.shell is not None else None
        if pub is None:
            return
        try:
            d = pub.__dict__
            self._pub = (pub, d.get("publish", _MISSING), d.get("clear_output", _MISSING))
            pub.publish = _drop
            pub.clear_output = _drop
        except Exception:
            self._pub = None

    def __exit__(self, *exc):
        if self._pub is not None:
            pub, publish, clear = self._pub
            for name, old in (("publish", publish), ("clear_output", clear)):
                try:
                    if old is _MISSING:
                        pub.__dict__.pop(name, None)
                    else:
                        setattr(pub, name, old)
                except Exception:
                    pass
        if self._logging is not None:
            logging, level = self._logging
            logging.disable(level)
        self._warnings.__exit__(*exc)
        sys.stdout, sys.stderr, sys.displayhook = self._saved
        return False
