"""One module per ``lpbn`` subcommand (see :mod:`lpbn.cli`)."""
