"""SAS numerics: the spec's float vectors (10.3), missing values, truncated lengths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.sas.datasets import (
    Observations,
    Variable,
    decode_doubles,
    encode_doubles,
    float_to_hfp,
    hfp_to_float,
)

# Spec 10.3 (values from the SAS Companion for z/OS)
HFP = {"421F800000000000": 31.5, "433E800000000000": 1000.0, "41C4000000000000": 12.25,
       "C27B000000000000": -123.0, "434D200000000000": 1234.0, "41E0000000000000": 14.0}
IEEE_BE = {"402C000000000000": 14.0, "403F800000000000": 31.5}


def _raw(hexes: list[str], width: int = 8) -> np.ndarray:
    return np.frombuffer(bytes.fromhex("".join(hexes)), np.uint8).reshape(-1, width)


def test_hfp_vectors_both_ways() -> None:
    values, codes = decode_doubles(_raw(list(HFP)), "ibm-hfp")
    assert values.tolist() == list(HFP.values()) and not codes.any()
    assert [b.hex().upper() for b in encode_doubles(list(HFP.values()), "ibm-hfp")] == list(HFP)


def test_ieee_vectors_both_byte_orders() -> None:
    values, _ = decode_doubles(_raw(list(IEEE_BE)), "ieee-be")
    assert values.tolist() == [14.0, 31.5]
    le = [bytes.fromhex(h)[::-1].hex() for h in IEEE_BE]
    assert decode_doubles(_raw(le), "ieee-le")[0].tolist() == [14.0, 31.5]
    assert encode_doubles([14.0], "ieee-le")[0] == bytes.fromhex("0000000000002C40")


def test_missing_values() -> None:
    values, codes = decode_doubles(_raw(["FFFFFE0000000000", "FFFFFD0000000000", "FFFFE40000000000",
                                         "FFFFFF0000000000", "0000000000000000"]), "ieee-be")
    assert [chr(c) if c else None for c in codes] == [".", "A", "Z", "_", None]
    assert np.isnan(values[:4]).all() and values[4] == 0.0
    values, codes = decode_doubles(_raw(["4B00000000000000", "C100000000000000", "E900000000000000",
                                         "6D00000000000000", "0000000000000000"]), "ibm-hfp")
    assert [chr(c) if c else None for c in codes] == [".", "A", "Z", "_", None]
    assert values[4] == 0.0
    assert encode_doubles([None, ".", ".B", "._"], "ibm-hfp") == [
        bytes.fromhex(h) for h in ("4B00000000000000", "4B00000000000000", "C200000000000000",
                                   "6D00000000000000")]
    assert encode_doubles(["."], "ieee-be") == [bytes.fromhex("FFFFFE0000000000")]


def test_truncated_numerics_keep_the_most_significant_bytes() -> None:
    assert decode_doubles(_raw(["41E000"], 3), "ibm-hfp")[0].tolist() == [14.0]
    assert decode_doubles(_raw(["402C00"], 3), "ieee-be")[0].tolist() == [14.0]
    assert decode_doubles(_raw(["002C40"], 3), "ieee-le")[0].tolist() == [14.0]
    assert encode_doubles([14.0], "ieee-le", 3) == [bytes.fromhex("002C40")]


def test_hfp_limits() -> None:
    with pytest.raises(ValueError, match="too large for IBM HFP"):
        float_to_hfp(np.array([1e80]))
    with pytest.raises(ValueError, match="NaN"):
        float_to_hfp(np.array([float("nan")]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(min_value=-1e70, max_value=1e70, allow_nan=False), min_size=1))
def test_hfp_round_trip_within_double_precision(xs: list[float]) -> None:
    x = np.array(xs)
    back, codes = hfp_to_float(float_to_hfp(x))
    assert not codes.any()
    tiny = np.abs(x) < 5.4e-79  # below HFP's smallest normal number: becomes zero
    assert np.allclose(back[~tiny], x[~tiny], rtol=2 ** -52, atol=0)


def test_observations_definition_order_and_numerics_first() -> None:
    variables = [Variable("NAME", vartype=2, length=4), Variable("AGE", length=8)]
    row = "ANNA".encode("cp037") + bytes.fromhex("41E0000000000000")
    obs = Observations(variables, 12, "ibm-hfp", "cp037")
    assert obs.row_values(row) == [["ANNA", 14.0]]
    first = Observations(variables, 12, "ibm-hfp", "cp037", "numerics-first")
    assert first.offsets == [8, 0]
    assert first.row_values(bytes.fromhex("41E0000000000000") + "ANNA".encode("cp037")) == [
        ["ANNA", 14.0]]
    bad = Observations(variables, 16, "ibm-hfp", "cp037")
    assert bad.problems == ["the variables take 12 bytes but the observation length is 16"]
