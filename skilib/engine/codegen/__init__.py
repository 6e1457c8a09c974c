"""Generated code for eq. 101: one compiled kernel per system *structure*.

The numeric engine evaluates M, Qv, C, Cq, Ct, Qd and Qe through many small numpy
operations (``skilib.engine.kinematics``).  Here the very same component code is traced once
with sympy symbols, reduced by common-subexpression elimination (``sympy.cse``), printed
as straight-line code and compiled: by default as C (sympy's C99 printer, the system's C
compiler, ctypes), or with numba, or run as plain Python where neither exists.  The kernel
also assembles the augmented matrix of eq. 101 and solves it, so one right-hand side is
one call.  Measured on the skier (``make bench``): the C kernel's assemble-and-solve costs
about as much as a bare ``numpy.linalg.solve`` of its 35 × 35 matrix, and, unlike numba,
it brings no compiler into the process (a lighter worker for sweeps).  sympy is imported
only to trace a structure that is not in the cache yet.

Parameters, not constants.  Before tracing, every floating-point number stored in the
system's components (constraint points and axes, driver laws, force magnitudes, body
masses and inertias) is replaced by a symbol ``c[k]``.  The kernel therefore depends only
on the system's *structure* (component types, body references, integer indices, which
inertia entries are zero) and is cached under that structure: a new heading, start point,
skating angle or mass reuses the compiled kernel, and only the parameter vector is
gathered again (microseconds instead of seconds).

What stays numeric.  A driver law that is not a ``Constant``, ``Polynomial`` or
``RotationPath``, and a force magnitude given as a callable (``LineForce``) whose class has
no ``symbolic(t)`` method (the Fourier push-off has one), are evaluated in Python at each
call and enter the kernel as inputs ``p[k]``; a force element
that cannot be traced (``PointForce``, ``Torque``: arbitrary callables of the state) is
evaluated by the numeric engine and added to the right-hand side.  Nothing held in a
closure is ever baked into a cached kernel.

Friction on a constraint's load.  A ``LoadFriction`` (Q_f = b λ_k, N the multiplier of row
k) is generated as its per-unit-load row b, which the driver subtracts into column k of the
augmented matrix, as ``MultibodySystem.evaluate`` does; after the solve the row is scaled by
λ_k and the load is checked (``NegativeLoadError``).  Its row k, load sign and sliding law are
part of the structure key.  Only a fixed (``sign`` ±1) or smoothed (tanh) direction can be
generated: sgn(v_t) with its ``min_speed`` refusal is refused by ``compile_system``, by name.
"""
from __future__ import annotations

from .compiled import CompiledSystem, compile_system
from .kernel import BACKENDS, c_compiler, c_library_file, clear_kernel_cache, default_backend, kernel_cache_dir

__all__ = ["compile_system", "CompiledSystem", "clear_kernel_cache", "kernel_cache_dir", "default_backend",
           "c_compiler", "c_library_file", "BACKENDS"]
