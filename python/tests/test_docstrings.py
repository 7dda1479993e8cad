"""The public Python API documents itself: every public class, function, method and
property has a docstring (help() and IDEs show it without the repository's docs), and the
main entry points say what they raise and show an example."""

import inspect

import nbfft
import nbfft.coll
import nbfft.io


def _public_members(cls):
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property) or inspect.isfunction(member):
            yield "{}.{}".format(cls.__name__, name), member


def _api():
    for module in (nbfft, nbfft.coll, nbfft.io):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue  # the error classes: nbfft._errors, documented there
            yield "{}.{}".format(module.__name__, name), obj
            if inspect.isclass(obj):
                yield from _public_members(obj)


def test_every_public_name_has_a_docstring():
    missing = [name for name, obj in _api() if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, "no docstring: {}".format(", ".join(missing))


def test_entry_points_state_errors_and_examples():
    for obj in (nbfft.Plan, nbfft.Plan.forward, nbfft.Plan.gather, nbfft.Plan.scatter, nbfft.coll.Comm,
                nbfft.coll.alltoall, nbfft.required_thread_level, nbfft.io.File,
                nbfft.io.File.write, nbfft.io.File.read, nbfft.Pencils, nbfft.Pencils.transpose):
        doc = inspect.getdoc(obj)
        assert "Raises" in doc and ("Examples" in doc or ">>>" in doc), obj.__qualname__
