"""Typer commands (layer 8): option wiring only; the work lives in lower layers."""
