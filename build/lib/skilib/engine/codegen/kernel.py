"""Kernels: generated source compiled by a backend (C, numba or plain Python) and kept in a
disk cache (see ``skilib.engine.codegen``)."""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import types
from pathlib import Path

import numpy as np

from ..system import MultibodySystem
from .trace import _trace, _Walk

__all__ = ['BACKENDS', 'c_compiler', 'clear_kernel_cache', 'default_backend', 'kernel_cache_dir']



_HERE = Path(__file__).resolve().parent
# the drivers are real files beside this module: appended to every generated kernel
_C_DRIVER = (_HERE / "eom_driver.c").read_text()
_PY_DRIVER = (_HERE / "eom_driver.py").read_text().split("generated = None  # provided by the generated module", 1)[1]

_KERNELS: dict = {}  # structure key -> _Kernel (a cache: kernels are pure functions)


def clear_kernel_cache() -> None:
    """Forget every compiled kernel (they are rebuilt on the next ``compile_system``)."""
    _KERNELS.clear()


_FORMAT = 6  # bump when the generated file layout changes
BACKENDS = ("c", "numba", "python")


def kernel_cache_dir() -> Path:
    """Where compiled kernels are kept: $SKILIB_CACHE_DIR, else $XDG_CACHE_HOME/skilib or
    ~/.cache/skilib (subfolder ``kernels``).  Deleting it only costs recompilation."""
    root = os.environ.get("SKILIB_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "skilib")
    return Path(root) / "kernels"


def c_compiler() -> str | None:
    """The C compiler for the 'c' backend: $CC, else cc or gcc on the PATH (None if absent)."""
    cc = os.environ.get("CC")
    if cc:
        return shutil.which(cc) or cc
    return shutil.which("cc") or shutil.which("gcc")


def default_backend() -> str:
    """'c' where a C compiler is found, else 'numba' where numba imports, else 'python'."""
    if c_compiler():
        return "c"
    return "numba" if importlib.util.find_spec("numba") is not None else "python"


def _check_backend(backend, use_numba):
    if use_numba is not None:  # the older switch: True = numba, False = plain Python
        if backend is not None:
            raise ValueError("backend, use_numba: give one of them, not both")
        return "numba" if use_numba else "python"
    if backend is None:
        return default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"backend: must be one of {BACKENDS} or None (automatic), got {backend!r}")
    return backend


def _digest(key, backend) -> str:
    tag = (key, _FORMAT, backend, sys.implementation.cache_tag, platform.machine(), np.__version__)
    return hashlib.sha256(repr(tag).encode()).hexdigest()[:32]


class _Kernel:
    """Generated straight-line code for one system structure, compiled by one backend.

    'c': C source (sympy's C99 printer), compiled with the system's C compiler into a
    shared library in the kernel cache and called through ctypes.  'numba': a Python
    module in the cache compiled with ``numba.njit(cache=True)``.  'python': the same
    module executed as plain Python (slow; for machines with neither).  Cached files let
    another process (a notebook, a Dask worker) load a kernel instead of tracing again;
    they are written atomically, so concurrent workers never see half a file.
    """

    def __init__(self, key, system: MultibodySystem, backend: str):
        self.backend = backend
        digest = _digest(key, backend)
        self.path = None
        if backend == "c":
            self._init_c(system, digest)
        else:
            self._init_py(system, digest, backend)
        meta = self.meta
        self.inputs = [tuple(x) if isinstance(x, list) else x for x in meta["inputs"]]
        self.n_inputs, self.n_params, self.n_ops = meta["n_inputs"], meta["n_params"], meta["n_ops"]
        self.shapes = {k: tuple(v) for k, v in meta["shapes"].items()}

    # -- plain Python / numba ------------------------------------------------------
    def _init_py(self, system, digest, backend):
        numba = _numba(backend == "numba")
        path = kernel_cache_dir() / f"k{digest}.py" if numba else None
        mod = _load(path, digest) if path is not None and path.exists() else None
        if mod is None:
            meta, body = _trace(_Walk(system, symbolic=True), system, "python")
            src = _module_source(meta, body, numba is not None)
            mod = _store(path, src, digest) if path is not None else None
            if mod is None:  # no numba, or the cache folder is not writable
                mod = _exec_module(src, cache=False, numba=numba)
        self.meta, self.source, self.path = mod.META, mod.SOURCE, path
        self.fn, self._eom = mod.generated, mod.eom

    def bind(self, o, K, rhs, Qx, c, p, pw):
        """(terms(t, q, qd), solve(t, q, qd, α, β) → x or None if singular) on fixed buffers."""
        if self.backend == "c":
            return self._bind_c(o, K, rhs, Qx, c, p, pw)
        fn, eom = self.fn, self._eom
        args = (o["M"], o["Qv"], o["C"], o["Cq"], o["Cvel"], o["Cquad"], o["QF"])

        def terms(t, q, qd):
            fn(t, q, qd, c, p, *args)

        def solve(t, q, qd, alpha, beta):
            try:
                return eom(t, q, qd, c, p, alpha, beta, Qx, *args, K, rhs, pw)
            except np.linalg.LinAlgError:
                return None

        return terms, solve

    # -- C -----------------------------------------------------------------------------
    def _init_c(self, system, digest):
        folder = kernel_cache_dir()
        so, meta_path = folder / f"k{digest}.so", folder / f"k{digest}.json"
        if not (so.exists() and meta_path.exists()):
            meta, body = _trace(_Walk(system, symbolic=True), system, "c")
            src = _c_source(meta, body)
            try:
                _compile_c(src, so, meta_path, meta)
            except OSError:  # the cache folder is not writable: compile for this process only
                folder = Path(tempfile.mkdtemp(prefix="skilib-kernels-"))
                so, meta_path = folder / so.name, folder / meta_path.name
                _compile_c(src, so, meta_path, meta)
        self.meta = json.loads(meta_path.read_text())
        self.path = so
        self.source = so.with_suffix(".c").read_text() if so.with_suffix(".c").exists() else ""
        self._lib = ctypes.CDLL(str(so))
        dbl, ptr = ctypes.c_double, ctypes.c_void_p
        self._lib.eom.restype = ctypes.c_int
        self._lib.eom.argtypes = [dbl, ptr, ptr, ptr, ptr, dbl, dbl] + [ptr] * 11
        self._lib.eom_ctx.restype = ctypes.c_int
        self._lib.eom_ctx.argtypes = [dbl, dbl, dbl, ptr]
        self._lib.terms.restype = None
        self._lib.terms.argtypes = [dbl] + [ptr] * 11

    def _bind_c(self, o, K, rhs, Qx, c, p, pw):
        nq = self.shapes["Qv"][0]
        qbuf, qdbuf = np.zeros(nq), np.zeros(nq)
        keep = (o, K, rhs, Qx, c, p, pw, qbuf, qdbuf)  # the closures hold the buffers alive
        outs = [o[k].ctypes.data for k in ("M", "Qv", "C", "Cq", "Cvel", "Cquad", "QF")]
        pc, pp, pq, pqd = c.ctypes.data, p.ctypes.data, qbuf.ctypes.data, qdbuf.ctypes.data
        eom, terms_c = self._lib.eom_ctx, self._lib.terms
        table = (ctypes.c_void_p * 15)(pq, pqd, pc, pp, Qx.ctypes.data, *outs, K.ctypes.data, rhs.ctypes.data,
                                       pw.ctypes.data)
        ctx = ctypes.addressof(table)

        def terms(t, q, qd):
            qbuf[:] = q
            qdbuf[:] = qd
            terms_c(t, pq, pqd, pc, pp, *outs)

        def solve(t, q, qd, alpha, beta, _keep=(keep, table)):
            qbuf[:] = q
            qdbuf[:] = qd
            if eom(t, alpha, beta, ctx):
                return None
            return rhs

        return terms, solve


