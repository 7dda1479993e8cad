"""nbfft-experiments: the seed papers' experiments, one command each (issue 11).

The registry (registry.py) names each experiment's seed, figure, what the seed reported and
how the verdict is computed; the seed*_*.py modules hold the experiments; runner.py runs
the CLIs (nbfft-bench, nbfft-sine) through mpirun or the emulated cluster and writes
results/NAME/{data.json, NAME.png, NAME.svg, verdict.md} and results/index.md.
"""
