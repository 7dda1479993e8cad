"""`python -m nbfft`: the description and the self-test, in process on every rank (the
Makefile also runs the module itself under mpirun, and checks that a failing self-test
exits non-zero)."""

import io
import re

import numpy as np
import pytest

import nbfft
from nbfft import __main__ as cli
from nbfft import _core

from conftest import COMM, all_ranks


def test_version_has_one_source():
    # pyproject's version is read from CMakeLists.txt; nbfft.__version__ from nbfft/version.h.
    from importlib.metadata import version
    assert re.fullmatch(r"\d+\.\d+\.\d+", nbfft.__version__)
    assert version("nbfft") == nbfft.__version__ == _core.version


def test_describe_names_everything():
    text = cli.describe()
    lines = dict(line.split(": ", 1) for line in text.splitlines())
    assert lines["nbfft"] == nbfft.__version__
    assert lines["MPI library"].split("(MPI standard")[0].strip() in MPI_FIRST_LINE
    provided = nbfft.thread_level_name(nbfft.MPI.Query_thread())
    assert lines["MPI thread level"].startswith("provided " + provided + ";")
    assert "thread engine MPI_THREAD_MULTIPLE" in lines["MPI thread level"]
    backends = lines["local FFT backends"]  # "fftw (fftw-3.3.10 ...); mkl (...), default fftw"
    assert backends.startswith(("fftw (fftw-3", "mkl (")) and ", default " in backends
    assert "static, inside the Python extension" in lines["build"]
    for name, _, _ in nbfft.coll.engines():
        assert name in lines["engines"]
    for name, expansion, _ in nbfft.transport_presets():
        assert "{} = {}".format(name, expansion) in lines["transports"]
    assert "pairwise[:W]" in lines["algorithms"]
    assert "numpy " + np.__version__ in lines["Python"]


MPI_FIRST_LINE = nbfft.MPI.Get_library_version().splitlines()[0]


def test_self_test_passes(comm):
    out = io.StringIO()
    ok = cli.self_test(comm, out=out)
    assert all_ranks(ok)
    if comm.rank == 0:
        assert "nbfft self-test: passed" in out.getvalue()
        assert len(re.findall(r" ok$", out.getvalue(), re.M)) >= 3
    else:
        assert out.getvalue() == ""  # only rank 0 prints


def test_self_test_can_fail(comm):
    # A zero tolerance fails the comparison with numpy (rounding differs) on every rank.
    out = io.StringIO()
    ok = cli.self_test(comm, tolerance=0.0, out=out)
    assert all_ranks(not ok)
    if comm.rank == 0:
        assert "nbfft self-test: FAILED" in out.getvalue()


@pytest.mark.parametrize("argv, names", [
    (["--test", "--tolerance", "-1"], "--tolerance must be a finite number >= 0"),
    (["--test", "--tolerance", "inf"], "--tolerance must be a finite number >= 0"),  # a test that cannot fail
    (["--test", "--tolerance", "nan"], "--tolerance must be a finite number >= 0"),
    (["--tolerance", "1e-9"], "--tolerance applies to --test only"),
    (["--test", "--tolerance"], "--tolerance: expected one argument"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_arguments_are_an_error(argv, names, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    assert names in capsys.readouterr().err
