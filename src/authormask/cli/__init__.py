"""Command-line interface: thin typed wrappers over library functions."""
