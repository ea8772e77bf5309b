"""A cache prefetch hint for kernels: :func:`prefetch` ``(a, i)`` asks the CPU to start loading
the cache line of ``a[i]`` (of row ``i`` for a 2-D array) while the kernel goes on, through
LLVM's ``llvm.prefetch`` (``prefetcht0`` on x86-64, ``prfm`` on ARM64; nothing on targets
without one). A hint only: it never faults and changes no result. For loads that a kernel can
name a step ahead but the CPU cannot guess (a diagonal walk over a big grid, the edges of a
node just pushed on the heap).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic


def _prefetch_typer(typingctx, array, index):  # noqa: ARG001 - numba intrinsic signature
    """``llvm.prefetch`` (read, high locality, data) of the address of row ``index`` of
    ``array`` (``index`` in range: the caller clamps it)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        view = context.make_array(signature.args[0])(context, builder, args[0])
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        byte_pointer = ir.IntType(8).as_pointer()
        offset = builder.mul(row, builder.extract_value(view.strides, 0))
        address = builder.gep(builder.bitcast(view.data, byte_pointer), [offset])
        i32 = ir.IntType(32)
        hint = builder.module.declare_intrinsic(  # llvm.prefetch.p0i8 or .p0, as llvmlite writes pointers
            "llvm.prefetch", [byte_pointer],
            ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]))
        builder.call(hint, [address, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


_prefetch_row: Any = intrinsic(_prefetch_typer)


@njit(cache=True, nogil=True, inline="always")
def prefetch(array, index):
    """Hint a load of ``array[index]`` (row ``index``); ``index`` past either end is clamped to
    the array (no address outside it is formed). An empty array is skipped."""
    n = array.shape[0]
    if n > 0:
        _prefetch_row(array, min(max(index, 0), n - 1))
