from calc_impl import add


def test_add_fixed():
    assert add(2, 2) == 4
