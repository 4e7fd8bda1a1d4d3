"""gprof: the CUDA API and GPU time of a program, PyTorch training first.

The wheel holds libgprof.so (the shim `gpuprof record` preloads into the
program it runs) and the gpuprof binary, both in this package's folder:
gpuprof finds the library at ../lib/libgprof.so from its own bin/ folder,
with no GPROF_LIB to set."""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def library_path():
    """The absolute path of libgprof.so, for LD_PRELOAD by hand."""
    return os.path.join(_HERE, "lib", "libgprof.so")


def gpuprof_path():
    """The absolute path of the gpuprof binary (what the `gpuprof` command runs)."""
    return os.path.join(_HERE, "bin", "gpuprof")
