"""Trident programs the tests submit (each module is copied into a project directory)."""
