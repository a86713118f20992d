"""CRAP: Challenge, Recycle, Acquire and Protect, a card game for 3-6 players."""
