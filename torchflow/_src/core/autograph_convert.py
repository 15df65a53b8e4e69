"""AutoGraph: rewrites a function's Python control flow into calls of a runtime.

``convert(func)`` parses ``func``'s source and rewrites, as TF's AutoGraph does:

* ``if test:`` into ``ag__.if_stmt(test, if_true, if_false, getters, names)``, whose
  branches are nested functions that take and return the variables either branch
  assigns;
* ``while test:`` into ``ag__.while_stmt(loop_test, loop_body, getters, names)``;
* ``for x in it:`` into ``ag__.for_stmt(it, extra_test, loop_body, getters, names)``;
* ``break`` and ``continue`` in converted loops into a boolean flag carried through
  the loop (later statements run under ``if not flag:``), and ``return`` inside ``if``
  statements (outside loops) into a ``do_return`` flag and a ``retval`` variable.

The runtime (``_src/ops/autograph_ops.py``, registered with ``set_runtime``) runs a
Python condition or iterable as Python and a tensor one as ``tf.cond`` /
``tf.while_loop``. A statement this converter does not support (a loop with
``else:``, ``return`` inside a loop, ``break`` inside ``try``, ``del``, ``global``
or ``yield`` inside a block) stays Python; a function whose source is unavailable
(builtins, lambdas, code made by ``exec``), that cannot be parsed or compiled, or that
is marked ``tf.autograph.experimental.do_not_convert``, or that belongs to torchflow
itself (library code, which TF's AutoGraph does not convert either), is returned
unchanged.
Nested functions, lambdas, comprehensions and classes are left as they are.

The converted code keeps the user's file name and line numbers, so tracebacks
point at the user's line.

Hook for ``tf.function``: ``convert(python_function)`` is cheap after the first call
for a given code object (the compiled result is cached); call it once per
``Function`` when ``autograph=True``.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import types
from typing import Any, Callable

# Set on functions that must not be converted (tf.autograph.experimental.do_not_convert).
DO_NOT_CONVERT_ATTR = "__torchflow_do_not_convert__"
_CONVERTED_ATTR = "__torchflow_autograph_source__"

_runtime: Any = None
_cache: dict = {}  # code object -> (converted code object, source) or None (not convertible)


def set_runtime(module: Any) -> None:
    """Registers the module whose ``if_stmt``/``while_stmt``/``for_stmt`` converted
    code calls (``_src/ops/autograph_ops.py`` registers itself on import)."""
    global _runtime
    _runtime = module


def is_converted(func: Any) -> bool:
    """True if ``func`` was made by ``convert``."""
    return hasattr(func, _CONVERTED_ATTR)


def convert(func: Callable) -> Callable:
    """Returns ``func`` with its ``if``/``while``/``for`` statements converted.

    Returns ``func`` itself if it cannot be converted (see the module docstring), if
    it is marked ``do_not_convert``, or if it was converted already.
    """
    if isinstance(func, types.MethodType):
        new = convert(func.__func__)
        return func if new is func.__func__ else types.MethodType(new, func.__self__)
    if (not isinstance(func, types.FunctionType) or _runtime is None or is_converted(func)
            or getattr(func, DO_NOT_CONVERT_ATTR, False) or func.__name__ == "<lambda>"
            or (func.__module__ or "").split(".")[0] == "torchflow"):
        return func  # torchflow's own functions are library code, as TF's are for TF
    code = func.__code__
    if code not in _cache:
        try:
            _cache[code] = _compile(func)
        except Exception:  # noqa: BLE001 - any failure leaves the function as Python
            _cache[code] = None
    entry = _cache[code]
    if entry is None:
        return func
    new_code, source = entry
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    cells["ag__"] = types.CellType(_runtime)
    try:
        closure = tuple(cells[n] for n in new_code.co_freevars)
    except KeyError:
        return func
    new = types.FunctionType(new_code, func.__globals__, func.__name__, func.__defaults__,
                             closure or None)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__dict__.update(func.__dict__)
    for attr in ("__module__", "__qualname__", "__doc__", "__annotations__"):
        setattr(new, attr, getattr(func, attr))
    new.__wrapped__ = func
    setattr(new, _CONVERTED_ATTR, source)
    return new


def converted_source(func: Callable) -> str:
    """The source of a converted function (``tf.autograph.to_code``)."""
    new = convert(func)
    src = getattr(new, _CONVERTED_ATTR, None)
    if src is not None:
        return src
    return textwrap.dedent(inspect.getsource(func))


def _compile(func: types.FunctionType):
    code = func.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return None
    source = textwrap.dedent(inspect.getsource(func))
    tree = ast.parse(source)
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != code.co_name:
        return None
    if any(_private(n) for n in ast.walk(fdef)):
        return None  # class-private names were mangled by the class body's compile
    fdef.decorator_list = []
    _Converter().convert_function(fdef)
    new_source = ast.unparse(fdef) + "\n"
    # The factory makes the free variables (and ``ag__``) closure cells of the function.
    free = list(code.co_freevars) + ["ag__"]
    factory = ast.FunctionDef(
        name="__torchflow_autograph_factory", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=n) for n in free], vararg=None, kwonlyargs=[],
            kw_defaults=[], kwarg=None, defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(factory, fdef)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, code.co_firstlineno - 1)
    filename = inspect.getsourcefile(func) or code.co_filename
    compiled = compile(module, filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    new_code = next(c for c in factory_code.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == code.co_name)
    return new_code, new_source


def _private(node: ast.AST) -> bool:
    name = (node.id if isinstance(node, ast.Name) else node.attr
            if isinstance(node, ast.Attribute) else node.arg if isinstance(node, ast.arg)
            else None)
    return bool(name) and name.startswith("__") and not name.endswith("__")


# ---------------------------------------------------------------------------------
# Static analysis

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def _walk_scope(nodes):
    """Yields the nodes of ``nodes`` and their descendants, not entering nested
    functions, lambdas, classes or comprehensions (whose names are their own)."""
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if isinstance(child, _SCOPES):
                yield child  # its name (def/class) is bound here; its body is not ours
                continue
            stack.append(child)


def _assigned(stmts) -> list[str]:
    """The names ``stmts`` bind in this scope, in first-binding order."""
    out: dict[str, None] = {}
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out[node.id] = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if a.name != "*":
                    out[(a.asname or a.name).split(".")[0]] = None
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out[node.name] = None
    return list(out)


def _blocked(stmts) -> bool:
    """True if ``stmts`` hold something a branch/loop function cannot carry."""
    for node in _walk_scope(stmts):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Delete, ast.Yield, ast.YieldFrom,
                             ast.Await)):
            return True
        if isinstance(node, (ast.Name)) and node.id in ("locals", "vars", "super"):
            return True
    return False


def _contains(stmts, kinds, through_loops: bool) -> bool:
    """True if ``stmts`` hold a node of ``kinds`` (not inside nested scopes, nor
    inside loops unless ``through_loops``)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, _LOOPS) and not through_loops:
            # A loop's own body owns its break/continue, but its else: does not.
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


