"""tools.py: the lookup over the subset's page tables and the arithmetic tools, called as the
agent calls them."""

from __future__ import annotations

import pytest

from tests.sample.sample_support import sample_tools

MRO = "Single_MRO/2007/page_134.pdf-1"
PRICE = "weighted average exercise price per share"


def test_lookup_reads_a_cell_by_the_names_the_table_prints() -> None:
    assert sample_tools().lookup(MRO, PRICE, "2007") == 60.94
    assert sample_tools().lookup(MRO, PRICE, "2005") == 25.14
    assert isinstance(sample_tools().lookup(MRO, PRICE, "2006"), float)


def test_lookup_ignores_case_and_spacing_of_every_name() -> None:
    shouted = "  Weighted  AVERAGE exercise   price per Share "
    assert sample_tools().lookup(MRO, shouted, " 2007 ") == 60.94
    assert sample_tools().lookup(f" {MRO.upper()} ", PRICE, "2007") == 60.94


def test_an_unknown_row_lists_the_rows() -> None:
    with pytest.raises(ValueError) as raised:
        sample_tools().lookup(MRO, "dividend yield", "2007")
    message = str(raised.value)
    assert message.startswith("no row 'dividend yield'; the rows are: ")
    assert f"'{PRICE}'" in message and "'expected volatility'" in message


def test_an_unknown_column_lists_the_columns() -> None:
    with pytest.raises(ValueError) as raised:
        sample_tools().lookup(MRO, PRICE, "2008")
    assert str(raised.value) == "no column '2008'; the columns are: '2007'; '2006'; '2005'"


def test_an_unknown_document_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"^no page with document id 'Single_XYZ/2020/p\.pdf'$"):
        sample_tools().lookup("Single_XYZ/2020/p.pdf", PRICE, "2007")


@pytest.mark.parametrize(
    ("tool", "a", "b", "result"),
    [
        ("add", 189, 68, 257.0),
        ("subtract", 60.94, 25.14, pytest.approx(35.8)),
        ("multiply", 0.10826, 100, pytest.approx(10.826)),
        ("divide", 3, 8, 0.375),
        ("exp", 1.1, 2, pytest.approx(1.21)),
        ("exp", 4, 0.5, 2.0),
    ],
)
def test_arithmetic(tool: str, a: float, b: float, result: object) -> None:
    value = getattr(sample_tools(), tool)(a, b)
    assert isinstance(value, float)
    assert value == result


def test_divide_by_zero_raises() -> None:
    with pytest.raises(ZeroDivisionError, match="b is 0"):
        sample_tools().divide(1, 0)


@pytest.mark.parametrize(("a", "b", "answer"), [(2, 1, "yes"), (1, 2, "no"), (1, 1, "no")])
def test_greater_answers_yes_or_no(a: float, b: float, answer: str) -> None:
    assert sample_tools().greater(a, b) == answer
