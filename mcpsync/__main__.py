import sys

from ._edges.cli import main

sys.exit(main())
