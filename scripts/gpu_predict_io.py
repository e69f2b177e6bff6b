"""What the predict scripts of scripts/gpu-validation.sh share: a one-line refusal (exit status 2)
named after the script, and JSON reading that refuses that way."""

import json
import os
import sys


def fail(message):
    print(f"{os.path.splitext(os.path.basename(sys.argv[0]))[0]}: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        fail(f"{path}: cannot read as JSON: {error}")
