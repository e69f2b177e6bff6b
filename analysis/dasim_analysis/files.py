"""The one way dasim_analysis writes a file: under a temporary name in the target's directory,
renamed into place (os.replace), so a run that fails or is killed never leaves half a table,
figure or JSON file where a reader expects a whole one."""

import csv
import json
import os
import tempfile

from .errors import EXIT_FAILURE, fail


def write_atomically(path, write, binary=False):
    """Calls WRITE(stream) on a temporary file next to PATH, then renames it to PATH."""
    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=directory)
        with (os.fdopen(handle, "wb") if binary else
              os.fdopen(handle, "w", encoding="utf-8", newline="")) as stream:
            write(stream)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
        os.replace(temporary, path)
    except OSError as error:
        if temporary and os.path.exists(temporary):
            os.remove(temporary)
        fail(f"{path}: cannot write: {error.strerror or error}", EXIT_FAILURE)


def write_text(path, text):
    write_atomically(path, lambda stream: stream.write(text))


def write_json(path, value):
    """VALUE as indented JSON with a final newline (what the C++ tools write too)."""
    write_text(path, json.dumps(value, indent=2) + "\n")


def format_cell(value):
    """A CSV cell: floats with 9 significant digits, as the C++ writes its results files (so the
    tables read alike and reruns are byte-identical), anything else as str() gives it."""
    return f"{value:.9g}" if isinstance(value, float) else str(value)


def write_csv(path, header, rows):
    """HEADER and ROWS (sequences of cells) as CSV, quoted only where a cell needs it."""
    def write(stream):
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([format_cell(cell) for cell in row] for row in rows)
    write_atomically(path, write)
