"""Project tools run by hand (not part of the installed bot): `python -m tools.<name>`."""