# ---------------------------------------------------------------------------------
# Jumps (break, continue, return) into flags


def _name(n: str, load: bool = True) -> ast.Name:
    node = ast.Name(id=n, ctx=ast.Load() if load else ast.Store())
    return _generated(node)  # not a user's read: no ag__.ld


class _WrapLoads(ast.NodeTransformer):
    """Turns the user's reads of ``names`` into ``ag__.ld(name)``, which raises
    Python's (and TF's) UnboundLocalError for a variable a converted statement left
    unbound. Nested user functions, lambdas and classes are not entered."""

    def __init__(self, names: set) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if (isinstance(node.ctx, ast.Load) and node.id in self.names
                and not getattr(node, "_ag_generated", False)):
            return ast.copy_location(_ag_call("ld", [_name(node.id)]), node)
        return node

    def _scope(self, node: ast.AST) -> ast.AST:
        return self.generic_visit(node) if getattr(node, "_ag_generated", False) else node

    visit_FunctionDef = visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = _scope


def _assign(n: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[_name(n, False)], value=value)


def _not(n: str) -> ast.expr:
    return _ag_call("not_", [_name(n)])


def _ag_call(helper: str, args: list) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=_name("ag__"), attr=helper, ctx=ast.Load()),
                    args=args, keywords=[])