def _numba(use_numba):
    if not use_numba:
        return None
    import numba

    return numba


def _c_source(meta, body) -> str:
    shapes = meta["shapes"]
    head = ["/* Generated by skilib.engine.codegen from a system's structure; delete freely (it is a cache). */",
            "#include <math.h>",
            f"#define NQ {shapes['Qv'][0]}", f"#define NC {shapes['C'][0]}", f"#define NF {shapes['QF'][0]}", ""]
    return "\n".join(head + [body, _C_DRIVER])


def _compile_c(src: str, so: Path, meta_path: Path, meta: dict) -> None:
    cc = c_compiler()
    if cc is None:
        raise RuntimeError("backend 'c': no C compiler found (set $CC, or install cc/gcc); "
                           "or use backend='numba' or 'python'")
    so.parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}.{threading.get_ident()}"
    c_file, tmp_so = so.with_suffix(f".{tag}.c"), so.with_suffix(f".{tag}.so")
    c_file.write_text(src)
    # -O2 without -ffast-math: IEEE arithmetic, so results do not depend on the flags' whims
    cmd = [cc, "-O2", "-std=c99", "-shared", "-fPIC", "-o", str(tmp_so), str(c_file), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"backend 'c': compiling the generated kernel failed ({' '.join(cmd)}):\n"
                           f"{proc.stderr[-2000:]}")
    tmp_meta = meta_path.with_suffix(f".{tag}.json")
    tmp_meta.write_text(json.dumps(meta))
    os.replace(c_file, so.with_suffix(".c"))
    os.replace(tmp_meta, meta_path)
    os.replace(tmp_so, so)  # last: the .so's presence means the kernel is complete


def _module_source(meta, body, jit: bool) -> str:
    deco = "@numba.njit(cache=True)\n" if jit else ""
    head = ["# Generated by skilib.engine.codegen from a system's structure; delete freely (it is a cache).",
            "import math", "import numpy as np"] + (["import numba"] if jit else [])
    return "\n".join(head + [f"META = {meta!r}", f"SOURCE = {body!r}", "", deco + body, "",
                             deco + _PY_DRIVER.strip(), ""])


def _exec_module(src, cache, numba):
    mod = types.ModuleType("skilib_kernel")
    if not cache and numba is not None:
        src = src.replace("@numba.njit(cache=True)", "@numba.njit(cache=False)")
    exec(compile(src, "<skilib.engine.codegen>", "exec"), mod.__dict__)
    return mod


def _load(path: Path, digest: str):
    try:
        name = f"skilib_kernel_{digest}"
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # numba's cache re-imports the module by name
        spec.loader.exec_module(mod)
        return mod
    except Exception:  # noqa: BLE001 - a damaged cache file is rebuilt, never trusted
        sys.modules.pop(f"skilib_kernel_{digest}", None)
        return None


def _store(path: Path, src: str, digest: str):
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(src)
        os.replace(tmp, path)  # atomic: concurrent workers never see half a file
    except OSError:
        return None
    return _load(path, digest)

