"""Prints the include folder of NVIDIA's CUDA 13 pip packages (nvidia-cuda-cupti,
nvidia-cuda-runtime, nvidia-cuda-crt, nvidia-cuda-profiler-api and nvidia-nvtx
all put their headers in nvidia/cu13/include), for meson.build's
nvidia_headers=pip: the wheel builds without the CUDA Toolkit."""

import os
import sys

NEEDED = ("cupti.h", "cuda.h", "cuda_runtime_api.h", "cuda_profiler_api.h",
          os.path.join("crt", "host_defines.h"), os.path.join("nvtx3", "nvToolsExt.h"))
PACKAGES = ("nvidia-cuda-cupti nvidia-cuda-runtime nvidia-cuda-crt nvidia-cuda-profiler-api "
            "nvidia-nvtx")

try:
    import nvidia
except ImportError:
    sys.exit("nvidia_headers=pip: no 'nvidia' package in " + sys.executable +
             " (pip install " + PACKAGES + ")")

missing = list(NEEDED)
for base in nvidia.__path__:
    include = os.path.join(base, "cu13", "include")
    missing = [h for h in NEEDED if not os.path.isfile(os.path.join(include, h))]
    if not missing:
        print(include)
        sys.exit(0)
sys.exit("nvidia_headers=pip: nvidia/cu13/include lacks " + ", ".join(missing) +
         " (pip install " + PACKAGES + ")")
