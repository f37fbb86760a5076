"""Generators of test and benchmark inputs (not used by the tool itself)."""