def _thunk(e: ast.expr) -> ast.Lambda:
    return _generated(ast.Lambda(args=_args([]), body=e))


def _generated(node: Any) -> Any:
    """Marks ``node`` as made by the converter (``_WrapLoads`` enters and skips it)."""
    node._ag_generated = True
    return node


def _logical(e: ast.expr) -> ast.expr:
    """``e`` with ``and``/``or``/``not`` as ``ag__.and_``/``or_``/``not_`` (tensor-aware,
    short-circuiting on Python values)."""
    if isinstance(e, ast.BoolOp):
        helper = "and_" if isinstance(e.op, ast.And) else "or_"
        out = _logical(e.values[-1])
        for v in reversed(e.values[:-1]):
            out = _ag_call(helper, [_thunk(_logical(v)), _thunk(out)])
        return ast.copy_location(out, e)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return ast.copy_location(_ag_call("not_", [_logical(e.operand)]), e)
    return e


def _located(new: list, old: ast.AST) -> list:
    for n in new:
        ast.copy_location(n, old)
        for sub in ast.walk(n):
            if not hasattr(sub, "lineno") and "lineno" in sub._attributes:
                ast.copy_location(sub, old)
    return new


def _always_returns(stmts: list) -> bool:
    """True if every path through ``stmts`` ends in a ``return``."""
    return any(isinstance(s, ast.Return) or (isinstance(s, ast.If) and _always_returns(s.body)
                                             and _always_returns(s.orelse)) for s in stmts)


class _Unsupported(Exception):
    """A jump in a place the flag rewrite does not handle."""


def _lower_jumps(stmts: list, kinds, replace: Callable[[Any], list], flag: str) -> list:
    """Replaces each jump of ``kinds`` in ``stmts`` (outside nested loops and scopes)
    by ``replace(jump)`` and guards what follows a possible jump with ``if not flag``.

    Raises _Unsupported for a jump inside ``try``/``with``/``match``.
    """
    out: list = []
    for i, s in enumerate(stmts):
        if isinstance(s, kinds):
            out.extend(_located(replace(s), s))
            return out  # the rest of the block is unreachable
        if not _contains([s], kinds, through_loops=False):
            out.append(s)
            continue
        if isinstance(s, ast.If):
            rest = stmts[i + 1:]
            if kinds is ast.Return and rest and _always_returns(s.body) != _always_returns(
                    s.orelse):
                # As TF's AutoGraph does: what follows an ``if`` one of whose branches
                # always returns runs in the other branch, so that both branches set
                # the return value (a tensor condition needs both to).
                if _always_returns(s.body):
                    s.orelse = s.orelse + rest
                else:
                    s.body = s.body + rest
                stmts = stmts[:i + 1]
            s.body = _lower_jumps(s.body, kinds, replace, flag) or [ast.Pass()]
            s.orelse = _lower_jumps(s.orelse, kinds, replace, flag)
        elif isinstance(s, _LOOPS) and s.orelse:
            s.orelse = _lower_jumps(s.orelse, kinds, replace, flag)
        else:
            raise _Unsupported(type(s).__name__)
        out.append(s)
        rest = _lower_jumps(stmts[i + 1:], kinds, replace, flag)
        if rest:
            out.append(_located([ast.If(test=_not(flag), body=rest, orelse=[])], s)[0])
        return out
    return out


