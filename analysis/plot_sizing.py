#!/usr/bin/python3
"""Efficiency vs inter-node bandwidth: `python3 -m dasim_analysis plot-sizing`.

Kept at this path, with its arguments, because `dasim run --plot` runs it by path.
"""

import os
import sys

# The package sits next to this file; put it on the path whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dasim_analysis.plot_sizing import main  # noqa: E402

if __name__ == "__main__":
    main()
