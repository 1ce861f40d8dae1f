"""Subcommands of robot-id, one module each: add_parser(subparsers) and run(args) -> exit code."""
