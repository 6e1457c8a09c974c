"""Kernels: generated source compiled by a backend (C, numba or plain Python) and kept in a
disk cache (see ``skilib.engine.codegen``)."""
from __future__ import annotations

import atexit
import ctypes
import functools
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
import warnings
from pathlib import Path

import numpy as np

from ..system import MultibodySystem
from .trace import trace_system, Walk

__all__ = ['BACKENDS', 'KernelCacheWarning', 'BackendFallbackWarning', 'c_compiler', 'c_library', 'c_library_file',
           'clear_kernel_cache',
           'default_backend', 'kernel_cache_dir']


class KernelCacheWarning(UserWarning):
    """A cached kernel file was damaged, truncated or foreign: it is rebuilt, never loaded."""


class BackendFallbackWarning(UserWarning):
    """A backend could not be used (no working compiler, numba does not import): the next one is."""



_HERE = Path(__file__).resolve().parent
# the drivers are real files beside this module: appended to every generated kernel
_C_DRIVER = (_HERE / "eom_driver.c").read_text()
_PY_DRIVER = (_HERE / "eom_driver.py").read_text().split("generated = None  # provided by the generated module", 1)[1]

KERNELS: dict = {}  # structure key -> Kernel (a cache: kernels are pure functions)


def clear_kernel_cache() -> None:
    """Forget every compiled kernel (they are rebuilt on the next ``compile_system``)."""
    KERNELS.clear()


_FORMAT = 11  # bump when the generated file layout changes (7: sha256 in the metadata; 9: LOAD_ROW; 10: the strut's pulse phase; 11: the sparse elimination)
BACKENDS = ("c", "numba", "python")


