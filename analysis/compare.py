#!/usr/bin/python3
"""Predicted vs measured iteration time: `python3 -m dasim_analysis compare`.

Kept at this path, with its arguments, because the tests and docs run it by path.
"""

import os
import sys

# The package sits next to this file; put it on the path whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dasim_analysis.compare import main  # noqa: E402

if __name__ == "__main__":
    main()
