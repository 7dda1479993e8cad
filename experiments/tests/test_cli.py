"""nbfft-experiments' command line (issue 37): every bad argument is one message naming the
option and a non-zero exit, before any experiment runs (no MPI: the runs never start)."""
import pytest

from nbfft_experiments import cli as C


@pytest.fixture
def build(tmp_path):
    """A build folder that passes run's check for its benchmarks (never run here)."""
    (tmp_path / "bin").mkdir()
    for prog in ("nbfft-bench", "nbfft-sine"):
        (tmp_path / "bin" / prog).write_text("#!/bin/sh\nexit 99\n")
    return tmp_path


@pytest.mark.parametrize("argv, what", [
    (["run", "--bogus"], "unrecognized arguments: --bogus"),           # not "required: names"
    (["list", "--bogus"], "unrecognized arguments: --bogus"),
    (["run", "all", "--repeats", "abc"], "--repeats: invalid int value"),
    (["bogus"], "invalid choice: 'bogus'"),
    ([], "the following arguments are required: cmd"),
])
def test_argparse_errors_exit_2_naming_the_option(argv, what, capsys):
    with pytest.raises(SystemExit) as e:
        C.main(argv)
    assert e.value.code == 2
    assert what in capsys.readouterr().err


@pytest.mark.parametrize("extra, what", [
    (["--cluster", "nonsense"], "--cluster: expected HOSTSxRANKS@RATE"),  # was a traceback
    (["--cluster", "0x1@1gbit"], "--cluster: expected HOSTSxRANKS@RATE"),
    (["--repeats", "1"], "--repeats must be at least 2"),
    (["--lock", "/nonexistent-nbfft-dir/lock"], "--lock: No such file or directory"),  # was each run failing
])
def test_run_refuses_before_the_first_experiment(build, tmp_path, extra, what):
    argv = ["run", "s000_table1", "--quick", "--build", str(build), "--out", str(tmp_path / "res"), *extra]
    with pytest.raises(SystemExit) as e:
        C.main(argv)
    assert what in str(e.value.code)
    assert not (tmp_path / "res" / "s000_table1").exists()


def test_unknown_experiment_is_named(build):
    with pytest.raises(SystemExit) as e:
        C.main(["run", "nosuch", "--build", str(build)])
    assert "unknown experiment(s) nosuch" in str(e.value.code)
