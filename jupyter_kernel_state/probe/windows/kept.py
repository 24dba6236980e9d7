"""Versions of tables kept on request, to compare a table with itself as of an earlier
execution (the ``keep``, ``kept`` and ``drop_kept`` ops; ``compare`` with
``with_execution``).

Nothing is kept unless the user asks: a version is a copy of the table as it is when
asked (pandas ``copy(deep=True)``, polars ``clone()``), tagged with the last user
execution, and held here — never in the user's namespace.  Two caps bound what is held
in a kernel, whatever the names: ``max_kept`` versions and ``max_kept_bytes`` bytes,
measured as the list's memory column measures a value (``Inspector.nbytes``: the
table's own arrays and index; the Python objects of an object column are shared with
the table, as pandas' deep copy shares them, so they are not counted).  A copy that
would pass a cap is refused before it is made (:class:`PastByteCap` when it passes the
byte cap alone, :class:`Full` when the versions already held leave no room), never kept
silently; with ``evict`` the oldest versions are dropped to make room, and the reply
names them.  Keeping a name at an execution it was already kept at replaces that
version.  The versions of a name go when the name does (``forget``, ``forget_gone``)
and all of them with the probe (a kernel restart, a new probe).
"""

from ..inspect.base import inspector_for, type_name

#: The caps' defaults (the server's traits ``max_kept`` and ``max_kept_bytes``).
DEFAULT_MAX_KEPT = 5
DEFAULT_MAX_KEPT_BYTES = 512 * 1024 * 1024


class NotKeepable(Exception):
    """The value is no table a version is kept of (a 400 that says why)."""


class PastByteCap(Exception):
    """The copy alone passes the byte cap (a 422: it can never be kept)."""


class Full(Exception):
    """The versions held leave no room under a cap (a 409 that lists them)."""


class Version:
    """One kept version: the copy, and what is said of it."""

    __slots__ = ("bytes", "columns", "execution", "library", "name", "rows", "type", "value")

    def __init__(self, name, execution, value, library, nbytes, rows, columns):
        self.name, self.execution, self.value = name, execution, value
        self.library, self.bytes = library, nbytes
        self.rows, self.columns = rows, columns
        self.type = type_name(type(value))

    def to_json(self):
        return {"name": self.name, "execution_count": self.execution, "type": self.type,
                "library": self.library, "rows": self.rows, "columns": self.columns,
                "bytes": self.bytes}

    def label(self):
        """``sales as of [12]``: how messages name it."""
        return "{} as of [{}]".format(self.name, self.execution)

    def code_name(self):
        """``sales_at_12``: the name the comparison's code gives it."""
        return "{}_at_{}".format(self.name, self.execution)


def library_of(value):
    """``pandas`` or ``polars`` for a DataFrame of theirs (exact module), else None."""
    module = (getattr(type(value), "__module__", "") or "").split(".")[0]
    return module if module in ("pandas", "polars") else None


def measured(value):
    """The bytes the list's memory column gives ``value`` (None: not measurable)."""
    try:
        nbytes = inspector_for(type(value)).nbytes(value)
    except Exception:
        return None
    return nbytes if type(nbytes) is int and nbytes >= 0 else None


def copy_of(value, library):
    """A copy of a pandas or polars DataFrame that later changes to ``value`` leave as it
    is (polars shares its immutable buffers: a clone is one until either changes)."""
    if library == "pandas":
        return value.copy(deep=True)
    return value.clone()


class KeptVersions:
    """Every kept version of a kernel, oldest first."""

    def __init__(self):
        self.versions = []

    def __bool__(self):
        return bool(self.versions)

    def of(self, name):
        return [v for v in self.versions if v.name == name]

    def get(self, name, execution):
        for v in self.versions:
            if v.name == name and v.execution == execution:
                return v
        return None

    def total_bytes(self):
        return sum(v.bytes for v in self.versions)

    def room(self, name, execution, nbytes, max_kept, max_kept_bytes, evict):
        """The versions to drop (oldest first) so that one of ``nbytes`` fits, the one it
        replaces aside; :class:`PastByteCap` or :class:`Full` when it cannot fit."""
        if nbytes > max_kept_bytes:
            raise PastByteCap("{} is {} bytes, past the {} bytes a kept version may hold "
                           "(max_kept_bytes): not kept".format(
                               name, _count(nbytes), _count(max_kept_bytes)))
        if max_kept < 1:
            raise PastByteCap("keeping versions is turned off (max_kept is 0)")
        others = [v for v in self.versions if not (v.name == name and v.execution == execution)]
        dropped = []
        while others and (len(others) + 1 > max_kept
                          or sum(v.bytes for v in others) + nbytes > max_kept_bytes):
            dropped.append(others.pop(0))
        if dropped and not evict:
            held = "; ".join("{}: {} bytes".format(v.label(), _count(v.bytes))
                             for v in self.versions)
            raise Full("no room to keep {} ({} bytes): {} of {} versions and {} of {} bytes "
                       "are held ({}). Drop one (DELETE …/kept/<execution>) or keep with "
                       "evict=true to drop the oldest".format(
                           name, _count(nbytes), len(self.versions), max_kept,
                           _count(self.total_bytes()), _count(max_kept_bytes), held))
        return dropped

    def put(self, version, dropped):
        """Keep ``version`` in place of the one of its name and execution, after dropping
        ``dropped``; True when it replaced one."""
        gone = set(map(id, dropped))
        before = len(self.versions)
        self.versions = [v for v in self.versions if id(v) not in gone and not (
            v.name == version.name and v.execution == version.execution)]
        replaced = len(self.versions) < before - len(dropped)
        self.versions.append(version)
        return replaced

    def drop(self, name, execution=None):
        """The versions of ``name`` (of ``execution`` only, unless None) dropped."""
        out = [v for v in self.versions
               if v.name == name and (execution is None or v.execution == execution)]
        if out:
            self.versions = [v for v in self.versions if not any(v is o for o in out)]
        return out

    def forget(self, name):
        """The name was deleted: its versions go too."""
        return self.drop(name)

    def forget_gone(self, names, ns):
        """Of ``names`` (those the change tracker saw change or go), the versions of those
        no longer in ``ns`` go.  Costs nothing while nothing is kept."""
        if not self.versions:
            return
        kept = {v.name for v in self.versions}
        for name in names:
            if name in kept and name not in ns:
                self.drop(name)

    def listing(self, name, max_kept, max_kept_bytes):
        """The reply of the kept-version ops: ``name``'s versions, oldest first, how much
        of the caps every name's use; what the call kept and dropped (none here)."""
        return {"name": name, "versions": [v.to_json() for v in self.of(name)],
                "kept_total": len(self.versions), "bytes_total": self.total_bytes(),
                "max_kept": max_kept, "max_kept_bytes": max_kept_bytes,
                "kept": None, "replaced": False, "dropped": []}


def _count(n):
    return "{:,}".format(n)
