"""The public surface is exactly what __all__ says, and every name in it exists."""

import graphmem


def test_all_names_exist_and_are_public():
    assert graphmem.__all__ == sorted(graphmem.__all__)
    for name in graphmem.__all__:
        assert getattr(graphmem, name) is not None


def test_every_public_class_or_error_is_exported():
    exported = set(graphmem.__all__)
    from graphmem.schema import errors

    assert set(errors.__all__) <= exported
    assert {"Memory", "Settings", "FactRecord", "Timeline"} <= exported


def test_every_error_descends_from_the_root():
    from graphmem.schema import errors

    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.GraphMemError)
