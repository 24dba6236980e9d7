"""Lineage: which executions bound a name and which read it, from the code that ran.

:func:`analyse` reads one cell's code statically (``ast``; nothing is run):

* *stores* at module level are definitions: assignment, augmented and annotated
  assignment (with a value), ``for``/``with``/``except`` targets, imports, ``def`` and
  ``class`` names, the walrus, match captures (kind ``bound``); a store through an item
  or an attribute (``df['x'] = 1``, ``df['x'] += 1``, ``obj.a = 2``) reads *and changes*
  its base name (kind ``changed``); ``del x`` is kind ``deleted``, ``del x[0]`` changes x;
* *loads* at module level are reads; names read inside a function or lambda body defined
  in the cell are reads ``in_function`` (globals read when it is called); a name local
  to that body (a parameter, a name it assigns) is not a global; ``global x`` in a
  function makes its stores of x module stores;
* comprehension variables are local to the comprehension, never globals;
* dynamic access cannot be told by name, so the execution is ``unknown`` with its
  reasons: ``globals()``, ``locals()`` and ``vars()`` without arguments, ``exec``,
  ``eval``, ``setattr``/``delattr`` on a module (``sys.modules``), star imports,
  ``user_ns``, and the magics that bind names behind the code (``%store -r``, ``%run``,
  ``%reset``…).

In a kernel the tree is the one IPython parsed for the cell, after its own
transformation (``tracker.TreeKeeper``: nothing is parsed again); without it, the code
is parsed here and IPython syntax transformed first (``shell.transform_cell``, only when
the raw code is not Python).  ``%time`` /
``%%time`` / ``%%capture`` / ``%prun`` code is analysed as the cell's; ``%timeit`` code
runs in a function, so its names are reads.  Bounds: cells over ``MAX_CELL_CHARS``
characters are not analysed (they ran: ``unknown``, said why), a cell that does not
parse records nothing (``note`` says why: it did not run either), at most
``MAX_CELL_NAMES`` names per kind and cell (``cut`` counts the rest), ``MAX_REASONS``
reasons.

:class:`Lineage` keeps what was found per execution (its cell id, the head of its code),
bounded like the change timeline (``logs.Timeline``): ``MAX_CELLS`` executions,
``MAX_HELD`` names in all, the oldest dropped first (``complete_after`` says from where
an answer is complete); :meth:`Lineage.of` answers for one name, the newest ``limit``
executions of each list with the count of all held.
"""

import ast
import collections

from ..inspect.secrets import mask_code
from ..protocol import DEFAULT_LINEAGE, MAX_CELL_ID

#: Characters of a cell's code analysed at most (a longer cell is ``unknown``).
MAX_CELL_CHARS = 20_000
#: Names recorded per kind (defined, read) and cell at most.
MAX_CELL_NAMES = 1_000
#: Reasons of dynamic access kept per cell.
MAX_REASONS = 5
#: Characters of a cell's code kept (its head); cell ids are kept up to
#: ``protocol.MAX_CELL_ID`` characters.
MAX_CODE = 200
#: Executions and names held in all.
MAX_CELLS = 1_000
MAX_HELD = 200_000

BOUND, CHANGED, DELETED = "bound", "changed", "deleted"
#: Calls whose access to the namespace cannot be told by name.
_DYNAMIC_CALLS = {"globals": "globals()", "exec": "exec()", "eval": "eval()",
                  "__import__": None}
_NO_ARG_DYNAMIC = {"locals": "locals()", "vars": "vars()"}
#: Line magics that bind or drop names behind the code (``store`` only with ``-r``).
_DYNAMIC_MAGICS = ("run", "reset", "reset_selective", "xdel", "pylab", "macro", "aimport",
                   "store")
#: Magics whose code runs in the user namespace (analysed), and in a function (reads).
_CODE_MAGICS = ("time", "prun", "capture")
_READ_MAGICS = ("timeit",)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


