"""One module per command, imported only when that command runs."""