class _Converter:
    def __init__(self) -> None:
        self.count = 0
        self.outputs: set = set()  # names that converted statements assign

    def _fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}_{self.count}"

    # -- functions -------------------------------------------------------------

    def convert_function(self, fdef: ast.FunctionDef) -> None:
        body = fdef.body
        if _contains(body, (ast.Yield, ast.YieldFrom, ast.Await), through_loops=True):
            return
        returns_in_if = any(isinstance(s, ast.If) and _contains([s], ast.Return, True)
                            for s in body)
        returns_in_loop = any(isinstance(s, _LOOPS) and _contains([s], ast.Return, True)
                              for s in _walk_scope(body))
        if returns_in_if and not returns_in_loop:
            body = self._lower_returns(body, fdef)
        fdef.body = self.block(body) or [ast.Pass()]
        if self.outputs:
            fdef.body = [_WrapLoads(self.outputs).visit(st) for st in fdef.body]

    def _lower_returns(self, body: list, fdef: ast.FunctionDef) -> list:
        do_return, retval = "do_return", "retval_"

        def replace(ret: ast.Return) -> list:
            value = ret.value if ret.value is not None else ast.Constant(value=None)
            return [_assign(do_return, ast.Constant(value=True)), _assign(retval, value)]

        try:  # on a copy: an unsupported jump leaves the function's body as it was
            new = _lower_jumps(copy.deepcopy(body), ast.Return, replace, do_return)
        except _Unsupported:
            return body
        head = _located([_assign(do_return, ast.Constant(value=False)),
                         _assign(retval, _ag_call("UndefinedReturnValue", []))], body[0])
        tail = _located([ast.Return(value=_ag_call("retval", [_name(retval)]))], body[-1])
        doc = [body[0]] if (isinstance(body[0], ast.Expr) and isinstance(
            body[0].value, ast.Constant) and isinstance(body[0].value.value, str)) else []
        return doc + head + new[len(doc):] + tail

    # -- statements ------------------------------------------------------------

    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: ast.stmt) -> list:
        if isinstance(s, ast.If):
            return self.if_(s)
        if isinstance(s, ast.While):
            return self.while_(s)
        if isinstance(s, ast.For):
            return self.for_(s)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            s.body = self.block(s.body)
        elif isinstance(s, ast.Try):
            s.body = self.block(s.body)
            for h in s.handlers:
                h.body = self.block(h.body)
            s.orelse = self.block(s.orelse)
            s.finalbody = self.block(s.finalbody)
        return [s]

    def _state(self, names: list[str], s: ast.stmt):
        """(getters, names) expressions and the tuple target for ``names``."""
        self.outputs.update(names)
        getters = ast.Tuple(elts=[_generated(ast.Lambda(args=_no_args(), body=_name(n)))
                                  for n in names], ctx=ast.Load())
        labels = ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())
        target = ast.Tuple(elts=[_name(n, False) for n in names], ctx=ast.Store())
        return getters, labels, target

    def _fn(self, name: str, params: list[str], body: list, names: list[str],
            s: ast.stmt) -> ast.FunctionDef:
        ret = ast.Return(value=ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load()))
        fn = _generated(ast.FunctionDef(name=name, args=_args(params), body=body + [ret],
                                        decorator_list=[], returns=None, type_comment=None))
        return _located([fn], s)[0]

    def _call(self, helper: str, args: list, target, names, s) -> ast.stmt:
        call = _ag_call(helper, args)
        out = ast.Assign(targets=[target], value=call) if names else ast.Expr(value=call)
        return _located([out], s)[0]

    def if_(self, s: ast.If) -> list:
        if (_blocked([s]) or _contains(s.body + s.orelse, ast.Return, through_loops=True)
                or _contains(s.body + s.orelse, (ast.Break, ast.Continue), through_loops=False)):
            s.body = self.block(s.body) or [ast.Pass()]
            s.orelse = self.block(s.orelse)
            return [s]
        names = _assigned(s.body + s.orelse)
        in_body, in_else = set(_assigned(s.body)), set(_assigned(s.orelse))
        body = self.block(s.body) or [ast.Pass()]
        orelse = self.block(s.orelse) or [ast.Pass()]
        t_name, f_name = self._fresh("if_body"), self._fresh("else_body")
        getters, labels, target = self._state(names, s)
        # Which branch binds each name (TF's rules for names one branch leaves unbound).
        pairs: list[ast.expr] = [ast.Tuple(elts=[ast.Constant(value=n in in_body),
                                                 ast.Constant(value=n in in_else)],
                                           ctx=ast.Load()) for n in names]
        binds = ast.Tuple(elts=pairs, ctx=ast.Load())
        return [self._fn(t_name, names, body, names, s), self._fn(f_name, names, orelse,
                                                                   names, s),
                self._call("if_stmt", [_logical(s.test), _name(t_name), _name(f_name), getters, labels,
                                       binds], target, names, s)]

    def _lower_loop_jumps(self, s, pre: list) -> tuple[list, str | None]:
        """Lowers ``continue`` and ``break`` in a copy of ``s.body``; returns (body, break
        flag). Raises _Unsupported (``s`` unchanged) for a jump it cannot lower."""
        body = copy.deepcopy(s.body)
        if _contains(body, ast.Continue, through_loops=False):
            flag = self._fresh("continue")
            body = _lower_jumps(body, ast.Continue,
                                lambda j: [_assign(flag, ast.Constant(value=True))], flag)
            body = _located([_assign(flag, ast.Constant(value=False))], s) + body
        brk = None
        if _contains(body, ast.Break, through_loops=False):
            brk = self._fresh("break")
            body = _lower_jumps(body, ast.Break,
                                lambda j: [_assign(brk, ast.Constant(value=True))], brk)
            pre.extend(_located([_assign(brk, ast.Constant(value=False))], s))
        return body, brk

    def _loop_ok(self, s) -> bool:
        return not (s.orelse or _blocked([s])
                    or _contains(s.body, ast.Return, through_loops=True))

    def while_(self, s: ast.While) -> list:
        if not self._loop_ok(s):
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        pre: list = []
        try:
            body, brk = self._lower_loop_jumps(s, pre)
        except _Unsupported:
            s.body = self.block(s.body)
            return [s]
        names = _assigned(body)
        test = s.test
        if brk is not None:
            test = ast.BoolOp(op=ast.And(), values=[_not(brk), test])
        test = _logical(test)
        test_name, body_name = self._fresh("loop_test"), self._fresh("loop_body")
        test_fn = _located([_generated(ast.FunctionDef(
            name=test_name, args=_args(names), body=[ast.Return(value=test)],
            decorator_list=[], returns=None, type_comment=None))], s)[0]
        body_fn = self._fn(body_name, names, self.block(body) or [ast.Pass()], names, s)
        getters, labels, target = self._state(names, s)
        return pre + [test_fn, body_fn, self._call(
            "while_stmt", [_name(test_name), _name(body_name), getters, labels], target,
            names, s)]

    def for_(self, s: ast.For) -> list:
        if not self._loop_ok(s):
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        pre: list = []
        try:
            body, brk = self._lower_loop_jumps(s, pre)
        except _Unsupported:
            s.body = self.block(s.body)
            return [s]
        item = self._fresh("itr")
        bind = _located([ast.Assign(targets=[s.target], value=_name(item))], s)
        body = bind + body
        names = _assigned(body)
        body_name = self._fresh("loop_body")
        body_fn = self._fn(body_name, [item] + names, self.block(body), names, s)
        out = pre + [body_fn]
        extra: ast.expr = ast.Constant(value=None)
        if brk is not None:
            test_name = self._fresh("extra_test")
            out += _located([_generated(ast.FunctionDef(
                name=test_name, args=_args(names), body=[ast.Return(value=_not(brk))],
                decorator_list=[], returns=None, type_comment=None))], s)
            extra = _name(test_name)
        getters, labels, target = self._state(names, s)
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr == "range" and not isinstance(it.func.value, ast.Call):
            # ``for i in tf.range(...)``: a counter loop, as TF's AutoGraph makes it (the
            # range is not built, so a tensor limit is not read back).
            it = ast.copy_location(ast.Call(
                func=ast.Attribute(value=ast.Name(id="ag__", ctx=ast.Load()),
                                   attr="lazy_range", ctx=ast.Load()),
                args=[it.func, *it.args], keywords=it.keywords), it)
        out.append(self._call("for_stmt", [it, extra, _name(body_name), getters, labels],
                              target, names, s))
        return out


def _no_args() -> ast.arguments:
    return _args([])


def _args(names: list[str]) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
