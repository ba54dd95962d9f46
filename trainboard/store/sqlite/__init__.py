"""The embedded SQLite backend and its in-file blob store."""
