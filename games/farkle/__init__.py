"""Farkle: scoring tables, rule sets and the turn engine."""
