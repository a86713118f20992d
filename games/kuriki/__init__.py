"""Kuriki: two dice under a cup, declarations, lies, pulls and lives."""