class Analysis:
    """What one cell's code does to names: ``defined`` (name -> kind), ``read`` (name
    -> True when only read inside a function body), ``unknown`` (reasons of dynamic
    access), ``note`` (why nothing was recorded, or None), ``cut`` (names left out)."""

    __slots__ = ("cut", "defined", "note", "read", "unknown")

    def __init__(self, note=None):
        self.defined = {}
        self.read = {}
        self.unknown = []
        self.note = note
        self.cut = 0

    def define(self, name, kind):
        old = self.defined.get(name)
        if old is None:
            if len(self.defined) >= MAX_CELL_NAMES:
                self.cut += 1
                return
            self.defined[name] = kind
        elif kind == BOUND or (kind == DELETED and old == CHANGED):
            self.defined[name] = kind  # the strongest: a binding says more than a change

    def use(self, name, in_function=False):
        old = self.read.get(name)
        if old is None:
            if len(self.read) >= MAX_CELL_NAMES:
                self.cut += 1
                return
            self.read[name] = in_function
        elif old and not in_function:
            self.read[name] = False  # read at module level too

    def dynamic(self, reason):
        if reason not in self.unknown and len(self.unknown) < MAX_REASONS:
            self.unknown.append(reason)


def analyse(code, transform=None, tree=None):
    """The :class:`Analysis` of ``code``; ``transform`` (IPython's ``transform_cell``)
    turns IPython syntax into Python when the raw code does not parse; ``tree`` is the
    module IPython already parsed from it (then nothing is parsed here)."""
    if type(code) is not str:
        return Analysis("not analysed: no code")
    if len(code) > MAX_CELL_CHARS:
        found = Analysis()
        found.dynamic("not analysed: cell over {:,} characters".format(MAX_CELL_CHARS))
        return found
    if type(tree) is not ast.Module:
        tree = _parse(code, transform)
    if type(tree) is str:
        return Analysis(tree)
    found = Analysis()
    try:
        _Reader(found, transform).module(tree)
    except RecursionError:
        return Analysis("not analysed: nested too deeply")
    return found


