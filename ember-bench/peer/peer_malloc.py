"""glibc malloc settings shared by the torch peer scripts (torch_*.py): keep freed memory.

On the project's virtual machine a fresh page costs so much that torch's figures are up to 25x
worse when glibc hands freed blocks back to the kernel and maps new ones for the next tensor
(issue #18: the arithmetic chain took 982 ms eager instead of 39). These variables make glibc keep
what it freed, as libtorch's own caching allocator would on a GPU, so every run compares Ember
against torch at its best here. glibc reads them once, when the process starts, so setting them
in os.environ is too late: a script that finds them missing re-executes itself with them.

Each peer script calls keep_freed_memory() first thing, before it imports torch:

    import peer_malloc
    peer_malloc.keep_freed_memory()
"""
import os
import sys

SETTINGS = {
    # never mmap a block of its own (and so never munmap it on free) below 4 GiB
    "MALLOC_MMAP_THRESHOLD_": "4294967296",
    # never give the top of the heap back to the kernel below 4 GiB free
    "MALLOC_TRIM_THRESHOLD_": "4294967296",
    # grow the heap 256 MiB beyond each request, so growth is rare
    "MALLOC_TOP_PAD_": "268435456",
}

# Set in the re-executed process: if the settings are still missing there, exec did not pass the
# environment on, and looping would never end.
_REEXEC_MARK = "EMBER_PEER_MALLOC_REEXEC"


def missing():
    """The settings this process did not start with (name -> wanted value)."""
    return {k: v for k, v in SETTINGS.items() if os.environ.get(k) != v}


def keep_freed_memory():
    """Makes sure this process runs with SETTINGS, re-executing it with them when they are missing,
    and prints one line saying so."""
    absent = missing()
    if absent:
        if os.environ.get(_REEXEC_MARK):
            raise RuntimeError("peer_malloc: re-executed, but the environment still lacks " + ", ".join(absent))
        env = dict(os.environ, **SETTINGS)
        env[_REEXEC_MARK] = "1"
        sys.stdout.flush()
        sys.stderr.flush()
        # sys.orig_argv keeps the interpreter's own options (-u, -X ...) as well as the script's
        os.execve(sys.executable, sys.orig_argv, env)
    how = "set by the script, which re-executed itself with them" if os.environ.pop(_REEXEC_MARK, None) else "already in the environment"
    print("glibc malloc keeps freed memory: " + " ".join(f"{k}={v}" for k, v in SETTINGS.items()) + f" ({how})", flush=True)
