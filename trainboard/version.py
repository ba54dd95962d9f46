"""trainboard's version, read by the package's metadata (pyproject.toml) and shown by the CLI and the API."""

__version__ = "0.1.0"
