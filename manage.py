#!/usr/bin/env python
"""Django's command-line utility for the federation rating database."""

import sys


def main() -> None:
    from federation.environment import configure_or_exit

    configure_or_exit()  # a configuration error is one line naming the variable, not a traceback
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
