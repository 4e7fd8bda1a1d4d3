"""`python -m gprof ARGS` and the `gpuprof` command of the wheel: both run the
gpuprof binary with ARGS. exec, not a child: the binary gets the signals, the
terminal and the exit status as if it had been started directly."""

import os
import sys

from gprof import gpuprof_path


def main():
    binary = gpuprof_path()
    try:
        os.execv(binary, ["gpuprof", *sys.argv[1:]])
    except OSError as error:
        sys.exit(f"gpuprof: cannot run {binary}: {error.strerror}")


if __name__ == "__main__":
    main()
