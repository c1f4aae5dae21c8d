"""Storage: everything kept in Redis — the only package that imports redis."""
