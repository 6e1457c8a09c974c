"""A checked, atomic write: every file skilib writes (C3D runs and force channels, sweep tables)
goes through :func:`write_atomic`, and so do the notebooks' tables, texts and figures
(:func:`save_table`, :func:`save_text`, :func:`save_figure`).

What it guarantees
    - Only a regular file is ever replaced, and only with ``overwrite=True``; otherwise
      ``FileExistsError`` naming it, before anything is written.
    - Anything else at the target is refused by name whatever ``overwrite`` says, never
      replaced: a folder, or a name ending in "/" (``IsADirectoryError``); a device
      (``/dev/null``, ``/dev/full``), a FIFO or a socket (``FileExistsError``: "is a FIFO, not a
      regular file"); a symbolic link (``FileExistsError``: "is a symbolic link to …; give the
      real path") — a link is neither followed nor replaced, so neither it nor the file it
      points to can be lost or changed behind the caller's back.
    - A path whose folder does not exist is refused (``FileNotFoundError``,
      ``NotADirectoryError``) naming the path; no folder is created unless the caller asks for
      it (``make_parents=True``).
    - A name whose suffix is not the format's is refused (``ValueError`` naming the suffix) when
      the caller gives the format's ``suffixes`` (compared without regard to case: ``.C3D`` is a
      C3D name).
    - A replaced file keeps its permission bits: a read-only (0o444) file replaced with
      ``overwrite=True`` is replaced (``overwrite`` is the caller's word that it may go) and is
      read-only again afterwards.  A new file gets the usual mode (0o666 less the umask).
    - The content is written to a temporary file in the target's folder (the same file
      system), checked (the file exists and is not empty, then the caller's ``verify``), synced
      to disk and only then moved onto the target in one step (``os.replace``).  A reader
      never sees a half-written file.
    - On any failure (the writer raises, the disk is full, the check fails) the temporary
      file is removed and an existing target is left exactly as it was; an ``OSError`` names
      the target and the cause.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..engine.validation import check_bool

__all__ = ["check_target", "write_atomic", "save_table", "save_text", "save_figure", "units_sidecar"]


def _as_path(path, what: str) -> Path:
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise TypeError(f"path: the {what} needs a file path (str or Path), got {path!r}")
    if str(os.fspath(path)).endswith(("/", os.sep)):
        raise IsADirectoryError(f"{path}: ends with '/', a folder; the {what} needs a file name")
    return Path(path)


#: what a file that is not a regular file is, by its st_mode test
_SPECIAL = ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "FIFO (named pipe)"),
            (stat.S_ISSOCK, "socket"))


def _refuse_special(p: Path, what: str):
    """The ``os.lstat`` of ``p`` (None if nothing is there); an error naming ``p`` if it is
    anything but a regular file (a link is not followed)."""
    try:
        st = os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (a missing folder is named by the caller)
        return None
    except OSError as exc:
        raise _named(exc, f"{p}: cannot write the {what}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise FileExistsError(f"{p}: is a symbolic link to {os.readlink(p)}; skilib neither writes through nor "
                              f"replaces a link: give the real path")
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{p}: is a folder; the {what} needs a file name")
    for test, kind in _SPECIAL:
        if test(st.st_mode):
            raise FileExistsError(f"{p}: is a {kind}, not a regular file; only a regular file is replaced: give "
                                  f"the {what} another name")
    return st


def check_target(path, *, overwrite: bool = False, make_parents: bool = False, what: str = "file",
                 suffixes=None) -> Path:
    """``path`` as a ``Path`` if a file may be written there, else an error naming it.

    Refused: a folder or a name ending in "/" (``IsADirectoryError``); a symbolic link, a
    device, a FIFO or a socket, whatever ``overwrite`` says, and an existing regular file
    without ``overwrite=True`` (``FileExistsError``); a suffix not in ``suffixes`` (when given,
    e.g. ``(".c3d",)``; compared case-insensitively: ``ValueError``); a missing folder unless
    ``make_parents`` (``FileNotFoundError``); a parent that is a file (``NotADirectoryError``).
    ``overwrite`` must be True or False.  Nothing is created or changed.
    """
    overwrite = check_bool("overwrite", overwrite)
    make_parents = check_bool("make_parents", make_parents)
    p = _as_path(path, what)
    exists = _refuse_special(p, what) is not None
    if suffixes is not None and p.suffix.lower() not in suffixes:
        got = f"the suffix {p.suffix!r}" if p.suffix else "no suffix"
        raise ValueError(f"{p}: the {what} needs a name ending in {' or '.join(suffixes)} (any case), got {got}")
    if exists and not overwrite:
        raise FileExistsError(f"{p}: exists; pass overwrite=True to replace it")
    parent = p.parent
    for folder in (parent, *parent.parents):
        if folder.exists():
            if not folder.is_dir():
                raise NotADirectoryError(f"{p}: cannot write the {what}: {folder} is not a folder")
            break
        if not make_parents:
            raise FileNotFoundError(f"{p}: cannot write the {what}: the folder {parent} does not "
                                                  "exist (create it first)")
    return p


def _named(exc: OSError, message: str) -> OSError:
    """An OSError of the same kind as ``exc`` (PermissionError, ...) with ``message``."""
    cls = type(OSError(exc.errno, "")) if exc.errno is not None else OSError  # the subclass errno maps to
    new = cls(message)
    new.errno = exc.errno  # (not strerror: str() would then show "[Errno n] strerror" instead of the message)
    return new


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not every system opens folders (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems cannot sync a folder
        pass
    finally:
        os.close(fd)


def _publish(tmp: Path, target: Path, overwrite: bool) -> None:
    """``tmp`` onto ``target`` in one step; without ``overwrite`` never over a file that
    appeared meanwhile (a hard link fails if the name is taken)."""
    if overwrite:
        st = _refuse_special(target, "file")  # again: it may have changed while writing
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))  # the replaced file's permission bits
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise FileExistsError(f"{target}: exists (it appeared while writing); pass "
                                            "overwrite=True to replace it") from None
    except OSError:  # no hard links on this file system: check, then move
        if target.exists() or target.is_symlink():
            raise FileExistsError(f"{target}: exists (it appeared while writing); pass "
                                                "overwrite=True to replace it") from None
        os.replace(tmp, target)


def write_atomic(path, write, *, overwrite: bool = False, verify=None, make_parents: bool = False,
                 what: str = "file", suffixes=None) -> Path:
    """Write a file with ``write(tmp_path)`` and move it onto ``path`` only once it is complete.

    Parameters
    ----------
    path : str or Path, the file to write.
    write : callable ``write(tmp_path)`` that writes the whole content to ``tmp_path`` (a
        ``Path`` with the target's name, in a temporary folder next to the target).
    overwrite : replace an existing ``path`` (default: refuse it, ``FileExistsError``).
    verify : callable ``verify(tmp_path)`` run on the written file before it is moved; it
        raises (any exception) or returns False if the file is not what was meant to be
        written (e.g. its re-read frame or row count differs).
    make_parents : create missing folders of ``path`` (default: refuse, ``FileNotFoundError``).
    what : what the file is, for the messages ("C3D file", "sweep table").
    suffixes : the suffixes the format's name may end in (lower case, e.g. ``(".c3d",)``);
        None: any (see :func:`check_target`).

    Returns the ``Path`` written.  See the module for the guarantees; a failure raises
    ``OSError`` naming ``path`` and the cause (the ``ValueError``/``TypeError`` of a writer that
    refuses its input is raised as it is, with the temporary path replaced by ``path``), and
    leaves neither a temporary file nor a changed target.
    """
    if not callable(write):
        raise TypeError(f"write: expected a callable write(tmp_path), got {write!r}")
    if verify is not None and not callable(verify):
        raise TypeError(f"verify: expected None or a callable verify(tmp_path), got {verify!r}")
    p = check_target(path, overwrite=overwrite, make_parents=make_parents, what=what, suffixes=suffixes)
    try:
        if make_parents:
            p.parent.mkdir(parents=True, exist_ok=True)
        tmpdir = Path(tempfile.mkdtemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent))
    except OSError as exc:
        raise _named(exc, f"{p}: cannot write the {what}: {exc.strerror or exc}") from exc
    tmp = tmpdir / p.name

    def named(text: str) -> str:  # messages name the target, never the temporary file
        return text.replace(str(tmp), str(p)).replace(str(tmpdir), str(p.parent))

    try:
        try:
            write(tmp)
        except OSError as exc:
            raise _named(exc, f"{p}: cannot write the {what}: {named(exc.strerror or str(exc))}") from exc
        except (ValueError, TypeError) as exc:  # the writer refused its input: its own message
            if named(str(exc)) == str(exc):
                raise
            raise (ValueError if isinstance(exc, ValueError) else TypeError)(named(str(exc))) from exc
        except Exception as exc:  # noqa: BLE001 - a library's own error (ezc3d, pyarrow): say where
            raise OSError(f"{p}: writing the {what} failed: {type(exc).__name__}: {named(str(exc))}") from exc
        if not tmp.is_file():
            raise OSError(f"{p}: writing the {what} failed: the writer left no file")
        if tmp.stat().st_size == 0:
            raise OSError(f"{p}: writing the {what} failed: the written file is empty")
        if verify is not None:
            try:
                ok = verify(tmp)
            except Exception as exc:  # noqa: BLE001 - whatever the check raised, the file is not right
                raise OSError(f"{p}: the written {what} does not read back as written: "
                              f"{named(str(exc))}") from exc
            if ok is False:
                raise OSError(f"{p}: the written {what} does not read back as written")
        try:
            _fsync(tmp)
            _publish(tmp, p, overwrite)
        except (FileExistsError, IsADirectoryError):
            raise
        except OSError as exc:
            raise _named(exc, f"{p}: cannot write the {what}: {exc.strerror or exc}") from exc
        _fsync_folder(p.parent)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return p


def units_sidecar(path) -> Path:
    """The units' file beside the CSV table ``path``: ``<stem>.units.json`` (``strokes.csv`` →
    ``strokes.units.json``)."""
    p = Path(path)
    return p.with_name(p.stem + ".units.json")


def save_table(frame, path, *, overwrite: bool = False, units: dict | None = None, **to_csv) -> Path:
    """``frame`` (a DataFrame) as CSV at ``path``, atomically (:func:`write_atomic`), checked by
    reading the file back: as many data rows and columns as the frame has (for one header row;
    a frame with several column levels is checked for its rows).  ``to_csv`` are pandas'
    ``DataFrame.to_csv`` keywords (``index=False``, ...).

    ``units`` ({column: unit}, e.g. a result's ``units``, ``skilib.vocabulary``): also writes the
    unit of every column, in the table's order, as a JSON object at ``units_sidecar(path)``
    (``<stem>.units.json``), atomically, after the table; a column without a unit (or an empty
    one) is a ValueError naming it, and the sidecar's name is checked as the table's (it exists
    without ``overwrite``: ``FileExistsError``), both before anything is written."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame: expected a pandas DataFrame, got {type(frame).__name__}")
    if units is not None:
        import json

        missing = [str(c) for c in frame.columns if not units.get(str(c))]
        if missing:
            raise ValueError(f"units: no unit for the column(s) {', '.join(missing)}")
        side = check_target(units_sidecar(_as_path(path, "CSV table")), overwrite=overwrite, what="units file")
        text = json.dumps({str(c): units[str(c)] for c in frame.columns}, indent=1, ensure_ascii=False) + "\n"
        written = save_table(frame, path, overwrite=overwrite, **to_csv)
        save_text(text, side, overwrite=overwrite)
        return written
    index = to_csv.get("index", True)
    shape = (len(frame), frame.shape[1] + (frame.index.nlevels if index else 0))

    levels = frame.columns.nlevels
    header = None if to_csv.get("header", True) is False else list(range(levels)) if levels > 1 else 0

    def verify(tmp):
        back = pd.read_csv(tmp, sep=to_csv.get("sep", ","), header=header,
                           index_col=list(range(frame.index.nlevels)) if levels > 1 and index else None)
        if levels > 1:
            back = back.dropna(how="all")  # the line of index names pandas writes under the header
            if len(back) != shape[0]:
                raise ValueError(f"read back {len(back)} rows, wrote {shape[0]}")
        elif back.shape != shape:
            raise ValueError(f"read back {back.shape[0]} rows × {back.shape[1]} columns, wrote {shape[0]} × {shape[1]}")

    return write_atomic(path, lambda tmp: frame.to_csv(tmp, **to_csv), overwrite=overwrite, verify=verify,
                        what="CSV table")


def save_text(text: str, path, *, overwrite: bool = False, encoding: str = "utf-8") -> Path:
    """``text`` at ``path`` (UTF-8), atomically, checked by reading it back unchanged."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")

    def verify(tmp):
        return Path(tmp).read_text(encoding=encoding) == text

    return write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding=encoding), overwrite=overwrite,
                        verify=verify, what="text file")


def save_figure(figure, path, *, overwrite: bool = False, **savefig) -> Path:
    """A matplotlib ``figure`` at ``path`` (the format from its suffix, or ``format=``),
    atomically; a PNG is checked by its signature bytes.  ``savefig`` are matplotlib's
    ``Figure.savefig`` keywords (``dpi=``, ``bbox_inches=``, ...)."""
    if not hasattr(figure, "savefig"):
        raise TypeError(f"figure: expected a matplotlib Figure, got {type(figure).__name__}")
    png = (savefig.get("format") or Path(str(path)).suffix.lstrip(".")).lower() == "png"

    def verify(tmp):
        return not png or Path(tmp).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    return write_atomic(path, lambda tmp: figure.savefig(tmp, **savefig), overwrite=overwrite, verify=verify,
                        what="figure")
