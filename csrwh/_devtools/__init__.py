"""Tools for the project's developers (checks run by tests and by hand); not used at run time."""
