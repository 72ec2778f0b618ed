"""Shared fixtures: a fresh file database per test (in pytest's temporary directory)."""

import pytest

import basalt


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "test.basalt")


@pytest.fixture
def con(path):
    connection = basalt.connect(path)
    yield connection
    try:
        connection.close()
    except basalt.ProgrammingError:
        pass
