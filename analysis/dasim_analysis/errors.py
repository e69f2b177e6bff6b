"""How every dasim_analysis command stops on an error: one line on stderr and an exit status.

Status 2 is the project's bad-input convention (a wrong file or option: nothing was written);
status 1 means the input was fine but the work could not be done (a file could not be written).
"""

import sys

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1


def fail(message, status=EXIT_BAD_INPUT):
    """Prints MESSAGE (one line naming the file or option and the problem) on stderr and exits."""
    print(message, file=sys.stderr)
    sys.exit(status)