def _parse(code, transform):
    """The module's tree, or why there is none."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        error = exc
    except (RecursionError, MemoryError):
        return "not analysed: nested too deeply"
    if transform is not None:
        try:
            return ast.parse(transform(code))
        except (SyntaxError, ValueError) as exc:
            error = exc
        except Exception:  # IPython's transformers on odd input
            pass
    line = getattr(error, "lineno", None)
    where = " (line {})".format(line) if type(line) is int else ""
    return "not analysed: invalid syntax{}; nothing recorded".format(where)


class _Reader:
    """One walk over a module's tree (see the module docstring for what counts)."""

    def __init__(self, found, transform):
        self.found = found
        self.transform = transform

    def module(self, tree):
        for stmt in tree.body:
            self.node(stmt, None)

    # ``scope`` is None at module level, else the set of names local to the function
    # (or comprehension, or class body) being read, with ``scope.globals`` declared.

    def node(self, node, scope):
        kind = type(node)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, node, scope)
            return
        if kind is ast.Name:
            self.name(node.id, node.ctx, scope)
            return
        if kind is ast.Call:
            self.call(node, scope)
        elif kind in _LEAVES:
            return
        self.children(node, scope)

    def children(self, node, scope):
        """Every child node (``ast.iter_child_nodes`` without contexts and operators:
        this loop is most of the walk)."""
        fields = _FIELDS.get(type(node))
        if fields is None:
            fields = _FIELDS[type(node)] = tuple(
                f for f in type(node)._fields if f not in ("ctx", "op"))
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self.node(item, scope)
            elif isinstance(value, ast.AST):
                self.node(value, scope)

    def name(self, name, ctx, scope):
        found = self.found
        if scope is None:
            if type(ctx) is ast.Load:
                found.use(name)
            else:
                found.define(name, DELETED if type(ctx) is ast.Del else BOUND)
        elif name in scope.globals:
            if type(ctx) is ast.Load:
                found.use(name, True)
            else:
                found.define(name, DELETED if type(ctx) is ast.Del else BOUND)
        elif type(ctx) is ast.Load and name not in scope:
            scope.free(name)

    def store_target(self, target, scope, aug=False):
        """An assignment's target: a name is bound (read too with ``aug``); an item or an
        attribute changes the base name, and what indexes it is read."""
        kind = type(target)
        if kind is ast.Name:
            if not aug:
                self.name(target.id, target.ctx, scope)
                return
            self.name(target.id, ast.Load(), scope)  # ``x += 1`` reads x, then changes it
            self.changed(target.id, scope)
        elif kind in (ast.Subscript, ast.Attribute):
            base = target.value
            while type(base) in (ast.Subscript, ast.Attribute):
                if type(base) is ast.Subscript:
                    self.node(base.slice, scope)
                base = base.value
            if type(base) is ast.Name:
                self.name(base.id, ast.Load(), scope)
                self.changed(base.id, scope)
            else:
                self.node(base, scope)
            if kind is ast.Subscript:
                self.node(target.slice, scope)
        elif kind in (ast.Tuple, ast.List):
            for element in target.elts:
                self.store_target(element, scope, aug)
        elif kind is ast.Starred:
            self.store_target(target.value, scope, aug)
        else:
            self.node(target, scope)

    def changed(self, name, scope):
        if scope is None or name in scope.globals:
            self.found.define(name, CHANGED)
        # a function that changes a global's content: read when called (``free``)

    def call(self, node, scope):
        func = node.func
        if type(func) is ast.Name:
            reason = _DYNAMIC_CALLS.get(func.id)
            if reason is None and not node.args and not node.keywords:
                reason = _NO_ARG_DYNAMIC.get(func.id)
            if func.id in ("setattr", "delattr") and node.args and _is_module(node.args[0]):
                reason = func.id + "() on a module"
            if reason:
                self.found.dynamic(reason)
        elif type(func) is ast.Attribute and func.attr in ("run_line_magic", "run_cell_magic"):
            self.magic(node, scope)

    def magic(self, node, scope):
        """``get_ipython().run_line_magic(name, line)`` / ``run_cell_magic(name, line,
        body)`` as IPython's transformation writes them."""
        args = [a.value if type(a) is ast.Constant and type(a.value) is str else None
                for a in node.args]
        if not args or args[0] is None:
            return
        magic = args[0]
        code = args[-1] if len(args) >= 2 else None
        if magic in _DYNAMIC_MAGICS:
            if magic != "store" or (args[1] or "").lstrip().startswith("-r"):
                self.found.dynamic("%" + magic)
        elif code and (magic in _CODE_MAGICS or magic in _READ_MAGICS):
            inner = analyse(code, self.transform)
            if inner.note is not None:
                self.found.note = "%{}: {}".format(magic, inner.note)  # it did not run
            else:
                if scope is None and magic not in _READ_MAGICS:
                    for name, kind in inner.defined.items():
                        self.found.define(name, kind)
                for name, in_function in inner.read.items():
                    self.found.use(name, in_function or magic in _READ_MAGICS)
                for reason in inner.unknown:
                    self.found.dynamic(reason)

    # -- statements and scopes ---------------------------------------------------------

    def assign(self, node, scope):
        self.node(node.value, scope)
        for target in node.targets:
            self.store_target(target, scope)

    def aug_assign(self, node, scope):
        self.node(node.value, scope)
        self.store_target(node.target, scope, aug=True)

    def ann_assign(self, node, scope):
        if node.value is None:
            return  # ``x: int`` binds nothing
        self.node(node.value, scope)
        if scope is None:
            self.node(node.annotation, scope)
        self.store_target(node.target, scope)

    def for_(self, node, scope):
        self.node(node.iter, scope)
        self.store_target(node.target, scope)
        for stmt in node.body + node.orelse:
            self.node(stmt, scope)

    def with_(self, node, scope):
        for item in node.items:
            self.node(item.context_expr, scope)
            if item.optional_vars is not None:
                self.store_target(item.optional_vars, scope)
        for stmt in node.body:
            self.node(stmt, scope)

    def handler(self, node, scope):
        if node.type is not None:
            self.node(node.type, scope)
        if node.name:
            self.name(node.name, ast.Store(), scope)
        for stmt in node.body:
            self.node(stmt, scope)

    def delete(self, node, scope):
        for target in node.targets:
            if type(target) is ast.Name:
                self.name(target.id, ast.Del(), scope)
            else:
                self.store_target(target, scope)

    def import_(self, node, scope):
        for alias in node.names:
            if alias.name == "*":
                self.found.dynamic("from {} import *".format(node.module or "."))
                continue
            bound = alias.asname or alias.name.split(".")[0]
            self.name(bound, ast.Store(), scope)

    def walrus(self, node, scope):
        self.node(node.value, scope)
        # in a comprehension the walrus binds in the enclosing scope
        while scope is not None and scope.comprehension:
            scope = scope.parent
        self.name(node.target.id, ast.Store(), scope)

    def function(self, node, scope):
        """A def or lambda: decorators, defaults and annotations are read where it is
        defined; its body in a scope of its own; a def binds its name."""
        args = node.args
        for expr in list(getattr(node, "decorator_list", ())) + args.defaults + [
                d for d in args.kw_defaults if d is not None]:
            self.node(expr, scope)
        inner = _Scope(scope)
        for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if arg is not None:
                inner.add(arg.arg)
        body = [node.body] if type(node) is ast.Lambda else node.body
        _collect_locals(body, inner)
        for stmt in body:
            self.node(stmt, inner)
        inner.close(self.found)
        if type(node) is not ast.Lambda:
            self.name(node.name, ast.Store(), scope)

    def class_(self, node, scope):
        for expr in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.node(expr, scope)
        inner = _Scope(scope, class_body=True)
        _collect_locals(node.body, inner)
        for stmt in node.body:
            self.node(stmt, inner)
        inner.close(self.found)
        self.name(node.name, ast.Store(), scope)

    def comprehension(self, node, scope):
        generators = node.generators
        self.node(generators[0].iter, scope)  # evaluated where the comprehension is
        inner = _Scope(scope, comprehension=True)
        for gen in generators:
            _collect_targets(gen.target, inner)
        for i, gen in enumerate(generators):
            if i:
                self.node(gen.iter, inner)
            for cond in gen.ifs:
                self.node(cond, inner)
        for part in ("elt", "key", "value"):
            expr = getattr(node, part, None)
            if expr is not None:
                self.node(expr, inner)
        inner.close(self.found)

    def global_(self, node, scope):
        if scope is not None:
            scope.globals.update(node.names)
            scope.difference_update(node.names)

    def match_capture(self, node, scope):
        name = getattr(node, "name", None) or getattr(node, "rest", None)
        if name:
            self.name(name, ast.Store(), scope)
        self.children(node, scope)

    def subscript_or_attribute(self, node, scope):
        if type(node.ctx) is ast.Load:
            if type(node) is ast.Subscript and _is_module(node):
                self.found.dynamic("sys.modules[...]")
            elif type(node) is ast.Attribute and node.attr == "user_ns":
                self.found.dynamic("user_ns")
            self.children(node, scope)
        else:
            self.store_target(node, scope)


