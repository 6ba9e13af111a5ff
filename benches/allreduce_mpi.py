"""All-reduce bandwidth over MPI, side by side: `gradrs.distributed.all_reduce` on a 64 MiB
float32 tensor against mpi4py's `Allreduce` on a numpy array of the same size, in the same
processes, on the same communicator.

    python benches/allreduce_mpi.py                  # starts itself under mpirun -np 2
    python benches/allreduce_mpi.py --mib 16 --np 4  # another size / process count
    mpirun -np 2 python benches/allreduce_mpi.py     # as any MPI program

Method: both are warmed up, then timed in alternating rounds (gradrs, mpi4py, mpi4py, gradrs,
...) so both see the same machine noise; each sample is one all-reduce between two barriers,
timed with MPI.Wtime on every rank and the slowest rank's time kept; a library's figures are the
median and the best of its samples (on a shared machine the best is the one least disturbed by
other work). Bandwidth is the algorithm bandwidth, bytes / time (NCCL-tests' algbw).
gradrs goes through its process group's worker thread and reads the tensor's memory in place
(a numpy view, no copy); the ratio gradrs / mpi4py (bandwidth) is the overhead of that path,
goal >= 0.9. Rank 0 prints the table."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys


def launch(args):
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        sys.exit("mpirun not found: install Open MPI (apt-get install openmpi-bin libopenmpi-dev)")
    cmd = [mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(args.np),
           sys.executable, os.path.abspath(__file__), "--mib", str(args.mib),
           "--rounds", str(args.rounds)]
    sys.exit(subprocess.call(cmd))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=float, default=64)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    if "OMPI_COMM_WORLD_SIZE" not in os.environ and "PMI_SIZE" not in os.environ:
        launch(args)

    import numpy as np

    import gradrs
    import gradrs.distributed as dist

    dist.init_process_group("mpi")
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n = int(args.mib * 1024 * 1024) // 4
    tensor = gradrs.ones(n)
    array = np.ones(n, np.float32)

    def run_gradrs():
        dist.all_reduce(tensor)

    def run_mpi4py():
        comm.Allreduce(MPI.IN_PLACE, array, op=MPI.SUM)

    def sample(fn):
        comm.Barrier()
        t0 = MPI.Wtime()
        fn()
        dt = MPI.Wtime() - t0
        return comm.allreduce(dt, op=MPI.MAX)

    times = {"gradrs": [], "mpi4py": []}
    fns = {"gradrs": run_gradrs, "mpi4py": run_mpi4py}
    for name in fns:  # warm-up: buffers registered, pages touched, the worker started
        sample(fns[name])
        sample(fns[name])
    order = ["gradrs", "mpi4py"]
    for r in range(args.rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            times[name].append(sample(fns[name]))
    # both reduce the same values: the sums agree
    assert float(tensor[0]) == float(array[0])

    if rank == 0:
        nbytes = n * 4
        med = {k: statistics.median(v) for k, v in times.items()}
        best = {k: min(v) for k, v in times.items()}
        bw = {k: nbytes / med[k] / 1e9 for k in med}
        bw_best = {k: nbytes / best[k] / 1e9 for k in best}
        print(f"all_reduce (sum) of {nbytes / 2**20:.0f} MiB float32 over {size} processes "
              f"({MPI.Get_library_version().split(',')[0].strip()}), {args.rounds} samples each")
        print(f"{'':10}{'median ms':>11}{'GB/s':>8}{'best ms':>10}{'GB/s':>8}")
        for k in ("gradrs", "mpi4py"):
            print(f"{k:10}{med[k] * 1e3:11.2f}{bw[k]:8.2f}{best[k] * 1e3:10.2f}{bw_best[k]:8.2f}")
        print(f"ratio gradrs/mpi4py (bandwidth): median {bw['gradrs'] / bw['mpi4py']:.3f}, "
              f"best {bw_best['gradrs'] / bw_best['mpi4py']:.3f} (goal >= 0.9)")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
