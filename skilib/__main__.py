"""``python -m skilib``: the ``skilib`` command (``skilib.cli``)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