class _Scope(set):
    """The names local to a function, class body or comprehension; ``globals`` declared
    there; the names read there that are not local (``free_names``: name -> read only
    inside a function body), resolved by the enclosing scopes when it closes."""

    def __init__(self, parent, class_body=False, comprehension=False):
        super().__init__()
        self.parent = parent
        self.class_body = class_body
        self.comprehension = comprehension
        self.globals = set()
        self.free_names = {}

    def free(self, name, in_function=False):
        old = self.free_names.get(name)
        self.free_names[name] = in_function if old is None else old and in_function

    def close(self, found):
        """Free names go up: to an enclosing scope that does not bind them, or to the
        module as reads (a function's body skips enclosing class bodies)."""
        function = not (self.class_body or self.comprehension)
        parent = self.parent
        while function and parent is not None and parent.class_body:
            parent = parent.parent
        for name, in_function in self.free_names.items():
            in_function = in_function or function
            if parent is None:
                found.use(name, in_function)
            elif name in parent.globals:
                found.use(name, True)
            elif name not in parent:
                parent.free(name, in_function)


def _collect_locals(body, scope):
    """The names a function or class body binds (its locals), not looking into the
    bodies of functions and classes it defines (only their names)."""
    stack = list(body)
    declared = set()
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Global or kind is ast.Nonlocal:
            declared.update(node.names)
        elif kind is ast.Name and type(node.ctx) is not ast.Load:
            scope.add(node.id)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            scope.add(node.name)
            stack.extend(getattr(node, "decorator_list", ()))
            continue
        elif kind is ast.Lambda or kind in _COMPREHENSIONS:
            continue  # their own scopes (a walrus inside binds here: rare, read as free)
        elif kind in (ast.Import, ast.ImportFrom):
            scope.update(a.asname or a.name.split(".")[0] for a in node.names if a.name != "*")
        elif kind is ast.ExceptHandler and node.name:
            scope.add(node.name)
        elif kind is ast.NamedExpr:
            scope.add(node.target.id)
        else:
            name = getattr(node, "name", None) if kind.__name__.startswith("Match") else None
            if name:
                scope.add(name)
        stack.extend(ast.iter_child_nodes(node))
    scope.globals.update(n for n in declared)
    scope.difference_update(declared)


