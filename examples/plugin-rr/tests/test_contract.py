"""The plugin's own tests: the contract battery every authormask mechanism passes, imported
from the installed package."""

import pytest

from authormask.testing import Battery, parametrize_with_checks


@pytest.fixture(scope="module")
def battery(tmp_path_factory):
    return Battery.default(tmp_path_factory.mktemp("cache"))


@parametrize_with_checks(["toy-rr"])
def test_contract(name, check, battery):
    check(name, battery)
