"""Runnable examples: ``mpirun -n 4 python -m nbfft.examples.poisson`` and ``... .taylor_green``."""
