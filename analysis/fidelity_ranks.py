#!/usr/bin/python3
"""Rank by rank in a fidelity folder: `python3 -m dasim_analysis fidelity-ranks`.

Kept at this path, with its arguments, because the tests and docs run it by path.
"""

import os
import sys

# The package sits next to this file; put it on the path whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dasim_analysis.fidelity_ranks import main  # noqa: E402

if __name__ == "__main__":
    main()