def _collect_targets(target, scope):
    kind = type(target)
    if kind is ast.Name:
        scope.add(target.id)
    elif kind in (ast.Tuple, ast.List):
        for element in target.elts:
            _collect_targets(element, scope)
    elif kind is ast.Starred:
        _collect_targets(target.value, scope)


def _is_module(node):
    """``sys.modules[...]`` (or ``sys.modules`` itself) somewhere in ``node``."""
    for sub in ast.walk(node):
        if type(sub) is ast.Attribute and sub.attr == "modules" \
                and type(sub.value) is ast.Name and sub.value.id == "sys":
            return True
        if type(sub) is ast.Name and sub.id == "__main__":
            return True
    return False


#: Per node type, the fields that may hold child nodes (filled as types are met).
_FIELDS = {}
#: Nodes with no names below them.
_LEAVES = frozenset((ast.Constant, ast.Pass, ast.Break, ast.Continue))

_HANDLERS = {
    ast.Assign: _Reader.assign,
    ast.AugAssign: _Reader.aug_assign,
    ast.AnnAssign: _Reader.ann_assign,
    ast.For: _Reader.for_,
    ast.AsyncFor: _Reader.for_,
    ast.With: _Reader.with_,
    ast.AsyncWith: _Reader.with_,
    ast.ExceptHandler: _Reader.handler,
    ast.Delete: _Reader.delete,
    ast.Import: _Reader.import_,
    ast.ImportFrom: _Reader.import_,
    ast.NamedExpr: _Reader.walrus,
    ast.FunctionDef: _Reader.function,
    ast.AsyncFunctionDef: _Reader.function,
    ast.Lambda: _Reader.function,
    ast.ClassDef: _Reader.class_,
    ast.ListComp: _Reader.comprehension,
    ast.SetComp: _Reader.comprehension,
    ast.GeneratorExp: _Reader.comprehension,
    ast.DictComp: _Reader.comprehension,
    ast.Global: _Reader.global_,
    ast.Nonlocal: lambda reader, node, scope: None,
    ast.Subscript: _Reader.subscript_or_attribute,
    ast.Attribute: _Reader.subscript_or_attribute,
}
for _name in ("MatchAs", "MatchStar", "MatchMapping"):
    if hasattr(ast, _name):
        _HANDLERS[getattr(ast, _name)] = _Reader.match_capture


# --- what was found, per execution ----------------------------------------------------


class _Execution:
    __slots__ = ("cell_id", "code", "defined", "note", "read", "unknown")

    def __init__(self, cell_id, code, found):
        self.cell_id = cell_id
        self.code = code
        self.defined = found.defined
        self.read = found.read
        self.unknown = tuple(found.unknown)
        self.note = found.note


