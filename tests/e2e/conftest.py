"""Fixtures for end-to-end tests (helpers live in e2e_helpers.py)."""

from e2e_helpers import _key, workspace  # noqa: F401
