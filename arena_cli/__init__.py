"""The `arena` command line: one dispatcher, one module per subcommand."""
