"""One point's derivative functions compiled to C once per machine, not evaluated by CasADi's
virtual machine in every iteration.

IPOPT's Jacobian of the constraints and Hessian of the Lagrangian come from one point's blocks
mapped over the mesh (``skilib.ocp.hessian``).  Evaluated by CasADi's SX virtual machine those
maps are most of an iteration's function evaluations: on the edged skater's program for 6 m/s,
the Hessian's point map took 29 ms of a 29 ms Hessian, the Jacobian's 9 ms of 11.  The same SX
function generated to C by CasADi's ``CodeGenerator`` (straight-line code of the same operations
in the same order, compiled without ``-ffast-math``) gives the same numbers bit for bit and takes
2.2 ms and 1.5 ms.

Compiling the edged skater's point Hessian takes several seconds, so the library is kept in the
kernel cache (``skilib.engine.codegen.kernel_cache_dir``) under the sha256 of its generated
source, with the library's own sha256 in a metadata file beside it: a process that generates the
same source loads the library (a generation costs tens of milliseconds); a damaged, truncated or
foreign library is rebuilt with a ``KernelCacheWarning``, never loaded
(``skilib.engine.codegen.c_library_file``).  Where no C compiler is found, or with ``COMPILED``
False (the reference), the SX function itself is used; where the compiler fails, too, with a
``BackendFallbackWarning`` naming its error (as the kernels fall back).
"""
from __future__ import annotations

import hashlib
import warnings

from ..engine.codegen import c_compiler, c_library_file
from ..engine.codegen.kernel import BackendFallbackWarning

__all__ = ["COMPILED", "compiled_function"]

#: one point's derivative functions compiled to C (True) or evaluated by CasADi's virtual machine
#: (False, the reference); part of the programs' keys, so a changed value builds anew
COMPILED = True

#: compiled with -O1: as fast as -O2 on these functions (2.26 against 2.21 ms on the edged
#: skater's point Hessian), and 6.4 s to compile instead of 8.7
_OPT = "-O1"

#: the externals this process has loaded, by the sha256 of their generated source
_LOADED: dict = {}


def compiled_function(ca, fn):
    """``fn`` (a CasADi SX ``Function`` of column arguments) as a CasADi ``external`` of its
    generated C, compiled once per machine into the kernel cache (the module's docstring), or
    ``fn`` itself without a C compiler or with ``COMPILED`` False.  The external has ``fn``'s name,
    inputs, outputs and sparsity, and maps like it."""
    if not COMPILED or c_compiler() is None:
        return fn
    gen = ca.CodeGenerator(f"{fn.name()}.c", {"with_header": False})
    gen.add(fn)
    # the generated source names CasADi's version in its header: another CasADi compiles anew
    src = f"/* CasADi {ca.__version__} */\n" + gen.dump()
    key = hashlib.sha256(src.encode()).hexdigest()
    if key not in _LOADED:  # a program built again (another mesh) loads its library once per process
        try:
            so = c_library_file("casadi_", src, opt=_OPT)
        except RuntimeError as exc:  # a compiler that cannot be run or fails: the virtual machine
            warnings.warn(f"{fn.name()}: not compiled ({exc}); CasADi's virtual machine evaluates it",
                          BackendFallbackWarning, stacklevel=2)
            return fn
        _LOADED[key] = ca.external(fn.name(), str(so))
    return _LOADED[key]
