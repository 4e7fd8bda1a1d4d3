"""Ranges of the Python nvtx package (https://github.com/NVIDIA/NVTX, python/),
for test_nvtx_package.py: annotate as a decorator and as a context manager, in
the default domain and in a named one, nested, plus a mark and a start/end range."""

import nvtx

CALLS = 3


@nvtx.annotate("decorated", color="blue")
def decorated():
    with nvtx.annotate("inner", domain="clients"):
        pass


@nvtx.annotate()  # no message: the range is named after the function
def named_after_function():
    pass


def main():
    for _ in range(CALLS):
        with nvtx.annotate("outer", color="green"):
            decorated()
        named_after_function()
    nvtx.mark("a mark", domain="clients")
    handle = nvtx.start_range("start-end", domain="clients")
    nvtx.end_range(handle)


if __name__ == "__main__":
    main()
