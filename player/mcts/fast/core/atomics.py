"""Atomic operations on array elements for compiled code (numba intrinsics over LLVM's atomics).

Numba has no CPU atomics of its own. These are the few that let several
threads share one search tree (`tree.run` with ``shared``): claiming a node
to expand it and publishing its children (`cas2`, `load2`), allocating
rows (`cas1`) and counting visits and rewards without losing updates
(`add2`, `fadd1`; `add1` and `fadd1` on float32 for the AMAF counts of RAVE). Every operation is sequentially consistent: LLVM moves
no load or store across it, so a thread that reads a published child count
(`load2`) also sees the rows written before it was published.

Each takes the array and the element's indices (no bounds check: callers
index rows they own); the 2-D forms are for `tree`'s int32 node columns,
the 1-D forms for its int64 meta row, float64 reward sums and AMAF counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_ORDER = "seq_cst"


def _pointer(context: Any, builder: Any, aryty: Any, array: Any, indices: Any) -> Any:
    """The address of the element at `indices` (values already of type intp)."""
    ary = context.make_array(aryty)(context, builder, array)
    return cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
        context, builder, aryty, ary, indices, wraparound=False
    )


def _intp(context: Any, builder: Any, value: Any, ty: Any) -> Any:
    return context.cast(builder, value, ty, types.intp)


def _int_array(arr: Any, ndim: int) -> bool:
    return (
        isinstance(arr, types.Array) and arr.ndim == ndim and isinstance(arr.dtype, types.Integer)
    )


def _address(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """The address of the element the indices after the array name (as many as it has axes)."""
    ndim = signature.args[0].ndim
    index = [_intp(context, builder, args[k], signature.args[k]) for k in range(1, ndim + 1)]
    return _pointer(context, builder, signature.args[0], args[0], index)


def _operand(context: Any, builder: Any, signature: Any, args: Any, k: int) -> Any:
    """Argument `k` cast to the array's element type."""
    return context.cast(builder, args[k], signature.args[k], signature.args[0].dtype)


def _swap(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """Compare-and-swap code: (array, indices..., expected, new) -> the old value."""
    ndim = signature.args[0].ndim
    ptr = _address(context, builder, signature, args)
    old = _operand(context, builder, signature, args, ndim + 1)
    new = _operand(context, builder, signature, args, ndim + 2)
    return builder.extract_value(builder.cmpxchg(ptr, old, new, _ORDER, _ORDER), 0)


def _adder(op: str) -> Callable[[Any, Any, Any, Any], Any]:
    """Atomic read-modify-write code (`op`: add, fadd): (array, indices..., value) -> old value."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ptr = _address(context, builder, signature, args)
        value = _operand(context, builder, signature, args, signature.args[0].ndim + 1)
        return builder.atomic_rmw(op, ptr, value, _ORDER)

    return codegen


@intrinsic
def _cas2(typingctx: Any, arr: Any, i: Any, j: Any, expected: Any, new: Any) -> Any:
    """Compare-and-swap ``arr[i, j]``: set it to `new` if it is `expected`; return the old value."""
    if not _int_array(arr, 2):
        return None
    return arr.dtype(arr, i, j, expected, new), _swap


@intrinsic
def _cas1(typingctx: Any, arr: Any, i: Any, expected: Any, new: Any) -> Any:
    """Compare-and-swap ``arr[i]``: set it to `new` if it is `expected`; return the old value."""
    if not _int_array(arr, 1):
        return None
    return arr.dtype(arr, i, expected, new), _swap


@intrinsic
def _load2(typingctx: Any, arr: Any, i: Any, j: Any) -> Any:
    """``arr[i, j]`` read atomically: no later load is made before it."""
    if not _int_array(arr, 2):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ptr = _address(context, builder, signature, args)
        align = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        return builder.load_atomic(ptr, _ORDER, align)

    return arr.dtype(arr, i, j), codegen


@intrinsic
def _add2(typingctx: Any, arr: Any, i: Any, j: Any, value: Any) -> Any:
    """``arr[i, j] += value`` atomically; return the old value."""
    if not _int_array(arr, 2):
        return None
    return arr.dtype(arr, i, j, value), _adder("add")


@intrinsic
def _add1(typingctx: Any, arr: Any, i: Any, value: Any) -> Any:
    """``arr[i] += value`` atomically for an integer array; return the old value."""
    if not _int_array(arr, 1):
        return None
    return arr.dtype(arr, i, value), _adder("add")


@intrinsic
def _fadd1(typingctx: Any, arr: Any, i: Any, value: Any) -> Any:
    """``arr[i] += value`` atomically for a float64 or float32 array; return the old value."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 1
        and arr.dtype in (types.float64, types.float32)
    ):
        return None
    return arr.dtype(arr, i, value), _adder("fadd")


# The compiled forms, typed for callers (an intrinsic's Python signature has the typing context).
cas2 = cast(Callable[[Any, int, int, int, int], int], _cas2)
cas1 = cast(Callable[[Any, int, int, int], int], _cas1)
load2 = cast(Callable[[Any, int, int], int], _load2)
add2 = cast(Callable[[Any, int, int, int], int], _add2)
add1 = cast(Callable[[Any, int, int], int], _add1)
fadd1 = cast(Callable[[Any, int, float], float], _fadd1)
