"""``python -m jecs_build``: the same options as ``jecs build-sample``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