def kernel_cache_dir() -> Path:
    """Where compiled kernels are kept: $SKILIB_CACHE_DIR, else $XDG_CACHE_HOME/skilib or
    ~/.cache/skilib (subfolder ``kernels``).  Deleting it only costs recompilation."""
    root = os.environ.get("SKILIB_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "skilib")
    return Path(root) / "kernels"


_PROCESS_DIR: list = []  # the one per-process folder used when the cache is not writable


def _process_dir() -> Path:
    """One temporary folder for this process's kernels when the cache folder is not writable,
    removed when the interpreter exits (so no run leaves temporary folders behind)."""
    if not _PROCESS_DIR:
        d = Path(tempfile.mkdtemp(prefix=f"skilib-kernels-{os.getpid()}-"))
        _PROCESS_DIR.append(d)
        atexit.register(shutil.rmtree, d, True)
    return _PROCESS_DIR[0]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_meta(meta_path: Path, digest: str, what: Path):
    """The metadata of a cached kernel, or None (with a warning naming the file) if it is
    unreadable, not skilib's, or does not vouch for ``what`` (its sha256 differs)."""
    try:
        meta = json.loads(meta_path.read_text())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        _damaged(meta_path, f"unreadable kernel metadata ({type(exc).__name__}: {exc})")
        return None
    if meta.get("digest") != digest or "sha256" not in meta:
        _damaged(meta_path, "metadata of another kernel or of an older skilib")
        return None
    try:
        actual = _sha256(what)
    except OSError as exc:
        _damaged(what, f"unreadable ({exc})")
        return None
    if actual != meta["sha256"]:
        _damaged(what, f"its sha256 {actual[:16]}… differs from the one recorded in {meta_path.name} "
                       f"({str(meta['sha256'])[:16]}…): damaged, truncated or foreign")
        return None
    return meta


def _damaged(path: Path, why: str) -> None:
    warnings.warn(f"kernel cache: {path}: {why}; rebuilding it", KernelCacheWarning, stacklevel=4)


def c_compiler() -> str | None:
    """The C compiler for the 'c' backend: $CC, else cc or gcc on the PATH (None if absent).
    Looked up once per ($CC, $PATH): every ``compile_system`` asks, and a search of the PATH
    costs ~50 µs."""
    return _find_compiler(os.environ.get("CC"), os.environ.get("PATH"))


@functools.lru_cache(maxsize=8)
def _find_compiler(cc: str | None, path: str | None) -> str | None:
    if cc:
        return shutil.which(cc, path=path) or cc
    return shutil.which("cc", path=path) or shutil.which("gcc", path=path)


def default_backend() -> str:
    """'c' where a C compiler is found, else 'numba' where numba imports, else 'python'."""
    if c_compiler():
        return "c"
    return "numba" if importlib.util.find_spec("numba") is not None else "python"


def check_backend(backend, use_numba):
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
    # the driver's own text is in the tag: a kernel compiled with another driver is never loaded
    driver = hashlib.sha256((_C_DRIVER if backend == "c" else _PY_DRIVER).encode()).hexdigest()
    tag = (key, _FORMAT, backend, sys.implementation.cache_tag, platform.machine(), np.__version__, driver)
    return hashlib.sha256(repr(tag).encode()).hexdigest()[:32]


def c_library(stem: str, src: str) -> ctypes.CDLL:
    """A C library (no generated kernel in it) built from ``src`` into the kernel cache as
    ``<stem><digest>.so``, once per source, compiler target and format, and checked like a
    kernel before it is loaded (its sha256 in the metadata); ``RuntimeError`` without a
    working C compiler."""
    return ctypes.CDLL(str(c_library_file(stem, src)))


def c_library_file(stem: str, src: str, opt: str = "-O2") -> Path:
    """The path of ``c_library``'s shared library for ``src`` compiled with optimisation ``opt``
    ("-O1" or "-O2"), compiled into the kernel cache where it is not there yet or does not match
    its metadata (damaged, truncated or foreign: a ``KernelCacheWarning``, then compiled again),
    for a loader other than ctypes (CasADi's ``external``)."""
    if opt not in ("-O1", "-O2"):
        raise ValueError(f"opt: must be '-O1' or '-O2', got {opt!r}")
    # -O2's tag is the one c_library always had: the libraries it compiled keep their names
    tag = (src, _FORMAT, sys.implementation.cache_tag, platform.machine()) + ((opt,) if opt != "-O2" else ())
    digest = hashlib.sha256(repr(tag).encode()).hexdigest()[:32]
    folder = kernel_cache_dir()
    so, meta_path = folder / f"{stem}{digest}.so", folder / f"{stem}{digest}.json"
    meta = _read_meta(meta_path, digest, so) if so.exists() and meta_path.exists() else None
    if meta is None:
        cc = c_compiler()
        if cc is None:
            raise RuntimeError(f"{stem}: no C compiler found: set $CC, or install cc/gcc")
        try:
            try:
                _compile_c(cc, src, so, meta_path, {"digest": digest}, opt)
            except _CacheUnwritable:
                folder = _process_dir()
                so, meta_path = folder / so.name, folder / meta_path.name
                _compile_c(cc, src, so, meta_path, {"digest": digest}, opt)
        except _BackendUnusable as exc:
            raise RuntimeError(f"{stem}: {exc}") from exc
        if _read_meta(meta_path, digest, so) is None:
            raise RuntimeError(f"{stem}: the library just compiled into {so} does not match its metadata")
    return so


class Kernel:
    """Generated straight-line code for one system structure, compiled by one backend.

    'c': C source (sympy's C99 printer), compiled with the system's C compiler into a
    shared library in the kernel cache and called through ctypes.  'numba': a Python
    module in the cache compiled with ``numba.njit(cache=True)``.  'python': the same
    module executed as plain Python (slow; for machines with neither).  Cached files let
    another process (a notebook, a Dask worker) load a kernel instead of tracing again;
    they are written atomically, so concurrent workers never see half a file.
    """

    def __init__(self, key, system: MultibodySystem, backend: str):
        self.path = None
        self.requested = backend
        for backend in BACKENDS[BACKENDS.index(backend):]:  # C → numba → Python
            digest = _digest(key, backend)
            try:
                if backend == "c":
                    self._init_c(system, digest)
                else:
                    self._init_py(system, digest, backend)
                break
            except _BackendUnusable as exc:
                nxt = BACKENDS[BACKENDS.index(backend) + 1]
                warnings.warn(f"backend {backend!r} is unusable ({exc}); falling back to {nxt!r}",
                              BackendFallbackWarning, stacklevel=4)
        self.backend = backend
        meta = self.meta
        self.inputs = [tuple(x) if isinstance(x, list) else x for x in meta["inputs"]]
        self.n_inputs, self.n_params, self.n_ops = meta["n_inputs"], meta["n_params"], meta["n_ops"]
        self.shapes = {k: tuple(v) for k, v in meta["shapes"].items()}
        #: per row of QF: −1 (a traced force's Q_f) or k (a load force's b, Q_f = b λ_k)
        self.load_rows = [int(k) for k in meta["load_rows"]]

    # -- plain Python / numba ------------------------------------------------------
    def _init_py(self, system, digest, backend):
        numba = _numba(backend == "numba")
        path = kernel_cache_dir() / f"k{digest}.py" if numba else None
        mod = None
        if path is not None and path.exists():
            meta = _read_meta(path.with_suffix(".json"), digest, path)
            if meta is not None:
                mod = _load(path, digest)
                if mod is None:
                    _damaged(path, "the module does not load")
                elif not _probe(mod, path):  # numba's own cache files (__pycache__) are damaged
                    _clear_numba_cache(path)
                    sys.modules.pop(f"skilib_kernel_{digest}", None)
                    mod = _load(path, digest)
                    if mod is not None and not _probe(mod, path):
                        mod = None
            else:
                _clear_numba_cache(path)
        if mod is None:
            meta, body = trace_system(Walk(system, symbolic=True), system, "python")
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
        meta = None
        if so.exists() and meta_path.exists():
            # checked before ctypes maps it: a truncated library would kill the process (SIGBUS)
            meta = _read_meta(meta_path, digest, so)
        if meta is None:
            cc = c_compiler()
            if cc is None:
                raise _BackendUnusable("no C compiler found: set $CC, or install cc/gcc")
            meta, body = trace_system(Walk(system, symbolic=True), system, "c")
            meta["digest"] = digest
            src = _c_source(meta, body)
            try:
                _compile_c(cc, src, so, meta_path, meta)
            except _CacheUnwritable:  # compile for this process only, in its one temporary folder
                folder = _process_dir()
                so, meta_path = folder / so.name, folder / meta_path.name
                _compile_c(cc, src, so, meta_path, meta)
            meta = _read_meta(meta_path, digest, so)
            if meta is None:
                raise _BackendUnusable(f"the library just compiled into {so} does not match its metadata")
        self.meta = meta
        self.path = so
        self.source = so.with_suffix(".c").read_text() if so.with_suffix(".c").exists() else ""
        self._lib = ctypes.CDLL(str(so))
        dbl, ptr = ctypes.c_double, ctypes.c_void_p
        self._lib.eom.restype = ctypes.c_int
        self._lib.eom.argtypes = [dbl, ptr, ptr, ptr, ptr, dbl, dbl] + [ptr] * 11
        self._lib.eom_ctx.restype = ctypes.c_int
        self._lib.eom_ctx.argtypes = [dbl, dbl, dbl, ptr]
        self._lib.eom_dense_ctx.restype = ctypes.c_int  # the dense elimination: the reference of eom's
        self._lib.eom_dense_ctx.argtypes = [dbl, dbl, dbl, ptr]
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

        # for a loop in C around the kernel (``skilib.engine.codegen.stepper``): eom_ctx and its table
        solve.context = (ctypes.cast(eom, ctypes.c_void_p).value, ctx, (keep, table))
        return terms, solve


class _BackendUnusable(RuntimeError):
    """This backend cannot be used on this machine (the reason is the message)."""


class _CacheUnwritable(OSError):
    """The kernel cache folder cannot be written."""


def _numba(use_numba):
    if not use_numba:
        return None
    try:
        import numba
    except Exception as exc:  # noqa: BLE001 - any failure to import makes the backend unusable
        raise _BackendUnusable(f"numba does not import: {type(exc).__name__}: {exc}") from exc
    return numba


def _probe(mod, path: Path) -> bool:
    """Call a loaded numba module's two functions once, as the run will (same types), so that
    numba loads or compiles them now.  False, with a warning naming the files, if numba's
    cached machine code (``__pycache__/<module>.*.nbi/.nbc``) cannot be read."""
    m = mod.META
    sh = {k: tuple(v) for k, v in m["shapes"].items()}
    n, nc, nf = sh["Qv"][0], sh["C"][0], sh["QF"][0]
    outs = [np.zeros(sh[k]) for k in ("M", "Qv", "C", "Cq", "Cvel", "Cquad", "QF")]
    q = np.full(n, 0.3)
    c, p = np.zeros(m["n_params"]), np.zeros(max(m["n_inputs"], 1))
    try:
        mod.generated(0.0, q, q.copy(), c, p, *outs)
        mod.eom(0.0, q, q.copy(), c, p, 0.0, 0.0, np.zeros(n), *outs, np.zeros((n + nc, n + nc)), np.zeros(n + nc),
                np.zeros(nf + 2 * nc))
    except (np.linalg.LinAlgError, ArithmeticError):  # the probe's state is arbitrary: the code ran
        pass
    except Exception as exc:  # noqa: BLE001 - a damaged cache is rebuilt, never trusted
        _damaged(path.parent / "__pycache__" / f"{path.stem}.*",
                 f"numba's cached machine code does not load ({type(exc).__name__}: {exc})")
        return False
    return True


def _clear_numba_cache(path: Path) -> None:
    """Remove numba's cached machine code of the module ``path`` (its ``__pycache__`` index
    and data files): after the module is rebuilt they would be stale or damaged too."""
    cache = path.parent / "__pycache__"
    for f in cache.glob(f"{path.stem}.*") if cache.is_dir() else ():
        try:
            f.unlink()
        except OSError:
            pass


def _c_source(meta, body) -> str:
    shapes = meta["shapes"]
    head = ["/* Generated by skilib.engine.codegen from a system's structure; delete freely (it is a cache). */",
            "#include <math.h>",
            f"#define NQ {shapes['Qv'][0]}", f"#define NC {shapes['C'][0]}", f"#define NF {shapes['QF'][0]}",
            "/* per row of QF: -1 (a force's Q_f, added to the right-hand side) or the row k whose",
            "   multiplier is the load of a LoadFriction (the row is b, Q_f = b lambda_k: column k) */",
            f"static const int LOAD_ROW[NF] = {{{', '.join(str(int(k)) for k in meta['load_rows'])}}};", ""]
    return "\n".join(head + [body, _C_DRIVER])


def _compile_c(cc: str, src: str, so: Path, meta_path: Path, meta: dict, opt: str = "-O2") -> None:
    """Compile into temporary files (optimisation ``opt``), record the library's sha256 in the
    metadata, then rename both into place (the library last): another process sees a complete
    kernel or none."""
    tag = f"{os.getpid()}.{threading.get_ident()}"
    c_file, tmp_so = so.with_suffix(f".{tag}.c"), so.with_suffix(f".{tag}.so")
    tmp_meta = meta_path.with_suffix(f".{tag}.json")
    try:
        so.parent.mkdir(parents=True, exist_ok=True)
        c_file.write_text(src)
    except OSError as exc:
        raise _CacheUnwritable(str(exc)) from exc
    try:
        # -O2 without -ffast-math: IEEE arithmetic, so results do not depend on the flags' whims
        cmd = [cc, opt, "-std=c99", "-shared", "-fPIC", "-o", str(tmp_so), str(c_file), "-lm"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as exc:
            raise _BackendUnusable(f"the C compiler {cc!r} cannot be run: {exc}") from exc
        if proc.returncode != 0:
            raise _BackendUnusable(f"compiling the generated kernel failed ({' '.join(cmd)}): "
                                   f"{proc.stderr[-2000:]}")
        meta = dict(meta, sha256=_sha256(tmp_so))
        tmp_meta.write_text(json.dumps(meta))
        os.replace(c_file, so.with_suffix(".c"))
        os.replace(tmp_meta, meta_path)
        os.replace(tmp_so, so)  # last: the .so's presence means the kernel is complete
    finally:
        for f in (c_file, tmp_so, tmp_meta):
            try:
                f.unlink()
            except FileNotFoundError:
                pass


def _module_source(meta, body, jit: bool) -> str:
    deco = "@numba.njit(cache=True)\n" if jit else ""
    head = ["# Generated by skilib.engine.codegen from a system's structure; delete freely (it is a cache).",
            "import math", "import numpy as np"] + (["import numba"] if jit else [])
    load = f"LOAD_ROW = np.array({[int(k) for k in meta['load_rows']]!r}, dtype=np.int64)"
    return "\n".join(head + [f"META = {meta!r}", f"SOURCE = {body!r}", load, "", deco + body, "",
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
    """Write the module and its metadata (the module's sha256) atomically, then load it."""
    tag = f"{os.getpid()}.{threading.get_ident()}"
    tmp, tmp_meta = path.with_suffix(f".{tag}.tmp"), path.with_suffix(f".{tag}.jtmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(src)
        tmp_meta.write_text(json.dumps({"digest": digest, "sha256": _sha256(tmp)}))
        _clear_numba_cache(path)
        os.replace(tmp, path)  # atomic: concurrent workers never see half a file
        os.replace(tmp_meta, path.with_suffix(".json"))
    except OSError:
        return None
    finally:
        for f in (tmp, tmp_meta):
            try:
                f.unlink()
            except OSError:
                pass
    return _load(path, digest)

