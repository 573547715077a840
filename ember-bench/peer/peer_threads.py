"""The thread count the torch peer scripts (torch_*.py) run torch with: `--threads N` on the
command line, else every CPU this process may run on (os.sched_getaffinity), as Ember's kernels use
every core the JVM may use. Nothing assumes the project's 2-core machine; for the one-thread rows of
docs/benchmarks.md's scaling table run the script with --threads 1 and JMH with
-jvmArgsPrepend -XX:ActiveProcessorCount=1.

    import peer_threads
    THREADS = peer_threads.use(torch)
"""
import os
import sys


def requested(default=None):
    """The value after --threads, else `default`, else the CPUs this process may use."""
    if "--threads" in sys.argv:
        i = sys.argv.index("--threads")
        if i + 1 >= len(sys.argv) or not sys.argv[i + 1].isdigit() or int(sys.argv[i + 1]) < 1:
            sys.exit(f"{os.path.basename(sys.argv[0])}: --threads needs a whole number of threads, at least 1")
        return int(sys.argv[i + 1])
    if default is not None:
        return default
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def use(torch, default=None):
    """Sets torch's intra-op threads to requested(default) and returns the count."""
    n = requested(default)
    torch.set_num_threads(n)
    return n
