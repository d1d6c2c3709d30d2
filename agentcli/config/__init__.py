"""Profiles (layer 1): schema, discovery, loading and writing."""