class Lineage:
    def __init__(self, max_cells=MAX_CELLS, max_held=MAX_HELD):
        self.max_cells = max_cells
        self.max_held = max_held
        self.cells = collections.OrderedDict()  # execution count -> _Execution, oldest first
        self.by_cell_id = {}  # cell id -> its last execution held
        self.held = 0
        #: The last execution whose lineage was dropped (None: nothing dropped yet).
        self.complete_after = None

    def add(self, ec, cell_id, code, found):
        """What ``found`` (an :class:`Analysis` of ``code``) says of execution ``ec``."""
        if ec is None:
            return
        if type(cell_id) is not str or not cell_id or len(cell_id) > MAX_CELL_ID:
            cell_id = None
        old = self.cells.pop(ec, None)
        if old is not None:
            self.held -= len(old.defined) + len(old.read)
        self.cells[ec] = _Execution(cell_id, _head(code), found)
        self.held += len(found.defined) + len(found.read)
        if cell_id is not None:
            self.by_cell_id[cell_id] = ec
        while self.cells and (len(self.cells) > self.max_cells or self.held > self.max_held):
            gone, cell = self.cells.popitem(last=False)
            self.held -= len(cell.defined) + len(cell.read)
            if cell.cell_id is not None and self.by_cell_id.get(cell.cell_id) == gone:
                del self.by_cell_id[cell.cell_id]
            if self.complete_after is None or gone > self.complete_after:
                self.complete_after = gone

    def of(self, name, limit=DEFAULT_LINEAGE):
        """``defined_in``, ``used_in``, ``unknown`` (the newest ``limit`` of each,
        oldest first), the totals held, ``not_analysed`` and ``complete_after``."""
        defined, used, unknown, not_analysed = [], [], [], []
        for ec, cell in self.cells.items():
            kind = cell.defined.get(name)
            if kind is not None:
                defined.append(dict(self._entry(ec, cell), kind=kind))
            in_function = cell.read.get(name)
            if in_function is not None:
                used.append(dict(self._entry(ec, cell), in_function=in_function))
            if cell.unknown:
                unknown.append(dict(self._entry(ec, cell), reasons=list(cell.unknown)))
            elif cell.note is not None:
                not_analysed.append({"execution_count": ec, "cell_id": cell.cell_id,
                                     "reason": cell.note})
        return {
            "defined_in": defined[-limit:],
            "used_in": used[-limit:],
            "unknown": unknown[-limit:],
            "not_analysed": not_analysed[-limit:],
            "lineage_totals": {"defined_in": len(defined), "used_in": len(used),
                               "unknown": len(unknown), "not_analysed": len(not_analysed)},
            "lineage_complete_after": self.complete_after,
        }

    def names_of_cell(self, cell_id):
        """The names the last execution held of notebook cell ``cell_id`` bound or
        read (an empty set: none held, or it touched none by name)."""
        ec = self.by_cell_id.get(cell_id)
        if ec is None:
            return frozenset()
        cell = self.cells[ec]
        return cell.defined.keys() | cell.read.keys()

    def of_cell(self, cell_id):
        """The last execution held of notebook cell ``cell_id`` (None: none)."""
        ec = self.by_cell_id.get(cell_id)
        return None if ec is None else (ec, self.cells[ec])

    @staticmethod
    def _entry(ec, cell):
        return {"execution_count": ec, "cell_id": cell.cell_id, "code": cell.code}


def _head(code):
    """The first ``MAX_CODE`` characters of ``code`` (an ellipsis when cut), with what
    looks like a credential masked (``secrets.mask_code``): a masked variable's value is
    not told by the code that bound it."""
    if type(code) is not str:
        return ""
    code = code.strip("\n")
    window = code[: 2 * MAX_CODE]  # masked before it is cut: "[masked]" may be longer
    head = mask_code(window)
    if len(window) < len(code) or len(head) > MAX_CODE:
        return head[: MAX_CODE - 1] + "…"
    return head
