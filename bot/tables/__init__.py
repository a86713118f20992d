"""Adapters between the pure engines and Discord: each turns clicks into engine actions and
engine state into a public table message."""
