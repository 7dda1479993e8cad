"""Runnable examples: ``mpirun -n 4 python -m mpi4py -m nbfft.examples.poisson`` and ``... .taylor_green``."""
