# The client's version: Lull's one version (the top-level VERSION file), which tests/test_version.py checks.
__version__ = "0.1.0"
